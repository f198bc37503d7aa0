"""Does a candidate's quote really support its fact? (GUIDE §5, issue 12)

Stdlib only. A substring match passed candidates that invert their own quote, a "…"
that drops a "doesn't", a fuzzy match that flips a negation, three-word quotes,
tool-call lines, guesses corrected later and quotes stitched from distant turns. The
verifier locates the quote in the transcript's turns (which turn, who spoke), then runs
small checks, each a pure function; the first that fails names the verdict's `check`.

Precise rather than clever: every check looks for one concrete, explainable defect, so a
flagged candidate tells the person why, and a true one is rarely flagged. What a quote says
of a setting, a move, a field or an offer is read in `capture/claims.py`.

Layout, one way down (each module imports only those below it):
  check        the entry point, `verify`
  hints        which suspicion goes beside a supported verdict
  corrections  a later turn corrects, overrules or answers the claim otherwise
  failures     a step refuted later; a fix claimed while its check failed
  tools        what tool calls and written files say
  hedges       hedges, opinions, attributions, guesses
  locate       finding the quote and who said it
  inversion    negation and verb flips (knowledge)
  places       a path on another branch, a variable pointed elsewhere (knowledge)
  known        a move reversed, a quoted value, a ticked command, a default, a look
               that found nothing, a call's own echo: the quote's form (knowledge)
  values       numbers, units, names, flag values (knowledge)
  turns        who spoke; each turn's text
  names        identifiers, numbers, shared terms
  words        tokens, stems, negations, sentences
  cues         cue words of other languages, as data
  verdict      the Verdict and the names of checks and hints
"""

from __future__ import annotations

from capture.verify.check import verify
from capture.verify.corrections import GUESS_TURNS, VARIANT_NEAR, corrects
from capture.verify.failures import BEFORE_TURNS, CHECK_PROMPTS, RECHECK_TURNS
from capture.verify.hedges import HEDGE_REACH, fact_speaker, hedged, opinion
from capture.verify.inversion import (
    INVERSION_OVERLAP,
    dropped_negation,
    flips_meaning,
    flips_negation,
    limited_after,
    negated_before,
    object_flip,
)
from capture.verify.locate import (
    FUZZY_RATIO,
    MAX_FUZZY_CHARS,
    MAX_GAP,
    STITCH_GAP,
    clean_quote,
    locate,
)
from capture.verify.names import _shared_terms, identifiers, key_values, numbers
from capture.verify.tools import NOW, WAS
from capture.verify.turns import NEAR_TURNS, is_summary, speaker_of
from capture.verify.values import (
    SLIP_RATIO,
    VARIANT_RATIO,
    code_variant,
    dropped_words,
    missing_terms,
    region_differs,
    slipped_name,
    swapped_name,
    transition_changed,
    unit_changed,
    unit_numbers,
)
from capture.verify.verdict import CHECKS, CONFIDENT, HINTS, KNOWN, SPEAKERS, Verdict
from capture.verify.words import MIN_WORDS, negations, polarity, too_short, words

__all__ = [
    "BEFORE_TURNS",
    "CHECKS",
    "CHECK_PROMPTS",
    "CONFIDENT",
    "FUZZY_RATIO",
    "GUESS_TURNS",
    "HEDGE_REACH",
    "HINTS",
    "INVERSION_OVERLAP",
    "KNOWN",
    "MAX_FUZZY_CHARS",
    "MAX_GAP",
    "MIN_WORDS",
    "NEAR_TURNS",
    "NOW",
    "RECHECK_TURNS",
    "SLIP_RATIO",
    "SPEAKERS",
    "STITCH_GAP",
    "VARIANT_NEAR",
    "VARIANT_RATIO",
    "WAS",
    "Verdict",
    "_shared_terms",
    "clean_quote",
    "code_variant",
    "corrects",
    "dropped_negation",
    "dropped_words",
    "fact_speaker",
    "flips_meaning",
    "flips_negation",
    "hedged",
    "identifiers",
    "is_summary",
    "key_values",
    "limited_after",
    "locate",
    "missing_terms",
    "negated_before",
    "negations",
    "numbers",
    "object_flip",
    "opinion",
    "polarity",
    "region_differs",
    "slipped_name",
    "speaker_of",
    "swapped_name",
    "too_short",
    "transition_changed",
    "unit_changed",
    "unit_numbers",
    "verify",
    "words",
]
