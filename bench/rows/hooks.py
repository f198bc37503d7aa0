"""The hook rows: `mem-review hook session-end|session-start` against `python -c pass`.

Both run the console script a user's Claude Code settings point at (`<venv>/bin/mem-review`,
what `mem-review install` writes), as a subprocess with a real payload on stdin, because
that is the whole cost Claude Code waits for: interpreter start, imports, the work.
The baseline is the same interpreter doing nothing, timed in the same run.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time

from bench.common import BIG_TRANSCRIPT, Result, interleave, missing, ms
from bench.rows import Ctx, has_module

BASE = "python -c pass"


def _run(cmd: list[str], payload: bytes, env: dict[str, str]) -> tuple[float, bytes, int]:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, input=payload, env=env, capture_output=True, check=False,
                         timeout=60)
    return time.perf_counter() - t0, out.stdout, out.returncode


def _jobs(home: str) -> int:
    try:
        conn = sqlite3.connect(os.path.join(home, "store.db"))
        try:
            return int(conn.execute("SELECT count(*) FROM job").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def _row(
    ctx: Ctx, key: str, title: str, budget: str, limit: float, event: str, payload: dict,
    home: str,
) -> tuple[Result, bytes]:
    assert ctx.exe is not None
    env = {**os.environ, "MEM_REVIEW_HOME": home, "MEM_REVIEW_NO_SPAWN": "1"}
    data = json.dumps(payload).encode()
    hook = [str(ctx.exe), "hook", event]
    base = [sys.executable, "-c", "pass"]
    last: dict[str, object] = {}

    def a() -> float:
        dt, out, rc = _run(hook, data, env)
        last.update(out=out, rc=rc)
        return dt

    def b() -> float:
        return _run(base, data, env)[0]

    samples = interleave([a, b], ctx.cheap_reps)
    res = Result(key, title, "", value=ms(samples[0]), baseline=ms(samples[1]),
                 baseline_title=BASE, limit=limit, budget=budget)
    res.notes.append(f"ran {ctx.exe} (the console script install writes into settings)")
    if last.get("rc") != 0:
        res.status = "ERROR"
        res.notes.append(f"exit code {last.get('rc')}")
    return res.judge(), bytes(last.get("out") or b"")  # type: ignore[arg-type]


def run_end(ctx: Ctx) -> list[Result]:
    key, title, budget = "hook-end", "hook session-end (enqueue), wall", "≤ 2.5×"
    if ctx.exe is None:
        return [missing(key, title, budget, "no mem-review console script")]
    if not (has_module("reviewer.commands.hook") and has_module("capture.enqueue")):
        return [missing(key, title, budget, "reviewer/commands/hook.py or capture/enqueue.py")]
    home = str(ctx.fx.home_hook)
    payload = {
        "session_id": "bench-session-end", "transcript_path": str(BIG_TRANSCRIPT),
        "cwd": str(ctx.fx.repo), "hook_event_name": "SessionEnd", "reason": "other",
    }
    res, out = _row(ctx, key, title, budget, 2.5, "session-end", payload, home)
    if out:
        res.status = "ERROR"
        res.notes.append(f"printed on stdout: {out[:80]!r}")
    jobs = _jobs(home)
    if jobs < 1:
        res.status = "ERROR"
        res.notes.append("no job was queued: the hook did not do its work")
    else:
        res.notes.append(f"{jobs} job(s) queued (same transcript → one job)")
    return [res]


def run_start(ctx: Ctx) -> list[Result]:
    n = ctx.fx.scale
    key = "hook-start"
    title = f"hook session-start, {n.facts:,} approved facts / {n.files:,} files"
    budget = "≤ 6×"
    if ctx.exe is None:
        return [missing(key, title, budget, "no mem-review console script")]
    hook_path = (
        "reviewer.commands.hook", "reviewer.claude_code.inject", "reviewer.freshness.staleness"
    )
    for mod in hook_path:
        if not has_module(mod):
            return [missing(key, title, budget, f"{mod} has not landed")]
    payload = {
        "session_id": "bench-session-start", "transcript_path": str(BIG_TRANSCRIPT),
        "cwd": str(ctx.fx.repo), "hook_event_name": "SessionStart", "source": "startup",
    }
    res, out = _row(ctx, key, title, budget, 6.0, "session-start", payload,
                    str(ctx.fx.home_approved))
    try:
        obj = json.loads(out)
        text = obj["hookSpecificOutput"]["additionalContext"]
        res.notes.append(f"injected {len(text):,} chars; last line: {text.splitlines()[-1][:90]}")
        res.extra["injected_chars"] = len(text)
    except (ValueError, KeyError, TypeError, IndexError):
        res.status = "ERROR"
        res.notes.append(f"stdout is not the SessionStart JSON: {out[:120]!r}")
    return [res]

