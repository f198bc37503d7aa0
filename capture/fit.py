"""Fit the condensed conversation into what is worth sending: at most 1/ratio of the
transcript's bytes (`send_ratio`, 40 by default; 0 sends everything condensation kept).

Condensation already drops tool output (GUIDE §3). On long, tool-heavy sessions that
leaves 1/100 or less; on short, chatty ones the assistant's own prose is most of what is
left and can exceed 1/40 of the file alone. What goes first is what says least about a
durable fact; shedding stops as soon as the text fits:

1. look-ups: successful tool calls that only read (Read, Grep, Glob, LS, TodoWrite, …);
2. narration: assistant text followed by more work in the same turn ("Let me check the
   config."), cut to its first sentence;
3. the length of every assistant text, to an equal share of the room left, if that
   share is still a paragraph (GOOD_SHARE characters);
4. every other successful tool call (edits, commands), then the same equal share
   again, down to MIN_SHARE characters.

Human prompts and tool failures are never touched: corrections, decisions and gotchas
live there. So the budget can be exceeded when they alone exceed it.
"""

from __future__ import annotations

import dataclasses
import re

from capture.condense import render
from capture.transcript import Turn

DEFAULT_RATIO = 40
LOOKUPS = frozenset({
    "Read", "Grep", "Glob", "LS", "TodoWrite", "TodoRead", "NotebookRead", "WebSearch",
    "WebFetch", "ListMcpResourcesTool", "ReadMcpResourceTool", "BashOutput",
})
GOOD_SHARE = 240  # a paragraph: worth more than the tool calls around it
MIN_SHARE = 80  # an assistant text is never cut below this many characters
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s|\n")
_CUT = " […]"


def budget_for(source_bytes: int, ratio: int) -> int | None:
    """Bytes the text may take for a transcript region of `source_bytes`; None: all."""
    if ratio <= 0 or source_bytes <= 0:
        return None
    return source_bytes // ratio


def fit(turns: list[Turn], max_chars: int | None) -> list[Turn]:
    """The turns, shed and shortened in the order above until `render` fits max_chars
    (counted in UTF-8 bytes)."""
    if max_chars is None or _size(turns) <= max_chars:
        return turns
    for step in (_drop_lookups, _first_sentence_of_narration):
        turns = step(turns)
        if _size(turns) <= max_chars:
            return turns
    shared = _share_prose(turns, max_chars, GOOD_SHARE)
    if shared is not None and _size(shared) <= max_chars:
        return shared
    turns = _drop_tool_calls(turns)
    return _share_prose(turns, max_chars, MIN_SHARE) or turns


def _size(turns: list[Turn]) -> int:
    """UTF-8 bytes, as the budget counts them."""
    return len(render(turns).encode("utf-8", "surrogatepass"))


def _drop_lookups(turns: list[Turn]) -> list[Turn]:
    return [t for t in turns if not (t.kind == "tool_call" and t.tool in LOOKUPS)]


def _drop_tool_calls(turns: list[Turn]) -> list[Turn]:
    return [t for t in turns if t.kind != "tool_call"]


def _answers(turns: list[Turn]) -> set[int]:
    """Indexes of the prose turns that end a turn: the last before a prompt, or the end."""
    out: set[int] = set()
    last: int | None = None
    for i, t in enumerate(turns):
        if t.kind == "prompt":
            if last is not None:
                out.add(last)
            last = None
        elif t.kind == "prose":
            last = i
    if last is not None:
        out.add(last)
    return out


def _first_sentence_of_narration(turns: list[Turn]) -> list[Turn]:
    answers = _answers(turns)
    return [
        _cut(t, _first_sentence(t.text)) if t.kind == "prose" and i not in answers else t
        for i, t in enumerate(turns)
    ]


def _share_prose(turns: list[Turn], max_chars: int, least: int) -> list[Turn] | None:
    """Every assistant text cut to an equal share of the room the rest leaves (at a word
    boundary); None when that share would be under `least`."""
    prose = [i for i, t in enumerate(turns) if t.kind == "prose"]
    if not prose:
        return None
    fixed = _size(turns) - sum(len(turns[i].text.encode()) for i in prose)
    # Water-filling: texts shorter than an equal share keep all of theirs and leave the
    # rest of it to the longer ones.
    room, share = max_chars - fixed, None
    lengths = sorted(len(turns[i].text) + len(_CUT) for i in prose)
    for k, length in enumerate(lengths):
        if length * (len(lengths) - k) > room:
            share = room // (len(lengths) - k) - len(_CUT)
            break
        room -= length
    if share is None:
        return list(turns)
    if share < least:
        if least > MIN_SHARE:
            return None
        share = MIN_SHARE
    out = list(turns)
    for i in prose:
        text = out[i].text
        if len(text) > share:
            head = text[:share]
            space = head.rfind(" ", share // 2)
            out[i] = _cut(out[i], (head[:space] if space > 0 else head).rstrip())
    return out


def _first_sentence(text: str) -> str:
    m = _SENTENCE_END.search(text, 20)  # past the first few characters ("e.g. ", "1. ")
    return text[: m.start()].rstrip() if m else text


def _cut(turn: Turn, kept: str) -> Turn:
    if len(kept) >= len(turn.text):
        return turn
    return dataclasses.replace(turn, text=kept + _CUT)
