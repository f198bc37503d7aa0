"""Which suspicion to put beside a supported verdict, and the later turn it rests on.

The one place that orders the suspicions, so the reviewer sees the strongest.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from capture.claims import asks, default_otherwise, expected_otherwise
from capture.condense import render_turn
from capture.ground import normalise
from capture.transcript import Turn
from capture.verify.corrections import (
    _actual_variant,
    _answered_otherwise,
    _correction,
    _counted_otherwise_later,
    _overruled,
    _replied_against,
    _restated_otherwise,
    _set_otherwise_later,
    _turned_down,
)
from capture.verify.failures import (
    _error_again,
    _failed_just_before,
    _later_not_found,
    _rechecked,
)
from capture.verify.hedges import (
    _ASKED_IN_FACT,
    _ATTRIBUTED,
    _CONDITIONED,
    _IF_CLAUSE,
    _KEPT_AS_VIEW,
    _OVERCLAIM,
    _YES_NO,
    _borrowed_from_a_guess,
    _hedge_around,
    fact_speaker,
    guessed_alternative,
    hedged,
    intended,
    one_of_listed,
    opinion,
    seen_none,
    unverified,
)
from capture.verify.inversion import (
    denied_outright,
    dropped_negation,
    limited_after,
    negated_before,
    object_flip,
)
from capture.verify.turns import _texts, is_summary, speaker_of
from capture.verify.values import claimed as asserted
from capture.verify.verdict import SPEAKERS, Verdict
from capture.verify.words import _clip, _expand, _predicate_negations, too_short


def _keeps_polarity(fact: str, quote: str) -> bool:
    """The fact does not add the negation that the words before its quote put on it:
    it negates as often as the quote (mod 2), or less often than the quote does (a fact
    that leaves out the quote's "instead" cannot be restating a "not" before it)."""
    f, q = _predicate_negations(fact), _predicate_negations(quote)
    return f % 2 == q % 2 or f < q


_PERCENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?%")


def _unmeasured(fact: str, quote: str, turns: Sequence[Turn],
                tool_texts: Sequence[tuple[str, str, str]]) -> str:
    """A percentage the fact takes from the assistant's words ("100% test coverage")
    that no tool printed anywhere in the session (no coverage run, no report): a share
    is measured, so one nobody measured is a claim. The figure, or ""."""
    shares = [m for m in _PERCENT.findall(fact) if re.search(
        r"(?<![\d.])" + re.escape(m) + r"\s?%", quote)]
    if not shares:
        return ""
    printed = [t.text for t in turns if t.kind in ("detail", "tool_error")] + [
        t for w, _n, t in tool_texts if w in ("output", "error")]
    for m in shares:
        rx = re.compile(r"(?<![\d.])" + re.escape(m) + r"\s?%")
        if not any(rx.search(text) for text in printed):
            return f"{m}%"
    return ""


def _with_hint(
    verdict: Verdict, fact: str, quote: str, turns: Sequence[Turn], said_by: str | None,
    evidence: str = "", tool_texts: Sequence[tuple[str, str, str]] = (),
) -> Verdict:
    """The first suspicion about the quote, if any, added to a verdict with a turn."""
    if verdict.turn is None or verdict.hint:
        return verdict
    at = verdict.turn
    turn = turns[at]
    speaker = speaker_of(turn)
    here = _texts(turns)[at]  # the quote's turn, normalised once a job
    named = fact_speaker(fact)  # the fact says who spoke: checked before anything else
    # What a tool printed is the assistant's finding, never the person's words.
    if named and speaker != named and not (speaker == "tool" and named == "assistant"):
        return dataclasses.replace(verdict, hint="speaker", hint_detail=(
            f"the quote is the {speaker}'s, not the {named}'s"))
    # The speaker the candidate names (its `source`), checked as early as the fact's own.
    claimed = said_by if said_by in SPEAKERS else None
    if claimed and speaker not in (claimed, "tool"):
        return dataclasses.replace(verdict, hint="speaker", hint_detail=(
            f"the quote is the {speaker}'s, not the {claimed}'s"))
    if wrong_way := expected_otherwise(fact, quote):
        return dataclasses.replace(verdict, hint="negation_flip", hint_detail=(
            f"the quote is an error (“{wrong_way}”): what it received is what it rejects"))
    # The negation before the quote flips it: the fact agrees with the quote only if it
    # negates once more than the quote does ("Don't | use npm" / "Do not use npm").
    if (lead := negated_before(here, quote, normalised=True)) and \
            _keeps_polarity(asserted(fact), quote):
        return dataclasses.replace(verdict, hint="negation_flip", hint_detail=(
            f"the quote starts right after “{lead}”: its sentence says the opposite"))
    if (limit := limited_after(here, quote, normalised=True)) and not re.search(
            r"\b(?:except|only|unless|but|not|as long as)\b", normalise(fact)):
        return dataclasses.replace(verdict, hint="elision", hint_detail=(
            f"the quote stops before its sentence limits it: “{limit}”"))
    if flipped := object_flip(fact, quote):
        return dataclasses.replace(verdict, hint="negation_flip", hint_detail=(
            f"the fact does the opposite to the same thing: {flipped}"))
    if default := default_otherwise(fact, evidence or quote, turn.text):
        return dataclasses.replace(verdict, hint="number_mismatch", hint_detail=(
            f"the quote gives an explicit value; its turn gives the default otherwise: "
            f"“{_clip(default, 160)}”"))
    later = _correction(turns, at, quote, fact)
    if later is not None and hedged(quote) and not hedged(fact) and any(
            t.kind == "prompt" and not is_summary(t) for t in turns[at + 1: later]):
        # A guess is tested at once: a cue found only after the person spoke again is
        # weaker than the hedge the quote itself shows.
        later = None
    if later is None:
        later = _overruled(turns, at, quote, fact)
    if later is None:
        later = _turned_down(turns, at, fact, quote)

    if later is None:
        later = _answered_otherwise(turns, at, quote)
    if later is None:
        later = _rechecked(turns, at, fact, quote, tool_texts)
    if later is None:
        later = _later_not_found(turns, at, fact)
    if later is None:
        later = _failed_just_before(turns, at, quote)
    if later is None:
        later = _error_again(turns, at, fact)
    if later is None:
        later = _replied_against(turns, at)
    if later is None:
        later = _actual_variant(turns, at, fact, evidence or quote)
    if later is None and (reset := _set_otherwise_later(turns, at, fact, evidence or quote)):
        return dataclasses.replace(verdict, hint=reset[0], hint_detail=reset[1])
    if later is None and (again := _restated_otherwise(turns, at, quote, tool_texts)):
        where = f"turn {again[0]}" if again[0] is not None else "a later tool output"
        # (a tool's text is not redacted: its words stay out of the detail)
        said = f": “{_clip(again[1], 200)}”" if again[0] is not None else ""
        return dataclasses.replace(verdict, hint="corrected_later", hint_detail=(
            f"{where} says it again with other figures{said}"))
    if later is not None:
        said = " ".join(render_turn(turns[later]).split())
        return dataclasses.replace(verdict, hint="corrected_later",
                                   hint_detail=f"turn {later}: “{_clip(said, 200)}”")
    if denial := denied_outright(fact, quote):
        return dataclasses.replace(verdict, hint="negation_flip", hint_detail=(
            f"the fact says “{denial}”; its quote, naming the same things, denies nothing"))
    if hedged(quote) and not hedged(fact) and not _KEPT_AS_VIEW.search(normalise(fact)):
        # "The user judged that … is probably fine" keeps the guess as someone's view.
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            "the quote is a guess, an estimate or an opinion; the fact states it as found"))
    if speaker != "tool" and not hedged(fact) and not _KEPT_AS_VIEW.search(
            normalise(fact)) and (around := _hedge_around(here, quote, normalised=True)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the quote's own sentence says “{around}”; the fact states it as found"))
    if speaker != "tool" and not hedged(fact) and (
            guess := guessed_alternative(here, quote, normalised=True)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the quote is one of the alternatives its sentence guesses between (“{guess}”); "
            "the fact states it as found"))
    if speaker != "tool" and (listed := one_of_listed(fact, quote)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the quote lists possibilities (“{_clip(listed, 40)}”); the fact states one as "
            "the cause"))
    if not too_short(quote) and _YES_NO.match(quote) and not _ASKED_IN_FACT.search(
            normalise(fact)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            "the quote asks whether it is so; the fact states it as the answer"))
    if speaker == "assistant" and (asked := asks(quote)) and not asks(fact):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the quote asks or offers (“{asked}”); the fact states it as done"))
    if speaker == "assistant" and (intent := intended(fact, quote, here, normalised=True)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the quote says what is about to be done (“{intent}”); the fact states it as "
            "done"))
    if speaker != "tool" and opinion(quote) and not _ATTRIBUTED.search(normalise(fact)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            "the quote is a judgement; the fact states it as found, not as someone's view"))
    if looked := seen_none(fact, quote):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the quote says “{looked}”: what a look found; the fact says there is none"))
    if denied := dropped_negation(fact, quote):
        return dataclasses.replace(verdict, hint="negation_flip", hint_detail=(
            f"the quote says “{denied}”; the fact, restating it, denies nothing"))
    if speaker != "tool" and (strong := _OVERCLAIM.search(_expand(normalise(fact)))) and \
            not _OVERCLAIM.search(_expand(quote)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the fact says “{strong.group()}”; its quote states no such certainty"))
    if speaker == "assistant" and fact_speaker(fact) is None and (
            checked := unverified(fact, quote)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the fact says “{checked}”; its quote words no check, only the claim"))
    if speaker == "assistant" and (figure := _unmeasured(fact, quote, turns, tool_texts)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"no tool's output in the session shows {figure}: the assistant's own figure, "
            "stated as measured"))
    if speaker != "tool" and not hedged(fact) and (
            borrowed := _borrowed_from_a_guess(fact, quote, here,
                                                normalised=True)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the fact's “{borrowed[0]}” comes from a guess or generalisation beside the "
            f"quote: “{_clip(borrowed[1], 160)}”"))
    if speaker != "tool" and (condition := _IF_CLAUSE.search(quote)) and \
            not _CONDITIONED.search(normalise(fact)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the quote holds only “{condition.group().strip()}”; the fact drops the "
            "condition"))
    # The weakest: a count the session gives otherwise after the person spoke again.
    if (recount := _counted_otherwise_later(turns, at, fact, quote)) is not None:
        said = " ".join(render_turn(turns[recount]).split())
        return dataclasses.replace(verdict, hint="corrected_later", hint_detail=(
            f"turn {recount} counts it otherwise: “{_clip(said, 200)}”"))
    return verdict
