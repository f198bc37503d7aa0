"""`mem-review list`: the project's facts as an aligned table, or as JSON for tools.

`--json` is the export format `mem-review import` reads back (reviewer/store/facts_json.py).
Reads with stdlib sqlite3: a 10,000-fact export should not wait on an ORM.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
from typing import Any

from reviewer.project import resolve

CHOICES = ("pending", "approved", "rejected", "stale", "all")
MAX_WIDTH = 100
FLAGS_LEGEND = "flags: S stale · U ungrounded · M cited file missing · ×N seen N times"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--status",
        choices=CHOICES,
        default="all",
        help="which facts (stale: approved or pending facts whose code changed)",
    )
    parser.add_argument("--json", action="store_true", help="print the export format")
    parser.add_argument("--project", metavar="DIR", help="another project than the current one")


def verdicts(conn: sqlite3.Connection, project: str, rows: list[sqlite3.Row]) -> dict[int, Any]:
    """Staleness verdicts by fact id; empty when staleness is not available."""
    try:
        from reviewer.freshness.staleness import verdicts as compute
    except ImportError:
        return {}
    try:
        return dict(compute(conn, project, rows))
    except Exception as exc:  # list must work even when staleness cannot be computed
        from reviewer.log import log

        log("list", f"staleness unavailable: {type(exc).__name__}: {exc}")
        return {}


def select_facts(
    conn: sqlite3.Connection, project: str, status: str
) -> tuple[list[sqlite3.Row], dict[int, Any]]:
    """Rows of the project for a `--status` choice, with their verdicts."""
    if status == "all":
        rows = conn.execute("SELECT * FROM fact WHERE project = ? ORDER BY id", (project,))
    elif status == "stale":
        rows = conn.execute(
            "SELECT * FROM fact WHERE project = ? AND status IN ('approved', 'pending') "
            "ORDER BY id",
            (project,),
        )
    else:
        rows = conn.execute(
            "SELECT * FROM fact WHERE project = ? AND status = ? ORDER BY id", (project, status)
        )
    facts = list(rows)
    found = verdicts(conn, project, facts)
    if status == "stale":
        facts = [f for f in facts if _is_stale(found.get(f["id"]))]
    return facts, found


def _is_stale(verdict: Any) -> bool:
    return bool(getattr(verdict, "stale", False))


def run(args: argparse.Namespace) -> int:
    from reviewer.store import db
    from reviewer.store.facts_json import to_json

    project = resolve(args.project)
    conn = db.connect_for_reading()  # a read-only or full data dir still lists
    try:
        facts, found = select_facts(conn, project, args.status)
    finally:
        conn.close()
    if args.json:
        out = []
        for f in facts:  # one unreadable row (written by hand, out of range) is skipped alone
            try:
                item = to_json(
                    f,
                    stale=_is_stale(found.get(f["id"])),
                    staleness=getattr(found.get(f["id"]), "state", None),
                )
                json.dumps(item, ensure_ascii=False).encode("utf-8")
            except Exception as exc:
                from reviewer.log import log

                log("list", f"fact {f['id']} skipped, unreadable: {type(exc).__name__}: {exc}")
                print(f"mem-review: fact {f['id']} skipped: unreadable row ({exc})",
                      file=sys.stderr)
                continue
            out.append(item)
        from reviewer.sanitize.visible import json_text

        sys.stdout.write(json_text(json.dumps(out, indent=2, ensure_ascii=False)) + "\n")
        return 0
    width = min(MAX_WIDTH, shutil.get_terminal_size((MAX_WIDTH, 24)).columns)
    facts = [f for f in facts if _readable(f, found)]
    sys.stdout.write(table(facts, found, width=width, project=project, status=args.status))
    return 0


def _flags(row: sqlite3.Row, verdict: Any) -> str:
    flags = ""
    if _is_stale(verdict):
        flags += "S"
    if not row["grounded"]:
        flags += "U"
    if json.loads(row["missing_files"] or "[]"):
        flags += "M"
    if row["times_seen"] > 1:
        flags += f"×{row['times_seen']}"
    return flags


def _readable(row: sqlite3.Row, found: dict[int, Any]) -> bool:
    """Whether the table can show this row; one that cannot (written by hand, out of
    range) is skipped with a line, never the whole list."""
    try:
        _flags(row, found.get(row["id"]))
        f"{row['status']:<8}  {row['category']:<11}  {row['confidence']:>4.2f}"
        _cut(row["text"], 10)
    except Exception as exc:
        from reviewer.log import log

        log("list", f"fact {row['id']} skipped, unreadable: {type(exc).__name__}: {exc}")
        print(f"mem-review: fact {row['id']} skipped: unreadable row ({exc})", file=sys.stderr)
        return False
    return True


def _cut(text: str, width: int) -> str:
    """One line of at most `width` characters; invisible characters shown as `\\u{…}`
    (reviewer/sanitize/visible.py), so the person sees what is stored."""
    from reviewer.sanitize.visible import escape

    text = " ".join(escape(text).split())
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def table(
    facts: list[sqlite3.Row],
    found: dict[int, Any],
    *,
    width: int = MAX_WIDTH,
    project: str = "",
    status: str = "all",
) -> str:
    """Aligned columns, one line per fact, never wider than `width`."""
    if not facts:
        what = "" if status == "all" else f"{status} "
        return f"no {what}facts for {project}\n"
    id_w = max(2, *(len(str(f["id"])) for f in facts))
    flag_cells = [_flags(f, found.get(f["id"])) for f in facts]
    flag_w = max(5, *(len(c) for c in flag_cells))
    head = f"{'ID':>{id_w}}  {'STATUS':<8}  {'CATEGORY':<11}  {'CONF':>4}  {'FLAGS':<{flag_w}}  "
    fact_w = max(10, width - len(head))
    lines = [head + "FACT"]
    for f, flags in zip(facts, flag_cells, strict=True):
        lines.append(
            f"{f['id']:>{id_w}}  {f['status']:<8}  {f['category']:<11}  "
            f"{f['confidence']:>4.2f}  {flags:<{flag_w}}  {_cut(f['text'], fact_w)}"
        )
    counts: dict[str, int] = {}
    for f in facts:
        counts[f["status"]] = counts.get(f["status"], 0) + 1
    summary = " · ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    lines.append("")
    lines.append(_cut(f"{len(facts)} fact{'s' if len(facts) != 1 else ''} ({summary}) in "
                      f"{project}", width))
    lines.append(_cut(FLAGS_LEGEND, width))
    return "\n".join(line.rstrip() for line in lines) + "\n"
