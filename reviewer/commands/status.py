"""`mem-review status`: the queue, the facts, the spend and the worker at a glance.

A person looks here when memory seems not to grow: a missing key, a spend cap or a
failed transcript each show up with its reason.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from typing import Any

RECENT = 5


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.add_argument("--project", metavar="DIR", help="another project than the current one")


def _fact_counts(conn: sqlite3.Connection, project: str | None) -> dict[str, int]:
    out = {"pending": 0, "approved": 0, "rejected": 0}
    if project is None:
        rows = conn.execute("SELECT status, COUNT(*) FROM fact GROUP BY status")
    else:
        rows = conn.execute(
            "SELECT status, COUNT(*) FROM fact WHERE project = ? GROUP BY status", (project,)
        )
    for status, n in rows:
        out[status] = n
    return out


def _spend(conn: sqlite3.Connection, since: float | None) -> dict[str, Any]:
    q = (
        "SELECT COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0), "
        "COALESCE(SUM(cost_usd), 0) FROM job"
    )
    row = conn.execute(
        q + (" WHERE updated_at >= ?" if since is not None else ""),
        (since,) if since is not None else (),
    ).fetchone()
    return {
        "input_tokens": int(row[0]),
        "output_tokens": int(row[1]),
        "cost_usd": round(float(row[2]), 6),
    }


def _jobs(conn: sqlite3.Connection, where: str) -> list[dict[str, Any]]:
    from reviewer.store.facts_json import iso

    rows = conn.execute(
        "SELECT id, session_id, transcript_path, project, attempts, last_error, not_before, "
        f"updated_at FROM job WHERE {where} ORDER BY updated_at DESC LIMIT {RECENT}"
    )
    return [
        {
            "id": r["id"],
            "session_id": r["session_id"],
            "transcript_path": r["transcript_path"],
            "project": r["project"],
            "attempts": r["attempts"],
            "error": r["last_error"],
            "not_before": iso(r["not_before"]) if r["not_before"] else None,
            "updated_at": iso(r["updated_at"]),
        }
        for r in rows
    ]


def gather(project: str) -> dict[str, Any]:
    """Everything `status` shows, as plain data."""
    from capture.extractors import resolve
    from capture.pipeline import today_start
    from capture.worker_lock import is_running
    from reviewer import paths
    from reviewer.commands.listing import select_facts
    from reviewer.config import load
    from reviewer.store import db, queue, waiting

    cfg = load()
    choice = resolve(cfg)
    conn = db.connect()
    try:
        facts = _fact_counts(conn, project)
        facts["stale"] = len(select_facts(conn, project, "stale")[0])
        return {
            "project": project,
            "store": str(paths.db_path()),
            "log": str(paths.log_path()),
            "jobs": queue.counts(conn),
            "facts": {"project": facts, "all": _fact_counts(conn, None)},
            "failures": _jobs(conn, "state = 'failed'"),
            "waiting": _jobs(conn, "state = 'queued' AND last_error IS NOT NULL"),
            "spend": {
                "total": _spend(conn, None),
                "today": _spend(conn, today_start()),
                "daily_cap_usd": cfg.daily_spend_cap_usd,
                "model": cfg.model,
                "extractor": choice.name,
                "extractor_setting": cfg.extractor,
                "extractor_reason": choice.reason,
            },
            "worker_running": is_running(),
            "doors": _doors(project, conn),
            "waiting_for_model": waiting.count(conn),
        }
    finally:
        conn.close()


def _doors(project: str, conn: sqlite3.Connection) -> list[dict[str, Any]]:
    from reviewer.claude_code.doors import doors

    return [d.as_dict() for d in doors(project, conn)]


def run(args: argparse.Namespace) -> int:
    from reviewer.project import resolve as resolve_project

    data = gather(resolve_project(args.project))
    if args.json:
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(data))
    return 0


def render(data: dict[str, Any]) -> str:
    f, a, j = data["facts"]["project"], data["facts"]["all"], data["jobs"]
    total, today = data["spend"]["total"], data["spend"]["today"]
    cap = data["spend"]["daily_cap_usd"]
    lines = [
        f"project  {data['project']}",
        f"facts    {f['pending']} pending · {f['approved']} approved ({f['stale']} stale) · "
        f"{f['rejected']} rejected   [all projects: {a['pending']} pending · "
        f"{a['approved']} approved · {a['rejected']} rejected]",
        f"queue    {j['queued']} queued · {j['running']} running · {j['done']} done · "
        f"{j['failed']} failed · worker {'running' if data['worker_running'] else 'not running'}",
        f"spend    {total['input_tokens']:,} in / {total['output_tokens']:,} out tokens · "
        f"${total['cost_usd']:.4f} total · ${today['cost_usd']:.4f} today "
        f"({'no cap' if not cap else f'cap ${cap:.2f}/day'})",
        f"extract  {_extractor_line(data['spend'])}",
    ]
    if data.get("waiting_for_model"):
        from reviewer.store.waiting import summary

        lines.append(f"model    {summary(data['waiting_for_model'])}")
    for w in data["waiting"]:
        lines.append(
            f"waiting  job {w['id']} ({w['session_id']}): {w['error']}"
            + (f" · next try {w['not_before']}" if w["not_before"] else "")
        )
    for x in data["failures"]:
        lines.append(f"failed   job {x['id']} ({x['session_id']}): {x['error']}")
    for door in data.get("doors", []):
        if not door["ok"]:
            lines.append(f"memory   ✗ {door['name']}: open, unreviewed; {door['fix']}")
    lines.append(f"store    {data['store']} · log {data['log']}")
    return "\n".join(lines) + "\n"


def _extractor_line(spend: dict[str, Any]) -> str:
    """Which extractor runs and why; with the rules, also that they find little."""
    from reviewer.config import RULES_FIND_LITTLE

    name, why = spend["extractor"], spend["extractor_reason"]
    if name == "rules":
        return f"rules: {why}; {RULES_FIND_LITTLE}"
    return f"{name} ({spend['model']}): {why}"
