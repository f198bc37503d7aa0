"""What the verifier returns: the Verdict and the names its check and hint may take.

Data only, so every layer above may build a Verdict without importing the others.
"""

from __future__ import annotations

from dataclasses import dataclass

# Every value `Verdict.check` may take. Order of the checks: the quote's length, then
# locating it (not_found, elision, stitched, and for a near match negation_flip,
# number_mismatch, identifier_mismatch), then tool_line, summary_only, the fact against
# its quote (negation_flip for an inversion, number_mismatch, identifier_missing), and
# last corrected_later.
CHECKS = (
    "not_found", "too_short", "elision", "stitched", "negation_flip", "number_mismatch",
    "identifier_mismatch", "tool_line", "summary_only", "identifier_missing",
    "corrected_later",
)
# What the checks know marks a candidate ungrounded; what they only suspect is a hint
# beside the evidence (issue 21: a true fact flagged costs the reviewer's trust as much
# as a false one passed). `corrected_later` is a hint now, kept in CHECKS for old rows.
KNOWN = tuple(c for c in CHECKS if c != "corrected_later")
# A hint names the defect it suspects: a later correction, a hedge, the speaker, or a
# known check's name when the evidence for it is only suggestive (a later value, a
# near name, a limit the quote stops before).
HINTS = ("corrected_later", "hedged", "speaker", "negation_flip", "number_mismatch",
         "identifier_mismatch", "identifier_missing", "elision", "tool_line", "too_short")
SPEAKERS = ("user", "assistant", "tool")
CONFIDENT = 0.7  # at or above, a compaction summary alone is not enough support


@dataclass(frozen=True)
class Verdict:
    """What the verifier found: `check` names the first check that failed (None when the
    quote supports the fact); `turn` and `speaker` say where the quote was found."""

    supported: bool
    check: str | None = None
    turn: int | None = None
    speaker: str | None = None
    detail: str = ""
    # A suspicion (one of HINTS) about a supported quote, and what it rests on (the later
    # turn that may correct it, quoted): shown beside the evidence, never a verdict.
    hint: str | None = None
    hint_detail: str = ""
