"""The benchmark rows. Each module's `run(ctx)` returns the Results it measured.

A row whose code has not landed yet returns MISSING instead of crashing, so the harness
is useful while the product is being built.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.fixtures import Fixtures


@dataclass
class Ctx:
    fx: Fixtures
    reps: int
    quick: bool
    terminal: str  # "pty" | "tmux"
    exe: Path | None  # the `mem-review` console script
    log: Callable[[str], None]

    @property
    def cheap_reps(self) -> int:
        """Rows that take well under a second a sample get 3× the repetitions: on a
        loaded machine their medians need it, and they cost little."""
        return self.reps if self.quick else self.reps * 3


def has_module(name: str) -> bool:
    """True when `name` can be imported (its file exists), without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False
