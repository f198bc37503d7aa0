"""Fill a short session's room: what condensation dropped of what tools gave back and were
given, restored while the text is under its floor (issue 21).

The send budget has a floor (`capture.fit.MIN_BUDGET`): a short session is dense, and
32 KiB costs under 2 cents. But condensation drops most of what tools carried whatever
the room (a file's body, a command's long output, a script's lines), so a 47 KB session
sent 4 KB and a 37 KB one 1.7 KB, and the facts whose carrier was a command's output were
lost for nothing. Here, while the fitted text is under min(budget, MIN_BUDGET), what the
reader held (`capture.held`: outputs, failures' whole output, written bodies, scripts;
a subagent's own words, calls, results and failures alike, its calls as `Task ⋯ ` lines)
comes back at its place in the conversation, under its call (the call line too, when
`fit` dropped it as a look); a piece that holds the lines the reader kept of it (the
lines an answer drew on, a short output, a script's later lines, a written body's
summary) replaces them.

The smallest first; then, room left, the smallest piece that did not fit whole, cut to
it (its head and end, `capture.written.cut_middle`). Measured on the tuning sets
(sessions, sessions2, sessions3, sessions4; carriers of labelled facts sent), at the
floor and at floors of 8, 12 and 16 KiB to see the order matter: smallest first carried
as many as any order by class tried, or more (the results a later answer drew on first,
then failures, commands, what was written; commands before file reads; inputs first;
by each class's carriers per byte, failures the densest; the most recent first): a
finding is a line, and many small pieces hold more of them than one large body. A
session already at its floor or over it (every session of more than 25 × 32 KiB that
sends that much) is left byte for byte as it was.

Everything restored is cleaned by the caller's function (the pipeline's: invisible
characters dropped, secrets redacted) BEFORE it is measured or cut, as every other turn;
a file that holds secrets by its name (`.env`, a key) is never restored, nor a line that
assigns what reads like a credential.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence

from capture.condense import render, render_turn
from capture.fit import MIN_BUDGET, bytes_of, size_of
from capture.held import Held
from capture.noise import squeeze_leaders, strip_ansi
from capture.results import QUOTED_PREFIX, SCRIPT_PREFIX
from capture.transcript import DOCUMENTS, OUTPUT_PREFIX, Turn, without_count
from capture.written import WRITERS, assigns_secret, cut_middle, holds_secrets

Clean = Callable[[list[Turn]], list[Turn]]

MIN_PIECE = 240  # bytes: less room than this is not worth a cut piece (a paragraph)
CLEAN_GROUP = 32  # pieces redacted together (redaction costs mostly per call)
LEFT_OUT_TRIES = 4  # of the pieces that did not fit, those tried for the room left
LINE_CHARS = 400  # a restored line longer than this keeps its opening (a minified blob)
_REMINDER = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.S)
_READ_NUMBER = re.compile(r"^ *\d+(?:→|\t)", re.M)
_BLANKS = re.compile(r"\n{3,}")
_PATHS = re.compile(r"[\w.~/-]+")
_WS = re.compile(r"(?:\s|…)+")  # a run of blanks or a leader squeezed to " … "
_READ_HEADS = (" reads:", " opens with:", " " + DOCUMENTS)  # a read's details, by header
_CUT_LINE = re.compile(r"^\[… [\d,]+ characters cut …\]$")  # capture.written.cut_middle's


def has_room(fitted: list[Turn], held: Sequence[Held], max_bytes: int | None) -> bool:
    """Whether `fill` may restore anything: pieces are held and the fitted text leaves a
    piece's worth of room under the floor (most sessions are over it: nothing to do)."""
    return bool(held) and max_bytes is not None and \
        min(max_bytes, MIN_BUDGET) - size_of(fitted) >= MIN_PIECE


def fill(fitted: list[Turn], turns: list[Turn], held: list[Held], max_bytes: int | None,
         clean: Clean) -> tuple[list[Turn], list[Turn]]:
    """(the fitted turns with what was restored in its place, the turns grounding reads
    with the same pieces in theirs). Unchanged when there is no room under the floor."""
    if max_bytes is None or not has_room(fitted, held, max_bytes):
        return fitted, turns
    room = min(max_bytes, MIN_BUDGET) - size_of(fitted)
    sent = _norm(render(fitted))
    calls = {(t.line, t.tool) for t in fitted if t.kind == "tool_call"}
    candidates = []
    for n, h in enumerate(held):
        text = _tidy(h)
        if text and not _secret_file(h):
            candidates.append((len(text), n, h, text))
    candidates.sort(key=lambda c: c[0])
    by_line: dict[int, list[Turn]] = {}
    for t in fitted:
        by_line.setdefault(t.line, []).append(t)
    here = {line: _sent_bytes(ts) for line, ts in by_line.items()}

    def may_fit(k: int) -> bool:
        """Whether candidate k could fit the room left, with what it would replace at its
        line, even if redaction halved it: the others are never redacted (the cost)."""
        size, _, h, _ = candidates[k]
        return size <= 2 * (room + here.get(h.line, 0))

    cleaned: dict[int, Turn] = {}

    def clean_from(k: int) -> Turn:
        """Candidate k cleaned (redacted) before anything is measured or cut, with the
        next ones that may fit (redaction costs mostly per call)."""
        if k not in cleaned:
            batch = [j for j in range(k, len(candidates)) if j == k or (
                j not in cleaned and may_fit(j))][:CLEAN_GROUP]
            done = clean([_piece(candidates[j][2], candidates[j][3]) for j in batch])
            cleaned.update(zip(batch, done, strict=True))
        return cleaned[k]

    chosen: dict[int, tuple[Held, Turn, Turn | None]] = {}
    gone: set[int] = set()  # ids of fitted turns a restored piece holds whole
    left_out: list[int] = []  # the candidates that did not fit whole, in order
    for k, (_, n, h, _) in enumerate(candidates):
        if room < MIN_PIECE:
            break
        if not may_fit(k):
            left_out.append(k)
            continue
        piece = clean_from(k)
        if _already_sent(piece.text, sent):  # sent whole, or restored already
            continue  # (a file read back right after it was written)
        cost, call, superseded = _cost(piece, h, by_line.get(h.line, []), calls, gone)
        if cost <= room:
            chosen[n] = (h, piece, call)
            gone |= superseded
            room -= cost
            sent += "\n" + _norm(piece.text)
            if call is not None:
                calls.add((call.line, call.tool))
        else:
            left_out.append(k)
    # Room left: the first that did not fit and says something not sent yet, cut to it.
    for k in left_out[:LEFT_OUT_TRIES] if room >= MIN_PIECE else ():
        _, n, h, _ = candidates[k]
        piece = clean_from(k)
        if not _already_sent(piece.text, sent):
            if (cut := _cut_to(piece, h, room, calls)) is not None:
                chosen[n] = cut
            break
    if not chosen:
        return fitted, turns
    pieces = [chosen[n] for n in sorted(chosen)]
    out = _insert([t for t in fitted if id(t) not in gone], pieces, with_calls=True)
    if size_of(out) > min(max_bytes, MIN_BUDGET):  # never: each cost is exact
        return fitted, turns
    return out, _insert(list(turns), pieces, with_calls=False)


def _tidy(h: Held) -> str:
    """A held text as worth reading: no colour codes, no injected reminders, no line
    numbers of a file read, no line that assigns a credential, blank runs squeezed."""
    text = strip_ansi(h.text)
    if "<system-reminder>" in text:
        text = _REMINDER.sub("", text)
    if h.tool == "Read":
        text = _READ_NUMBER.sub("", text)
    lines = [squeeze_leaders(ln.rstrip()) for ln in text.split("\n")]
    text = "\n".join(ln for ln in lines if not assigns_secret(ln))
    return _BLANKS.sub("\n\n", text).strip()


def _secret_file(h: Held) -> bool:
    """A file that holds secrets by its name (`.env`, a key), read, written or named by
    the command: never restored, whatever redaction would catch."""
    if not h.path:
        return False
    if h.tool != "Bash":
        return holds_secrets(h.path)
    return any(holds_secrets(p) for p in _PATHS.findall(h.path))


def _norm(text: str) -> str:
    """Blanks and cut marks as one space, case folded: a line the reader squeezed or cut
    is found in the whole text it came from."""
    return _WS.sub(" ", text).casefold()


def _already_sent(text: str, sent: str) -> bool:
    """Every line of it worth reading is in the text already (a short output sent whole)."""
    lines = [_norm(ln).strip() for ln in text.split("\n")]
    return all(ln in sent for ln in lines if len(ln) >= 8)


def _piece(h: Held, text: str) -> Turn:
    """The detail that restores `text` under its call: a command's output as its short
    output is (`→ ` lines), a file read as a document read (`x.py reads:`), another
    tool's output as the lines an answer drew on (`» `), what a call was given as is."""
    tool = "Bash" if h.tool in ("tool", "BashOutput") else h.tool
    role = "assistant" if h.which == "input" else "user"
    return Turn(role, "detail", text, h.line, h.offset, h.timestamp, tool)  # type: ignore[arg-type]


def _shown(piece: Turn, h: Held) -> list[Turn]:
    """The piece as sent, each line cut to LINE_CHARS: an output with its marks, a file
    read under its name; a script's lines past the first (the call line shows that one)
    as the reader shows them, each a call line of its own (what was run, not what is
    true: the verifier reads them so)."""
    lines = [ln if len(ln) <= LINE_CHARS else ln[:LINE_CHARS].rsplit(" ", 1)[0] + " […]"
             for ln in piece.text.split("\n")]
    if h.which == "input" and piece.tool == "Bash":
        ran = [ln.strip() for ln in (lines[1:] if len(lines) > 1 else lines) if ln.strip()]
        return [dataclasses.replace(piece, kind="tool_call", text=SCRIPT_PREFIX + ln)
                for ln in ran]
    if h.which != "input" and h.tool != "Read" and piece.tool not in ("Task", "Agent"):
        mark = OUTPUT_PREFIX if piece.tool == "Bash" else QUOTED_PREFIX
        lines = [mark + ln if ln else ln for ln in lines]
    elif h.tool == "Read":
        lines = [f"{h.path.rsplit('/', 1)[-1] or 'file'} reads:", *lines]
    return [dataclasses.replace(piece, text="\n".join(lines))]


def _call_turn(h: Held, calls: set[tuple[int, str | None]]) -> Turn | None:
    """The call line a restored output hangs under, when `fit` dropped it (a look), or
    a subagent's own (never sent: its input comes back under it too)."""
    if (h.which == "input" and not h.sidechain) or not h.call or not h.call_line:
        return None
    tool = "Bash" if h.tool == "tool" else h.tool
    if (h.call_line, tool) in calls or (h.call_line, h.tool) in calls:
        return None
    return Turn("assistant", "tool_call", without_count(h.call), h.call_line, h.offset,
                h.timestamp, h.tool)


def _superseded(piece: Turn, h: Held, here: list[Turn]) -> set[int]:
    """Ids of the fitted turns said at the piece's line (`here`) that the whole piece
    holds: the lines of the result an answer drew on, its short output, a script's later
    lines; a written body's summary."""
    body = _norm(piece.text)
    out: set[int] = set()
    for t in here:
        if h.which == "input" and t.kind == "detail" and t.tool == piece.tool \
                and piece.tool in WRITERS:
            out.add(id(t))
        elif t.kind == "detail" and t.tool == "Read" and h.tool == "Read" \
                and t.text.partition("\n")[0].endswith(_READ_HEADS):
            # What condensation kept of the same read (its opening and end, its doc
            # comments, its header comment): the whole file holds it (issue 21: a read
            # restored whole was sent beside its own cut copy).
            lines = [_norm(ln.strip().removesuffix("[…]")).strip()
                     for ln in t.text.split("\n")[1:] if not _CUT_LINE.match(ln.strip())
                     and not ln.startswith("defines: ")]  # names from the file: it holds them
            if all(ln in body for ln in lines if ln):
                out.add(id(t))
        elif t.kind == "detail" or (t.kind == "tool_call" and t.text.startswith(SCRIPT_PREFIX)):
            # A cut copy (a subagent's report kept by its head and end) is held by the
            # whole without its cut mark: it was sent twice, the cut one first.
            lines = [_norm(ln.removeprefix(OUTPUT_PREFIX).removeprefix(QUOTED_PREFIX)
                           .removeprefix(SCRIPT_PREFIX)).strip() for ln in t.text.split("\n")
                     if not _CUT_LINE.match(ln.strip())]
            if all(ln.strip() in body for ln in lines if ln.strip()):
                out.add(id(t))
    return out


def _cost(piece: Turn, h: Held, here: list[Turn], calls: set[tuple[int, str | None]],
          gone: set[int]) -> tuple[int, Turn | None, set[int]]:
    """(bytes the piece adds as sent, its call line when one must come back, the turns
    at its line it holds whole). Each turn sent costs its text and one line break."""
    call = _call_turn(h, calls)
    superseded = _superseded(piece, h, here) - gone
    cost = _sent_bytes(_shown(piece, h))
    if call is not None:
        cost += bytes_of(render_turn(call)) + 1
    cost -= sum(bytes_of(render_turn(t)) + 1 for t in here if id(t) in superseded)
    return cost, call, superseded


def _cut_to(piece: Turn, h: Held, room: int, calls: set[tuple[int, str | None]]
            ) -> tuple[Held, Turn, Turn | None] | None:
    """The piece cut to its head and end (already redacted: no secret is split) so that
    it fits `room`; None when too little of it would be left. A cut piece replaces
    nothing: what was sent of it stays."""
    limit = len(piece.text)
    for _ in range(12):
        limit = limit * 3 // 4
        if limit < MIN_PIECE // 2:
            return None
        cut = dataclasses.replace(piece, text=cut_middle(piece.text, limit))
        call = _call_turn(h, calls)
        cost = _sent_bytes(_shown(cut, h)) + (
            bytes_of(render_turn(call)) + 1 if call is not None else 0)
        if cost <= room:
            return h, cut, call
    return None


def _insert(base: list[Turn], pieces: list[tuple[Held, Turn, Turn | None]],
            *, with_calls: bool) -> list[Turn]:
    """`base` with each piece after the last turn said at or before its record (its call
    line first when it must come back)."""
    out: list[Turn] = []
    todo = sorted(pieces, key=lambda p: p[1].line)
    k = 0
    for t in base:
        while k < len(todo) and todo[k][1].line < t.line:
            out.extend(_placed(todo[k], with_calls))
            k += 1
        out.append(t)
    for p in todo[k:]:
        out.extend(_placed(p, with_calls))
    return out


def _placed(p: tuple[Held, Turn, Turn | None], with_calls: bool) -> list[Turn]:
    h, piece, call = p
    shown = _shown(piece, h)
    return [call, *shown] if call is not None and with_calls else shown


def _sent_bytes(turns: list[Turn]) -> int:
    """What hanging turns add to the text: each its rendering and one line break."""
    return sum(bytes_of(render_turn(t)) + 1 for t in turns)
