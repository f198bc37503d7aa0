"""What every row shares: samples, interleaved timing, and the result record.

The machines are noisy (2 shared cores), so absolute times mean little. Every row times
its subject and its baseline alternately in the same run (A B B A A B …, so slow drift
hits both equally) and compares medians; min–max shows how noisy the run was.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
TRANSCRIPTS = SHARED / "transcripts"
BIG_TRANSCRIPT = TRANSCRIPTS / "spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"

PASS, FAIL, MISSING, ERROR, INFO = "PASS", "FAIL", "MISSING", "ERROR", "INFO"


@dataclass
class Stat:
    """The samples of one measured thing, in `unit`."""

    samples: list[float]
    unit: str = "ms"

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def lo(self) -> float:
        return min(self.samples)

    @property
    def hi(self) -> float:
        return max(self.samples)

    def to_json(self) -> dict[str, Any]:
        return {
            "unit": self.unit, "median": self.median, "min": self.lo, "max": self.hi,
            "samples": self.samples,
        }


@dataclass
class Result:
    """One line of the table.

    kind: "ratio" (value / baseline ≤ limit), "delta" (value - baseline ≤ limit) or
    "max" (value ≤ limit, no baseline). Status INFO: shown, not judged.
    """

    key: str
    title: str
    status: str
    kind: str = "ratio"
    value: Stat | None = None
    baseline: Stat | None = None
    baseline_title: str = ""
    limit: float | None = None
    budget: str = ""
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    crashed: bool = False  # the row's code raised: a harness or product bug, see notes

    @property
    def ratio(self) -> float | None:
        if self.value is None:
            return None
        if self.kind == "ratio":
            if self.baseline is None or self.baseline.median <= 0:
                return None
            return self.value.median / self.baseline.median
        if self.kind == "delta":
            return None if self.baseline is None else self.value.median - self.baseline.median
        return self.value.median

    @property
    def paired(self) -> float | None:
        """Median of value_i / baseline_i over samples taken side by side: less sensitive
        than the ratio of medians to load that changes during the run."""
        if self.kind != "ratio" or self.value is None or self.baseline is None:
            return None
        pairs = [a / b for a, b in zip(self.value.samples, self.baseline.samples, strict=False)
                 if b > 0]
        return statistics.median(pairs) if pairs else None

    def judge(self) -> Result:
        """Set PASS/FAIL from the ratio and the limit (rows that measured something)."""
        r = self.ratio
        if self.status in (MISSING, ERROR, INFO):
            return self
        if r is None or self.limit is None:
            self.status = ERROR
            return self
        self.status = PASS if r <= self.limit else FAIL
        return self

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["value"] = self.value.to_json() if self.value else None
        out["baseline"] = self.baseline.to_json() if self.baseline else None
        out["ratio"] = self.ratio
        out["paired_ratio"] = self.paired
        return out


def missing(key: str, title: str, budget: str, why: str) -> Result:
    return Result(key, title, MISSING, budget=budget, notes=[why])


def error(key: str, title: str, budget: str, why: str) -> Result:
    return Result(key, title, ERROR, budget=budget, notes=[why])


def interleave(
    arms: Sequence[Callable[[], float]], reps: int, warmup: int = 1
) -> list[list[float]]:
    """Call each arm `reps` times, rotating which goes first; return samples per arm.

    Each arm returns its own measurement (seconds, bytes…), so arms can time exactly the
    part that matters (e.g. start-to-paint rather than the whole process).
    """
    for _ in range(warmup):
        for arm in arms:
            arm()
    out: list[list[float]] = [[] for _ in arms]
    n = len(arms)
    for i in range(reps):
        order = list(range(n))
        shift = i % n
        order = order[shift:] + order[:shift]
        if (i // n) % 2:
            order.reverse()
        for j in order:
            out[j].append(arms[j]())
    return out


def timed(fn: Callable[[], object]) -> float:
    """Wall seconds of one call."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def ms(samples: Sequence[float]) -> Stat:
    return Stat([s * 1000 for s in samples], "ms")
