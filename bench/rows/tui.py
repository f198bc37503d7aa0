"""The TUI rows, measured in a real terminal (a pty by default, tmux on request).

One pass per repetition starts three apps in rotating order:

- the one-widget Textual app (`bench/tui_probe.py`): baseline for start-to-paint and RSS;
- `mem-review` on the 10,000-pending-fact store: start-to-first-painted-fact, RSS, keys;
- `mem-review` on the 10-fact store: baseline for the keys.

Start-to-paint runs from just before the process is spawned to the arrival of the first
output that contains a fact id (`F` and five digits; every fact of the fixtures starts
with one, and the probe paints one too). RSS is read from /proc once the app has fallen
quiet (no output for 1 s, and next to no CPU for 0.5 s: background loading done), which is
what a person's machine holds while reviewing; the keys are pressed from then on.
Keys: `j`/`k`: time to the first output after the key (the list's cursor repaint).
Filter typing (`/`, then `z` and backspace, three times): time to the first output that
repaints fact rows (the input's echo comes earlier and does not count); under tmux, the
first screen whose fact ids differ.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import INFO, ROOT, Result, Stat, error, interleave, missing, ms
from bench.rows import Ctx, has_module
from bench.terminal import PtyApp, TmuxApp, rss_mb, tmux_available, wait_idle

FACT = re.compile(rb"F\d{5}")
ANSI = re.compile(rb"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b[\]P_^][^\x07\x1b]*(\x07|\x1b\\)?|\x1b.")
MOVES = "jjjkkk"
# "z" is in 1 fact in 10 only (bench/fixtures.py), so typing it narrows the list and
# deleting it widens it again: each key repaints list rows, whatever the sort order.
FILTER_KEYS = ("z", "backspace") * 3
PAINT_TIMEOUT = 60.0


def _screen_text(app: Any, limit: int = 300) -> str:
    text = ANSI.sub(b" ", bytes(app.screen.buf[-20_000:])).decode("utf-8", "replace")
    return " ".join(text.split())[-limit:]


class _Session:
    """One app in a terminal: its start-to-paint time, its RSS, its key latencies."""

    def __init__(self, ctx: Ctx, cmd: list[str], home: Path | None) -> None:
        env = dict(os.environ)
        env.pop("TEXTUAL", None)  # no devtools
        if home is not None:
            env["MEM_REVIEW_HOME"] = str(home)
        env["MEM_REVIEW_NO_SPAWN"] = "1"
        kind = TmuxApp if ctx.terminal == "tmux" else PtyApp
        self.app: Any = kind(cmd, env=env, cwd=ctx.fx.repo)
        self.failure = ""
        t = self.app.screen.wait_for(FACT, PAINT_TIMEOUT)
        self.paint = None if t is None else t - self.app.t_start
        if self.paint is None:
            self.failure = f"no fact painted within {PAINT_TIMEOUT:.0f} s; screen: " \
                           f"{_screen_text(self.app)!r}"
            return
        self.rss_paint = rss_mb(self.app.pid)
        self.app.screen.settle(0, quiet=1.0, timeout=20)  # background loads repaint late
        if not wait_idle(self.app.pid, timeout=30):
            self.failure = "the app kept using CPU for 30 s after its first paint"
            return
        self.rss = rss_mb(self.app.pid)

    def keys(self, moves: list[float], typing: list[float], quick: bool) -> None:
        screen = self.app.screen
        for key in MOVES[2:4] if quick else MOVES:
            screen.settle(screen.mark() - 1, quiet=0.5, timeout=3.0)  # late repaints done
            mark = screen.mark()
            t0 = self.app.send(key)
            t1 = screen.first_after(mark, 3.0, since=t0)
            if t1 is None:
                self.failure = f"no repaint within 3 s after {key!r}"
                return
            moves.append(t1 - t0)
        mark = screen.mark()
        self.app.send("/")
        if screen.settle(mark, quiet=0.3, timeout=3.0) is None:
            self.failure = "nothing repainted after '/' (no filter input?)"
            return
        for key in FILTER_KEYS[:2] if quick else FILTER_KEYS:
            screen.settle(screen.mark() - 1, quiet=0.4, timeout=3.0)  # the last key's repaints
            mark = screen.mark()
            t0 = self.app.send(key)
            t1 = screen.changed_ids(FACT, mark, 3.0, since=t0)
            if t1 is None:
                self.failure = f"the list did not change within 3 s after {key!r} in the filter"
                return
            typing.append(t1 - t0)
        self.app.send("escape")

    def close(self) -> None:
        self.app.close()


def run(ctx: Ctx) -> list[Result]:
    n = ctx.fx.scale
    titles = {
        "tui-start": (f"TUI start to first painted fact, {n.facts:,} pending", "≤ 1.6×"),
        "tui-keys-j": (f"TUI j/k to repaint, {n.facts:,} facts", "≤ 1.5×"),
        "tui-keys-filter": (f"TUI filter typing to repaint, {n.facts:,} facts", "≤ 1.5×"),
        "tui-memory": (f"TUI memory (RSS), {n.facts:,} facts", "≤ +60 MB"),
    }

    def all_(make: Callable[[str, str, str], Result]) -> list[Result]:
        return [make(k, t, b) for k, (t, b) in titles.items()]

    if ctx.exe is None:
        return all_(lambda k, t, b: missing(k, t, b, "no mem-review console script"))
    if not has_module("reviewer.commands.review") or not has_module("reviewer.tui"):
        return all_(lambda k, t, b: missing(k, t, b, "reviewer/commands/review.py, reviewer/tui"))
    if ctx.terminal == "tmux" and not tmux_available():
        why = "tmux is not installed (apt-get install -y tmux) — or use --terminal pty"
        return all_(lambda k, t, b: error(k, t, b, why))

    probe = [sys.executable, str(ROOT / "bench" / "tui_probe.py")]
    tui = [str(ctx.exe)]
    data: dict[str, list[float]] = {k: [] for k in (
        "paint_big", "paint_small", "paint_base", "rss_big", "rss_base", "rss_small",
        "rss_big_paint", "rss_base_paint", "j_big", "j_small", "f_big", "f_small")}
    failures: list[str] = []

    def session(cmd: list[str], home: Path | None, tag: str, keys: bool) -> float:
        s = _Session(ctx, cmd, home)
        try:
            if s.failure:
                failures.append(f"{tag}: {s.failure}")
                return 0.0
            data[f"paint_{tag}"].append(s.paint or 0.0)
            if s.rss is not None:
                data[f"rss_{tag}"].append(s.rss)
            if tag != "small" and s.rss_paint is not None:
                data[f"rss_{tag}_paint"].append(s.rss_paint)
            if keys:
                s.keys(data[f"j_{tag}"], data[f"f_{tag}"], ctx.quick)
                if s.failure:
                    failures.append(f"{tag}: {s.failure}")
        finally:
            s.close()
        return 0.0

    try:
        interleave([
            lambda: session(probe, None, "base", keys=False),
            lambda: session(tui, ctx.fx.home_pending, "big", keys=True),
            lambda: session(tui, ctx.fx.home_small, "small", keys=True),
        ], ctx.reps, warmup=0 if ctx.quick else 1)
    finally:
        if ctx.terminal == "tmux":
            TmuxApp.shutdown()

    how = f"terminal: {ctx.terminal}, 120×36"
    results: list[Result] = []

    def add(key: str, a: str, b: str, base_title: str, limit: float, kind: str = "ratio",
            unit: str = "ms", notes: list[str] | None = None) -> None:
        title, budget = titles[key]
        if not data[a] or not data[b]:
            results.append(error(key, title, budget, "; ".join(failures[:2]) or "no samples"))
            return
        mk = ms if unit == "ms" else (lambda v: Stat(list(v), unit))
        res = Result(key, title, "", kind=kind, value=mk(data[a]), baseline=mk(data[b]),
                     baseline_title=base_title, limit=limit, budget=budget,
                     notes=[how, *(notes or [])])
        res.judge()
        if failures:
            res.notes.append(f"{len(failures)} failed sessions, e.g. {failures[0]}")
        results.append(res)

    small = data["paint_small"]
    add("tui-start", "paint_big", "paint_base", "one-widget Textual app", 1.6, notes=[
        f"10-fact store: {statistics.median(small) * 1000:.0f} ms" if small else ""])
    add("tui-keys-j", "j_big", "j_small", f"same keys, {n.small}-fact store", 1.5,
        notes=[f"keys {MOVES!r}; time to the first output after each key"])
    add("tui-keys-filter", "f_big", "f_small", f"same keys, {n.small}-fact store", 1.5,
        notes=["'/' then z, backspace ×3; time to the first output repainting fact rows"])
    paint_rss = data["rss_big_paint"], data["rss_base_paint"]
    add("tui-memory", "rss_big", "rss_base", "one-widget Textual app", 60.0, kind="delta",
        unit="MB", notes=[
            "VmRSS once the app fell quiet (background loads done)",
            f"at first paint: {statistics.median(paint_rss[0]):.0f} MB vs "
            f"{statistics.median(paint_rss[1]):.0f} MB" if all(paint_rss) else ""])
    for r in results:
        r.notes = [x for x in r.notes if x]
    if data["rss_small"]:
        results.append(Result(
            "tui-memory-small", f"TUI memory (RSS), {n.small} facts", INFO, kind="delta",
            value=Stat(data["rss_small"], "MB"), baseline=Stat(data["rss_base"] or [0], "MB"),
            baseline_title="one-widget Textual app", budget="(reported)"))
    return results
