"""Candidate facts and the validation of the model's answer.

Stdlib only: the offline extractor (`rules.py`) builds candidates too, and the offline
path must not drag in pydantic or the SDK.

The answer shape (GUIDE §4, extended by issue 12):
``{"facts": [{"fact", "category", "files", "confidence", "evidence", "source", "supersedes"}]}``.
`source` (who said what the evidence quotes: user, tool or assistant) is asked for but an
answer without it is still accepted, as `assistant`, the least trusted; `supersedes` (the
id of an existing fact this one replaces) is optional, and a link to an id that was not
given is dropped with a reason while the candidate is kept. Validation is item by item so
one bad item does not cost the whole answer; nothing is coerced silently except trimming
whitespace, removing repeated file names and the source's plain synonyms.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from typing import Any

from reviewer.store.schema import CATEGORIES

__all__ = [
    "CATEGORIES", "FIELDS", "SOURCES", "AnswerShapeError", "Candidate", "parse_candidates",
]

FIELDS = ("fact", "category", "files", "confidence", "evidence")  # required in every answer
SOURCES = ("user", "tool", "assistant")
DEFAULT_SOURCE = "assistant"  # an answer that does not say gets the least trust
_SOURCE_SYNONYMS = {
    "human": "user", "developer": "user", "person": "user",
    "tool_result": "tool", "tool result": "tool", "command": "tool",
    "model": "assistant", "claude": "assistant", "ai": "assistant",
}


class AnswerShapeError(ValueError):
    """The answer as a whole has the wrong shape (not an object with a `facts` list)."""


@dataclass
class Candidate:
    """One proposed durable fact, not yet reviewed by a person."""

    fact: str
    category: str
    files: list[str] = field(default_factory=list)
    confidence: float = 0.5
    evidence: str = ""
    source: str = DEFAULT_SOURCE
    supersedes: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _validate_item(item: object) -> Candidate | str:
    """Return a Candidate, or the reason the item is unusable."""
    if not isinstance(item, dict):
        return f"not an object ({type(item).__name__})"
    missing = [k for k in FIELDS if k not in item]
    if missing:
        return "missing " + ", ".join(missing)

    fact = item["fact"]
    if not isinstance(fact, str) or not fact.strip():
        return "empty fact" if isinstance(fact, str) else "fact is not a string"
    fact = fact.strip()

    category = item["category"]
    if not isinstance(category, str) or category.strip() not in CATEGORIES:
        return f"category {category!r} not one of {', '.join(CATEGORIES)}"
    category = category.strip()

    files = item["files"]
    if not isinstance(files, list):
        return "files is not a list"
    clean: list[str] = []
    for entry in files:
        if not isinstance(entry, str) or not entry.strip():
            return f"files holds an invalid entry {entry!r}"
        if entry.strip() not in clean:
            clean.append(entry.strip())

    confidence = item["confidence"]
    # bool is an int subclass: True must not pass as confidence 1.
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        return f"confidence {confidence!r} is not a number"
    if not math.isfinite(confidence) or not 0.0 <= confidence <= 1.0:
        return f"confidence {confidence!r} not in [0, 1]"

    evidence = item["evidence"]
    if not isinstance(evidence, str):
        return "evidence is not a string"

    source = item.get("source")
    if source is None:
        source = DEFAULT_SOURCE
    elif not isinstance(source, str):
        return f"source {source!r} is not a string"
    else:
        source = source.strip().lower()
        source = _SOURCE_SYNONYMS.get(source, source)
        if source not in SOURCES:
            return f"source {source!r} not one of {', '.join(SOURCES)}"

    supersedes = item.get("supersedes")
    if supersedes is not None and (
        isinstance(supersedes, bool) or not isinstance(supersedes, int) or supersedes < 1
    ):
        return f"supersedes {supersedes!r} is not a fact id"

    return Candidate(
        fact=fact,
        category=category,
        files=clean,
        confidence=float(confidence),
        evidence=evidence.strip(),
        source=source,
        supersedes=supersedes,
    )


def check_supersedes(
    cands: list[Candidate], known_ids: Collection[int]
) -> list[str]:
    """Drop each `supersedes` link to an id that was not among the facts given to the
    model (it invented one, or the fact is gone); the candidate itself stays.
    Returns one reason per dropped link."""
    dropped: list[str] = []
    for cand in cands:
        if cand.supersedes is not None and cand.supersedes not in known_ids:
            dropped.append(
                f"{_short(cand.fact)}: supersedes #{cand.supersedes}, which is not one of "
                "the existing facts given; link dropped"
            )
            cand.supersedes = None
    return dropped


def _short(text: object, limit: int = 60) -> str:
    s = text if isinstance(text, str) else repr(text)
    s = " ".join(s.split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def parse_candidates(
    obj: object, known_ids: Collection[int] | None = None
) -> tuple[list[Candidate], list[str]]:
    """Validate an answer; return the usable candidates and one reason per dropped item
    (or dropped `supersedes` link, when `known_ids` says which ids were given).

    Raises AnswerShapeError when the answer is not ``{"facts": [...]}`` at all: that is
    an unusable answer, not a list of bad items.
    """
    if not isinstance(obj, dict):
        raise AnswerShapeError(f"answer is not an object ({type(obj).__name__})")
    if "facts" not in obj:
        raise AnswerShapeError("answer has no 'facts' key")
    items = obj["facts"]
    if not isinstance(items, list):
        raise AnswerShapeError(f"'facts' is not a list ({type(items).__name__})")

    kept: list[Candidate] = []
    dropped: list[str] = []
    for i, item in enumerate(items):
        result = _validate_item(item)
        if isinstance(result, Candidate):
            kept.append(result)
        else:
            fact = item.get("fact") if isinstance(item, dict) else None
            label = _short(fact) if isinstance(fact, str) and fact.strip() else ""
            dropped.append(f"item {i}{f' ({label})' if label else ''}: {result}")
    if known_ids is not None:
        dropped.extend(check_supersedes(kept, known_ids))
    return kept, dropped
