"""The verifier's entry point: locate the quote, run the knowledge checks, add a hint.

The top of the package; nothing in it imports this module.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence

from capture.claims import (
    comparison_flipped,
    edit_reverted,
    field_changed,
    flag_word_changed,
    moved_from,
    number_beside_changed,
    setting_changed,
    state_flipped,
)
from capture.ground import normalise
from capture.transcript import Turn
from capture.verify.hints import _with_hint
from capture.verify.inversion import denied_value, flips_meaning, flips_negation
from capture.verify.known import against_quote, echoed
from capture.verify.locate import _fail, _find_all, _pick, clean_quote, locate
from capture.verify.names import identifiers
from capture.verify.places import pointed_elsewhere, sibling_path
from capture.verify.tools import (
    _RAN,
    _WRITERS,
    _from_tools,
    _in_a_failure,
    _is_look,
    _write_failed,
    _written_aside,
)
from capture.verify.turns import (
    _far_idents,
    _neighbourhood,
    _shell_prompt,
    _texts,
    _tool_norm,
    is_summary,
    speaker_of,
)
from capture.verify.values import (
    _bare,
    code_variant,
    missing_terms,
    old_value_as_current,
    slipped_name,
    swapped_name,
    transition_changed,
    unit_changed,
)
from capture.verify.verdict import CONFIDENT, Verdict
from capture.verify.words import _clip, _predicate_negations, too_short, words


def _session_texts(turns: Sequence[Turn],
                   tool_texts: Sequence[tuple[str, str, str]]) -> Iterator[str]:
    """Every turn's text, then what tools were given and gave back (read lazily: most
    facts point no variable anywhere and never ask)."""
    yield from _texts(turns)
    yield from (t for _w, _n, t in tool_texts)


def _slip_near(fact: str, turns: Sequence[Turn], at: int,
               tool_texts: Sequence[tuple[str, str, str]]) -> tuple[str, str] | None:
    """`slipped_name` against the quote's neighbourhood and the whole session, read only
    when the fact has a name the session never says (most facts have none)."""
    names = [i for i in identifiers(fact) if len(_bare(i)) >= 5]
    if not names:
        return None
    everything = "\n".join([*_texts(turns), *(t for _w, _n, t in _tool_norm(tool_texts))])
    if all(_bare(i) in everything for i in names):
        return None
    return slipped_name(fact, _neighbourhood(turns, at), everything)


def verify(
    fact: str, evidence: str, turns: Sequence[Turn], *, confidence: float = 1.0,
    said_by: str | None = None, tool_texts: Sequence[tuple[str, str, str]] = (),
) -> Verdict:
    """Check that `evidence` is a real, whole quote supporting `fact`: a failed check
    (what is known: not in the transcript, a negation, number, name or flag value
    changed, only a call line, only a summary's) is unsupported; a suspicion (corrected
    later, hedged, another speaker, a quote too short to say much, a look's call line)
    is a hint on a supported verdict. `tool_texts` (what tools were given and gave back,
    `ReadStats.tool_texts`) is where a quote the conversation lacks may still be."""
    quote = clean_quote(evidence)
    if not quote:
        return Verdict(False, "not_found", detail="no evidence given")
    short = too_short(quote)
    if short:
        hits = _find_all(quote, _texts(turns))
        hit, check, detail = (_pick(hits, turns), None, "") if hits else (
            None, "not_found", "")
    else:
        hit, check, detail = locate(quote, turns)
    if hit is None and check == "not_found" and tool_texts:
        tooled = _from_tools(fact, quote, tool_texts)
        if tooled is not None:
            return tooled
    elif check in _NEAR_ONLY and tool_texts:
        # Only nearly in the conversation (a call line cut at its length limit, a
        # sentence re-flowed), but whole in what a tool was given or gave back: that is
        # where it was said.
        tooled = _from_tools(fact, quote, tool_texts)
        if tooled is not None and tooled.check != "stitched":
            return tooled
    if check is not None or hit is None:
        return _with_hint(_fail(check or "not_found", hit, turns, detail), fact, quote,
                          turns, said_by, evidence, tool_texts)
    turn = turns[hit.turn]
    failed: Verdict | None = None
    hint: tuple[str, str] | None = None
    # The fact against its quote first: a changed value is the reason, wherever it is.
    idents, nums = missing_terms(fact, _neighbourhood(turns, hit.turn))
    nowhere = missing_terms(" ".join(idents), "\n".join(_texts(turns)))[0] if idents else []
    changed_units = unit_changed(fact, quote)
    marked = _marked_wrong(turn.text, quote)
    if marked and not _predicate_negations(fact):
        failed = _fail("negation_flip", hit, turns, f"the quote's line is marked “{marked}”: "
                       "what it says is the wrong way")
    elif flips_negation(fact, quote) or flips_meaning(fact, quote):
        failed = _fail("negation_flip", hit, turns, "the fact says the opposite of its quote")
    elif known := against_quote(fact, evidence):
        failed = _fail(known[0], hit, turns, known[1])
    elif denied := denied_value(fact, quote):
        failed = _fail("negation_flip", hit, turns, f"the fact says it is not {denied}; the "
                       "quote says it is")
    elif beyond := comparison_flipped(fact, quote):
        failed = _fail("negation_flip", hit, turns, f"the fact says “{beyond}”; the quote "
                       "gives that value itself")
    elif switched := state_flipped(fact, evidence):
        failed = _fail("negation_flip", hit, turns, f"{switched}; the fact says the opposite")
    elif changed_units:
        failed = _fail("number_mismatch", hit, turns, "the quote gives another value: "
                       + ", ".join(changed_units))
    elif setting := setting_changed(fact, evidence):
        failed = _fail("number_mismatch" if re.search(r"\d$", setting) else
                       "identifier_mismatch", hit, turns, "the quote sets it otherwise: "
                       + setting)
    elif counted := number_beside_changed(fact, quote):
        failed = _fail("number_mismatch", hit, turns, "the quote counts it otherwise: "
                       + counted)
    elif nums:
        failed = _fail("number_mismatch", hit, turns, "not near the quote: " + ", ".join(nums))
    elif nowhere:  # named nowhere in the session: known wrong
        failed = _fail("identifier_missing", hit, turns, "not in the session: "
                       + ", ".join(nowhere))
    elif slip := _slip_near(fact, turns, hit.turn, tool_texts):
        failed = _fail("identifier_mismatch", hit, turns, "the fact's name is nowhere in the "
                       f"session; beside the quote it reads {slip[1]}, not {slip[0]}")
    elif moved := transition_changed(fact, quote) or old_value_as_current(fact, quote):
        failed = _fail("number_mismatch", hit, turns, moved)
    elif moved := moved_from(fact, evidence):
        failed = _fail("identifier_mismatch", hit, turns, moved + "; the fact names the old "
                       "one as current")
    elif reverted := edit_reverted(fact, quote):
        failed = _fail("number_mismatch" if re.search(r"\d, the value", reverted) else
                       "identifier_mismatch", hit, turns, reverted)
    elif field := field_changed(fact, evidence):
        failed = _fail("identifier_mismatch", hit, turns, field)
    elif branch := sibling_path(fact, quote):
        failed = _fail("identifier_mismatch", hit, turns, branch)
    elif elsewhere := pointed_elsewhere(fact, _session_texts(turns, tool_texts)):
        failed = _fail("identifier_mismatch", hit, turns, elsewhere)
    elif variant := code_variant(fact, quote):
        failed = _fail("identifier_mismatch", hit, turns, "the fact's code differs from "
                       "its quote's: " + variant)
    elif turn.kind == "detail" and turn.tool in _WRITERS and _write_failed(turns, hit.turn):
        failed = _fail("tool_line", hit, turns, "the file was never written: its write failed")
    elif (said := _echoed_by(turns, hit.turn, quote)) and said[1]:
        failed = _fail("tool_line", hit, turns, f"the call printed it from its own words "
                       f"(“{_clip(said[0], 80)}”), whatever it found")
    elif (turn.kind == "tool_call" and not _is_look(turn)) or _shell_prompt(turn):
        failed = _fail("tool_line", hit, turns, "a tool call says what was run, not what is "
                       "true")
    elif is_summary(turn) and confidence >= CONFIDENT:
        failed = _fail("summary_only", hit, turns, "only a compaction summary says so")
    elif turn.kind == "tool_call":
        hint = ("tool_line", "only a look's call line shows it (what was read, not a finding)")
    elif turn.kind == "detail" and turn.tool in _WRITERS and _RAN.search(normalise(fact)):
        hint = ("tool_line", "the quote is what a written file says, not that it was run")
    elif turn.kind == "detail" and turn.tool in _WRITERS and (
            aside := _written_aside(turns, hit.turn, quote, tool_texts)):
        hint = aside
    elif flagged := flag_word_changed(fact, evidence):
        hint = ("identifier_mismatch", "the fact gives the flag another value: " + flagged)
    elif swap := swapped_name(fact, quote):
        hint = ("identifier_mismatch", f"the fact names {swap[0]} where its quote names "
                f"{swap[1]}")
    elif idents and (far := _far_idents(idents, turns, hit.turn)):
        # said only far away: the fact may join two places
        hint = ("identifier_missing", "named elsewhere in the session, far from the quote: "
                + ", ".join(far))
    verdict = failed or Verdict(True, None, hit.turn, speaker_of(turn))
    if turn.kind == "tool_error" and not failed:
        refuted = _in_a_failure(fact, quote, turn)
        if refuted:
            return dataclasses.replace(verdict, hint="corrected_later", hint_detail=(
                f"the quote is part of a failure: “{_clip(refuted, 160)}”"))
    verdict = _with_hint(verdict, fact, quote, turns, said_by, evidence, tool_texts)
    if hint is not None and (verdict.hint is None or (
            hint[0] == "identifier_mismatch" and verdict.hint != "speaker")):
        # A name or flag value the fact changes against its own quote is nearer knowledge
        # than a later turn's or a hedge's suspicion: it goes first.
        verdict = dataclasses.replace(verdict, hint=hint[0], hint_detail=hint[1])
    if verdict.hint is None and short and (rule := _rule_words(fact, quote)):
        verdict = dataclasses.replace(verdict, hint="too_short", hint_detail=(
            f"{len(words(quote))} words cannot carry a rule (“{rule}”)"))
    return verdict


def _echoed_by(turns: Sequence[Turn], at: int, quote: str) -> tuple[str, bool] | None:
    """The quote is a result line the call before it printed from its own literal
    (`known.echoed`): (the literal, printed unconditionally), or None."""
    turn = turns[at]
    if turn.kind != "detail" or not at or turns[at - 1].kind != "tool_call":
        return None
    said = echoed(turns[at - 1].text, quote)
    return said if said[0] else None


_RULE = re.compile(r"\b(?:must|always|every|never|all|without|each|whenever|any time"
                   r"|required|mandatory|only)\b")


def _rule_words(fact: str, quote: str) -> str:
    """The word that makes the fact a rule ("must", "always", "every", "without") when
    the quote lacks it: a short quote found is no suspicion, a rule built on one is."""
    q = normalise(quote)
    for m in _RULE.finditer(normalise(fact)):
        if m.group() not in q:
            return m.group()
    return ""


# A line that says what follows is the wrong way ("WRONG:", "❌", "Don't:", "Avoid:").
_WRONG_MARK = re.compile(r"^\s*(?:[-*>]\s*)?(?:\*\*)?(wrong|incorrect|bad|don't|do not|avoid"
                         r"|never|not this|before|old|❌|✗|✘)\b\W*", re.I)


def _marked_wrong(text: str, quote: str) -> str:
    """The mark ("WRONG", "❌") on the line the quote sits in, when the quote itself does
    not carry it: the line shows the wrong way, a fact stating it is inverted."""
    for line in text.split("\n"):
        low = normalise(line)
        at = low.find(quote)
        if at < 0:
            continue
        m = _WRONG_MARK.match(line)
        if m and at >= len(normalise(line[: m.end()])) - 1 and not _WRONG_MARK.match(quote):
            return m.group(1)
        return ""
    return ""


_NEAR_ONLY = ("elision", "stitched", "negation_flip", "number_mismatch", "identifier_mismatch",
              "not_found")
