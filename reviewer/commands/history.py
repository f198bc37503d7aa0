"""`mem-review log [ID]`: what happened to a fact, or to this project's facts, and who did it.

Read from the store's `fact_history` (every change is written there with its before and
after, in the same transaction): captured, seen again, edited (the wording before and
after), approved, rejected (with the reason), re-verified (the new anchors), undone,
marked personal, shared. For a shared fact, the commits that touched its file in
`.mem-review/facts/` follow, from one `git log`. Stdlib sqlite3: no ORM to wait for.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import time
from typing import Any

from reviewer.project import resolve

ACTIONS = {"created": "captured", "seen_again": "seen again", "imported": "imported",
           "edited": "edited", "verified": "re-verified", "undo": "undone"}
DEFAULT_LIMIT = 30


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", nargs="?", type=int, help="one fact (default: the project's latest)")
    parser.add_argument("-n", "--limit", type=int, default=DEFAULT_LIMIT, metavar="N",
                        help=f"entries shown without an ID (default {DEFAULT_LIMIT})")
    parser.add_argument("--project", metavar="DIR", help="another project than the current one")


def run(args: argparse.Namespace) -> int:
    from reviewer import paths
    from reviewer.errors import UserError
    from reviewer.sanitize.visible import shown
    from reviewer.store import db

    project = resolve(args.project)
    if not paths.db_path().exists():
        raise UserError("no store yet: nothing has been captured")
    conn = db.connect()
    try:
        if args.id is None:
            for line in project_log(conn, project, max(1, args.limit)):
                print(shown(line))  # facts and commit subjects: no raw escape sequence
            return 0
        fact = conn.execute("SELECT * FROM fact WHERE id = ?", (args.id,)).fetchone()
        if fact is None:
            raise UserError(f"no fact {args.id}")
        for line in fact_log(conn, fact, project):
            print(shown(line))
    finally:
        conn.close()
    return 0


def project_log(conn: sqlite3.Connection, project: str, limit: int) -> list[str]:
    rows = conn.execute(
        "SELECT h.fact_id, h.at, h.actor, h.action, h.before, h.after, f.text FROM fact_history h "
        "JOIN fact f ON f.id = h.fact_id WHERE f.project = ? ORDER BY h.id DESC LIMIT ?",
        (project, limit),
    ).fetchall()
    if not rows:
        return [f"no history for {project}"]
    out = []
    for fact_id, at, actor, action, before, after, text in reversed(rows):
        detail = _detail(action, _load(before), _load(after))
        out.append(f"{_when(at)}  #{fact_id:<5} {actor:<6} {_name(action, _load(after))}"
                   f"{': ' + detail if detail else ''}  — {_short(text, 60)}")
    return out


def fact_log(conn: sqlite3.Connection, fact: sqlite3.Row, project: str) -> list[str]:
    out = [f"fact #{fact['id']} · {fact['status']} · {fact['category']}", f"  {fact['text']}"]
    if fact["personal"]:
        out.append("  personal: not shared")
    for at, actor, action, before, after in conn.execute(
        "SELECT at, actor, action, before, after FROM fact_history WHERE fact_id = ? ORDER BY id",
        (fact["id"],),
    ):
        b, a = _load(before), _load(after)
        out.append(f"{_when(at)}  {actor:<6} {_name(action, a)}")
        out.extend(f"    {line}" for line in _lines(action, b, a))
    if fact["share_id"]:
        out.extend(_file_commits(fact["project"] or project, fact["share_id"]))
    return out


def _name(action: str, after: dict[str, Any]) -> str:
    if action.startswith("imported_"):
        return f"imported as {action.removeprefix('imported_')}"
    return ACTIONS.get(action, action)


def _lines(action: str, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The details worth reading under one history entry."""
    if action == "edited":
        lines = []
        if before.get("text") != after.get("text"):
            lines += [f"before: {before.get('text', '')}", f"after:  {after.get('text', '')}"]
        if before.get("category") != after.get("category"):
            lines.append(f"category: {before.get('category')} → {after.get('category')}")
        return lines
    detail = _detail(action, before, after)
    return [detail] if detail else []


def _detail(action: str, before: dict[str, Any], after: dict[str, Any]) -> str:
    if action == "rejected":
        return f"reason: {after.get('reject_reason') or '(none given)'}"
    if action == "verified":
        anchors = _load(after.get("anchors")) if isinstance(after.get("anchors"), str) else {}
        where = ", ".join(f"{p} @ {str(s)[:10]}" for p, s in sorted(anchors.items()))
        commit = str(after.get("commit_sha") or "")[:10]
        return f"anchored to {where or 'no files'}" + (f" (commit {commit})" if commit else "")
    if action in ("shared", "unshared"):
        return str(after.get("file", ""))
    if action == "edited" and before.get("text") != after.get("text"):
        return f"“{_short(before.get('text', ''), 40)}” → “{_short(after.get('text', ''), 40)}”"
    return ""


def _file_commits(project: str, share_id: str) -> list[str]:
    """The commits of the fact's shared file (it moves to `rejections/` when rejected)."""
    from reviewer.freshness import anchors
    from reviewer.sharing.format import FOLDER, REJECTIONS, SUFFIX

    rels = [f"{FOLDER}/{share_id}{SUFFIX}", f"{REJECTIONS}/{share_id}{SUFFIX}"]
    out = anchors.run_git(project, "log", "--date=short", "--format=%h %ad %an: %s", "--",
                          *rels, timeout=10)
    if out is None:
        return ["commits of its shared file: git could not say"]
    lines = [line for line in out.splitlines() if line.strip()]
    if not lines:
        return ["commits of its shared file: none yet (shared but not committed)"]
    return ["commits of its shared file:", *(f"  {line}" for line in lines)]


def _load(raw: object) -> dict[str, Any]:
    if not isinstance(raw, str) or not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _when(at: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(float(at or 0)))


def _short(text: object, width: int) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= width else s[: width - 1] + "…"
