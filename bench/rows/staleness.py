"""Staleness verdicts for every approved fact against one `git ls-files -s`.

`reviewer.staleness.verdicts(conn, project_root, facts)` is what the SessionStart hook
and the TUI call. Warm = its hash cache already filled (the normal case: files unchanged
since the last session); cold = the cache emptied first (a fresh store, or after a
checkout that touched everything). The baseline is the cheapest thing git itself does
over the same tree: list the index with blob SHAs, as a subprocess.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections import Counter
from types import SimpleNamespace
from typing import Any

from bench.common import INFO, Result, interleave, missing, ms
from bench.rows import Ctx, has_module

BASE = "git ls-files -s (subprocess)"


def _facts(conn: Any) -> tuple[list[Any], str]:
    rows = conn.execute(
        "SELECT id, files, anchors, commit_sha FROM fact WHERE status = 'approved'"
    ).fetchall()
    return rows, "sqlite3.Row"


def _as_objects(rows: list[Any]) -> list[Any]:
    return [
        SimpleNamespace(id=r["id"], files=json.loads(r["files"]), anchors=json.loads(r["anchors"]),
                        commit_sha=r["commit_sha"])
        for r in rows
    ]


def run(ctx: Ctx) -> list[Result]:
    n = ctx.fx.scale
    key = "staleness"
    title = f"staleness verdicts, {n.facts:,} facts (warm cache)"
    cold_title = f"staleness verdicts, {n.facts:,} facts (cold cache)"
    budget = "≤ 3×"
    if not has_module("reviewer.staleness"):
        return [missing(key, title, budget, "reviewer/staleness.py has not landed")]
    from reviewer import db, staleness

    conn = db.connect(ctx.fx.home_approved / "store.db")
    root = ctx.fx.project
    facts, shape = _facts(conn)
    try:
        staleness.verdicts(conn, root, facts)
    except Exception:  # rows not accepted: give it objects (parsed outside the timing)
        facts, shape = _as_objects(facts), "objects with parsed lists"
    first = staleness.verdicts(conn, root, facts)  # fills the cache
    states = Counter(v.state for v in first.values())

    forget = getattr(staleness, "forget", lambda: None)

    def warm() -> float:
        # What `list` or a fresh TUI gets: the store's hash cache is warm, the process's
        # own memos are not (a repeat in the same process is the "repeat" row).
        forget()
        t0 = time.perf_counter()
        staleness.verdicts(conn, root, facts)
        return time.perf_counter() - t0

    def repeat() -> float:
        t0 = time.perf_counter()
        staleness.verdicts(conn, root, facts)
        return time.perf_counter() - t0

    def cold() -> float:
        conn.execute("DELETE FROM hash_cache")
        forget()
        t0 = time.perf_counter()
        staleness.verdicts(conn, root, facts)
        return time.perf_counter() - t0

    def git() -> float:
        t0 = time.perf_counter()
        subprocess.run(["git", "-C", root, "ls-files", "-s"], capture_output=True, check=True)
        return time.perf_counter() - t0

    s_warm, s_repeat, s_cold, s_git = interleave([warm, repeat, cold, git], ctx.cheap_reps)
    warm()  # leave the cache filled for the hook row
    conn.close()
    verdict_note = ", ".join(f"{k} {v:,}" for k, v in states.most_common())
    res = Result(key, title, "", value=ms(s_warm), baseline=ms(s_git), baseline_title=BASE,
                 limit=3.0, budget=budget,
                 notes=[f"in-process; facts given as {shape}", f"verdicts: {verdict_note}"],
                 extra={"states": dict(states)})
    res.judge()
    if len(first) != len(facts):
        res.status = "ERROR"
        res.notes.append(f"{len(first)} verdicts for {len(facts)} facts")
    stale = sum(v for k, v in states.items() if k in ("changed", "moved", "deleted"))
    if stale == 0:
        res.status = "ERROR"
        res.notes.append("no stale verdict although files were edited, deleted and renamed")
    cold_res = Result("staleness-cold", cold_title, INFO, value=ms(s_cold),
                      baseline=ms(s_git), baseline_title=BASE, budget="(reported)")
    repeat_res = Result("staleness-repeat", "  same, repeated in one process (TUI reload)",
                        INFO, value=ms(s_repeat), baseline=ms(s_git), baseline_title=BASE,
                        budget="(reported)")
    return [res, repeat_res, cold_res]
