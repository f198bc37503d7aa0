"""What condensation drops of what tools were given and gave back, held by the reader
(bounded) so that `capture.fill` can put it back when a short session's text is far
under its budget (issue 21: a 47 KB session sent 4 KB of a 24 KiB budget, and the facts
whose only carrier was a command's output were lost for no reason).

Stdlib only (the reader's path). Nothing here is sent or stored: `capture.fill` chooses,
redacts and cuts what it restores.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

from capture.noise import SIBLING, ends
from capture.written import WRITERS

HELD_EACH = 32_000  # of one input or output, its head and end (more than any budget's room)
HELD_CHARS = 4 << 20  # of one read, at most: a job's text is bounded the same way
# Calls whose input is already sent (a prompt, a plan, a to-do list) or whose result is
# a person's answer or bookkeeping: nothing of theirs is held.
_NOT_HELD = frozenset({"TodoWrite", "TodoRead", "ExitPlanMode", "AskUserQuestion"})
_REJECTED = "The user doesn't want to"  # a refusal: its words are a prompt already
_REPEATS = 400  # of the held pieces, the latest searched for a report's repeated words
AGENTS = frozenset({"Task", "Agent"})
_CALL_SHOWN = 400  # a shell command this long on one line is shown whole by its call line

Which = Literal["input", "output", "error"]


@dataclass(frozen=True, slots=True)
class Held:
    """One tool input or output as the transcript has it, with where it was said."""

    which: Which
    tool: str
    text: str  # bounded by HELD_EACH; not cleaned, not redacted
    line: int  # the record's line (an output's: its result's; an input's: its call's)
    offset: int
    timestamp: str | None
    call: str  # the call's one line (`Read src/x.py`), as the reader wrote it
    call_line: int  # the call's record line (0: the call came before this read began)
    path: str  # the file a Read or Write named, the command a Bash ran ("" otherwise)
    look: bool = False  # a read-only shell command's output (`cat`, `grep`, `git log`)
    sidechain: bool = False  # a subagent's own: its words, what it ran, wrote and read


@dataclass
class Holder:
    """The reader's side: calls by id while their results are awaited, and what is held."""

    items: list[Held] = field(default_factory=list)
    chars: int = 0
    calls: dict[str, tuple[str, str, int, str]] = field(default_factory=dict)
    agent: tuple[str, int] = ("", 0)  # the last subagent call: its line and record line
    prompts: set[str] = field(default_factory=set)  # what subagents were asked

    def call(self, tid: Any, name: str, inp: Any, line_text: str, line: int, offset: int,
             ts: str | None, *, sidechain: bool = False) -> None:
        """A tool call: its id remembered for its result, and what it was given held when
        its call line and detail do not show it whole (a written body, a script)."""
        d = inp if isinstance(inp, dict) else {}
        path = _s(d, "file_path") or _s(d, "notebook_path") or _s(d, "path")
        if name == "Bash":
            path = _s(d, "command")
        if isinstance(tid, str) and len(self.calls) < 10_000:
            self.calls[tid] = (name, line_text, line, path)
        if name in AGENTS and not sidechain:
            self.agent = (line_text, line)
            if len(self.prompts) < 1000:
                self.prompts.add(_s(d, "prompt").strip())
        text = _given(name, d)
        if text:
            self._hold(Held("input", name, text, line, offset, ts, line_text, line, path,
                            sidechain=sidechain))

    def result(self, tid: Any, name: str, body: str, error: bool, line: int, offset: int,
               ts: str | None, look: bool, *, sidechain: bool = False) -> None:
        """A tool's result, held whole (its head and end when huge). A subagent's report
        replaces the copy of it its own transcript held (its last words)."""
        if name in _NOT_HELD or (not error and name in WRITERS) or not body.strip() or (
                error and (SIBLING in body[:300] or body.startswith(_REJECTED))):
            return
        _, line_text, call_line, path = self.calls.get(tid, (name, "", 0, "")) \
            if isinstance(tid, str) else (name, "", 0, "")
        if name in AGENTS and not error and not sidechain:
            self._drop_repeated(body)
        self._hold(Held("error" if error else "output", name, body, line, offset, ts,
                        line_text, call_line, path, look, sidechain))

    def said(self, text: str, line: int, offset: int, ts: str | None) -> None:
        """A subagent's own words (what it found, its last report), held under the call
        that started it; its instructions, the call's prompt, are held by that call."""
        if text.strip() and text.strip() not in self.prompts:
            self._hold(Held("output", "Task", text, line, offset, ts, self.agent[0],
                            self.agent[1], "", sidechain=True))

    def _drop_repeated(self, report: str) -> None:
        """The subagent's words the report repeats, dropped (held once: the report)."""
        kept = [h for h in self.items[-_REPEATS:] if not (
            h.sidechain and h.tool == "Task" and h.text.strip() in report)]
        if len(kept) < len(self.items[-_REPEATS:]):
            self.chars -= sum(len(h.text) for h in self.items[-_REPEATS:]) - sum(
                len(h.text) for h in kept)
            self.items[-_REPEATS:] = kept

    def _hold(self, held: Held) -> None:
        if self.chars >= HELD_CHARS:
            return
        if len(held.text) > HELD_EACH:
            held = dataclasses.replace(held, text=ends(held.text, HELD_EACH))
        self.items.append(held)
        self.chars += len(held.text)


def _s(d: dict[str, Any], key: str) -> str:
    v = d.get(key)
    return v if isinstance(v, str) else ""


def _given(name: str, d: dict[str, Any]) -> str:
    """What a call was given that its line and detail may not show: a written body, a
    script of several lines or a long command, a subagent's instructions."""
    if name in _NOT_HELD:
        return ""
    if name == "Write":
        return _s(d, "content")
    if name == "Edit":
        return _s(d, "new_string")
    if name == "MultiEdit":
        edits = d.get("edits")
        return "\n".join(_s(e, "new_string") for e in edits if isinstance(e, dict)) \
            if isinstance(edits, list) else ""
    if name == "NotebookEdit":
        return _s(d, "new_source")
    if name == "Bash":
        command = _s(d, "command").strip()
        return command if "\n" in command or len(command) > _CALL_SHOWN else ""
    if name in AGENTS:
        return _s(d, "prompt")
    return ""
