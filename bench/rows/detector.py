"""The full secret detector against the redactor it builds on, on a real transcript.

The worker redacts every condensed turn (``capture.pipeline.redact_turns``) and every
window. Value: that work with ``reviewer.sanitize.detect`` loaded (gitleaks' rules and
the extra context layers, as the worker and ``preview`` run it). Baseline: the same call
with the stdlib redactor alone (``reviewer/sanitize/redact.py``'s own rules, as before
issue 20 and as the hooks' log writer still runs it). Same process, warm, interleaved.
"""

from __future__ import annotations

import time

from bench.common import BIG_TRANSCRIPT, Result, error, interleave, missing, ms
from bench.rows import Ctx, has_module

KEY = "detector"
BASE = "stdlib redactor alone"
LIMIT = 3.0


def run(ctx: Ctx) -> list[Result]:
    title, budget = "secret detector on a real transcript's turns and windows", f"≤ {LIMIT:g}×"
    if not has_module("reviewer.sanitize.detect"):
        return [missing(KEY, title, budget, "reviewer/sanitize/detect.py")]
    if not BIG_TRANSCRIPT.is_file():
        return [error(KEY, title, budget, f"{BIG_TRANSCRIPT} not found")]
    from capture.condense import split_windows
    from capture.pipeline import redact_turns
    from capture.transcript import read_turns
    from reviewer.config import Config
    from reviewer.sanitize import detect  # noqa: F401  (loads the detector into redact)
    from reviewer.sanitize import redact as base

    turns = read_turns(str(BIG_TRANSCRIPT), 0)[0]
    size = Config().window_chars
    extra = list(base._EXTRA)

    def work() -> None:
        for w in split_windows(redact_turns(turns), size):
            base.redact(w)

    def full() -> float:
        t0 = time.perf_counter()
        work()
        return time.perf_counter() - t0

    def alone() -> float:
        base._EXTRA.clear()
        try:
            t0 = time.perf_counter()
            work()
            return time.perf_counter() - t0
        finally:
            base._EXTRA[:] = extra

    sa, sb = interleave([full, alone], ctx.cheap_reps)
    chars = sum(len(t.text) for t in turns)
    res = Result(KEY, title, "", value=ms(sa), baseline=ms(sb), baseline_title=BASE,
                 limit=LIMIT, budget=budget,
                 notes=[f"{len(turns)} turns, {chars:,} characters; the detector adds "
                        f"{len(extra)} finders (gitleaks' rules, context layers, memory)"])
    return [res.judge()]
