"""`mem-review import FILE [--keep-status]`: read facts from a `list --json` export.

Imported facts arrive pending, for a person to review, unless `--keep-status` says the
person vouches for the decisions already made elsewhere (the second of the two doors to
`approved`, see reviewer/store/facts.py). Facts without anchors are anchored to the files as
they are now. All in one transaction: 10,000 facts in one go.

Because `--keep-status` approves, it asks for a confirmation typed on the controlling
terminal (`/dev/tty`), never read from stdin: Claude Code's Bash tool has no terminal, and
a run from inside Claude Code (`CLAUDECODE`, or a Claude Code process among its ancestors)
is refused before asking. No terminal or a wrong answer refuses in one line and imports
nothing, not even as pending: the person decides what to do (SECURITY.md says what this
does not stop).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from reviewer.errors import UserError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a `mem-review list --json` export")
    parser.add_argument(
        "--keep-status",
        action="store_true",
        help="keep approved/rejected as exported (default: all pending)",
    )
    parser.add_argument("--project", metavar="DIR", help="another project than the current one")


def read_export(name: str) -> list[dict[str, Any]]:
    """The export's facts, validated; a one-line UserError for any problem."""
    from reviewer.store.facts_json import parse_export, validate_item

    path = Path(name).expanduser()
    if not path.exists():
        raise UserError(f"{name}: no such file")
    if path.is_dir():
        raise UserError(f"{name}: is a directory, not an export")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{name}: not UTF-8 text") from None
    except OSError as exc:
        raise UserError(f"{name}: {exc.strerror or exc}") from None
    return [validate_item(item, i, name) for i, item in enumerate(parse_export(text, name))]


def to_new_facts(items: list[dict[str, Any]], project: str) -> list[Any]:
    """NewFacts for the project: cited files re-checked, unanchored ones anchored now."""
    from capture.ground import missing_files
    from reviewer.freshness import cited
    from reviewer.freshness.anchors import git_head
    from reviewer.store.dedupe import fact_key
    from reviewer.store.facts import NewFact
    from reviewer.store.facts_json import VERDICT_KEYS

    commit, branch = git_head(project)
    # Per distinct file, once: 10,000 facts usually cite a few hundred files.
    gone: dict[str, bool] = {}
    shas: dict[str, str | None] = {}
    out = []
    for item in items:
        files = item["files"]
        for f in files:
            if f not in gone:
                gone[f] = bool(missing_files([f], project))
        missing = [f for f in files if gone[f]]
        anchors = item["anchors"]
        commit_sha, fact_branch = item["commit_sha"], item["branch"]
        if not anchors and files:
            for f in files:
                if f not in shas:
                    shas[f] = None if gone[f] else cited.blob_sha(project, f)[0]
            anchors = {f: shas[f] for f in files}
            commit_sha, fact_branch = commit, branch
        out.append(
            NewFact(
                project=project,
                text=item["text"],
                norm=fact_key(item["text"]),
                category=item["category"],
                files=files,
                confidence=item["confidence"],
                evidence=item["evidence"],
                context=item["context"],
                grounded=item["grounded"],
                missing_files=missing,
                session_id=item["session_id"],
                source=item["source"],
                commit_sha=commit_sha,
                branch=fact_branch,
                anchors=anchors,
                model=item["model"],
                status=item["status"],
                reject_reason=item["reject_reason"],
                created_at=item["created_at"],
                decided_at=item["decided_at"],
                **{key: item[key] for key in VERDICT_KEYS},
            )
        )
    return out


def run(args: argparse.Namespace) -> int:
    from reviewer.project import resolve as resolve_project
    from reviewer.store.facts import Store

    items = read_export(args.file)
    if args.keep_status:
        decided = sum(1 for item in items if item["status"] != "pending")
        if decided:
            confirm_on_terminal(args.file, decided)
    project = resolve_project(args.project)
    facts = to_new_facts(items, project)
    store = Store()
    try:
        added, skipped = store.import_facts(facts, keep_status=args.keep_status)
    finally:
        store.close()
    how = "with their exported status" if args.keep_status else "as pending, for review"
    print(
        f"imported {added} fact{'s' if added != 1 else ''} into {project} {how}"
        + (f"; {skipped} already present, skipped" if skipped else "")
    )
    return 0


def confirm_on_terminal(name: str, decided: int) -> None:
    """Return only when a person typed `approve N` on the controlling terminal."""
    expected = f"approve {decided}"
    refuse = (
        f"`import --keep-status` would keep {decided} approved/rejected decision(s) from "
        f"{name}, which only a person may do: run it in your own terminal and type "
        f"`{expected}` when asked (or import for review: `mem-review import {name}`); "
        "nothing was imported"
    )
    if os.environ.get("CLAUDECODE") or _inside_claude_code():
        raise UserError(refuse.replace("run it in", "run it outside Claude Code, in"))
    try:
        fd = os.open("/dev/tty", os.O_RDWR | getattr(os, "O_NOCTTY", 0))
    except OSError:
        raise UserError(refuse + " (no terminal)") from None
    try:
        os.write(fd, (
            f"mem-review: {name} holds {decided} decision(s) made elsewhere; importing "
            f"them as they are approves facts without review here.\n"
            f"Type `{expected}` to keep them: "
        ).encode())
        raw = b""
        while not raw.endswith(b"\n") and len(raw) < 200:
            chunk = os.read(fd, 200)
            if not chunk:
                break
            raw += chunk
        answer = raw.decode("utf-8", "replace")
    except OSError:
        raise UserError(refuse + " (the terminal could not be read)") from None
    finally:
        os.close(fd)
    if " ".join(answer.split()) != expected:
        raise UserError(refuse + " (the confirmation did not match)")


def _inside_claude_code() -> bool:
    """Whether a Claude Code process is among this one's ancestors (Linux /proc)."""
    pid = os.getppid()
    for _ in range(64):
        if pid <= 1:
            return False
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                argv = fh.read().split(b"\0")
            with open(f"/proc/{pid}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            return False
        if any(os.path.basename(a) == b"claude" or b"claude-code" in a for a in argv[:3]):
            return True
        pid = int(stat.rsplit(b")", 1)[1].split()[1])
    return False
