"""A model's judgment of the verifier's suspicions (issue 21), one batched call a job.

The verifier's hints (a later turn may correct the quote, the quote is hedged, another
speaker said it…) are suspicions, not knowledge. Where a model is available through the
extractor channel, one request a job asks it, for every suspected candidate at once,
whether the quote and the turn the suspicion rests on support the fact. What it says
settles the suspicion either way, never the knowledge: a candidate judged supported
loses its hint (the note says so), one judged unsupported keeps it with the model's
reason beside it; nothing is marked ungrounded by a model. A failed call settles
nothing: the hints stay as the verifier wrote them.

Stdlib only: the prompt, the tool schema and the answer's reading live here; the SDK
call is the extractor's (`capture.extractors.api.ApiExtractor.judge`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

JUDGE_TOOL = "record_judgments"
MAX_SUSPECTS = 20  # a job's suspicions judged in one request, at most
MAX_QUOTE_CHARS = 600
MAX_CONTEXT_CHARS = 900
REASON_CHARS = 200

SYSTEM = (
    "You check candidate facts extracted from a coding-assistant session before a person "
    "reviews them. Each candidate has a fact, the quote it rests on, and a suspicion an "
    "automatic check raised, with the text the suspicion rests on. Judge each one: is the "
    "fact, as worded, supported by the quote once the suspicion is taken into account? "
    "Answer 'supported' false when the later text corrects or refutes it, when the quote "
    "is a guess, a plan, an offer or an opinion the fact states as established, when the "
    "fact names the wrong speaker, when it gives a value or a name other than the text "
    "does, or when it drops a negation, a condition or a limit the quote's sentence puts "
    "on it. Judge only from the text given. Answer by calling "
    f"{JUDGE_TOOL} once, with one judgment per candidate."
)

TOOL: dict[str, Any] = {
    "name": JUDGE_TOOL,
    "description": "Record one judgment per suspected candidate.",
    "input_schema": {
        "type": "object",
        "properties": {
            "judgments": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer", "description": "the candidate's id"},
                        "supported": {"type": "boolean"},
                        "reason": {"type": "string", "description": "one short sentence"},
                    },
                    "required": ["id", "supported", "reason"],
                },
            }
        },
        "required": ["judgments"],
    },
}


@dataclass(frozen=True)
class Suspect:
    """One suspected candidate: its fact, quote, the hint and what the hint rests on."""

    id: int
    fact: str
    quote: str
    hint: str
    detail: str
    context: str = ""


@dataclass(frozen=True)
class Judgment:
    supported: bool
    reason: str


@dataclass
class JudgeResult:
    judgments: dict[int, Judgment] = field(default_factory=dict)
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    dropped: list[str] = field(default_factory=list)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def build_message(suspects: Sequence[Suspect]) -> str:
    """The user message: each suspect as a small block (already redacted text only)."""
    parts = []
    for s in suspects[:MAX_SUSPECTS]:
        block = [f"<candidate id={s.id}>", f"fact: {_clip(s.fact, MAX_QUOTE_CHARS)}",
                 f"quote: {_clip(s.quote, MAX_QUOTE_CHARS)}",
                 f"suspicion ({s.hint}): {_clip(s.detail, MAX_CONTEXT_CHARS)}"]
        if s.context:
            block.append(f"context:\n{_clip(s.context, MAX_CONTEXT_CHARS)}")
        block.append("</candidate>")
        parts.append("\n".join(block))
    return "\n\n".join(parts)


def read_answer(payload: Any, asked: Sequence[Suspect]) -> tuple[dict[int, Judgment], list[str]]:
    """The judgments in a `record_judgments` input, for asked ids only; what was unusable
    is named in the second list (an id not asked, a missing flag)."""
    ids = {s.id for s in asked}
    out: dict[int, Judgment] = {}
    dropped: list[str] = []
    items = payload.get("judgments") if isinstance(payload, dict) else None
    if not isinstance(items, list):
        return {}, ["judge answer has no judgments list"]
    for item in items:
        if not isinstance(item, dict):
            dropped.append("judgment is not an object")
            continue
        cid, ok = item.get("id"), item.get("supported")
        if not isinstance(cid, int) or cid not in ids or not isinstance(ok, bool):
            dropped.append(f"judgment unusable: {_clip(str(item), 120)}")
            continue
        reason = item.get("reason")
        out[cid] = Judgment(ok, _clip(reason if isinstance(reason, str) else "", REASON_CHARS))
    return out, dropped


def settle(hint: str | None, judgment: Judgment | None) -> str | None:
    """A stored hint after the model's judgment: gone when it judged the fact supported,
    kept with its reason when not, unchanged without a judgment."""
    if hint is None or judgment is None:
        return hint
    if judgment.supported:
        return None
    return f"{hint} · the model agrees: {judgment.reason}" if judgment.reason else hint
