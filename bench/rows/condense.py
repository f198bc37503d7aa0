"""Condensing the 3 MB real transcript against `json.loads` of each of its lines.

Condensation reads every record and keeps what a person would (prompts, conclusions,
what was written, error lines of any tool result); parsing every line is the floor of any
reader of the format. It was a timed unit test once (tests are not benchmarks: it failed
by 0.1% under CI's load); here both run in this process, warm, interleaved.
"""

from __future__ import annotations

import time

from bench.common import BIG_TRANSCRIPT, Result, error, interleave, ms
from bench.rows import Ctx
from bench.rows.preview import parse_all

KEY = "condense"
BASE = "json.loads of every line"
# 2× until session 7, when condensation began to search each long tool result for the
# lines the next answer draws on (capture/results.py; issue 21: on held-out sessions the
# facts with every carrier sent went from 77% to 95% and from 31% to 65%). That search
# costs ~0.3× here (1.86× → 2.2×); the worker condenses in the background, no one waits.
LIMIT = 2.5


def run(ctx: Ctx) -> list[Result]:
    title, budget = "condensing a real transcript", f"≤ {LIMIT:g}×"
    if not BIG_TRANSCRIPT.is_file():
        return [error(KEY, title, budget, f"{BIG_TRANSCRIPT} not found")]
    from capture.condense import condense_file

    out: dict[str, int] = {}

    def condensed() -> float:
        t0 = time.perf_counter()
        out["turns"] = len(condense_file(BIG_TRANSCRIPT).turns)
        return time.perf_counter() - t0

    def parsed() -> float:
        t0 = time.perf_counter()
        parse_all(BIG_TRANSCRIPT)
        return time.perf_counter() - t0

    sa, sb = interleave([condensed, parsed], ctx.cheap_reps)
    res = Result(KEY, title, "", value=ms(sa), baseline=ms(sb), baseline_title=BASE,
                 limit=LIMIT, budget=budget, notes=[f"{out.get('turns', 0):,} turns kept"])
    return [res.judge()]
