"""Condense a transcript into the compact text sent to the extraction model.

Stdlib only and cheap: tool output dominates a transcript's bytes and is mostly gone
(see `capture.transcript`: what a result carries is kept by class); what is left is
rendered one line per tool call, with every human prompt and all assistant prose
verbatim, then cut into windows that fit a request.
A call's detail (plan, commit message, issue body) hangs under it as `    ┆ ` lines, a
failure's key lines under its headline, and a compaction summary sits between
SUMMARY_MARKER and SUMMARY_END (lower trust: the extraction prompt and the verifier rely
on these exact strings).
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from dataclasses import dataclass

from capture.transcript import OUTPUT_ERROR, ReadStats, Turn, read_turns

CONTINUED = "[… continued: this part follows earlier parts of the same session …]"
CONTINUES = "[… the session continues in the next part …]"
MIN_WINDOW = 200  # room for the markers and a little text
_ELIDED = "\n[… {n:,} characters elided …]\n"
_REJECTED = "Rejected by the user."
# A compaction summary (Turn kind "summary") is sent between these two lines: the
# model's own recap of earlier turns, lower trust than what the person or a tool said.
# The extraction prompt explains the marker; the verifier never lets a summary alone
# support a confident fact. Fixed strings: both rely on them.
SUMMARY_MARKER = "[compaction summary - lower trust]"
SUMMARY_END = "[end of compaction summary]"
DETAIL_PREFIX = "    ┆ "  # each line of a call's detail (plan, commit message, issue body)
ERROR_PREFIX = "      "  # each further line of a failure, under its headline


def render_turn(turn: Turn) -> str:
    """One turn as text: `User: …`, `Assistant: …`, `  · Edit x.py`, `  ! Bash failed: …`
    (a failure's further key lines indented under it), a call's detail as `    ┆ ` lines,
    a compaction summary between SUMMARY_MARKER and SUMMARY_END."""
    if turn.kind == "prompt":
        return "User: " + turn.text
    if turn.kind == "prose":
        return "Assistant: " + turn.text
    if turn.kind == "tool_call":
        return "  · " + turn.text
    if turn.kind == "detail":
        return "\n".join(DETAIL_PREFIX + ln if ln else DETAIL_PREFIX.rstrip()
                         for ln in turn.text.split("\n"))
    if turn.kind == "summary":
        return f"{SUMMARY_MARKER}\n{turn.text}\n{SUMMARY_END}"
    tool = turn.tool or "Tool"
    if turn.text == _REJECTED:
        return f"  ! {tool} rejected by the user"
    if turn.text.startswith(OUTPUT_ERROR):  # exit 0, but its output names an error
        return f"  ! {tool} exited 0, but printed: " + turn.text[len(OUTPUT_ERROR):].replace(
            "\n", "\n" + ERROR_PREFIX)
    return f"  ! {tool} failed: " + turn.text.replace("\n", "\n" + ERROR_PREFIX)


def _sep(turn: Turn) -> str:
    """A blank line before each spoken turn; tool lines hang under the prose above."""
    return "\n\n" if turn.kind in ("prompt", "prose", "summary") else "\n"


def render(turns: list[Turn]) -> str:
    """The whole conversation as compact, readable text."""
    parts: list[str] = []
    for i, t in enumerate(turns):
        if i:
            parts.append(_sep(t))
        parts.append(render_turn(t))
    return "".join(parts)


def _truncate(text: str, limit: int) -> str:
    """Keep the head and tail of an oversized text, saying how much was cut."""
    if len(text) <= limit:
        return text
    # The marker's length depends on the number it shows; size it for the worst case.
    marker_room = len(_ELIDED.format(n=len(text)))
    keep = max(0, limit - marker_room)
    head = keep // 3  # the end holds the conclusion: it gets the larger part
    tail = keep - head
    cut = len(text) - head - tail
    out = text[:head] + _ELIDED.format(n=cut) + (text[len(text) - tail :] if tail else "")
    return out[:limit]


def split_windows(turns: list[Turn], max_chars: int = 120_000) -> list[str]:
    """Cut the rendered conversation into windows of whole turns, each <= max_chars.

    One window holds exactly `render(turns)`. With several, each later window opens with
    a line saying it continues and each earlier one ends saying more follows, so the
    model knows it is seeing a part. A turn too big for a window alone is shortened with
    an explicit elision marker. No turns, no windows.
    """
    if max_chars < MIN_WINDOW:
        raise ValueError(f"max_chars must be at least {MIN_WINDOW}")
    if not turns:
        return []
    whole = render(turns)
    if len(whole) <= max_chars:
        return [whole]
    budget = max_chars - len(CONTINUED) - len(CONTINUES) - 4  # the markers' "\n\n"
    windows: list[str] = []
    cur: list[str] = []
    size = 0
    for t in turns:
        piece = _truncate(render_turn(t), budget)
        sep = _sep(t) if cur else ""
        if cur and size + len(sep) + len(piece) > budget:
            windows.append("".join(cur))
            cur, size, sep = [], 0, ""
        cur.append(sep + piece)
        size += len(sep) + len(piece)
    if cur:
        windows.append("".join(cur))
    last = len(windows) - 1
    return [
        (CONTINUED + "\n\n" if i else "") + w + ("\n\n" + CONTINUES if i < last else "")
        for i, w in enumerate(windows)
    ]


def fits_whole(turns: list[Turn], max_chars: int) -> bool:
    """Whether `split_windows` keeps every turn whole (shortens none to fit a window)."""
    if len(render(turns)) <= max_chars:
        return True
    budget = max_chars - len(CONTINUED) - len(CONTINUES) - 4
    return all(len(render_turn(t)) <= budget for t in turns)


@dataclass
class Condensed:
    """A condensed transcript region and what it cost to read."""

    text: str  # render(turns), never truncated
    windows: list[str]  # text cut to fit requests
    turns: list[Turn]
    stats: ReadStats
    source_bytes: int  # bytes of the file region consumed
    end_offset: int  # cursor for the next read


def condense_file(
    path: str | os.PathLike[str],
    start: int = 0,
    *,
    window_chars: int = 120_000,
    include_sidechains: bool = False,
    first_line: int | None = None,
    max_chars: int | None = None,
) -> Condensed:
    """Read from byte `start` and condense. OSError for an unreadable path propagates.

    `first_line` (the line number at `start`, if the caller stored it) skips counting the
    newlines before `start`; see `read_turns`.
    """
    turns, stats, end = read_turns(
        path, start, include_sidechains=include_sidechains, first_line=first_line,
        max_chars=max_chars,
    )
    return Condensed(
        text=render(turns),
        windows=split_windows(turns, window_chars),
        turns=turns,
        stats=stats,
        source_bytes=stats.bytes_read,
        end_offset=end,
    )


def excerpt(
    turns: list[Turn], index: int, before: int = 2, after: int = 2, max_chars: int = 2000
) -> str:
    """turns[index] rendered with its neighbours, for showing evidence in context.

    The central turn gets the space it needs (up to max_chars); neighbours share what is
    left, nearest first, each shortened with an elision marker when long.
    """
    if not 0 <= index < len(turns):
        raise IndexError(f"turn index {index} out of range (0..{len(turns) - 1})")
    center = _truncate(render_turn(turns[index]), max(max_chars, 80))
    left = max_chars - len(center)
    # A detail (a body written, a doc read, a commit message) hangs under its call: it
    # does not use up a neighbour's place.
    lo, n = index, 0
    while lo > 0 and n < max(0, before):
        lo -= 1
        n += turns[lo].kind != "detail"
    hi, n = index + 1, 0
    while hi < len(turns) and n < max(0, after):
        n += turns[hi].kind != "detail"
        hi += 1
    # Nearest neighbours first, alternating before/after.
    order = sorted(
        (i for i in range(lo, hi) if i != index), key=lambda i: (abs(i - index), i > index)
    )
    chosen: dict[int, str] = {index: center}
    for n, i in enumerate(order):
        share = left // (len(order) - n)
        if share < 60:
            break
        piece = _truncate(render_turn(turns[i]), share - 2)
        chosen[i] = piece
        left -= len(piece) + 2
    keys = sorted(chosen)
    out: list[str] = []
    for k in keys:
        if out:
            out.append(_sep(turns[k]))
        out.append(chosen[k])
    return "".join(out)


_WS_RE = re.compile(r"\s+")
_LABELS = re.compile(r"(?:^|\s)(?:user|assistant):\s")
_ELLIPSES = re.compile(r"\s*(?:\[(?:…|\.\.\.)\]|…|\.\.\.)\s*")
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})


def _norm(text: str) -> str:
    return _WS_RE.sub(" ", text.translate(_QUOTES)).strip().casefold()


def find_turn(turns: list[Turn], quote: str) -> int | None:
    """Index of the turn holding `quote` (whitespace-, quote- and case-normalised).

    Tries each turn's text first, then the rendered conversation (a quote may include a
    `User:` label or run across two turns: the turn where it starts is returned).
    """
    q = _norm(quote).strip(" .…")
    if not q:
        return None
    pieces = [p.strip(" .…") for p in _ELLIPSES.split(q)]
    if len(pieces) > 1:  # a quote the model shortened, or that crossed a `[…]` cut
        q = max(pieces, key=len)
        if not q:
            return None
    for i, t in enumerate(turns):
        if q in _norm(t.text):
            return i
    starts: list[int] = []
    parts: list[str] = []
    pos = 0
    for t in turns:
        piece = _norm(render_turn(t))
        starts.append(pos)
        parts.append(piece)
        pos += len(piece) + 1
    at = " ".join(parts).find(q)
    if at >= 0:
        return bisect_right(starts, at) - 1
    # Across turns that are not neighbours in the transcript (a call between them was
    # not sent): the turn holding the quote's longest part.
    spoken = [p.strip(" .…") for p in _LABELS.split(q)]
    if len(spoken) > 1:
        longest = max(spoken, key=len)
        if len(longest) >= 12:
            return find_turn(turns, longest)
    return None
