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



SWEEP_NOTES = 30  # a well-used auto-memory folder: MEMORY.md and 29 topic files
SWEEP_LINES = 40


def _memory_home(ctx: Ctx, name: str, notes: int) -> dict[str, str]:
    """A scratch HOME whose Claude Code memory folder for the bench repo holds `notes`
    notes; the store's record says they were all swept already (nothing changed)."""
    from reviewer.claude_code import native_memory
    from reviewer.project import project_root
    from reviewer.store import db

    user = ctx.fx.work / name
    store = ctx.fx.work / f"{name}-store"
    project = project_root(str(ctx.fx.repo))
    folder = (user / ".claude" / "projects"
              / native_memory.project_key(native_memory.canonical_root(project)) / "memory")
    user.mkdir(parents=True, exist_ok=True)
    if notes:
        folder.mkdir(parents=True, exist_ok=True)
    for i in range(notes):
        note = folder / ("MEMORY.md" if i == 0 else f"topic_{i}.md")
        note.write_text("".join(f"- Note {i} line {k}: the shop deploys with blue-green.\n"
                                for k in range(SWEEP_LINES)))
    store.mkdir(mode=0o700, exist_ok=True)
    if notes:  # swept as the worker sweeps: the store's rows and the hooks' record
        from capture.native_import import sweep
        from reviewer.store.facts import Store

        before = os.environ.get("MEM_REVIEW_HOME")
        os.environ["MEM_REVIEW_HOME"] = str(store)
        one = Store(store / "store.db")
        try:
            sweep(one, project, folder, force=True)
        finally:
            one.close()
            if before is None:
                del os.environ["MEM_REVIEW_HOME"]
            else:
                os.environ["MEM_REVIEW_HOME"] = before
    else:
        db.connect(store / "store.db").close()
    return {"HOME": str(user), "MEM_REVIEW_HOME": str(store)}


def run_sweep(ctx: Ctx) -> list[Result]:
    """SessionEnd with a swept, unchanged memory folder of 30 notes against SessionEnd with
    no memory folder at all: what the sweep check costs a hook when nothing changed."""
    key = "hook-sweep"
    title = f"hook session-end, {SWEEP_NOTES} unchanged Claude Code memory notes"
    budget = "≤ 1.25×"
    if ctx.exe is None:
        return [missing(key, title, budget, "no mem-review console script")]
    if not has_module("reviewer.claude_code.native_memory"):
        return [missing(key, title, budget, "reviewer/claude_code/native_memory.py")]
    payload = json.dumps({
        "session_id": "bench-sweep", "transcript_path": str(BIG_TRANSCRIPT),
        "cwd": str(ctx.fx.repo), "hook_event_name": "SessionEnd", "reason": "other",
    }).encode()
    hook = [str(ctx.exe), "hook", "session-end"]
    full = {**os.environ, "MEM_REVIEW_NO_SPAWN": "1",
            **_memory_home(ctx, "home-sweep", SWEEP_NOTES)}
    none = {**os.environ, "MEM_REVIEW_NO_SPAWN": "1", **_memory_home(ctx, "home-nomem", 0)}
    codes: list[int] = []

    def a() -> float:
        dt, _, rc = _run(hook, payload, full)
        codes.append(rc)
        return dt

    def b() -> float:
        return _run(hook, payload, none)[0]

    samples = interleave([a, b], ctx.cheap_reps)
    res = Result(key, title, "", value=ms(samples[0]), baseline=ms(samples[1]),
                 baseline_title="the same hook, no memory folder", limit=1.25, budget=budget)
    res.notes.append("unchanged: one small record read, a stat of the folder and of each "
                     "note; the import itself runs in the worker")
    if any(codes):
        res.status = "ERROR"
        res.notes.append(f"exit codes {sorted(set(codes))}")
    conn = sqlite3.connect(os.path.join(full["MEM_REVIEW_HOME"], "store.db"))
    try:
        left = conn.execute("SELECT COUNT(*) FROM native_folder WHERE signature = ''").fetchone()
        pending = conn.execute("SELECT COUNT(*) FROM fact WHERE source = 'claude-code memory'"
                               ).fetchone()
    finally:
        conn.close()
    if left[0] or not pending[0]:
        res.status = "ERROR"
        res.notes.append("the fixture's notes were not swept, or the hook took an unchanged "
                         "folder for a new one")
    return [res.judge()]
