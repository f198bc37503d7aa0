"""Fit the condensed conversation into what is worth sending: at most 1/ratio of the
transcript's bytes (`send_ratio`, 25 by default; 0 sends everything condensation kept),
or MIN_BUDGET for a short session.

Condensation already drops tool output (GUIDE §3). On long, tool-heavy sessions that
leaves 1/100 or less; on short, chatty ones the assistant's own prose is most of what is
left and can exceed 1/25 of the file alone. What goes first is what says least about a
durable fact; shedding stops as soon as the text fits:

0. compaction summaries (kind "summary", lower trust): cut to the room the rest leaves,
   or dropped when that room is under SUMMARY_MIN bytes;
   then what the doc comments of code that was read say (`x.go documents:`), largest
   first; then a script's further commands (`capture.results`), largest first;
1. look-ups: successful tool calls that only read (Read, Grep, Glob, LS, TodoWrite, …);
2. narration: assistant text that announces a tool call (the call comes right after it:
   "Let me check the config."), cut to what it found (its announcing sentences go: in
   English words, or in any language a last sentence that ends with a colon,
   "設定ファイルを作成します："), longest first, only as far as needed; then narration
   that only announces goes whole (the call line says it again) before anything the
   session wrote is cut;
3. the length of every assistant text and call detail (a plan, a commit message, an
   issue body: kind "detail"), to an equal share of the room left, if that share is
   still a paragraph (GOOD_SHARE bytes): its opening and its end, or, when the share is
   a sliver, its sentences that name code, values or a cause;
4. every other successful tool call (edits, commands), then the same equal share
   again, down to MIN_SHARE bytes; three kinds of call stay: the header of a detail
   still sent, the retry right after a failure of the same tool (`python3 x.py` after
   `python: command not found`: the fix is the fact), and a command whose output
   records what git did (`[main 07a998d] fix: …`);
5. narration altogether, those retries, then the answers' share below MIN_SHARE, to
   nothing.

A person's words and tool failures are never cut: corrections, decisions and gotchas
live there. What was pasted into a prompt (a log, a trace: mostly program output) and a
long failure are the exception: when prompts and failures take over half the budget,
they shrink first to their opening, their error lines and their end (issue 21: one
pasted log took 79% of a session's budget and every answer was cut to a sliver). The
budget is exceeded only when what is left of them still exceeds it: then a failure
sheds the context lines kept around its key lines (never its headline or a line that
names the error) and the assistant keeps MIN_SHARE of each text rather than losing
every word. Sizes are UTF-8 bytes, as the budget counts them; cuts never split a
character.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from capture.condense import render
from capture.noise import only_looks
from capture.results import QUOTED_PREFIX, SCRIPT_PREFIX
from capture.transcript import (
    DOCUMENTS,
    OUTPUT_PREFIX,
    Turn,
    is_key_line,
    is_landmark,
    without_count,
)
from capture.written import WRITERS

LOOKUPS = frozenset({
    "Read", "Grep", "Glob", "LS", "TodoWrite", "TodoRead", "NotebookRead", "WebSearch",
    "WebFetch", "ListMcpResourcesTool", "ReadMcpResourceTool", "BashOutput",
})
GOOD_SHARE = 240  # a paragraph: worth more than the tool calls around it
MIN_SHARE = 80  # an assistant text is cut below this only when nothing else is left
SUMMARY_MIN = 600  # a compaction summary shorter than this says too little to send
SHAREABLE = ("prose", "detail")  # the texts cut to an equal share
CUT = " […]"  # marks a shortened text (grounding and excerpts look past it)
# A sentence ends at a stop and a space, a line break, or a full-width stop ("。"), which
# needs no space (Japanese, Chinese).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n|(?<=[。！？])")
_WORDS = re.compile(r"[\w./-]+")


# A floor under the budget: a short session is dense (a prompt, a finding, a fix) and
# 1/25 of 100 kB is a few paragraphs; sending 32 KiB (~9k tokens, under 2 cents at
# Haiku's price) costs little and loses none of it (issue 21). Session 7 moved the budget
# from 1/40 and 8 KiB to 1/25 and 24 KiB: on the tuning sets the budget, not condensation,
# was what lost facts (set 3: 35 of 48 carried at 1/40, 43 at 1/25 or 1/20; sessions2's
# tune half 18 → 20 of 20). Session 9 moved 24 → 32 KiB: a 332 KB session that read its
# project's config and docs to write CLAUDE.md carried 4 of 13 facts at 24 KiB, 8 at 32
# (sets 1–4 unchanged); a session at the floor costs ~$0.0024 more (bench: $0.0145 →
# $0.0169 for the 297 KB subagent session). The bench's cost row keeps the price in view.
MIN_BUDGET = 32_768


def budget_for(source_bytes: int, ratio: int) -> int | None:
    """Bytes the text may take for a transcript region of `source_bytes`: 1/ratio of it,
    at least MIN_BUDGET; None: all."""
    if ratio <= 0 or source_bytes <= 0:
        return None
    return max(source_bytes // ratio, MIN_BUDGET)


def fit(turns: list[Turn], max_bytes: int | None) -> list[Turn]:
    """The turns, shed and shortened in the order above until `render` fits max_bytes."""
    if max_bytes is None:
        return turns
    # Narration is known while every call is in place; kept by identity, and the dict
    # holds each turn so that no id is reused by a new object during the fit.
    narration = {id(turns[i]): turns[i] for i in _narration(turns)}
    retries = {id(turns[i]): turns[i] for i in _retries(turns)}
    # Looks (Read, Grep, `cat`, `ls`, `git log`) go whatever the room: a quarter to half
    # of what was sent, saying nothing durable (issue 21). A command with something under
    # it (a status it printed, the lines an answer drew on, a failure) stays as its
    # header: without it those lines would read as the output of the call above (a
    # file read's detail names its file).
    turns = [t for i, t in enumerate(turns)
             if not _look(t) or (t.tool == "Bash" and _hangs(turns, i))]
    # Then, in this order, each only until the text fits (the module's docstring says why).
    stages: tuple[Callable[[list[Turn]], list[Turn]], ...] = (
        lambda ts: _bound_summaries(_bound_pastes(ts, max_bytes), max_bytes),
        lambda ts: _drop_until_fits(ts, max_bytes, _documentation),
        # A script's further commands: before any of the session's words are cut (the
        # lines of a result the next answer drew on go with the bodies, largest first).
        lambda ts: _drop_until_fits(ts, max_bytes, _script),
        lambda ts: _fit_summaries(ts, max_bytes),
        lambda ts: _shorten_narration(ts, max_bytes, narration),
        lambda ts: _older_versions(ts, max_bytes),
        lambda ts: _without_repeated_calls(ts, retries),
        # Narration that only announces its call (the call line says it again) goes
        # before anything the session wrote is cut: a written rule or config says more.
        lambda ts: _drop_until_fits(ts, max_bytes, lambda t: id(t) in narration
                                    and only_announces(t.text)),
        lambda ts: _shorten_written(ts, max_bytes),
        # Still over: what was written or reported by a subagent goes before the prose
        # is cut below a paragraph (the session's own words come first). Each only as
        # far as needed, the largest first: a one-line fix or a small read holds as much
        # as a long body, in a fraction of the bytes (issue 21: dropping every body at
        # once for a few bytes over lost them all).
        lambda ts: _drop_until_fits(ts, max_bytes, lambda t: _written(t) and t.tool == "Read"),
        # A command's short output (a status line: what a check found) stays with its
        # call line until the calls go: a finding in a few bytes.
        lambda ts: _drop_until_fits(ts, max_bytes, lambda t: _written(t) and not _output(t)
                                    and not t.text.startswith(QUOTED_PREFIX)
                                    and not is_landmark(t.text)),
    )
    for stage in stages:
        turns = stage(turns)
        if size_of(turns) <= max_bytes:
            return turns
    shared = _share_prose(turns, max_bytes, GOOD_SHARE)
    if shared is not None:
        return shared
    turns = [
        t
        for i, t in enumerate(turns)
        if (t.kind != "tool_call" and not _output(t))
        or id(t) in retries
        or (t.kind == "detail" and is_landmark(t.text))  # "[main 07a998d] fix: …"
        or (t.kind == "tool_call" and i + 1 < len(turns) and turns[i + 1].kind == "detail"
            and (not _output(turns[i + 1]) or is_landmark(turns[i + 1].text)))
    ]
    shared = _share_prose(turns, max_bytes, MIN_SHARE)
    if shared is not None:
        return shared
    if size_of([t for t in turns if t.kind not in SHAREABLE]) > max_bytes:
        # Prompts and failures alone are over: the budget cannot be met. Failures keep
        # only their key lines; the assistant keeps its floor share rather than
        # losing every word.
        turns = [_key_lines(t) if t.kind == "tool_error" else t for t in turns]
        return _share_prose(turns, max_bytes, MIN_SHARE, must_fit=False) or turns
    turns = [t for t in turns if id(t) not in narration and id(t) not in retries]
    rest = [t for t in turns if t.kind not in SHAREABLE]
    return _share_prose(turns, max_bytes, 0) or _drop_headless(rest)


def _drop_until_fits(turns: list[Turn], max_bytes: int,
                     which: Callable[[Turn], bool]) -> list[Turn]:
    """The turns `which` picks dropped, the largest first, until the text fits; what a
    code file read says about itself before what a document read says (a document or
    config file is the project's own statement, a code read's header a summary)."""
    order = sorted((i for i, t in enumerate(turns) if which(t)),
                   key=lambda i: (_doc_read(turns[i]), -bytes_of(turns[i].text)))
    over = size_of(turns) - max_bytes
    gone: set[int] = set()
    for i in order:
        if over <= 0:
            break
        gone.add(i)
        over -= bytes_of(turns[i].text) + 2
    return [t for i, t in enumerate(turns) if i not in gone]


def _hangs(turns: list[Turn], i: int) -> bool:
    """Something hangs under the call at `i`: its detail or its failure."""
    return i + 1 < len(turns) and turns[i + 1].kind in ("detail", "tool_error")


def _documentation(t: Turn) -> bool:
    """What the doc comments of code that was read say (`x.go documents:`): sent only
    where the room allows (the session's own words and what it did come first)."""
    return t.kind == "detail" and t.tool == "Read" \
        and t.text.partition("\n")[0].endswith(DOCUMENTS)


def _look(t: Turn) -> bool:
    """A successful call that only read: a lookup tool, or a read-only shell command."""
    if t.kind != "tool_call":
        return False
    if t.tool in LOOKUPS:
        return True
    line = without_count(t.text)
    return t.tool == "Bash" and line.startswith("Bash: ") and not line.endswith("…") \
        and only_looks(line[6:])


SUMMARY_SHARE = 8  # a compaction summary takes at most 1/8 of the budget (one took 15%)
REPORTERS = frozenset({"Task", "Agent", "Read"})  # a report, a small doc read
WRITTEN_SHARE = 480  # a written file's body when the room is short (then shared as prose)
SAME_THING = 0.5  # share of words two texts have in common to describe the same thing


# Sections of Claude Code's compaction summary that retell code: the first to go when a
# summary must shrink ("Key Technical Concepts" hold conventions, "All user messages" the
# person's words, "Errors and fixes" what went wrong: they stay).
_SUMMARY_SECTION = re.compile(r"(?m)^[ \t]*\d+\.[ \t]+([A-Z][^\n:]{2,60}):[ \t]*$")
_RETOLD = ("files and code", "code sections", "relevant code")


def _summary_core(text: str) -> str:
    """A compaction summary without the bodies of its retelling sections (their
    headings stay, marked cut); the text unchanged when it has none."""
    heads = list(_SUMMARY_SECTION.finditer(text))
    out, pos = [], 0
    for k, m in enumerate(heads):
        if m.group(1).strip().casefold().startswith(_RETOLD):
            end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
            out.append(text[pos: m.end()] + CUT)
            pos = end
    return "".join(out) + text[pos:] if out else text


def _shrunk_summary(t: Turn, cap: int, keep: Callable[[str, int], str]) -> Turn:
    """A summary over `cap` bytes: its retelling sections first, then `keep` cuts it."""
    core = _summary_core(t.text)
    return _cut(t, core if bytes_of(core) <= cap else keep(core, cap))


PASTE_SHARE = 2  # prompts and failures may take at most 1/2 of the budget before pastes shrink
LONG_PASTE = 2_000  # a prompt or failure over this is mostly pasted or printed machine text
PASTE_HEAD, PASTE_TAIL, PASTE_KEYS = 500, 800, 12


def _bound_pastes(turns: list[Turn], max_bytes: int) -> list[Turn]:
    """When prompts and failures alone take more than 1/PASTE_SHARE of the budget (a
    log pasted into a prompt, a build's whole output), the longest failures and pasted
    prompts (mostly program output: a person's typed words never) shrink to
    their opening, the lines that name an error, and their end (where a person's
    question after a paste sits), until they fit that share: the person's words and the
    error lines stay, the assistant keeps room to be heard."""
    def said(ts: list[Turn]) -> int:
        return sum(bytes_of(t.text) for t in ts if t.kind in ("prompt", "tool_error"))

    over = said(turns) - max_bytes // PASTE_SHARE
    if over <= 0:
        return turns
    out = list(turns)
    order = sorted((i for i, t in enumerate(out) if bytes_of(t.text) > LONG_PASTE and (
        t.kind == "tool_error" or (t.kind == "prompt" and _machine_text(t.text)))),
        key=lambda i: -bytes_of(out[i].text))
    for i in order:
        if over <= 0:
            break
        short = dataclasses.replace(out[i], text=_paste_core(out[i].text))
        over -= bytes_of(out[i].text) - bytes_of(short.text)
        out[i] = short
    return out


# A line a program printed, not a person typed: a timestamp, a log level, a stack frame,
# a path with a line number, indentation, JSON, a table's rule, or a field of a report
# aligned to a column (`RuleID:      hardcoded-ip`, a scanner's findings).
_MACHINE_LINE = re.compile(
    r"^\s*(?:\[?\d{1,4}[-:/.]\d{1,2}|\[?(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE|FATAL|E|W|I)\b"
    r"|at\s+\S+[(:]|File \"|Traceback|[{}\[\]<>#$|│├└─=*+-]|\S+\.\w+:\d+|\w+(?:\.\w+)+\("
    r"|\s{2}|\w[\w -]{0,30}:\s{2,}\S)")  # the last: as _FIELD


def _machine_text(text: str) -> bool:
    """Mostly pasted program output (a log, a trace, a listing), not a person's words."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if len(lines) < 10:
        return False
    return sum(1 for ln in lines if _MACHINE_LINE.match(ln)) >= 0.6 * len(lines)


def _paste_core(text: str) -> str:
    """A long pasted text's opening, its error lines (at most PASTE_KEYS), each other
    kind of line once (a scanner's 40 findings: each rule, file and fingerprint named
    once, not 40 `Entropy:` lines), within PASTE_MIDDLE bytes, and its end."""
    head, tail = _head(text, PASTE_HEAD), _tail(text, PASTE_TAIL)
    middle = text[len(head): len(text) - len(tail)]
    lines = [ln.strip()[:200] for ln in middle.split("\n") if ln.strip()]
    keys = list(dict.fromkeys(ln for ln in lines if is_key_line(ln)))[:PASTE_KEYS]
    room = PASTE_MIDDLE - sum(bytes_of(k) + 1 for k in keys)
    kept, shapes = set(keys), {_shape(k) for k in keys}
    fields: dict[str, int] = {}  # a report's field (`RuleID:`) → its values kept
    for ln in lines:
        shape, field = _shape(ln), _FIELD.match(ln)
        if shape in shapes or room < bytes_of(ln) + 1 or (
                field and fields.get(field.group(1), 0) >= PASTE_FIELD_VALUES):
            continue
        if field:
            fields[field.group(1)] = fields.get(field.group(1), 0) + 1
        shapes.add(shape)
        kept.add(ln)
        room -= bytes_of(ln) + 1
    picked = [ln for ln in dict.fromkeys(lines) if ln in kept]
    return "\n".join([head + CUT, *picked, "[…] " + tail] if picked else [head + _MID + tail])


PASTE_MIDDLE = 1500  # bytes of a pasted text's middle kept: its error lines, each kind once
PASTE_FIELD_VALUES = 3  # of one field of a pasted report (`File:`), the first values kept
_FIELD = re.compile(r"(\w[\w -]{0,30}):\s{2,}\S")
_DIGITS = re.compile(r"\d+(?:[.:]\d+)*")


def _shape(line: str) -> str:
    """A line with its numbers blanked: the same message at another count or time."""
    return _DIGITS.sub("0", " ".join(line.split()))


def _bound_summaries(turns: list[Turn], max_bytes: int) -> list[Turn]:
    """Each compaction summary cut to its share of the budget, the end kept."""
    cap = max(SUMMARY_MIN, max_bytes // SUMMARY_SHARE)
    return [_shrunk_summary(t, cap, _middle) if t.kind == "summary" and bytes_of(t.text) > cap
            else t for t in turns]


def _shorten_written(turns: list[Turn], max_bytes: int) -> list[Turn]:
    """What a Write/Edit carried cut to WRITTEN_SHARE bytes (head and end), what was
    only read first (the session's own writing says more), then what a file said before
    it was written again (the latest version wins), then the longest first, until the
    text fits."""
    out = list(turns)
    over = size_of(out) - max_bytes
    older = _rewritten(out)
    order = sorted((i for i, t in enumerate(out) if _written(t)
                    and bytes_of(t.text) > WRITTEN_SHARE),
                   key=lambda i: (out[i].tool != "Read", i not in older,
                                  -bytes_of(out[i].text)))
    for i in order:
        if over <= 0:
            break
        short = _cut(out[i], _middle(out[i].text, WRITTEN_SHARE))
        over -= bytes_of(out[i].text) - bytes_of(short.text)
        out[i] = short
    return out


def _rewritten(turns: list[Turn]) -> set[int]:
    """Indexes of the bodies written (a Write's, an Edit's) that a later call replaces:
    a Write of the whole file, or an Edit whose replaced text (its `was:`) holds what the
    earlier one wrote. Two Edits of one file change two places: neither is older."""
    bodies: list[tuple[str, int]] = []  # (path, index) of the bodies not replaced yet
    older: set[int] = set()
    for k, t in enumerate(turns):
        if t.kind == "tool_call" and t.tool == "Write":
            path = without_count(t.text).partition(" ")[2]
            older.update(i for p, i in bodies if _same_file(p, path))
            bodies = [(p, i) for p, i in bodies if i not in older]
        elif k and t.kind == "detail" and t.tool in WRITERS and turns[k - 1].kind == "tool_call":
            path = without_count(turns[k - 1].text).partition(" ")[2]
            if t.tool == "Edit" and (was := _replaced(t.text)):
                older.update(i for p, i in bodies if _same_file(p, path)
                             and (new := _norm_ws(_wrote(turns[i].text))) and new in was)
                bodies = [(p, i) for p, i in bodies if i not in older]
            bodies.append((path, k))
    return older


def _same_file(a: str, b: str) -> bool:
    """The same path, or one the other's tail (the first write names a file whole,
    later ones relative to the session's directory)."""
    return bool(a and b) and (a == b or a.endswith("/" + b) or b.endswith("/" + a))


def _replaced(detail: str) -> str:
    """What a small edit replaced (`was: …` over `now: …`, capture.written.with_was),
    blanks squeezed; "" when its detail does not show it."""
    if not detail.startswith("was: ") or "\nnow: " not in detail:
        return ""
    return _norm_ws(detail[5:].partition("\nnow: ")[0])


def _wrote(detail: str) -> str:
    """The new text of a written body (a small edit's `now:` side)."""
    if detail.startswith("was: ") and "\nnow: " in detail:
        return detail.partition("\nnow: ")[2]
    return detail


def _norm_ws(text: str) -> str:
    return " ".join(text.split())


def _doc_read(t: Turn) -> bool:
    """What a document or config file read says (`package.json reads:`)."""
    return t.tool == "Read" and t.text.partition("\n")[0].endswith(" reads:")


def _script(t: Turn) -> bool:
    """A script's commands past its first line (capture.results)."""
    return t.kind == "tool_call" and t.text.startswith(SCRIPT_PREFIX)


def _output(t: Turn) -> bool:
    """A command's short output or the end of a long one, hung under its call."""
    return t.kind == "detail" and t.text.startswith(OUTPUT_PREFIX)


def _written(t: Turn) -> bool:
    """A Write/Edit body, a subagent's report, a command's short output, the lines of a
    result the next answer drew on, hung under its call."""
    return t.kind == "detail" and (t.tool in WRITERS | REPORTERS
                                   or t.text.startswith((OUTPUT_PREFIX, QUOTED_PREFIX)))


def _content_words(text: str) -> set[str]:
    return {w for w in _WORDS.findall(text.casefold()) if len(w) > 3}


def _older_versions(turns: list[Turn], max_bytes: int) -> list[Turn]:
    """When the assistant describes the same thing again later (a design, a change log),
    the latest description wins: an earlier one that shares most of its words with a
    later, at least as long one is cut to its first sentence, oldest first."""
    prose = [i for i, t in enumerate(turns) if t.kind == "prose" and bytes_of(t.text) > GOOD_SHARE]
    words = {i: _content_words(turns[i].text) for i in prose}
    out = list(turns)
    over = size_of(out) - max_bytes
    for n, i in enumerate(prose):
        if over <= 0:
            break
        mine = words[i]
        if not mine:
            continue
        for j in prose[n + 1:]:
            later = words[j]
            if len(mine & later) >= SAME_THING * min(len(mine), len(later)) and \
                    bytes_of(turns[j].text) * 2 >= bytes_of(turns[i].text):
                # What it found that the later one does not retell stays (a finding
                # in its own words); the outdated rest goes.
                short = _cut(out[i], _salient(out[i].text, GOOD_SHARE, turns[j].text)
                             or _first_sentence(out[i].text))
                over -= bytes_of(out[i].text) - bytes_of(short.text)
                out[i] = short
                break
    return out


def _without_repeated_calls(turns: list[Turn], retries: dict[int, Turn]) -> list[Turn]:
    """A call line said again since the last prompt (the same file edited a ninth time,
    the same command rerun) goes, unless something hangs under it (a detail, a failure)
    or it is the retry after a failure: half the call lines of a long session."""
    out: list[Turn] = []
    seen: set[str] = set()
    for i, t in enumerate(turns):
        if t.kind == "prompt":
            seen.clear()
        elif t.kind == "tool_call":
            if t.text in seen and not _hangs(turns, i) and id(t) not in retries:
                continue
            seen.add(t.text)
        out.append(t)
    return out


def _drop_headless(turns: list[Turn]) -> list[Turn]:
    """Without its detail, a call kept as the detail's header goes too (step 4)."""
    return [t for t in turns if t.kind != "tool_call"]


def _fit_summaries(turns: list[Turn], max_bytes: int) -> list[Turn]:
    """Step 0: compaction summaries share the room the rest leaves, or go."""
    idx = [i for i, t in enumerate(turns) if t.kind == "summary"]
    if not idx:
        return turns
    rest = [t for t in turns if t.kind != "summary"]
    room = max_bytes - size_of(rest)
    # What a summary costs beyond its text: markers and separators (measured, not guessed).
    overhead = size_of(turns) - size_of(rest) - sum(bytes_of(turns[i].text) for i in idx)
    share = (room - overhead) // len(idx) - bytes_of(CUT)
    if share < SUMMARY_MIN:
        return rest
    out = list(turns)
    for i in idx:
        if bytes_of(out[i].text) > share:
            out[i] = _shrunk_summary(out[i], share, _middle)
    return out if size_of(out) <= max_bytes else rest


def _key_lines(turn: Turn) -> Turn:
    """A failure reduced to its headline and the lines that name what went wrong."""
    first, _, rest = turn.text.partition("\n")
    keep = [first] + [ln for ln in rest.split("\n") if ln and is_key_line(ln)]
    text = "\n".join(keep)
    return turn if text == turn.text else dataclasses.replace(turn, text=text)


def size_of(turns: list[Turn]) -> int:
    """Bytes of the turns as sent (rendered, UTF-8)."""
    return len(render(turns).encode("utf-8", "surrogatepass"))


def bytes_of(text: str) -> int:
    """Bytes of a text as sent (UTF-8; a lone surrogate counted, not refused)."""
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


def _retries(turns: list[Turn]) -> list[int]:
    """Indexes of the first call of a failed tool after its failure, before the next
    prompt: what was done instead."""
    out: list[int] = []
    for i, t in enumerate(turns):
        if t.kind != "tool_error" or t.text == "Rejected by the user.":
            continue
        for j in range(i + 1, len(turns)):
            u = turns[j]
            if u.kind == "prompt":
                break
            if u.kind == "tool_call" and u.tool == t.tool:
                out.append(j)
                break
    return out


def _shorten_narration(
    turns: list[Turn], max_bytes: int, narration: dict[int, Turn]
) -> list[Turn]:
    """Narration cut to what it found (its announcing sentences gone: "Found the root
    cause! X expects Y. Now I'll write the plan:"), or to its first sentence when it only
    announces; the most saved first, until the text fits. `narration` holds the
    narration turns by id; the cut ones join it."""
    out = list(turns)
    over = size_of(out) - max_bytes
    cuts = []
    for i, t in enumerate(turns):
        if id(t) in narration:
            short = _cut(t, _narrated(t.text))
            saved = bytes_of(t.text) - bytes_of(short.text)
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
    prose = [i for i, t in enumerate(turns) if t.kind in SHAREABLE]
    if not prose:
        return None
    mark = bytes_of(CUT)
    room = max_bytes - (size_of(turns) - sum(bytes_of(turns[i].text) for i in prose))
    # Water-filling: texts shorter than an equal share keep all of theirs and leave the
    # rest of it to the longer ones.
    share: int | None = None
    lengths = sorted(bytes_of(turns[i].text) for i in prose)
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
        if bytes_of(text) > share:
            out[i] = _cut(out[i], _middle(text, share))
    out = [t for t in out if t.kind not in SHAREABLE or t.text != CUT.strip()]
    return out if size_of(out) <= max_bytes or not must_fit else None


def _head(text: str, limit: int) -> str:
    """At most `limit` bytes of `text`, ended at a word boundary when one is near."""
    head = text.encode("utf-8", "surrogatepass")[: max(0, limit)].decode("utf-8", "ignore")
    space = head.rfind(" ", len(head) // 2)
    return (head[:space] if space > 0 else head).rstrip()


_MID = " […] "


def _middle(text: str, limit: int) -> str:
    """At most `limit` bytes of `text`: its opening and, larger, its end (where a
    message's conclusion, a list's last items, the fix command sit), the middle marked
    cut; a text over LONG_CUT times the room also keeps the findings of its middle (a
    long report's verdicts sit in its sections). Too little room for both: the opening
    alone."""
    if bytes_of(text) <= limit:
        return text
    if limit < 3 * GOOD_SHARE // 2:
        return _salient(text, limit) or _head(text, limit)
    room = limit - bytes_of(_MID) - bytes_of(CUT)
    if bytes_of(text) > LONG_CUT * limit:
        # A long report cut to a fraction: its title, the findings of its middle (a
        # verdict, a cause, a value), its end; not one run from each end alone.
        head = _head(text, room // 5)
        tail = _tail(text, room * 2 // 5)
        middle = text[len(head): len(text) - len(tail)]
        found = _salient(middle, room - bytes_of(head) - bytes_of(tail) - bytes_of(_MID))
        if found:
            return head + _MID + found.removeprefix("[…] ") + _MID + tail
    head = _head(text, room // 3)
    tail = _tail(text, room - bytes_of(head))
    return head + _MID + tail if tail else head


LONG_CUT = 3  # a text over this many times its room is cut by findings, not by its ends


# What makes a sentence a finding rather than talk: code, a name, a value, a cause.
_FINDING = re.compile(
    r"`[^`\n]+`|\b[\w-]+(?:[./][\w-]+)+\b|\b[A-Za-z]+_\w+\b|\b[a-z]+[A-Z]\w*\b"
    r"|\d+(?:[.,:]\d+)*"  # a number once, however many digits (a table row is not a finding)
    r"|\b(?:because|instead|but|since|root cause|the (?:issue|problem|cause|fix) (?:is|was)"
    r"|must|never|always|requires?|expects?|fails?|failed)\b")


# A list item's number (`2. `) opens its sentence: alone it is no sentence (a cut report
# read "2. […] 3. […]": each number scored as a value found).
_SENTENCE_SPAN = re.compile(
    r"(?:^[ \t]*\(?\d{1,3}[.)][ \t]+)?\S(?:.*?)(?:[.!?]+(?=\s|$)|[。！？]+|(?=\n)|$)", re.M)
_LIST_MARK = re.compile(r"^[ \t]*\(?\d{1,3}[.)][ \t]+")  # … and is not a value it names


def _salient(text: str, limit: int, known: str = "") -> str:
    """Too little room for a message's opening and end: its sentences that say the most
    (code, names, values, a cause: "but in the HTML we have `<div class=…`"), in their
    order, the gaps marked cut; "" when no sentence is a finding or none fits. An
    opening "Perfect! The issue is clear now." says nothing a finding does not. A
    finding already in `known` (a later retelling) does not count."""
    spans = [(m.start(), m.end()) for m in _SENTENCE_SPAN.finditer(text)]
    scored = sorted(((sum(f not in known for f in _FINDING.findall(
        _LIST_MARK.sub("", text[a:b], count=1))), -i, i)
                     for i, (a, b) in enumerate(spans)), reverse=True)
    if not scored or scored[0][0] == 0:
        return ""
    chosen: list[int] = []
    used = 0
    for score, _, i in scored:
        if score == 0:
            break
        cost = bytes_of(text[spans[i][0]:spans[i][1]]) + bytes_of(_MID)
        if used + cost <= limit:
            chosen.append(i)
            used += cost
    if not chosen:  # the best finding alone is too long: its opening
        best = spans[scored[0][2]]
        return ("[…] " if scored[0][2] else "") + _head(text[best[0]:best[1]], limit - 8)
    parts: list[str] = []
    run_start = prev = -2
    for i in [*sorted(chosen), -1]:
        if i != prev + 1 or i == -1:
            if prev >= 0:
                parts.append(text[spans[run_start][0]:spans[prev][1]])
            run_start = i
        prev = i
    lead = "[…] " if sorted(chosen)[0] > 0 else ""
    return lead + _MID.join(parts)


def _tail(text: str, limit: int) -> str:
    """At most `limit` bytes of the end of `text`, started at a word boundary."""
    raw = text.encode("utf-8", "surrogatepass")
    tail = raw[max(0, len(raw) - max(0, limit)):].decode("utf-8", "ignore")
    space = tail.find(" ", 0, len(tail) // 2)
    return (tail[space + 1:] if space >= 0 else tail).lstrip()


_ANNOUNCE = re.compile(
    r"^(?:(?:now|next|first|then|so|ok(?:ay)?|great|perfect|good|alright|excellent)[,.!]*\s+)*"
    r"(?:let me|let's|let us|i'll|i will|i'm going to|i am going to|i need to|time to"
    r"|i'm now going to|we need to (?:check|look|see|find|read|run))\b", re.I)
# A sentence ends at a stop before a space or the end, not at the dot of `__init__.py`.
_SENTENCES = re.compile(r"(?:[^.!?。！？\n]|[.!?]+(?=[^\s.!?]))+(?:[.!?]+|[。！？]+|\n+|$)\s*")
# An announcement that says what was decided ("Let me revert and use a different
# approach - we'll use subpath imports") is a decision, not narration.
_DECIDES = re.compile(r"(?i)\b(?:instead|different approach|rather than|switch(?:ing)? to"
                      r"|we'll use|i'll use|we will use|because|so that)\b")


def _announcing(sentences: list[str]) -> list[bool]:
    """Which sentences of a narration announce the call after it: "Let me check X." in
    English words, and in any language the last sentence when it ends with a colon (the
    call is what follows it: "Now I'll write the plan:", "設定ファイルを作成します：")."""
    out = [bool(_ANNOUNCE.match(x.strip())) and not _DECIDES.search(x) for x in sentences]
    if sentences and sentences[-1].rstrip().endswith((":", "：")) \
            and not _DECIDES.search(sentences[-1]):
        out[-1] = True
    return out


def _narrated(text: str) -> str:
    """Narration without its announcing sentences ("Let me check X.", "Now I'll write
    the plan:"): what it found stays. Only announcements: its first sentence."""
    sentences = [m.group() for m in _SENTENCES.finditer(text) if m.group().strip()]
    kept = [x for x, said in zip(sentences, _announcing(sentences), strict=True) if not said]
    if not kept or sum(len(x) for x in kept) < 20:
        return _first_sentence(text)
    return "".join(kept).strip() if len(kept) < len(sentences) else text


def only_announces(text: str) -> bool:
    """Narration that says nothing but what the call after it does ("Let me run the
    tests.", "ESLint設定ファイルを作成します："): the call line says it again. One that
    names code, a file or a value ("by adding __init__.py files") says what the call is
    for."""
    text = text.removesuffix(CUT)
    sentences = [m.group() for m in _SENTENCES.finditer(text) if m.group().strip()]
    return bool(sentences) and all(_announcing(sentences)) and not _FINDING.search(text)


def _first_sentence(text: str) -> str:
    m = _SENTENCE_END.search(text, 20)  # past the first few characters ("e.g. ", "1. ")
    return text[: m.start()].rstrip() if m else text


def _cut(turn: Turn, kept: str) -> Turn:
    if len(kept) >= len(turn.text):
        return turn
    return dataclasses.replace(turn, text=kept + CUT if kept else CUT.strip())
