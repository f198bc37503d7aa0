"""Fit the condensed conversation into what is worth sending: at most 1/ratio of the
transcript's bytes (`send_ratio`, 40 by default; 0 sends everything condensation kept).

Condensation already drops tool output (GUIDE §3). On long, tool-heavy sessions that
leaves 1/100 or less; on short, chatty ones the assistant's own prose is most of what is
left and can exceed 1/40 of the file alone. What goes first is what says least about a
durable fact; shedding stops as soon as the text fits:

1. look-ups: successful tool calls that only read (Read, Grep, Glob, LS, TodoWrite, …);
2. narration: assistant text that announces a tool call (the call comes right after it:
   "Let me check the config."), cut to its first sentence, longest first, only as far
   as needed;
3. the length of every assistant text, to an equal share of the room left, if that
   share is still a paragraph (GOOD_SHARE bytes);
4. every other successful tool call (edits, commands), then the same equal share
   again, down to MIN_SHARE bytes;
5. narration altogether, then the answers' share below MIN_SHARE, to nothing.

Human prompts and tool failures are never touched: corrections, decisions and gotchas
live there. So the budget is exceeded only when they alone exceed it (a pasted log, say),
and then the assistant keeps MIN_SHARE of each text rather than losing every word. Sizes are UTF-8
bytes, as the budget counts them; cuts never split a character.
"""

from __future__ import annotations

import dataclasses
import re

from capture.condense import render
from capture.transcript import Turn

LOOKUPS = frozenset({
    "Read", "Grep", "Glob", "LS", "TodoWrite", "TodoRead", "NotebookRead", "WebSearch",
    "WebFetch", "ListMcpResourcesTool", "ReadMcpResourceTool", "BashOutput",
})
GOOD_SHARE = 240  # a paragraph: worth more than the tool calls around it
MIN_SHARE = 80  # an assistant text is cut below this only when nothing else is left
CUT = " […]"  # marks a shortened text (grounding and excerpts look past it)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n")


def budget_for(source_bytes: int, ratio: int) -> int | None:
    """Bytes the text may take for a transcript region of `source_bytes`; None: all."""
    if ratio <= 0 or source_bytes <= 0:
        return None
    return source_bytes // ratio


def fit(turns: list[Turn], max_bytes: int | None) -> list[Turn]:
    """The turns, shed and shortened in the order above until `render` fits max_bytes."""
    if max_bytes is None or _size(turns) <= max_bytes:
        return turns
    # Narration is known while every call is in place; kept by identity, and the dict
    # holds each turn so that no id is reused by a new object during the fit.
    narration = {id(turns[i]): turns[i] for i in _narration(turns)}
    turns = [t for t in turns if not (t.kind == "tool_call" and t.tool in LOOKUPS)]
    if _size(turns) <= max_bytes:
        return turns
    turns = _shorten_narration(turns, max_bytes, narration)
    if _size(turns) <= max_bytes:
        return turns
    shared = _share_prose(turns, max_bytes, GOOD_SHARE)
    if shared is not None:
        return shared
    turns = [t for t in turns if t.kind != "tool_call"]
    shared = _share_prose(turns, max_bytes, MIN_SHARE)
    if shared is not None:
        return shared
    if _size([t for t in turns if t.kind != "prose"]) > max_bytes:
        # Prompts and failures alone are over: the budget cannot be met, so the
        # assistant keeps its floor share rather than losing every word.
        return _share_prose(turns, max_bytes, MIN_SHARE, must_fit=False) or turns
    turns = [t for t in turns if id(t) not in narration]
    return _share_prose(turns, max_bytes, 0) or [t for t in turns if t.kind != "prose"]


def _size(turns: list[Turn]) -> int:
    return len(render(turns).encode("utf-8", "surrogatepass"))


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


PLANNING = frozenset({"TodoWrite", "TodoRead"})  # follow summaries too: not a call's cue


def _narration(turns: list[Turn]) -> list[int]:
    """Indexes of the prose that announces a tool call (the call comes right after it,
    to-do list updates aside): "Let me run the tests." A summary followed by more words,
    or by nothing but a to-do update, is not narration."""
    out: list[int] = []
    for i, t in enumerate(turns):
        if t.kind != "prose":
            continue
        j = i + 1
        while j < len(turns) and turns[j].kind == "tool_call" and turns[j].tool in PLANNING:
            j += 1
        if j < len(turns) and turns[j].kind == "tool_call":
            out.append(i)
    return out


def _shorten_narration(
    turns: list[Turn], max_bytes: int, narration: dict[int, Turn]
) -> list[Turn]:
    """Narration cut to its first sentence, the most saved first, until the text fits.
    `narration` holds the narration turns by id; the cut ones join it."""
    out = list(turns)
    over = _size(out) - max_bytes
    cuts = []
    for i, t in enumerate(turns):
        if id(t) in narration:
            short = _cut(t, _first_sentence(t.text))
            saved = _bytes(t.text) - _bytes(short.text)
            if saved > 0:
                cuts.append((saved, i, short))
    for saved, i, short in sorted(cuts, key=lambda c: -c[0]):
        if over <= 0:
            break
        out[i] = short
        narration[id(short)] = short
        over -= saved
    return out


def _share_prose(
    turns: list[Turn], max_bytes: int, least: int, *, must_fit: bool = True
) -> list[Turn] | None:
    """Every assistant text cut to an equal share of the room the rest leaves; None when
    that share would be under `least` bytes (unless not `must_fit`: then `least` is the
    share) or the text still would not fit."""
    prose = [i for i, t in enumerate(turns) if t.kind == "prose"]
    if not prose:
        return None
    mark = _bytes(CUT)
    room = max_bytes - (_size(turns) - sum(_bytes(turns[i].text) for i in prose))
    # Water-filling: texts shorter than an equal share keep all of theirs and leave the
    # rest of it to the longer ones.
    share: int | None = None
    lengths = sorted(_bytes(turns[i].text) for i in prose)
    for k, length in enumerate(lengths):
        if length * (len(lengths) - k) > room:
            share = room // (len(lengths) - k) - mark
            break
        room -= length
    if share is None:
        return list(turns)
    if share < least:
        if must_fit:
            return None
        share = least
    out = list(turns)
    for i in prose:
        text = out[i].text
        if _bytes(text) > share:
            out[i] = _cut(out[i], _head(text, share))
    out = [t for t in out if t.kind != "prose" or t.text != CUT.strip()]
    return out if _size(out) <= max_bytes or not must_fit else None


def _head(text: str, limit: int) -> str:
    """At most `limit` bytes of `text`, ended at a word boundary when one is near."""
    head = text.encode("utf-8", "surrogatepass")[: max(0, limit)].decode("utf-8", "ignore")
    space = head.rfind(" ", len(head) // 2)
    return (head[:space] if space > 0 else head).rstrip()


def _first_sentence(text: str) -> str:
    m = _SENTENCE_END.search(text, 20)  # past the first few characters ("e.g. ", "1. ")
    return text[: m.start()].rstrip() if m else text


def _cut(turn: Turn, kept: str) -> Turn:
    if len(kept) >= len(turn.text):
        return turn
    return dataclasses.replace(turn, text=kept + CUT if kept else CUT.strip())
