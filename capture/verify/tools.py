"""What tool calls and written files say of a fact: edits, failures, reads, thinking.

A quote found only in a tool line or a file the session wrote is judged against what
that tool did, not as something a person or the assistant said.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from capture.condense import render_turn
from capture.ground import normalise
from capture.results import SCRIPT_PREFIX
from capture.transcript import Turn
from capture.verify.hedges import _ATTRIBUTED, fact_speaker, hedged, opinion
from capture.verify.inversion import dropped_negation, flips_meaning, flips_negation
from capture.verify.known import against_quote, echoed
from capture.verify.turns import _TOOL_NORM, _tool_norm
from capture.verify.values import (
    dropped_words,
    missing_terms,
    old_value_as_current,
    unit_changed,
)
from capture.verify.verdict import Verdict
from capture.verify.words import _ELLIPSIS, _predicate_negations


def _write_failed(turns: Sequence[Turn], i: int) -> bool:
    """The Write/Edit whose body is turn i failed (rejected, aborted): nothing was written.
    A body written is what the file now says (issue 21: a true `const BREAK_TIME = 5 * 60`
    was marked a mere tool line)."""
    for j in range(i + 1, min(len(turns), i + 6)):
        t = turns[j]
        if t.kind == "tool_error" and t.tool == turns[i].tool:
            return True
        if t.kind in ("prompt", "prose", "summary"):
            return False
    return False


WAS, NOW = "was: ", "\nnow: "  # a small edit sent whole: what it replaced, then its text
_CALL_PATH = re.compile(r"^(?:Write|Edit|MultiEdit|NotebookEdit)\s+(\S+)")


def _now_side(turn: Turn) -> str:
    """A turn as it says things now: of an edit sent whole, its new text only (its `was:`
    side is the state it replaced, not the session's last word)."""
    text = turn.text
    if turn.kind == "detail" and turn.tool in _WRITERS and text.startswith(WAS) and NOW in text:
        return text.split(NOW, 1)[1]
    return render_turn(turn)


def _written_aside(turns: Sequence[Turn], i: int, quote: str,
                   tool_texts: Sequence[tuple[str, str, str]] = ()) -> tuple[str, str] | None:
    """A quote of a written body that is not what the file now says, as condensation
    sends it: the `was:` side of an edit (the state it replaced), or a comment of written
    code (the `notes:` line, a comment line of a small piece: what the code says of
    itself, which the code may not do). (hint, detail), or None. The same provenance
    `_from_tools` gives a quote found only in what a tool was given."""
    text = turns[i].text
    piece = next((p for p in _ELLIPSIS.split(quote) if p.strip()), quote).strip()
    if text.startswith(WAS) and NOW in text:
        old, new = text[len(WAS):].split(NOW, 1)
        if piece in normalise(old) and piece not in normalise(new):
            return "corrected_later", ("the quote is what the edit replaced (its `was:` "
                                       "side), not what the file says now")
        text = new
    if tool_texts:  # a later edit of the same file replaced the line: what says so
        texts = _tool_norm(tool_texts)
        k = next((k for k, (w, n, t) in enumerate(texts)
                  if w == "input" and n in _WRITERS and piece in t), None)
        if k is not None and (replaced := _edited_away(tool_texts, texts, k, piece)):
            return "corrected_later", replaced
    call = turns[i - 1].text if i and turns[i - 1].kind == "tool_call" else ""
    path = m.group(1) if (m := _CALL_PATH.match(call)) else ""
    if _PROSE_FILE.search(path.casefold()):
        return None
    for ln in text.split("\n"):
        if piece in normalise(ln):
            if ln.startswith("notes: ") or _COMMENT.match(ln):
                return "tool_line", ("only a comment in the written code says so, not the "
                                     "code itself")
            return None
    return None


_WRITERS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})  # a body written: a tool's
_FAILURE_WORDS = re.compile(r"no such file|not found|cannot|can't|could not|failed|error|denied"
                            r"|refused|invalid|unknown|missing|not recognized|traceback")


def _in_a_failure(fact: str, quote: str, turn: Turn) -> str:
    """The line of a failure the quote sits in, when that line says it failed and the
    fact says nothing of a failure (a command named in "No such file", stated as the way
    to do it); else ""."""
    line = next((ln for ln in map(normalise, turn.text.split("\n")) if quote in ln), "")
    if not line:
        return ""
    # The failure is about the quote when the quote is a part of its line (a command in
    # "X: No such file"), not the message itself restated ("File … exceeds the limit").
    rest = line.replace(quote, " ")
    if not _FAILURE_WORDS.search(rest) or _FAILURE_WORDS.search(quote) or \
            len(quote) > 0.6 * len(line):
        return ""
    if _predicate_negations(fact) or _FAILURE_WORDS.search(normalise(fact)):
        return ""
    return line


_LOOK_CALL = re.compile(r"^(?:Read|Grep|Glob|LS|NotebookRead)\b")


def _is_look(turn: Turn) -> bool:
    """A call that only read (a Read, a `cat`): its line shows what exists."""
    from capture.noise import read_only

    text = turn.text
    if text.startswith(SCRIPT_PREFIX):  # a script's later line: a call line of its own
        return read_only(text[len(SCRIPT_PREFIX):])
    return bool(_LOOK_CALL.match(text)) or (text.startswith("Bash: ") and read_only(text[6:]))


def _changed_against(
    fact: str, quote: str, text: str, pieces: list[str]
) -> Verdict | None:
    """What is known wrong about a quote found in a tool's text: words left out by its
    "…", a negation flipped, a number or name the fact changed."""
    at = text.find(pieces[0])
    for a, b in pairwise(pieces):
        start = text.find(a, at)
        end = text.find(b, start + len(a)) if start >= 0 else -1
        if start < 0 or end < 0:
            break
        gap = text[start + len(a): end]
        if dropped_words(gap):
            return Verdict(False, "elision", speaker="tool",
                           detail="the “…” leaves words out of a tool's output")
        at = end
    if flips_negation(fact, quote) or flips_meaning(fact, quote):
        return Verdict(False, "negation_flip", speaker="tool",
                       detail="the fact says the opposite of its quote")
    if known := against_quote(fact, quote):
        return Verdict(False, known[0], speaker="tool", detail=known[1])
    if changed := unit_changed(fact, quote):
        return Verdict(False, "number_mismatch", speaker="tool", detail=(
            "the quote gives another value: " + ", ".join(changed)))
    if moved := old_value_as_current(fact, quote):
        return Verdict(False, "number_mismatch", speaker="tool", detail=moved)
    first = text.find(pieces[0])
    near = text[max(0, first - 600): first + len(quote) + 600]
    idents, nums = missing_terms(fact, near)
    if nums:
        return Verdict(False, "number_mismatch", speaker="tool",
                       detail="not near the quote: " + ", ".join(nums))
    if idents and not any(i in text for i in (normalise(x) for x in idents)):
        nowhere = missing_terms(" ".join(idents), "\n".join(t for _, _, t in _TOOL_NORM[0][1])
                                if _TOOL_NORM else "")[0]
        if nowhere:
            return Verdict(False, "identifier_missing", speaker="tool",
                           detail="not in the session: " + ", ".join(nowhere))
    return None


def _from_tools(
    fact: str, quote: str, tool_texts: Sequence[tuple[str, str, str]]
) -> Verdict | None:
    """A quote the conversation lacks, found in what a tool gave back (a file read, a
    command's output: evidence, speaker "tool") or was given (a command, a file written:
    a tool line). None when it is in neither. Nothing of these texts goes in a detail:
    they are not redacted."""
    pieces = [p.strip(" \"'") for p in _ELLIPSIS.split(quote) if p.strip(" \"'")]
    found: tuple[str, str] | None = None
    texts = _tool_norm(tool_texts)
    holders = [k for k, (_w, _n, text) in enumerate(texts) if all(p in text for p in pieces)]
    # What was run or written wins over an output that echoes it (a traceback, a file read).
    holders.sort(key=lambda k: texts[k][0] != "input")
    for k in holders:
        which, _name, text = texts[k]
        changed = _changed_against(fact, quote, text, pieces)
        if changed is not None:
            return changed
        if which == "input":  # what was run: a tool line, even if its output echoes it
            failed_next = next((w for w, _, _ in texts[k + 1: k + 8]
                                if w in ("output", "error")), None) == "error"
            if _name in _WRITERS and not failed_next:  # a body written: the file says so
                if _RAN.search(normalise(fact)):
                    # What a file says it does (a usage line) is not that it was run.
                    return Verdict(True, None, speaker="tool", hint="tool_line",
                                   hint_detail="the quote is what a written file says, not "
                                   "that it was run")
                if replaced := _edited_away(tool_texts, texts, k, pieces[0]):
                    return Verdict(True, None, speaker="tool", hint="corrected_later",
                                   hint_detail=replaced)
                if fact_speaker(fact) == "user":
                    return Verdict(True, None, speaker="tool", hint="speaker", hint_detail=(
                        "the quote is a file the assistant wrote, not the user's words"))
                if _in_a_comment(tool_texts[k][2], pieces[0],
                                 header=bool(_DONE.search(normalise(fact)))):
                    return Verdict(True, None, speaker="tool", hint="tool_line", hint_detail=(
                        "only a comment in the written code says so, not the code itself"))
                return Verdict(True, None, speaker="tool")
            return Verdict(False, "tool_line", speaker="tool", detail=(
                "only what a tool was given (a command, a file written) says so"),
                hint="corrected_later" if failed_next else None,
                hint_detail="the call it was part of failed" if failed_next else "")
        if which == "summary":
            return Verdict(False, "summary_only", speaker="tool",
                           detail="only the session's generated title says so")
        if which == "thinking":
            return _from_thinking(fact, quote, text)
        if which == "output" and _name in _AGENTS:
            # A subagent's answer is the assistant's prose: its guesses are guesses.
            return _from_thinking(fact, quote, text, "a subagent's answer")
        call = texts[k - 1][2] if k and texts[k - 1][0] == "input" else ""
        said, always = echoed(call, quote)
        if said and always:
            return Verdict(False, "tool_line", speaker="tool", detail=(
                "the call printed it from its own words, whatever it found"))
        found = (which, call[:2000] + "\n" + text)
        break
    if found is None:
        if len(pieces) > 1 and all(any(p in t for _, _, t in _tool_norm(tool_texts))
                                   for p in pieces):
            return Verdict(False, "stitched", speaker="tool",
                           detail="the pieces come from different tool outputs")
        return None
    which, text = found
    near = _near(text, pieces[0], quote)
    idents = missing_terms(fact, near)[0]
    if wrong := _known_wrong(fact, quote, near, "tool"):
        return wrong
    if fact_speaker(fact) == "user":
        return Verdict(True, None, speaker="tool", hint="speaker", hint_detail=(
            "the quote is what a tool gave back, not the user's words"))
    if idents:
        return Verdict(True, None, speaker="tool", hint="identifier_missing",
                       hint_detail="not near the quote in the tool's output: "
                       + ", ".join(idents))
    return Verdict(True, None, speaker="tool")


def _near(text: str, piece: str, quote: str) -> str:
    """The text around where `piece` of the quote stands: what the fact's numbers and
    names are checked against."""
    at = text.find(piece)
    return text[max(0, at - 600): at + len(quote) + 600]


def _known_wrong(fact: str, quote: str, near: str, speaker: str) -> Verdict | None:
    """What is known wrong of a fact against its quote in a tool's output or the thinking:
    the opposite said, or a number the text around the quote does not hold."""
    if flips_negation(fact, quote) or flips_meaning(fact, quote):
        return Verdict(False, "negation_flip", speaker=speaker,
                       detail="the fact says the opposite of its quote")
    if nums := missing_terms(fact, near)[1]:
        return Verdict(False, "number_mismatch", speaker=speaker,
                       detail="not near the quote: " + ", ".join(nums))
    return None


# A fact that says something was done (run, used, deployed), not what a file says.
_RAN = re.compile(r"\b(?:was|were|got|has been|have been) (?:used|run|ran|executed|invoked"
                  r"|called|deployed|installed|applied|streamed|launched|started)\b"
                  r"|\b(?:ran|executed|invoked|deployed|launched)\b")


_AGENTS = frozenset({"Task", "Agent"})


def _from_thinking(fact: str, quote: str, text: str,
                   where: str = "the assistant's thinking") -> Verdict:
    """A quote of the assistant's thinking (never sent, but in the transcript) or of a
    subagent's answer: what is known wrong against it, else supported, said by the
    assistant, with the suspicions a spoken quote gets."""
    if wrong := _known_wrong(fact, quote, _near(text, quote, quote), "assistant"):
        return wrong
    if fact_speaker(fact) == "user":
        return Verdict(True, None, speaker="assistant", hint="speaker",
                       hint_detail=f"the quote is {where}, not the user's words")
    if hedged(quote) and not hedged(fact):
        return Verdict(True, None, speaker="assistant", hint="hedged", hint_detail=(
            f"the quote is a guess in {where}; the fact states it as found"))
    if opinion(quote) and not _ATTRIBUTED.search(normalise(fact)):
        return Verdict(True, None, speaker="assistant", hint="hedged", hint_detail=(
            f"the quote is a judgement in {where}; the fact states it as found"))
    if denied := dropped_negation(fact, quote):
        return Verdict(True, None, speaker="assistant", hint="negation_flip", hint_detail=(
            f"the quote says “{denied}”; the fact, restating it, denies nothing"))
    return Verdict(True, None, speaker="assistant")


_EDITS = frozenset({"Edit", "MultiEdit"})


def _edited_away(raw: Sequence[tuple[str, str, str]], texts: list[tuple[str, str, str]],
                 k: int, piece: str) -> str:
    """A line a file was written with that a later edit of the same file replaced: the
    edit's input holds it once (its old text; a kept line would be in the new text too)
    and nothing later shows it again (a read, an edit's snippet, a rewrite). What says
    so, or ""."""
    path = raw[k][2].split("\n", 1)[0].strip()
    if not path:
        return ""
    for j in range(k + 1, len(texts)):
        which, name, text = texts[j]
        if which != "input" or name not in _EDITS or \
                raw[j][2].split("\n", 1)[0].strip() != path or text.count(piece) != 1:
            continue
        if any(piece in t for _w, _n, t in texts[j + 1:]):
            return ""
        return f"a later edit of {path.rsplit('/', 1)[-1]} replaced this line"
    return ""


_COMMENT = re.compile(r"^\s*(?://|#(?!!)|/\*|\*(?!\*)|<!--|--\s|;;)")
_PROSE_FILE = re.compile(r"\.(?:md|markdown|txt|rst|adoc|org)$")


# A fact that says something was done ("was made executable", "were removed"): no
# comment, a header's included, shows that it was.
_DONE = re.compile(r"\b(?:was|were|got|has been|have been|had been)\s+(?:\w+ly\s+)?"
                   r"[a-z]+(?:ed|en|de|wn|ne|t)\b")


_FIGURE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w]|\.\d)")


def _code_agrees(comment: str, code: list[str]) -> bool:
    """The code right under a comment holds every figure the comment gives ("# keep first
    4 and last 4" over `s[:4]`, `s[-4:]`): the code says it too, not the comment alone."""
    figures = set(_FIGURE.findall(comment))
    body = " ".join(ln for ln in code if not _COMMENT.match(ln))
    return bool(figures) and all(re.search(r"(?<![\w.])-?" + re.escape(f) + r"(?![\w]|\.\d)",
                                           body) for f in figures)


def _in_a_comment(text: str, piece: str, *, header: bool = False) -> bool:
    """The quote sits in an inline comment of a written code file (not a document, not
    the file's header block unless `header`): what the code says of itself, which the
    code under it may not do. A header's usage lines describe the file's interface, and
    count, except for a fact that says something was done."""
    lines = text.split("\n")
    if not lines or _PROSE_FILE.search(lines[0].strip().casefold()):
        return False
    code_before = header
    for i, ln in enumerate(lines[1:], 1):
        if piece in normalise(ln):
            return code_before and bool(_COMMENT.match(ln)) and not _code_agrees(
                piece, lines[i + 1: i + 9])
        if ln.strip() and not _COMMENT.match(ln) and not ln.startswith("#!"):
            code_before = True
    return False
