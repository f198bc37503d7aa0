"""Reading the transcript's turns: who spoke, each turn's normalised text, its neighbourhood.

Kept apart so locating a quote and every later-turn check share one reading (and one
cache per job) of the same turns.
"""

from __future__ import annotations

from collections.abc import Sequence

from capture.condense import render_turn
from capture.ground import normalise
from capture.results import QUOTED_PREFIX
from capture.transcript import Turn, without_count
from capture.verify.names import _present


def is_summary(turn: Turn) -> bool:
    """A compaction summary: the model's own retelling, lower-trust context."""
    return turn.kind == "summary" or bool(getattr(turn, "summary", False))  # type: ignore[comparison-overlap]


def speaker_of(turn: Turn) -> str:
    """Who said it: a human prompt, the assistant's prose (or summary, or the plan or
    commit message a call carried: a `detail`), a tool line."""
    if turn.kind == "prompt" and not is_summary(turn):
        return "user"
    if turn.kind in ("tool_call", "tool_error"):
        return "tool"
    if turn.kind == "detail" and turn.role == "user" and (
            turn.tool in ("Bash", "Read") or turn.text.startswith(QUOTED_PREFIX)):
        # a command's short output, a small file read, the lines of any tool's result
        # the next answer relies on (`» `: a search's, a fetch's output, not the answer)
        return "tool"
    return "assistant"


_LAST_TEXTS: list[tuple[Sequence[Turn], int, list[str]]] = []  # one job's turns, reused


def _texts(turns: Sequence[Turn]) -> list[str]:
    """Each turn rendered and normalised; a job verifies every candidate against the
    same turns, so the last list is kept (keyed by identity and length: turns are
    frozen, a job's list is not changed while its candidates are verified)."""
    if _LAST_TEXTS and _LAST_TEXTS[0][0] is turns and _LAST_TEXTS[0][1] == len(turns):
        return _LAST_TEXTS[0][2]
    texts = [normalise(render_turn(t)) for t in turns]
    _LAST_TEXTS[:] = [(turns, len(turns), texts)]
    return texts


def _source(turn: Turn) -> str:
    """Who said a turn, in words: the person, the assistant, a call's text (a command, a
    commit message, a written file), a tool's output."""
    if turn.kind in ("tool_call", "detail") and turn.role == "assistant":
        return "a tool call's text"
    if turn.kind in ("tool_error", "detail"):
        return "a tool's output"
    if is_summary(turn):
        return "a compaction summary"
    return "the person" if turn.role == "user" else "the assistant"


def _spoken_between(turns: Sequence[Turn], a: int, b: int) -> bool:
    """Between turns a and b, the person spoke: two answers, not one answer's text
    blocks with its calls between them."""
    return any(t.kind == "prompt" and not is_summary(t) for t in turns[a + 1: b])


_HANGING = ("tool_call", "tool_error", "detail")  # lines that hang under the prose above
NEAR_TURNS = 12  # the stretch of conversation a fact may draw its names from


def _far_idents(idents: list[str], turns: Sequence[Turn], i: int) -> list[str]:
    """Of the names a fact uses beyond its quote's neighbourhood, those not said within
    NEAR_TURNS turns of it either (the same piece of work names them)."""
    lo, hi = max(0, i - NEAR_TURNS), min(len(turns), i + NEAR_TURNS + 1)
    hay = normalise("\n".join(render_turn(t) for t in turns[lo:hi]))
    return [x for x in idents if not _present(x, hay)]


def _neighbourhood(turns: Sequence[Turn], i: int) -> str:
    """The turn, and the spoken turn on each side with the tool lines in between."""
    lo = i - 1
    while lo > 0 and turns[lo].kind in _HANGING:
        lo -= 1
    hi = i + 1
    while hi < len(turns) - 1 and turns[hi].kind in _HANGING:
        hi += 1
    # At least two turns each way: a prompt queued while the assistant worked may sit
    # between the prose and the call it describes.
    lo, hi = max(0, min(lo, i - 2)), min(len(turns) - 1, max(hi, i + 2))
    return "\n".join(render_turn(t) for t in turns[lo: hi + 1])


def _shell_prompt(turn: Turn) -> bool:
    """A command the person ran in the terminal's `!` mode: a tool line, not words."""
    return turn.kind == "prompt" and turn.text.startswith("! ")


_TOOL_NORM: list[tuple[int, list[tuple[str, str, str]]]] = []  # one job's, reused


def _tool_norm(tool_texts: Sequence[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    if _TOOL_NORM and _TOOL_NORM[0][0] == id(tool_texts) and len(_TOOL_NORM[0][1]) == len(
            tool_texts):
        return _TOOL_NORM[0][1]
    out = [(which, name, normalise(text)) for which, name, text in tool_texts]
    _TOOL_NORM[:] = [(id(tool_texts), out)]
    return out


def _call_output(tool_texts: Sequence[tuple[str, str, str]], turns: Sequence[Turn],
                 j: int) -> str:
    """What the call of turn j gave back, from what the tools gave (condensation sends an
    output's lines once: the same `HTTP/1.1 200 OK` after a second `curl` is not sent
    again, yet it is that call's answer). The n-th call with this line ↔ the n-th input
    that starts with its command; its output the one as far after its run of inputs as
    it is in that run (parallel calls answer in order). "" when not found."""
    line = without_count(turns[j].text)
    name, _, shown = line.partition(": ")
    shown = shown.removesuffix(" …").strip()
    if not shown or len(shown) < 8:
        return ""
    nth = sum(1 for t in turns[:j] if t.kind == "tool_call" and without_count(t.text) == line)
    seen = 0
    for k, (which, tool, text) in enumerate(tool_texts):
        if which != "input" or tool != name or not text.startswith(shown):
            continue
        if seen < nth:
            seen += 1
            continue
        first = k
        while first > 0 and tool_texts[first - 1][0] == "input":
            first -= 1
        last = k
        while last + 1 < len(tool_texts) and tool_texts[last + 1][0] == "input":
            last += 1
        outs = [t for w, _n, t in tool_texts[last + 1: last + 1 + (last - first + 1)]
                if w in ("output", "error")]
        return outs[k - first] if k - first < len(outs) else ""
    return ""
