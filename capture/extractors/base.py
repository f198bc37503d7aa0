"""What every extractor takes and gives, so the pipeline can name none of them.

Stdlib only: the offline path and `preview` import this without the SDK.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from capture.candidate import Candidate
    from capture.transcript import Turn


@dataclass(frozen=True)
class Request:
    """One job's input: the windows as sent, the redacted turns behind them, and the
    project's known facts (redacted), so the model is told what not to repeat.
    `existing` items are `(id, text)` (the id lets a candidate name what it supersedes)
    or bare text."""

    windows: Sequence[str]
    turns: Sequence[Turn]
    existing: Sequence[str | tuple[int, str]] = ()
    rejected: Sequence[tuple[str, str]] = ()


class Extractor(Protocol):
    """Turns a request into candidates. `paid` puts it under the daily spend cap;
    `uses_known` asks the pipeline to read the project's facts for the request."""

    name: str
    source: str  # what a stored candidate's `source` says
    model: str
    paid: bool
    uses_known: bool

    def unavailable(self) -> str | None:
        """Why it cannot run now (the job waits, uncounted), or None."""
        ...

    def estimate_cost(self, windows: Sequence[str]) -> float: ...

    def extract(self, request: Request) -> ExtractionResult:
        """Raises ExtractionError; its `permanent` flag says whether a retry can help."""
        ...


DEFAULT_MODEL = "claude-haiku-4-5"

# USD per million tokens (input, output). Matched by longest prefix so dated model ids
# ("claude-haiku-4-5-20251001") price like their alias.
PRICES: dict[str, tuple[float, float]] = {
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-3-5-haiku": (0.8, 4.0),
    "claude-3-haiku": (0.25, 1.25),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-opus-4-1": (15.0, 75.0),
    "claude-opus-4": (15.0, 75.0),
}


def cost_usd(model: str, input_tokens: int, output_tokens: int) -> float:
    """Price of a request; 0.0 for an unknown model (shown as unknown, never guessed)."""
    best = max((k for k in PRICES if model.startswith(k)), key=len, default=None)
    if best is None:
        return 0.0
    pin, pout = PRICES[best]
    return (input_tokens * pin + output_tokens * pout) / 1_000_000


@dataclass
class ExtractionResult:
    candidates: list[Candidate] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    requests: int = 0
    cost_usd: float = 0.0


class ExtractionError(Exception):
    """Extraction failed.

    kind: auth | invalid_request | rate_limit | overloaded | server | timeout |
    connection | bad_answer | unavailable (the extractor cannot run now, e.g. a signed-out
    Claude Code: the job waits without counting an attempt). `permanent` means retrying
    the same job cannot help (bad key, unknown model, request rejected); `retry_after` is
    the server's hint in seconds when it gave one; `partial` holds what earlier windows
    produced.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        permanent: bool,
        retry_after: float | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.permanent = permanent
        self.retry_after = retry_after
        self.status = status
        self.partial: ExtractionResult | None = None

    def __repr__(self) -> str:
        return (
            f"ExtractionError({str(self)!r}, kind={self.kind!r}, permanent={self.permanent}, "
            f"retry_after={self.retry_after!r})"
        )
