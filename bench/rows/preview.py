"""`preview` of the 3 MB real transcript against `json.loads` of each of its lines.

Preview is what the worker does before the network: read, condense, redact. Parsing
every line is the floor of any reader of the format, so it is the baseline. Both run
in this process, warm, interleaved; both include reading the file.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from bench.common import BIG_TRANSCRIPT, Result, error, interleave, missing, ms
from bench.rows import Ctx, has_module

BASE = "json.loads of every line"
NEEDS = "capture/pipeline.py (preview_text) or reviewer/sanitize/redact.py"


def preview_function() -> tuple[Callable[[Path], str], str] | None:
    """What `mem-review preview` prints: `capture.pipeline.preview_text` once it exists,
    else condense + redact of each window as the pipeline's brief specifies."""
    if has_module("capture.pipeline"):
        try:
            from capture.pipeline import preview_text

            return preview_text, "capture.pipeline.preview_text"
        except Exception:  # half-written module: fall back below
            pass
    if has_module("reviewer.sanitize.redact") and has_module("capture.condense"):
        from capture.condense import condense_file
        from reviewer.config import Config
        from reviewer.sanitize.redact import redact

        size = Config().window_chars

        def fallback(p: Path) -> str:
            return "\n\n".join(redact(w) for w in condense_file(p, window_chars=size).windows)

        return fallback, "condense + redact (pipeline.preview_text not landed)"
    return None


def parse_all(path: Path) -> int:
    n = 0
    with path.open("rb") as f:
        for line in f:
            if line.strip():
                try:
                    json.loads(line)
                except ValueError:
                    continue
                n += 1
    return n


def run(ctx: Ctx) -> list[Result]:
    size = BIG_TRANSCRIPT.stat().st_size if BIG_TRANSCRIPT.is_file() else 0
    key, title, budget = "preview", f"preview of a {size / 1e6:.1f} MB real transcript", "≤ 2×"
    if not size:
        return [error(key, title, budget, f"{BIG_TRANSCRIPT} not found")]
    found = preview_function()
    if found is None:
        return [missing(key, title, budget, NEEDS)]
    fn, how = found
    out: dict[str, int] = {}

    def a() -> float:
        t0 = time.perf_counter()
        out["chars"] = len(fn(BIG_TRANSCRIPT))
        return time.perf_counter() - t0

    def b() -> float:
        t0 = time.perf_counter()
        parse_all(BIG_TRANSCRIPT)
        return time.perf_counter() - t0

    sa, sb = interleave([a, b], ctx.cheap_reps)
    res = Result(key, title, "", value=ms(sa), baseline=ms(sb), baseline_title=BASE, limit=2.0,
                 budget=budget, notes=[f"in-process via {how}; {out.get('chars', 0):,} chars out"])
    return [res.judge()]
