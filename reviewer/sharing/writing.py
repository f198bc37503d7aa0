"""`mem-review share`: write this project's shareable facts into its `.mem-review/facts/`
(and its rejections, with their reasons, into `.mem-review/rejections/`).

Shareable: approved and not marked personal by a person. Each gets a share id (a UUID) at
first share and keeps it, and the approver (git's author identity at first share), so a
re-run writes the same bytes and changes nothing. A fact of this store that is no longer
shareable (rejected, retired, made personal) has its file removed. Files of facts this
store does not hold are a teammate's and are left alone; so is a file this store does
hold when the version on origin's default branch names another approver (a teammate
reworded it: `share` reports it as kept instead of reverting it), unless this person
rejected the fact and shares that rejection. Nothing is committed or pushed:
the person reviews the diff and commits it like code. Text, evidence and paths are
redacted again on the way out (a fact approved before a redaction rule existed must not
leak through the repository).
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from reviewer.errors import UserError
from reviewer.freshness import anchors
from reviewer.sanitize.detect import redact
from reviewer.sharing import format as fmt
from reviewer.store import db


@dataclass
class ShareResult:
    folder: Path
    written: list[str] = field(default_factory=list)  # relative paths, new or changed
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    kept: list[str] = field(default_factory=list)  # a teammate's newer version, left alone
    index: str | None = None  # what happened to the readable page: written | removed | None


def git_identity(root: str) -> str:
    """"Name <email>" as git would sign a commit here; UserError when git knows none."""
    out = anchors.run_git(root, "var", "GIT_AUTHOR_IDENT", timeout=5)
    if not out or "<" not in out:
        raise UserError("git has no user.name/user.email here: set them, then share again")
    return out.rsplit(">", 1)[0].strip() + ">"


_COLUMNS = ("SELECT id, text, category, files, anchors, commit_sha, confidence, evidence, "
            "decided_at, status, personal, share_id, approver, reject_reason FROM fact ")


def share(conn: sqlite3.Connection, root: str) -> ShareResult:
    """Bring the folders in line with the store; returns what changed on disk.

    Approved facts go to `.mem-review/facts/`, rejected ones (with the reason, so a
    teammate's extractor skips them) to `.mem-review/rejections/`; a personal fact to
    neither, and a fact's file moves from one folder to the other as its status does."""
    base = Path(root)
    result = ShareResult(folder=base / fmt.FOLDER)
    rows = conn.execute(
        _COLUMNS + "WHERE project = ? AND (share_id IS NOT NULL OR "
        "(status IN ('approved', 'rejected') AND personal = 0)) ORDER BY id",
        (root,),
    ).fetchall()
    decided = [r for r in rows if r[9] in ("approved", "rejected") and not r[10]]
    if any(r[11] is None or r[12] is None for r in decided):
        _assign(conn, decided, git_identity(root))
        rows = conn.execute(
            _COLUMNS + "WHERE project = ? AND share_id IS NOT NULL ORDER BY id", (root,),
        ).fetchall()
    history: list[tuple[int, str, dict[str, str]]] = []
    theirs = _teammates_versions(root)
    for row in rows:
        share_id = row[11]
        if not share_id or not fmt.valid_id(share_id):
            continue
        name = share_id + fmt.SUFFIX
        fact_rel, rej_rel = f"{fmt.FOLDER}/{name}", f"{fmt.REJECTIONS}/{name}"
        want: dict[str, str | None] = {fact_rel: None, rej_rel: None}
        if not row[10] and row[9] == "approved":
            want[fact_rel] = fmt.dumps(_shared(row))
        elif not row[10] and row[9] == "rejected":
            want[rej_rel] = fmt.dumps_rejection(_rejection(row))
        for rel, text in want.items():
            path = base / rel
            if text is not None:
                current = _current(path)
                if current == text:
                    result.unchanged += 1
                    continue
                if rel in theirs and theirs[rel] != row[12]:
                    result.kept.append(rel)  # `share` must not revert a teammate's edit
                    continue
                _write(path, text)
                result.written.append(rel)
                history.append((row[0], "shared", {"file": rel}))
            elif path.is_file() or path.is_symlink():
                if rel in theirs and theirs[rel] != row[12] and (row[10] or row[9] != "rejected"):
                    continue  # only a shared rejection proposes deleting a teammate's file
                path.unlink()
                result.removed.append(rel)
                history.append((row[0], "unshared", {"file": rel, "status": row[9]}))
    result.index = refresh_index(conn, root)
    if history:
        now = db.now()
        with db.transaction(conn):
            conn.executemany(
                "INSERT INTO fact_history (fact_id, at, actor, action, before, after) "
                "VALUES (?, ?, 'share', ?, NULL, ?)",
                [(fid, now, action, json.dumps(after, sort_keys=True))
                 for fid, action, after in history],
            )
    return result


def refresh_index(conn: sqlite3.Connection | None, root: str) -> str | None:
    """The readable page beside the fact files (reviewer/sharing/index.py), in step with
    the folder as it now is, teammates' facts included; gone when the folder is empty.
    Every writer of the folder calls it (share, the team view), so the page never lags.
    Returns "written", "removed" or None (already in step)."""
    from reviewer.sharing import index, reading

    facts = [e.fact for e in reading.read(root).entries
             if isinstance(e.fact, fmt.SharedFact)]
    path = Path(root) / index.PATH
    if not facts:
        if path.is_file() and not path.is_symlink():
            path.unlink()
            return "removed"
        return None
    page = index.render(facts, index.stale_ids(conn, root, facts))
    if _current(path) == page:
        return None
    _write(path, page)
    return "written"


def _teammates_versions(root: str) -> dict[str, str]:
    """{path: approver} of the fact files that count (on origin's default branch,
    unchanged): one of those approved by someone else is a teammate's version."""
    from reviewer.sharing import reading

    got = reading.read(root)
    return {e.path: e.fact.approved_by for e in got.entries
            if e.state == "approved" and e.fact is not None}


def _rejection(row: tuple[object, ...]) -> fmt.SharedRejection:
    return fmt.SharedRejection(
        id=str(row[11]), text=redact(str(row[1])), reason=redact(str(row[13] or "")),
        rejected_by=str(row[12] or ""), rejected_at=fmt.iso(row[8]),  # type: ignore[arg-type]
    )


def _assign(conn: sqlite3.Connection, rows: list[tuple[object, ...]], identity: str) -> None:
    with db.transaction(conn):
        for row in rows:
            conn.execute(
                "UPDATE fact SET share_id = COALESCE(share_id, ?), "
                "approver = COALESCE(approver, ?) WHERE id = ?",
                (str(uuid.uuid4()), identity, row[0]),
            )


def _shared(row: tuple[object, ...]) -> fmt.SharedFact:
    files = _json(row[3], [])
    anchor_map = _json(row[4], {})
    evidence = redact(str(row[7] or ""))
    if len(evidence) > fmt.MAX_EVIDENCE:
        evidence = evidence[: fmt.MAX_EVIDENCE - 1].rstrip() + "…"
    return fmt.SharedFact(
        id=str(row[11]), text=redact(str(row[1])), category=str(row[2]),
        files=tuple(redact(str(f)) for f in files),
        anchors={redact(str(k)): (v if isinstance(v, str) else None)
                 for k, v in anchor_map.items()},
        commit=row[5] if isinstance(row[5], str) else None,
        confidence=float(row[6] or 0.5),  # type: ignore[arg-type]
        evidence=evidence, approved_by=str(row[12] or ""),
        approved_at=fmt.iso(row[8]),  # type: ignore[arg-type]
    )


def _json(raw: object, default: object) -> object:
    try:
        value = json.loads(raw) if isinstance(raw, str) else default
    except ValueError:
        return default
    return value if isinstance(value, type(default)) else default


def _current(path: Path) -> str | None:
    if path.is_symlink() or not path.is_file():
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink():
        path.unlink()  # never write through a link planted in the folder
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=fmt.SUFFIX)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
