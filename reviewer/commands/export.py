"""`mem-review export --rules`: the approved, non-stale facts as Claude Code's own rules.

For teams who want the facts without mem-review installed: Claude Code reads
`.claude/rules/*.md` itself, and a rule file with `paths:` front matter applies only when
Claude works on matching files. Project-wide facts go to `mem-review.md`; facts citing
files go to one `mem-review-<name>-<hash>.md` per distinct set of cited files, with
those files as `paths:`. Facts marked personal stay out (the folder is committed). Output
is deterministic; files of ours (`mem-review*.md`) that no longer hold a fact are removed,
and nothing else in the folder is touched. A snapshot: re-run it after reviewing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from pathlib import Path

from reviewer.project import resolve

RULES_DIR = ".claude/rules"
PREFIX = "mem-review"
HEADER = ("<!-- Written by `mem-review export --rules` from facts a person approved; "
          "edits here are overwritten on the next export. -->")


def configure(parser: argparse.ArgumentParser) -> None:
    # The only form so far, so also the default: `export` alone was a usage error.
    parser.add_argument("--rules", action="store_true",
                        help="write Claude Code rule files into .claude/rules/ (the default)")
    parser.add_argument("--project", metavar="DIR", help="another project than the current one")


def run(args: argparse.Namespace) -> int:
    from reviewer import paths
    from reviewer.errors import UserError
    from reviewer.store import db

    project = resolve(args.project)
    if not paths.db_path().exists():
        raise UserError("no store yet: nothing has been approved")
    conn = db.connect()
    try:
        files = rule_files(conn, project)
    finally:
        conn.close()
    written, removed = write_rules(Path(project) / RULES_DIR, files)
    for name in written:
        print(f"wrote   {RULES_DIR}/{name}")
    for name in removed:
        print(f"removed {RULES_DIR}/{name}")
    facts = sum(text.count("\n- ") for text in files.values())
    print(f"{facts} fact{'s' if facts != 1 else ''} in {len(files)} rule "
          f"file{'s' if len(files) != 1 else ''}; {len(written)} written, "
          f"{len(removed)} removed")
    return 0


def rule_files(conn: object, project: str) -> dict[str, str]:
    """{file name: content} for the project's approved, non-personal, non-stale facts."""
    from reviewer.claude_code.inject import neutralise
    from reviewer.freshness import staleness

    rows = conn.execute(  # type: ignore[attr-defined]
        "SELECT id, text, files, anchors, commit_sha FROM fact WHERE project = ? AND "
        "status = 'approved' AND personal = 0 ORDER BY id", (project,),
    ).fetchall()
    stale = staleness.stale_ids(conn, project, [(r[0], r[3], r[4]) for r in rows])  # type: ignore[arg-type]
    groups: dict[tuple[str, ...], list[str]] = {}
    for fact_id, text, files, _anchors, _commit in rows:
        if fact_id in stale:
            continue
        cited = tuple(sorted({f for f in _list(files) if _safe_path(f)}))
        groups.setdefault(cited, []).append(f"- {neutralise(text)}")
    out: dict[str, str] = {}
    for cited, lines in groups.items():
        body = "\n".join(lines)
        if not cited:
            out[f"{PREFIX}.md"] = f"{HEADER}\n\n# Project facts\n\n{body}\n"
            continue
        digest = hashlib.sha1("\0".join(cited).encode(), usedforsecurity=False).hexdigest()[:8]
        stem = re.sub(r"[^a-z0-9]+", "-", Path(cited[0]).stem.lower()).strip("-") or "files"
        front = "---\npaths:\n" + "".join(f"  - {json.dumps(f)}\n" for f in cited) + "---\n"
        out[f"{PREFIX}-{stem}-{digest}.md"] = (
            f"{front}{HEADER}\n\n# Facts about {', '.join(cited)}\n\n{body}\n")
    return out


def write_rules(folder: Path, files: dict[str, str]) -> tuple[list[str], list[str]]:
    folder.mkdir(parents=True, exist_ok=True)
    written, removed = [], []
    for name, text in sorted(files.items()):
        path = folder / name
        if path.is_file() and not path.is_symlink() and path.read_text(encoding="utf-8") == text:
            continue
        if path.is_symlink():
            path.unlink()
        path.write_text(text, encoding="utf-8")
        written.append(name)
    for path in sorted(folder.glob(f"{PREFIX}*.md")):
        if path.name not in files:
            path.unlink()
            removed.append(path.name)
    return written, removed


def _list(raw: object) -> list[str]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else []
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def _safe_path(path: str) -> bool:
    """A relative path inside the project, one line: anything else is no `paths:` entry."""
    return bool(path) and not path.startswith(("/", "~")) and ".." not in Path(path).parts \
        and "\n" not in path and "\r" not in path
