"""Staleness verdicts for every approved fact against one `git ls-files -s`.

`reviewer.freshness.verdict_memo.verdicts(conn, root, project, scope)` is what the SessionStart hook
and the TUI call, in a new process each time: the judged row. It reads the facts from
the store and answers from the memo of the last pass when git and the file stats prove
nothing it depends on moved (the normal case: a session starting where the last one
left off), which costs one `git diff-files` run beside the store reads. The reported rows
show the other paths: the full pass (`reviewer.freshness.staleness.verdicts`, what runs when a
fact or a cited file changed since the last pass) with its hash cache warm, repeated in
one process, and cold. The baseline is the cheapest thing git itself does over the same
tree: list the index with blob SHAs, as a subprocess.
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
    title = f"staleness verdicts, {n.facts:,} facts (files as the last pass left them)"
    budget = "≤ 3×"
    if not has_module("reviewer.freshness.verdict_memo"):
        return [missing(key, title, budget, "reviewer/freshness/verdict_memo.py has not landed")]
    from reviewer.freshness import staleness, verdict_memo
    from reviewer.store import db

    conn = db.connect(ctx.fx.home_approved / "store.db")
    root = ctx.fx.project
    facts, shape = _facts(conn)
    first = staleness.verdicts(conn, root, facts)  # fills the hash cache
    states = Counter(v.state for v in first.values())
    primed = _prime(conn, root)

    def memo() -> float:
        staleness.forget()  # a new process: only the store remembers
        t0 = time.perf_counter()
        verdict_memo.verdicts(conn, root, root, "approved")
        return time.perf_counter() - t0

    def full() -> float:
        # What runs when something changed since the last pass: the hash cache is warm,
        # the process's own memos are not (a repeat in one process is the next row).
        staleness.forget()
        t0 = time.perf_counter()
        staleness.verdicts(conn, root, facts)
        return time.perf_counter() - t0

    def repeat() -> float:
        t0 = time.perf_counter()
        staleness.verdicts(conn, root, facts)
        return time.perf_counter() - t0

    def cold() -> float:
        conn.execute("DELETE FROM hash_cache")
        staleness.forget()
        t0 = time.perf_counter()
        staleness.verdicts(conn, root, facts)
        return time.perf_counter() - t0

    def git() -> float:
        t0 = time.perf_counter()
        subprocess.run(["git", "-C", root, "ls-files", "-s"], capture_output=True, check=True)
        return time.perf_counter() - t0

    s_memo, s_full, s_repeat, s_cold, s_git = interleave(
        [memo, full, repeat, cold, git], ctx.cheap_reps)
    full()  # leave the hash cache filled for the hook row
    check = verdict_memo.MemoStats()
    answer = verdict_memo.verdicts(conn, root, root, "approved", stats=check)
    conn.close()
    verdict_note = ", ".join(f"{k} {v:,}" for k, v in states.most_common())
    res = Result(key, title, "", value=ms(s_memo), baseline=ms(s_git), baseline_title=BASE,
                 limit=3.0, budget=budget,
                 notes=[f"reads the facts from the store itself; memo: {primed}",
                        f"verdicts: {verdict_note}"],
                 extra={"states": dict(states)})
    res.judge()
    if not check.hit:
        res.status = "ERROR"
        res.notes.append(f"the memo was not used: {check.why}")
    if {k: v.state for k, v in answer.items()} != {k: v.state for k, v in first.items()}:
        res.status = "ERROR"
        res.notes.append("the memo's verdicts differ from the full pass")
    stale = sum(v for k, v in states.items() if k in ("changed", "moved", "deleted"))
    if stale == 0:
        res.status = "ERROR"
        res.notes.append("no stale verdict although files were edited, deleted and renamed")
    full_res = Result("staleness-full", f"  full pass, {n.facts:,} facts (warm hash cache)",
                      INFO, value=ms(s_full), baseline=ms(s_git), baseline_title=BASE,
                      budget="(reported)",
                      notes=[f"facts given as {shape}; what runs after a fact or a cited "
                             "file changed"])
    repeat_res = Result("staleness-repeat", "  full pass, repeated in one process",
                        INFO, value=ms(s_repeat), baseline=ms(s_git), baseline_title=BASE,
                        budget="(reported)")
    cold_res = Result("staleness-cold", f"  full pass, {n.facts:,} facts (cold hash cache)",
                      INFO, value=ms(s_cold), baseline=ms(s_git), baseline_title=BASE,
                      budget="(reported)")
    return [res, full_res, repeat_res, cold_res]


def _prime(conn: Any, root: str) -> str:
    """Run one pass so the memo is written; the fixture's edits may be too recent to vouch
    for (SETTLE_NS), in which case wait for them to settle, once."""
    from reviewer.freshness import staleness, verdict_memo

    for _ in range(2):
        st = verdict_memo.MemoStats()
        verdict_memo.verdicts(conn, root, root, "approved", stats=st)
        if st.saved or st.hit:
            return "saved" if st.saved else "already there"
        if "just now" not in st.why:
            return f"not saved ({st.why})"
        time.sleep(staleness.SETTLE_NS / 1e9 + 0.1)
    return "not saved (files kept changing)"
