"""Read Claude Code transcripts (JSONL, internal format, changes between versions).

Stdlib only: the worker and `preview` read multi-megabyte files, and the format is
hostile (cut-off last lines, unknown record types, huge tool results).

What comes out is the conversation only (GUIDE §3): human prompts (typed ones, and the
ones queued while the assistant worked), assistant prose, one-line tool calls, the lines
of a failing tool result that say what went wrong, and the text that records a decision
(a plan, a commit message, an issue-tracker description) as a `detail` under its call.
Of other tool results, what they carry by class (issue 21): a short output whole, a
document read, a subagent's report, error and warning lines whatever the exit code,
and the lines of a long result that the assistant's next words draw on
(`capture.results`). Everything that is not the conversation, or is our own injected
memory coming back (SessionStart hook output in `attachment` records, `isMeta` messages,
`<system-reminder>` spans), is dropped so it can never be extracted again as a new fact.

Compaction summaries (`isCompactSummary`) are the model's own recap, not the person's
words nor a tool's output: they come out as kind `summary` (see `Kind`), which
`capture.condense` renders between `SUMMARY_MARKER` and `SUMMARY_END` and `capture.fit`
sheds first. Consumers must treat them as lower-trust context, never as the only
support of a confident fact.
"""

from __future__ import annotations

import json
import os
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field, replace
from itertools import accumulate
from typing import Any, Literal

from capture.held import Held, Holder
from capture.noise import (
    SIBLING,
    WARNING_LINES,
    ends,
    last_state,
    output_errors,
    output_warnings,
    reads_files,
    squeeze_leaders,
    strip_ansi,
    task_outcome,
    terminal_command,
)
from capture.results import (
    QUOTED_PREFIX,
    SCRIPT_PREFIX,
    answer_words,
    quoted_lines,
    script_lines,
    stressed_words,
)
from capture.written import (
    WRITERS,
    code_header,
    cut_middle,
    describe,
    documented,
    file_name,
    heredoc_files,
    is_code,
    is_doc,
    written_detail,
)
from reviewer.shell_words import heredocs

Role = Literal["user", "assistant"]
# prompt: a person's words (typed, queued while the assistant worked, an answer to a
#   question or to a plan); prose: assistant text; tool_call: one line per call;
# tool_error: a failing result, its first line the headline, then (one per line, at most
#   ERROR_LINES / ERROR_BYTES) the lines that say what went wrong;
# detail: the text a call carried that records a decision (ExitPlanMode's plan, a commit
#   message, an issue-tracker title/body/reason), right after that call, capped;
# summary: a compaction summary, LOWER TRUST (the model's recap of earlier turns).
Kind = Literal["prompt", "prose", "tool_call", "tool_error", "detail", "summary"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One piece of the conversation worth keeping, already reduced to text."""

    role: Role
    kind: Kind
    text: str
    line: int  # 1-based line number in the transcript file
    offset: int  # byte offset of that line's start
    timestamp: str | None = None
    # Name of the tool for kind "tool_call" / "tool_error" (so an error can say which
    # call failed when several ran in one turn); None for prompts and prose.
    tool: str | None = None


@dataclass
class ReadStats:
    """What a read saw. Every consumed line is counted once: lines == bad_lines + kept +
    sum(dropped.values())."""

    lines: int = 0  # complete lines consumed
    bad_lines: int = 0  # blank, unparseable, JSON that is not an object, or over-long
    long_lines: int = 0  # of bad_lines: over `max_line_bytes()`, skipped unread
    kept: int = 0  # records that produced at least one Turn
    dropped: Counter[str] = field(default_factory=Counter)  # reason or record type → count
    bytes_read: int = 0  # bytes consumed: end_offset - start
    pending_bytes: int = 0  # bytes of a cut-off last line left for a later read
    more: bool = False  # stopped at `max_chars`: complete lines remain after end_offset
    # What tools were given and gave back, never sent: the verifier looks there for a quote
    # the conversation lacks (issue 21: a quote from a tool's output is in the transcript).
    # ("input" | "output", tool name, text), at most TOOL_TEXT_CHARS in all.
    tool_texts: list[tuple[str, str, str]] = field(default_factory=list)
    # What tools were given and gave back that condensation dropped, with where it was
    # said: `capture.fill` restores some when the text is far under its budget.
    held: list[Held] = field(default_factory=list)


# --------------------------------------------------------------------------- lines

_CHUNK = 4 << 20
# A line is a record: a real one over 16 MiB is a pasted file or an image, never a fact.
MAX_LINE_BYTES = 16 << 20
# One turn's text, beyond which the middle is cut with a visible mark: downstream indexes
# (grounding) cost ~40 bytes per character, and `fit` would shorten it anyway.
MAX_TURN_CHARS = 1 << 20
MAX_LINE_ENV = "MEM_REVIEW_MAX_LINE_BYTES"
_DECODER = json.JSONDecoder()


def _count_newlines(f: Any, end: int) -> int:
    """Newlines in the first `end` bytes, read in chunks (memchr speed, bounded memory)."""
    f.seek(0)
    n, left = 0, end
    while left > 0:
        chunk = f.read(min(_CHUNK, left))
        if not chunk:
            break
        n += chunk.count(b"\n")
        left -= len(chunk)
    return n


def max_line_bytes() -> int:
    """The longest line read (MEM_REVIEW_MAX_LINE_BYTES, default 32 MiB): longer ones are
    skipped unread, so memory stays bounded whatever a transcript holds."""
    try:
        value = int(os.environ.get(MAX_LINE_ENV, "") or MAX_LINE_BYTES)
    except ValueError:
        return MAX_LINE_BYTES
    return value if value > 0 else MAX_LINE_BYTES


def _iter_lines(
    path: str | os.PathLike[str], start: int, stats: ReadStats, first_line: int | None
) -> Iterator[tuple[int, int, bytes]]:
    """Yield (line number, byte offset, raw bytes without the newline) for complete lines.

    A last line without its newline is still being written: it is not consumed, only
    measured in stats.pending_bytes, so a later read from the cursor sees it whole.
    Reads in chunks, and never holds more than `max_line_bytes()` of one line: a longer
    line is skipped as it streams past (counted in `long_lines` and `bad_lines`), and the
    cursor moves past it as past any other.
    """
    start = max(0, int(start))
    cap = max_line_bytes()
    with open(path, "rb") as f:
        lineno = first_line if first_line is not None else _count_newlines(f, start) + 1
        f.seek(start)
        offset = start
        pending: list[bytes] = []
        held = 0  # bytes in `pending`
        skipping = 0  # > 0: inside an over-long line, this many bytes of it seen
        while True:
            chunk = f.read(_CHUNK)
            if not chunk:
                break
            pos = 0
            if skipping:
                nl = chunk.find(b"\n")
                if nl < 0:
                    skipping += len(chunk)
                    continue
                stats.lines += 1
                stats.bad_lines += 1
                stats.long_lines += 1
                lineno += 1
                offset += skipping + nl + 1
                skipping = 0
                pos = nl + 1
            nl = chunk.find(b"\n", pos)
            if nl < 0:
                if held + len(chunk) - pos > cap:  # over the cap: drop what is held
                    skipping, pending, held = held + len(chunk) - pos, [], 0
                else:
                    pending.append(chunk[pos:])
                    held += len(chunk) - pos
                continue
            if pending:
                if held + nl - pos > cap:
                    stats.lines += 1
                    stats.bad_lines += 1
                    stats.long_lines += 1
                    offset += held + nl - pos + 1
                else:
                    pending.append(chunk[pos:nl])
                    raw = b"".join(pending)
                    stats.lines += 1
                    yield lineno, offset, raw
                    offset += len(raw) + 1
                lineno += 1
                pending, held = [], 0
                pos = nl + 1
            parts = chunk[pos:].split(b"\n")
            tail = parts.pop()
            for raw in parts:
                stats.lines += 1
                if len(raw) > cap:
                    stats.bad_lines += 1
                    stats.long_lines += 1
                else:
                    yield lineno, offset, raw
                lineno += 1
                offset += len(raw) + 1
            if len(tail) > cap:
                skipping = len(tail)
            elif tail:
                pending.append(tail)
                held = len(tail)
            stats.bytes_read = offset - start
        stats.bytes_read = offset - start
        stats.pending_bytes = held + skipping


def _parse(raw: bytes) -> Any:
    """json.loads that never raises on garbage; returns None for unparseable lines."""
    text = raw.decode("utf-8", "replace").lstrip()
    try:
        obj, end = _DECODER.raw_decode(text)
    except (ValueError, RecursionError):
        return None
    # raw_decode (json.loads without its regex passes) stops after the value: as
    # json.loads, reject trailing garbage; allow leading/trailing whitespace.
    if end != len(text) and text[end:].strip():
        return None
    return obj


def iter_records(
    path: str | os.PathLike[str],
    start: int = 0,
    stats: ReadStats | None = None,
    *,
    first_line: int | None = None,
) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """Yield (line, offset, record) for every JSON-object line, unfiltered.

    For tools that want the raw records (session metadata, debugging). Bad lines are
    skipped and counted in `stats`; the end offset is `start + stats.bytes_read`.
    """
    stats = stats if stats is not None else ReadStats()
    for lineno, offset, raw in _iter_lines(path, start, stats, first_line):
        rec = _parse(raw) if raw.strip() else None
        if isinstance(rec, dict):
            yield lineno, offset, rec
        else:
            stats.bad_lines += 1


# --------------------------------------------------------------------------- fast drop

# Claude Code writes compact JSON whose top-level scalar fields (uuid, cwd, version…)
# come before "type", so for the bulky records we drop (progress is 2/3 of the lines of
# a typical session) the type can be read from a short prefix, if we can prove the match
# is a key of the top-level object and not something nested in `data` or `message`:
# - quickly, when the prefix starts the object and holds no other "{" and no "\\": keys
#   only live in objects, so no nested object is open, and without escapes no string
#   can contain the quotes of the match;
# - otherwise by parsing the prefix closed with "}": only a top-level key leaves no
#   brace open.
# Anything inconclusive falls back to a full parse, so the turns are the same as when
# parsing every line, only faster (tests/test_transcript.py checks both ways agree).
# Only the prefix is checked: a line broken after it counts as dropped, not as bad.
_TYPE_KEY = b'"type":"'
_SIDECHAIN_KEY = b'"isSidechain":true'
_PEEK_LIMIT = 4096
_PEEK_DROP = frozenset(
    {
        b"progress",
        b"system",
        b"attachment",
        b"file-history-snapshot",
        b"summary",
    }
)
_KEPT = (b"user", b"assistant")


def _top_level(raw: bytes, key_at: int, end: int, key: str, value: object) -> bool:
    """True if raw[key_at:end] is the member `"key":value` of the top-level object."""
    prefix = raw[:key_at]
    if prefix[:1] == b"{" and prefix.count(b"{") == 1 and b"\\" not in prefix:
        return True
    try:
        head, _ = _DECODER.raw_decode(raw[:end].decode("utf-8", "replace") + "}")
    except (ValueError, RecursionError):
        return False
    # The value check matters: in {"a\"type":"progress"} the match is the tail of the
    # key `a"type`, which parses fine.
    return isinstance(head, dict) and head.get(key) == value


def _peek_drop(raw: bytes, include_sidechains: bool) -> str | None:
    """The reason to drop this line, if a short prefix proves it; else None."""
    pos = raw.find(_TYPE_KEY, 0, _PEEK_LIMIT)
    tries = 0
    while pos >= 0 and tries < 3:
        vstart = pos + len(_TYPE_KEY)
        vend = raw.find(b'"', vstart, vstart + 32)
        if vend < 0:
            break
        value = raw[vstart:vend]
        if value in _KEPT:
            break  # probably the record's own type: nothing to gain by looking further
        if value in _PEEK_DROP:
            tries += 1
            name = value.decode()
            if _top_level(raw, pos, vend + 1, "type", name):
                return name
        pos = raw.find(_TYPE_KEY, vend, _PEEK_LIMIT)
    if not include_sidechains:
        pos = raw.find(_SIDECHAIN_KEY, 0, _PEEK_LIMIT)
        if pos >= 0 and _top_level(raw, pos, pos + len(_SIDECHAIN_KEY), "isSidechain", True):
            return "sidechain"
    return None


# --------------------------------------------------------------------------- text cleaning

# Injected context; an unclosed span is cut to the end (better lose a tail than let our
# own memory come back as a "new" fact).
_REMINDER_RE = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.S)
# Wrappers Claude Code puts around slash commands, local command output, `!` bash mode,
# background task notices and old-style prompt hook output. Only closed pairs are
# removed: a person may write about these tags.
_WRAPPER_OPEN_RE = re.compile(
    r"<((?:local-)?command-[\w-]+|bash-(?:input|stdout|stderr)|task-notification"
    r"|user-prompt-submit-hook|ide_opened_file)>"
)
_INTERRUPT_RE = re.compile(r"\[Request interrupted by user[^\]\n]{0,200}\]")
# Messages that are generated, not typed by a person.
_NOISE_PREFIXES = (
    "Caveat: The messages below were generated by the user while running local commands",
    "Stop hook feedback:",
    "This session is being continued from a previous conversation",
    "<task-notification>",
)
_MANY_NEWLINES_RE = re.compile(r"\n{3,}")


def _strip_wrappers(text: str) -> str:
    """Remove closed wrapper pairs; a slash command becomes `/name args`.

    A scan rather than one lazy regex: a tag opened and never closed must not make every
    later opening search to the end of a huge message again (that would be quadratic).
    """
    out: list[str] = []
    command: list[str] = []
    unclosed: set[str] = set()
    pos = 0
    for m in _WRAPPER_OPEN_RE.finditer(text):
        if m.start() < pos:
            continue  # inside a span already removed
        tag = m.group(1)
        if tag in unclosed:
            continue
        close = text.find(f"</{tag}>", m.end())
        if close < 0:
            unclosed.add(tag)
            continue
        body = text[m.end() : close].strip()
        out.append(text[pos : m.start()])
        if tag == "command-name" and body:
            command.insert(0, body)
        elif tag == "command-args" and body:
            command.append(body)
        elif tag == "bash-input" and body:
            out.append("! " + body)
        pos = close + len(tag) + 3
    if not pos:
        return text
    out.append(text[pos:])
    rest = "".join(out).strip()
    if command:
        return " ".join(command) + ("\n" + rest if rest else "")
    return rest


def clean_prompt(text: str) -> str:
    """Reduce a user-typed message to what the person wrote; "" if nothing is left.

    Slash commands become `/name args` (the arguments are the person's words); their
    output, caveats, reminders and interruption markers go.
    """
    if "<" in text:
        text = _REMINDER_RE.sub("", text)
        if text.lstrip().startswith(_NOISE_PREFIXES):
            return ""
        if "</" in text:
            text = _strip_wrappers(text)
    if "[Request interrupted" in text:
        text = _INTERRUPT_RE.sub("", text)
    text = text.strip()
    if text.startswith(_NOISE_PREFIXES):
        return ""
    return _MANY_NEWLINES_RE.sub("\n\n", text)


def _clean_prose(text: str) -> str:
    """Assistant text is kept verbatim except injected spans and runs of blank lines."""
    if "<system-reminder>" in text:
        text = _REMINDER_RE.sub("", text)
    return _MANY_NEWLINES_RE.sub("\n\n", text.strip())


_REDACT_SLACK = 8192  # context past the cut that redaction sees (longer than any secret)


def _one_line(text: str, limit: int) -> str:
    """Whitespace collapsed, cut to `limit` with "…".

    A cut through a secret leaves a piece no rule recognises (`redis://:pw` without its
    `@host`, a token without its tail), so the pipeline's later redaction would miss it:
    a line that must be cut is redacted first, with the context past the cut, and never
    cut inside a `[REDACTED:…]` marker.
    """
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    from reviewer.sanitize.redact import MARKER_RE, redact

    text = redact(text[: limit + _REDACT_SLACK])
    if len(text) <= limit:
        return text
    end = limit - 1
    for m in MARKER_RE.finditer(text, max(0, end - 64), end + 64):
        if m.start() < end < m.end():
            end = m.start()
    return text[:end].rstrip() + "…"


# --------------------------------------------------------------------------- tools

_BASH_LIMIT = 160
# A shell command's first line: long ones carry what the session did (a `sed -i` rule, a
# `curl` with its flags); `capture.fit` sheds call lines before prose anyway.
_COMMAND_LIMIT = 400
_ERROR_LIMIT = 200
_ARG_LIMIT = 120
# For tools we do not know, the first of these arguments names what the call was about.
_KEY_ARGS = ("file_path", "path", "url", "query", "pattern", "command", "name", "description")


def _rel(path: str, cwd: str | None) -> str:
    """Paths under the session's cwd are shown relative to it: shorter, and what the
    extraction prompt asks for (paths relative to the project root)."""
    if cwd and len(cwd) > 1:
        root = cwd.rstrip("/")
        if path.startswith(root + "/"):
            return path[len(root) + 1 :]
        if path == root:
            return "."
    return path


def _s(d: dict[str, Any], key: str) -> str:
    v = d.get(key)
    return v if isinstance(v, str) else ""


def tool_summary(name: str, inp: Any, cwd: str | None = None) -> str:
    """One line for a tool call: `Edit src/x.py`, `Bash: pytest -x`, `Grep "re" src`."""
    d: dict[str, Any] = inp if isinstance(inp, dict) else {}
    if name in ("Edit", "MultiEdit", "Write", "Read", "NotebookEdit", "NotebookRead"):
        path = _s(d, "file_path") or _s(d, "notebook_path") or _s(d, "path")
        return _one_line(f"{name} {_rel(path, cwd)}".rstrip(), _BASH_LIMIT)
    if name == "Bash":
        cmd = _s(d, "command").strip()
        if cwd and len(cwd) > 1:
            cmd = cmd.replace(cwd.rstrip("/") + "/", "")
        first, _, rest = cmd.partition("\n")
        first = _one_line(first, _COMMAND_LIMIT)
        if rest.strip() and not first.endswith("…"):
            first += " …"
        return f"Bash: {first}".rstrip()
    if name in ("Grep", "Glob"):
        out = f'{name} "{_one_line(_s(d, "pattern"), _ARG_LIMIT)}"'
        if _s(d, "path"):
            out += " " + _rel(_s(d, "path"), cwd)
        if _s(d, "glob"):
            out += f" ({_s(d, 'glob')})"
        return _one_line(out, _BASH_LIMIT)
    if name == "WebFetch":
        return _one_line(f"WebFetch {_s(d, 'url')}", _BASH_LIMIT)
    if name == "WebSearch":
        return _one_line(f'WebSearch "{_s(d, "query")}"', _BASH_LIMIT)
    if name in ("Task", "Agent"):
        desc = _s(d, "description") or _s(d, "prompt")
        kind = _s(d, "subagent_type")
        return _one_line(f"{name}: {desc}" + (f" ({kind})" if kind else ""), _BASH_LIMIT)
    if name == "TodoWrite":
        todos = d.get("todos")
        n = len(todos) if isinstance(todos, list) else 0
        return f"TodoWrite ({n} item{'s' if n != 1 else ''})"
    if name == "AskUserQuestion":
        qs = d.get("questions")
        q = qs[0] if isinstance(qs, list) and qs and isinstance(qs[0], dict) else {}
        return _one_line(f"AskUserQuestion: {_s(q, 'question')}", _BASH_LIMIT)
    if name == "ExitPlanMode":
        plan = _s(d, "plan").strip()
        return _one_line(f"ExitPlanMode: {plan.partition(chr(10))[0]}", _BASH_LIMIT)
    # Unknown or MCP tool: its name plus the most telling short argument.
    for key in _KEY_ARGS:
        if _s(d, key).strip():
            return _one_line(f"{name} {_rel(_s(d, key).strip(), cwd)}", _BASH_LIMIT)
    for value in d.values():
        if isinstance(value, str) and value.strip():
            return _one_line(f"{name} {value.strip()}", _BASH_LIMIT)
    return _one_line(name, _BASH_LIMIT)


def _result_text(content: Any) -> str:
    """Text of a tool_result's content: a string or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""


_REJECTED = ("The user doesn't want to proceed", "The user doesn't want to take this action")
_USER_SAID = "the user said:\n"


ERROR_LINES = 6  # a failure keeps at most this many lines, headline included
ERROR_BYTES = 600  # … and this many characters of them
_ERROR_LINE_LIMIT = 200
# Lines that say what went wrong, in any toolchain's words.
# Two patterns, not one case-insensitive one: the words run over the lowercased text,
# five times faster (a failure can be long and this is on `preview`'s path).
_KEY_WORDS_RE = re.compile(
    r"\b(?:error|errors|exception|assert\w*|traceback|fatal|failed|failure|failures"
    r"|panic\w*|cannot|can ?not|can never|could not|couldn't|not found|no such|denied"
    r"|refused|undefined|invalid|unexpected|mismatch|timed? ?out|abort\w*|conflict"
    r"|segmentation fault|not allowed|forbidden|violat\w*)\b"
)
_KEY_START_RE = re.compile(r"^(?:E +(?=\S)|FAILED\b|\w+(?:Error|Exception)\b)", re.M)
# Where it went wrong: `path/file.ext:12` (compilers, linters, test runners), found by
# its `.ext:12` tail.
_LOCATION_RE = re.compile(r"\.[A-Za-z]\w{0,4}:\d")  # starts with a literal: fast to scan
_DIGITS_RE = re.compile(r"\d+")
# Lines that match the words above but say nothing (package manager chatter, stack
# frames of a runtime, a summary count with nothing in it).
_NOISE_LINE_RE = re.compile(
    r"(?i)^(?:npm warn|warning: unknown|hint:|at\s+\S+\s+\(|\d+ errors?$|errors?: 0\b)"
)


_RUNTIME_NOTICE = re.compile(
    r"\(node:\d+\) (?:Experimental|Deprecation)Warning\b|\(Use `node --trace-\w+"
    r"|--import 'data:")
_STATUS_HEAD = re.compile(r"(?i)\b(?:failed|error)$")


def _failure_lines(text: str, known: Collection[str] = ()) -> str:
    """What a failing result says went wrong: its first non-empty line (a bare `Exit
    code N` or a line ending in ":" joined with the next), then the lines that name the
    error (error, exception, assertion, `fatal:`, `FAILED`, pytest's `E   ` lines, a
    traceback's last line; next, `file:line` locations, then the line after a key line),
    in their order, within ERROR_LINES lines and ERROR_BYTES characters. One
    `\n`-separated string; its first line alone is the old one-line form. Lines in
    `known` (already sent under an earlier call: a banner `ssh` prints every time) are
    left out while any other is left, unless they name an error (the same test failing
    again is news)."""
    text = text.replace("<tool_use_error>", "").replace("</tool_use_error>", "")
    if len(text) > 24_000:  # the head says what ran, the tail how it ended
        text = text[:16_000] + "\n" + text[-8_000:]
    if "\\n" in text:  # some hooks print literal "\n" escapes
        text = text.replace("\\n", "\n")
    if "....." in text:  # `ruff......Failed`: a dot leader is a line's width, not words
        text = squeeze_leaders(text)
    lines = [ln.strip(" \t┃│|") for ln in text.split("\n")]
    lines = [ln for ln in lines if ln]
    if "(node:" in text or "--trace-warnings" in text:
        # A runtime's notice about itself (`(node:123) ExperimentalWarning: …`) says
        # nothing of what failed: the failure's own lines come first.
        lines = [ln for ln in lines if not _RUNTIME_NOTICE.match(ln)] or lines
    if known:
        lines = [ln for ln in lines if " ".join(ln.split()) not in known or is_key_line(ln)
                 ] or lines
    if not lines:
        return "(no message)"
    first, rest = lines[0], 1
    if ((first.startswith("Exit code") and len(first) < 20) or first.endswith(":")) and len(
        lines
    ) > 1:
        first, rest = f"{first} · {lines[1]}", 2
    head = _one_line(first, _ERROR_LINE_LIMIT)
    # One regex pass over the whole text (not one per line: a failure may have
    # hundreds), each match mapped back to its line.
    body = "\n".join(lines)
    starts = list(accumulate((len(ln) + 1 for ln in lines[:-1]), initial=0))
    low = body.lower()
    if len(low) != len(body):  # a few letters ("İ") lowercase to two characters
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in body)
    key = _matched_lines(_KEY_WORDS_RE, low, starts, rest)
    key |= _matched_lines(_KEY_START_RE, body, starts, rest)
    where = _matched_lines(_LOCATION_RE, body, starts, rest) - key
    score: dict[int, int] = {}
    for i in sorted(key | where):
        if _NOISE_LINE_RE.match(lines[i]):
            continue
        if i in key:
            score[i] = max(score.get(i, 0), 3)
            if i + 1 < len(lines):  # the neighbour: often the message or the location
                score[i + 1] = max(score.get(i + 1, 0), 1)
        else:
            score[i] = max(score.get(i, 0), 2)
            if i - 1 >= rest:  # a linter's message often sits just above its location
                score[i - 1] = max(score.get(i - 1, 0), 1)
    if rest < len(lines) and rest not in score and _STATUS_HEAD.search(first):
        score[rest] = 1  # under `ruff …… Failed`: which check, why
    if head.endswith(":") and rest < len(lines):
        score[rest] = 5  # "The following paths are ignored…:" says nothing without it
    if any(ln.startswith("Traceback") for ln in lines) and len(lines) - 1 >= rest:
        score[len(lines) - 1] = 4  # the exception a Python traceback ends with
    chosen: list[int] = []
    size = len(head)
    seen = {_DIGITS_RE.sub("0", head)}
    for i in sorted(score, key=lambda i: (-score[i], i)):
        if len(chosen) >= ERROR_LINES - 1:
            break
        piece = _one_line(lines[i], _ERROR_LINE_LIMIT)
        shape = _DIGITS_RE.sub("0", piece)  # the same message at another line number
        if shape in seen or size + 1 + len(piece) > ERROR_BYTES:
            continue
        chosen.append(i)
        seen.add(shape)
        size += 1 + len(piece)
    return "\n".join([head] + [_one_line(lines[i], _ERROR_LINE_LIMIT) for i in sorted(chosen)])


def _matched_lines(rx: re.Pattern[str], body: str, starts: list[int], first: int) -> set[int]:
    """Indexes (from `first`) of the lines of `body` where `rx` matches."""
    out: set[int] = set()
    pos = starts[first] if first < len(starts) else len(body)
    while True:
        m = rx.search(body, pos)
        if m is None:
            return out
        i = bisect_right(starts, m.start()) - 1
        out.add(i)
        pos = starts[i + 1] if i + 1 < len(starts) else len(body)  # on to the next line


def is_key_line(line: str) -> bool:
    """A failure's line that names what went wrong (`capture.fit` never drops these)."""
    if _NOISE_LINE_RE.match(line):
        return False
    return bool(_KEY_WORDS_RE.search(line.lower()) or _KEY_START_RE.match(line))


def _error_line(text: str) -> str:
    """The headline alone (first line of `_failure_lines`)."""
    return _failure_lines(text).partition("\n")[0]


# --------------------------------------------------------------------------- decisions

DETAIL_BYTES = 1200  # a commit message, an issue body, a reason
_DETAIL_SCAN = 20_000  # of a command, only this much is searched for them
PLAN_BYTES = 3000  # a plan holds several decisions
_QUOTED = r"(?:\"((?:[^\"\\]|\\.)*)\"|'([^']*)'|(\S+))"
_COMMIT_RE = re.compile(r"\bgit\b[^\n|;&]*?\bcommit\b")
_COMMIT_MSG_RE = re.compile(r"(?:^|\s)(?:-m|--message)(?:=|\s+)" + _QUOTED)
# Issue trackers' CLIs: GitHub, GitLab, beads, Linear, Jira.
_TRACKER_RE = re.compile(
    r"(?:^|[\s;&|(])(?:gh\s+(?:issue|pr)|glab\s+(?:issue|mr)|bd|beads|linear|jira)"
    r"\s+\w[\w-]*"
)
_TRACKER_WORDS = ("gh ", "glab ", "bd ", "beads ", "linear ", "jira ")
_TRACKER_FLAG_RE = re.compile(
    r"(?:^|\s)(?:--body|-b|--title|-t|--description|-d|--reason|--message|-m|--comment"
    r"|--summary|--notes)(?:=|\s+)" + _QUOTED
)
# A commit's trailers that every commit of the tool repeats: no decision in them.
_CO_AUTHOR_RE = re.compile(
    r"(?im)^\s*(?:co-authored-by:.*|🤖 generated with \[claude code\]\(\S*\)\s*)$\n?")


def _unquote(m: re.Match[str]) -> str:
    dq, sq, bare = m.group(1), m.group(2), m.group(3)
    if dq is not None:
        return dq.replace('\\"', '"').replace("\\\\", "\\")
    return sq if sq is not None else (bare or "")


def _cap(text: str, limit: int) -> str:
    """Blank-line runs squeezed, cut to `limit` characters at a line or word end."""
    text = _MANY_NEWLINES_RE.sub("\n\n", text.strip())
    if len(text) <= limit:
        return text
    from reviewer.sanitize.redact import redact  # see _one_line: never cut a secret

    text = redact(text[: limit + _REDACT_SLACK])
    if len(text) <= limit:
        return text
    head = text[: limit - 2]
    cut = max(head.rfind("\n", limit // 2), head.rfind(" ", limit // 2))
    return (head[:cut] if cut > 0 else head).rstrip() + " …"


def bash_detail(command: str) -> str:
    """The words a command carried that record a decision: a commit's full message, the
    title/body/reason given to an issue tracker. "" for any other command."""
    if not command or len(command) < 40:
        return ""
    command = command[:_DETAIL_SCAN]  # a pasted megabyte is not a commit message
    found: list[str] = []
    rules = []
    if "commit" in command:  # substring checks first: most commands are neither
        rules.append((_COMMIT_RE, _COMMIT_MSG_RE))
    if any(w in command for w in _TRACKER_WORDS):
        rules.append((_TRACKER_RE, _TRACKER_FLAG_RE))
    for kind_re, flag_re in rules:
        m = kind_re.search(command)
        if not m:
            continue
        tail = command[m.start() :]
        found.extend(d.body(tail) for d in heredocs(tail, most=4) if d.closed)
        for flag in flag_re.finditer(tail):
            value = _unquote(flag)
            if value and not value.startswith("$(") and len(value) > 2:
                found.append(value)
    if not found:
        return ""
    out: list[str] = []
    for raw in found:
        text = _CO_AUTHOR_RE.sub("", raw).strip()
        if text and text not in out:
            out.append(text)
    return _cap("\n".join(out), DETAIL_BYTES)


# --------------------------------------------------------------------------- records


TOOL_TEXT_CHARS = 8 << 20  # all tool inputs and outputs kept for the verifier, at most
TOOL_TEXT_EACH = 200_000  # of one input or output (a long file read: a quote from its middle)


def _keep_tool_text(st: _State, which: str, name: str, text: str) -> None:
    """Remember what a tool was given or gave back, bounded (see ReadStats.tool_texts)."""
    if st.tool_chars >= TOOL_TEXT_CHARS or not text.strip():
        return
    text = ends(text, TOOL_TEXT_EACH)
    st.tool_texts.append((which, name, text))
    st.tool_chars += len(text)


_LOCAL_OUTPUT = re.compile(r"<local-command-std(?:out|err)>(.*?)</local-command-std(?:out|err)>",
                           re.S)


def _keep_local_output(st: _State, blocks: list[Any]) -> None:
    """What a slash command printed (`/mcp`: "No MCP servers configured."), never sent
    (machine text in a user record), kept for the verifier like a tool's output."""
    for b in blocks:
        text = b.get("text") if isinstance(b, dict) and b.get("type") == "text" else None
        if isinstance(text, str) and "<local-command-std" in text:
            for m in _LOCAL_OUTPUT.finditer(text):
                _keep_tool_text(st, "output", "local-command", m.group(1))


def _keep_sidechain(st: _State, rec: dict[str, Any]) -> None:
    """A subagent's words and tool traffic (never sent: its report comes back as the
    Task call's result) kept for the verifier like a tool's output."""
    if st.tool_chars >= TOOL_TEXT_CHARS:
        return
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, str):
        _keep_tool_text(st, "output", "Task", content)
        return
    for b in content if isinstance(content, list) else ():
        if not isinstance(b, dict):
            continue
        if b.get("type") == "text" and isinstance(b.get("text"), str):
            _keep_tool_text(st, "output", "Task", b["text"])
        elif b.get("type") == "tool_use":
            name = b.get("name")
            _keep_tool_text(st, "input", name if isinstance(name, str) else "Task",
                            _input_text(b.get("input")))
        elif b.get("type") == "tool_result":
            _keep_tool_text(st, "output", "Task", _result_text(b.get("content")))


SUBAGENT_PREFIX = "Task ⋯ "  # a call line of a subagent's own, restored by capture.fill


def _hold_sidechain(holder: Holder, rec: dict[str, Any], line: int, offset: int) -> None:
    """A subagent's own work held for `capture.fill` like the main thread's (issue 21:
    a session whose work was a subagent's sent 9 kB of its 32 kB floor): its words, what
    it was given to run or write, what its tools gave back and its failures; its call
    lines marked as its own (SUBAGENT_PREFIX)."""
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    ts = rec.get("timestamp")
    ts = ts if isinstance(ts, str) else None
    cwd = rec.get("cwd")
    cwd = cwd if isinstance(cwd, str) else None
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    for b in content if isinstance(content, list) else ():
        if not isinstance(b, dict):
            continue
        if b.get("type") == "text" and isinstance(b.get("text"), str):
            holder.said(_clean_prose(b["text"]), line, offset, ts)
        elif b.get("type") == "tool_use":
            name = b.get("name")
            name = name if isinstance(name, str) and name else "tool"
            holder.call(b.get("id"), name, b.get("input"),
                        SUBAGENT_PREFIX + tool_summary(name, b.get("input"), cwd), line,
                        offset, ts, sidechain=True)
        elif b.get("type") == "tool_result":
            tid = b.get("tool_use_id")
            name = holder.calls[tid][0] if isinstance(tid, str) and tid in holder.calls \
                else "tool"
            holder.result(tid, name, last_state(_result_text(b.get("content"))),
                          b.get("is_error") is True, line, offset, ts, False, sidechain=True)


def _input_text(inp: Any) -> str:
    """The string values a tool was given (a command, a file's new text), joined."""
    if isinstance(inp, str):
        return inp
    if isinstance(inp, dict):
        return "\n".join(t for t in (_input_text(v) for v in inp.values()) if t)
    if isinstance(inp, list):
        return "\n".join(t for t in (_input_text(v) for v in inp) if t)
    return ""




def _new_paths(name: str, inp: Any, cwd: str, seen: set[str]) -> set[str]:
    """The absolute paths under `cwd` a Write/Edit or a shell command names that no
    earlier call showed whole; empty for any other call."""
    d = inp if isinstance(inp, dict) else {}
    root = cwd.rstrip("/") + "/"
    if len(root) < 3:
        return set()
    if name in WRITERS:
        path = _s(d, "file_path") or _s(d, "notebook_path")
        found = {path} if path.startswith(root) else set()
    elif name == "Bash":
        found = set(re.findall(re.escape(root) + r"[\w.@/-]+", _s(d, "command")[:_COMMAND_LIMIT]))
    else:
        return set()
    return found - seen


class _State:
    """Cross-line memory: tool names by id (an error names its tool), and what each
    assistant message id already produced (a response is split over several lines, and
    some versions repeat earlier blocks on later lines)."""

    __slots__ = ("details", "gits", "holder", "last_queued", "listings", "looks", "out_lines",
                 "pending", "pull_back", "queued", "reads", "said", "seen", "tool_chars",
                 "tool_texts", "tools", "unsent", "written")

    def __init__(self) -> None:
        self.tools: dict[str, str] = {}
        self.tool_texts: list[tuple[str, str, str]] = []
        self.tool_chars = 0
        self.looks: set[str] = set()  # ids of read-only shell calls
        self.listings: set[Any] = set()  # … of those that list files
        self.gits: set[str] = set()  # ids of shell calls that run git
        self.reads: dict[str, str] = {}  # Read calls' ids → the file read
        self.seen: dict[str, set[str]] = {}
        # Prompts already kept from `queue-operation` records, by text: the same words
        # may come again as a user record once the queue is drained.
        self.queued: Counter[str] = Counter()
        self.details: set[str] = set()  # a commit retried sends the same message again
        self.last_queued: Turn | None = None  # the last prompt kept from the queue
        self.pull_back = False  # a `remove` took `last_queued` back
        self.written: set[str] = set()  # files a Write/Edit named, shown whole once
        # Results not sent, waiting for the answer after them (capture.results): those of
        # the record just read, then with where their lines would go among the turns.
        self.unsent: list[tuple[str, str, int, int, str | None]] = []
        self.out_lines: set[str] = set()  # a command's output lines already sent
        self.said: set[str] = set()  # … and a failure's, without their prefix
        self.pending: list[tuple[int, str, str, int, int, str | None]] = []
        self.holder: Holder | None = None  # what tools gave, for capture.fill (`held`)

    def first_time(self, msg_id: Any, key: str) -> bool:
        if not isinstance(msg_id, str):
            return True
        keys = self.seen.get(msg_id)
        if keys is None:
            if len(self.seen) > 64:
                self.seen.clear()
            keys = self.seen[msg_id] = set()
        if key in keys:
            return False
        keys.add(key)
        return True


def _record_turns(
    rec: dict[str, Any], line: int, offset: int, st: _State, include_sidechains: bool
) -> tuple[list[Turn], str]:
    """Turns of one record, and the drop reason when there are none."""
    rtype = rec.get("type")
    if rtype == "queue-operation":
        return _queued_prompt(rec, line, offset, st, include_sidechains)
    if rtype not in ("user", "assistant"):
        return [], (rtype[:40] if isinstance(rtype, str) else "untyped")
    if rec.get("isSidechain") and not include_sidechains:
        _keep_sidechain(st, rec)
        if st.holder is not None:
            _hold_sidechain(st.holder, rec, line, offset)
        return [], "sidechain"
    if rec.get("isMeta"):
        return [], "meta"
    if rec.get("isCompactSummary"):
        return _summary(rec, line, offset)
    msg = rec.get("message")
    if not isinstance(msg, dict):
        return [], "no_message"
    if msg.get("model") == "<synthetic>":  # "No response requested.", API error notices
        return _api_error(msg, rec, line, offset, st), "synthetic"
    content = msg.get("content")
    blocks: list[Any]
    if isinstance(content, str):
        blocks = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        blocks = content
    else:
        return [], "no_content"
    if rtype == "user":
        _keep_local_output(st, blocks)
    ts = rec.get("timestamp")
    ts = ts if isinstance(ts, str) else None
    cwd = rec.get("cwd")
    cwd = cwd if isinstance(cwd, str) else None
    turns: list[Turn] = []
    reason = "empty"

    if rtype == "assistant":
        msg_id = msg.get("id")
        for b in blocks:
            if not isinstance(b, dict):
                continue
            btype = b.get("type")
            if btype == "text":
                text = b.get("text")
                if isinstance(text, str) and st.first_time(msg_id, "t:" + text):
                    text = _clean_prose(text)
                    if text:
                        turns.append(Turn("assistant", "prose", text, line, offset, ts))
            elif btype in ("tool_use", "server_tool_use"):
                name = b.get("name")
                name = name if isinstance(name, str) and name else "tool"
                tid = b.get("id")
                if isinstance(tid, str):
                    st.tools[tid] = name
                key = "u:" + (tid if isinstance(tid, str) else repr(b.get("input"))[:200])
                if st.first_time(msg_id, key):
                    if st.tool_chars < TOOL_TEXT_CHARS:
                        _keep_tool_text(st, "input", name, _input_text(b.get("input")))
                    if name == "Read" and isinstance(tid, str):
                        st.reads[tid] = _s(b.get("input") or {}, "file_path")
                    if name == "Bash" and isinstance(tid, str) and reads_files(
                            _s(b.get("input") or {}, "command")):
                        st.looks.add(tid)
                        if _LISTING.match(_s(b.get("input") or {}, "command")):
                            st.listings.add(tid)  # a listing: no line of it is quoted
                    elif name == "Bash" and isinstance(tid, str) and "git " in _s(
                            b.get("input") or {}, "command"):
                        st.gits.add(tid)  # its long output may hold what git did
                    text = tool_summary(name, b.get("input"), cwd)
                    if cwd and len(st.written) < 1000 and (new := _new_paths(
                            name, b.get("input"), cwd, st.written)):
                        # The first write of a file, or the first command that names
                        # it, says where it lives, whole ("/Users/me/dev/pomodoro/
                        # index.html", `bash -n /home/u/src/x.sh`); later ones, relative.
                        st.written.update(new)
                        text = tool_summary(name, b.get("input"), None)
                    turns.append(Turn("assistant", "tool_call", text, line, offset, ts, name))
                    if st.holder is not None:
                        st.holder.call(tid, name, b.get("input"), text, line, offset, ts)
                    if name == "Bash" and "\n" in (cmd := _s(b.get("input") or {}, "command")
                                                   .strip()) and not bash_detail(cmd):
                        # A script's commands after its first line (the call line shows
                        # that one), each a call line of its own.
                        turns.extend(Turn("assistant", "tool_call", SCRIPT_PREFIX + ran, line,
                                          offset, ts, name)
                                     for ran in script_lines(cmd[:_DETAIL_SCAN]))
                    detail = _call_detail(name, b.get("input"))
                    if detail and detail not in st.details:
                        st.details.add(detail)
                        turns.append(Turn("assistant", "detail", detail, line, offset, ts, name))
            elif btype in ("thinking", "redacted_thinking"):
                # Thinking is the model's private scratch work: guesses it later drops,
                # plans it revises. It is not what was said or done, so facts must not
                # come from it (and it is bulky). The verifier still finds a quote of it.
                thought = b.get("thinking")
                if isinstance(thought, str):
                    _keep_tool_text(st, "thinking", "assistant", thought)
                reason = "thinking"
            else:  # image, web search results, unknown blocks
                reason = str(btype)[:40] if isinstance(btype, str) else "block"
        return turns, reason

    for b in blocks:
        if not isinstance(b, dict):
            continue
        btype = b.get("type")
        if btype == "text":
            text = b.get("text")
            if isinstance(text, str):
                outcome = _task_turn(text, line, offset, ts)
                if outcome is not None:
                    turns.append(outcome)
                    report = _task_report(text)
                    if report:  # a background agent's report, hung under its outcome
                        turns.append(Turn("user", "detail", report, line, offset, ts, "Task"))
                    continue
                raw_text = text
                text = clean_prompt(text)
                if not text and _INTERRUPTED.match(raw_text):
                    # The person stopped the assistant: what it was doing was not wanted
                    # (or not finished). One line, not words of theirs.
                    turns.append(Turn("user", "tool_call", INTERRUPTED, line, offset, ts,
                                      "Interrupt"))
                    continue
                if text and terminal_command(text):
                    reason = "terminal_command"  # /exit, /clear: steering, not words
                elif text and st.queued[text] > 0:
                    st.queued[text] -= 1  # already kept when it was queued
                    reason = "queued_again"
                elif text:
                    turns.append(Turn("user", "prompt", text, line, offset, ts))
                else:
                    reason = "noise"
        elif btype == "tool_result":
            tid = b.get("tool_use_id")
            name = st.tools.get(tid, "tool") if isinstance(tid, str) else "tool"
            body = _result_text(b.get("content"))
            _keep_tool_text(st, "error" if b.get("is_error") is True else "output", name, body)
            body = last_state(body)  # a progress line rewritten by `\r`: its last state
            if st.holder is not None:
                st.holder.result(tid, name, body, b.get("is_error") is True, line, offset, ts,
                                 isinstance(tid, str) and tid in st.looks)
            if b.get("is_error") is True:
                if SIBLING in body[:300]:
                    reason = "sibling_error"  # a parallel call cancelled: says nothing
                elif body.startswith(_REJECTED):
                    turns.append(
                        Turn("user", "tool_error", "Rejected by the user.", line, offset, ts, name)
                    )
                    said = body.find(_USER_SAID)
                    feedback = clean_prompt(body[said + len(_USER_SAID) :]) if said >= 0 else ""
                    if feedback:
                        turns.append(Turn("user", "prompt", feedback, line, offset, ts))
                else:
                    text = _failure_lines(body, st.said)
                    if len(st.said) < 4096:  # its lines, not its exit code
                        st.said.update(ln.partition(" · ")[2] if ln.startswith("Exit code")
                                       else ln for ln in text.split("\n"))
                    turns.append(Turn("user", "tool_error", text, line, offset, ts, name))
                    if len(st.pending) + len(st.unsent) < _PENDING:
                        # What else of it the next answer draws on ("kmod-x is depended
                        # upon by packages:" past the key lines kept).
                        st.unsent.append((name, body, line, offset, ts))
            elif name in _OUTPUT_CHECKED and (errs := output_errors(body)):
                # Exit 0, but the output names an error (a panic piped through `tee`).
                turns.append(Turn("user", "tool_error", OUTPUT_ERROR + "\n".join(errs), line,
                                  offset, ts, name))
            elif name == "Read" and (said := _read_says(body, st.reads.get(tid, ""), cwd)):
                # A small document or config file read (package.json, a rules file):
                # what it says is the project's own statement. A code file's doc
                # comments go in a turn of their own: the first to go under pressure.
                for part in said:
                    if part not in st.details:
                        st.details.add(part)
                        turns.append(Turn("user", "detail", part, line, offset, ts, "Read"))
            elif name in ("Bash", "tool") and (short := _short_output(body, st.looks, tid,
                                                                      tid in st.gits)):
                # A command's short answer (`zfs list`, a status line) is a finding (a
                # result whose call came before this file began: most likely a command).
                if short := _new_lines(short, st):
                    turns.append(Turn("user", "detail", short, line, offset, ts, "Bash"))
                if len(body) > SHORT_OUTPUT_CHARS:  # only its git landmarks: read on
                    st.unsent.append((name, body, line, offset, ts))
            elif name in ("Task", "Agent") and body.strip():
                # A subagent's report: what it found, in its own words (the end holds
                # its conclusion), hung under the call as a detail.
                turns.append(Turn("user", "detail", cut_middle(strip_ansi(body),
                                  AGENT_REPORT_CHARS), line, offset, ts, name))
            elif name == "ExitPlanMode" and body.strip():
                # The person's answer to a plan (approved; a rejection is an error above).
                answer = _one_line(body.strip().partition("\n")[0], _ERROR_LINE_LIMIT)
                turns.append(Turn("user", "prompt", answer, line, offset, ts))
            elif name == "AskUserQuestion" and body.strip():
                # The answer a person picked or typed: a human prompt, not tool output.
                answer = body.replace("You can now continue with the user's answers in mind.", "")
                answer = clean_prompt(answer)
                if answer:
                    turns.append(Turn("user", "prompt", answer, line, offset, ts))
            else:
                reason = "tool_result"
                if name == "Read" and (defs := _read_defines(body, st.reads.get(tid, ""), cwd)) \
                        and defs not in st.details:  # a file read again: named once
                    st.details.add(defs)
                    turns.append(Turn("user", "detail", defs, line, offset, ts, "Read"))
                if name not in _NOT_QUOTED and tid not in st.listings and \
                        len(st.pending) + len(st.unsent) < _PENDING:
                    st.unsent.append((name, body, line, offset, ts))
        else:  # image, document, unknown
            reason = str(btype)[:40] if isinstance(btype, str) else "block"
    return turns, reason


_OUTPUT_CHECKED = frozenset({"Bash", "BashOutput", "TaskOutput", "tool"})
# Results whose lines never go under their call: an edit echoes what the call already
# carries, a to-do list is bookkeeping.
_NOT_QUOTED = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "TodoWrite",
                         "TodoRead", "ExitPlanMode", "AskUserQuestion", "TaskOutput", "Glob",
                         "LS"})
# A command that lists files: the answer names them, and a listing is noise.
_LISTING = re.compile(r"^(?:cd\s+\S+\s*&&\s*)?(?:ls|ll|la|tree|find|fd|du)\b")
_PENDING = 12  # results waiting for an answer, at most
INTERRUPTED = "[Request interrupted by user]"
_INTERRUPTED = re.compile(r"^\s*\[Request interrupted by user[^\]\n]{0,200}\]\s*$")
_API_ERROR = re.compile(r"^API Error\b")


def _api_error(msg: dict[str, Any], rec: dict[str, Any], line: int, offset: int,
               st: _State) -> list[Turn]:
    """An API error the terminal showed in the assistant's place (`API Error: 400 …`):
    the session stopped there. Once per distinct message (a retry loop repeats it);
    other synthetic notices ("No response requested.") say nothing."""
    content = msg.get("content")
    text = content if isinstance(content, str) else _result_text(content)
    if not _API_ERROR.match(text.strip()):
        return []
    said = _one_line(text.strip(), ERROR_BYTES)
    if said in st.details:
        return []
    st.details.add(said)
    ts = rec.get("timestamp")
    return [Turn("user", "tool_error", said, line, offset, ts if isinstance(ts, str) else None,
                 "API")]
OUTPUT_ERROR = "exit 0 · "  # a successful result's error lines start with this
AGENT_REPORT_CHARS = 1500
_TASK_FAILED = ("failed", "killed", "error", "timeout", "timed_out", "cancelled")


OUTPUT_PREFIX = "→ "  # a command's short output, hung under its call as a detail
SHORT_OUTPUT_CHARS = 320  # a status line or two (a mount's options), not a listing
SHORT_OUTPUT_LINES = 6


READ_DOC_CHARS = 1500
READ_SCAN_CHARS = 200_000  # a larger file read is a dump, not a document
_READ_NUMBER = re.compile(r"^ *\d+(?:→|\t)", re.M)
DOCUMENTS = "documents:"  # heads what a code read's doc comments say (shed first by fit)


def _read_says(body: str, path: str, cwd: str | None = None) -> list[str]:
    """What a file read says in its own words, under its path, one detail each; none for
    an error or a dump. A document or config file: whole when small, else its opening (a
    config's name, version and description; a document's title and summary) and its end.
    Code: the comment it opens with (what the module is for), then its doc comments with
    what they document, never the listing."""
    if not path or len(body) > READ_SCAN_CHARS:
        return []
    # Named as its call line names it (relative to the session's directory): the call, a
    # look, is not sent, and two `context.md` of two systems are two files.
    name = _rel(path, cwd)
    text = _READ_NUMBER.sub("", _REMINDER_RE.sub("", body)).strip()
    if not text:
        return []
    if is_doc(path):
        return [f"{name} reads:\n{cut_middle(text, READ_DOC_CHARS, head_share=2 / 3)}".strip()]
    if not is_code(path) and not (text.startswith("#!") and "." not in file_name(path)):
        return []  # a script without an extension (a git hook) is known by its `#!`
    said = []
    if header := code_header(text):
        said.append(f"{name} opens with:\n{header}".strip())
    # Doc comments with what they document: "Lines that fail to unmarshal are
    # silently skipped." above `func ScanInto[T any](…)` (issue 21: what a fact rests on).
    if notes := documented(text, python=name.endswith((".py", ".pyi"))):
        said.append(f"{name} {DOCUMENTS}\n{notes}")
    return said


_DEFINES_SCAN = 3_000
_DEFINES_CHARS = 160


def _read_defines(body: str, path: str, cwd: str | None) -> str:
    """A code file read that says nothing of itself (no header, no doc comments): what
    it defines, under its path (the call, a look, is not sent: which file was read went
    with it). Shed with doc comments, first. "" for anything else."""
    if not path or len(body) > READ_SCAN_CHARS or not is_code(path):
        return ""
    # Its first definitions name it (DEFS_BYTES of them at most): the head is enough.
    text = _READ_NUMBER.sub("", _REMINDER_RE.sub("", body[:_DEFINES_SCAN])).strip()
    defs = next((ln for ln in describe(path, text).split("\n") if ln.startswith("defines: ")),
                "") if text else ""
    if len(defs) > _DEFINES_CHARS:  # its first few: the file is named, not listed
        defs = defs[:_DEFINES_CHARS].rsplit("; ", 1)[0] + "; …"
    return f"{_rel(path, cwd)} {DOCUMENTS}\n{defs}" if defs else ""


# What git says it did: the commit made (branch and hash), where a reset or checkout
# left HEAD. A line of record, kept whatever the output's length or the room.
_LANDMARK = re.compile(
    r"^(?:\[[\w./@+-]+(?: \(root-commit\))? [0-9a-f]{7,40}\] [^\n]+"
    r"|HEAD is now at [0-9a-f]{7,40} [^\n]+|Switched to (?:a new )?branch [^\n]+)$", re.M)


def is_landmark(text: str) -> bool:
    """A command's output detail that records what git did (see _LANDMARK)."""
    return text.startswith(OUTPUT_PREFIX) and bool(
        _LANDMARK.search(text.replace(OUTPUT_PREFIX, "")))


def _short_output(body: str, looks: set[str], tid: Any, git: bool = False) -> str:
    """The output of a command that changed or checked something, when it is short (the
    output of a look at files, `cat` or `ls`, is not: it is what was read)."""
    if tid in looks:
        return ""
    body = strip_ansi(body).strip()
    if not body:
        return ""
    if len(body) > SHORT_OUTPUT_CHARS or body.count("\n") >= SHORT_OUTPUT_LINES:
        # A long output's last lines ("12 passed") were tried: they carried no labelled
        # fact and let two more undetected secrets of the battery's held-out half out.
        # What git says it did (a commit's branch and hash, a reset's target) stays.
        marks = [" ".join(m.split())[:_ERROR_LINE_LIMIT]
                 for m in _LANDMARK.findall(body[:_DETAIL_SCAN])][:3] if git else []
        return "\n".join(OUTPUT_PREFIX + m for m in marks)
    return "\n".join(OUTPUT_PREFIX + squeeze_leaders(" ".join(ln.split()))
                     for ln in body.split("\n") if ln.strip())


_TASK_RESULT = re.compile(r"<result>\s*(.*?)\s*(?:</result>|\Z)", re.S)


def _task_report(text: str) -> str:
    """What a background agent reported (`<result>` of its notification), its end kept
    before its middle like a subagent's report; "" when there is none."""
    m = _TASK_RESULT.search(text)
    return cut_middle(strip_ansi(m.group(1)), AGENT_REPORT_CHARS) if m else ""


def _task_turn(text: str, line: int, offset: int, ts: Any) -> Turn | None:
    """A background task notification as its outcome: a failure is a `tool_error` of
    the `Background` tool, a completion a call line (machine text either way)."""
    if "<task-notification>" not in text:
        return None
    outcome = task_outcome(text)
    if outcome is None:
        return None
    status, summary = outcome
    said = summary or f"background task {status}"
    if status in _TASK_FAILED or " failed" in summary:
        return Turn("user", "tool_error", said, line, offset, ts, "Background")
    return Turn("user", "tool_call", f"Background: {said}", line, offset, ts, "Background")


def _call_detail(name: str, inp: Any) -> str:
    """The decision text a call carries (see Kind "detail"); "" for most calls."""
    if not isinstance(inp, dict):
        return ""
    if name in ("Write", "Edit", "MultiEdit", "NotebookEdit"):
        return written_detail(name, inp)
    if name == "ExitPlanMode":
        plan = _s(inp, "plan").strip()
        return _cap(plan, PLAN_BYTES) if "\n" in plan or len(plan) > _BASH_LIMIT else ""
    if name == "Bash":
        command = _s(inp, "command")
        decided = bash_detail(command)
        wrote = heredoc_files(command[:_DETAIL_SCAN]) if "<<" in command else ""
        return "\n".join(p for p in (decided, wrote) if p)
    if name.startswith("mcp__") and _TRACKER_TOOL_RE.search(name):
        # An issue tracker's MCP tool (GitHub, Linear, Jira…): what it was told to file.
        parts = [_s(inp, k).strip() for k in _TRACKER_FIELDS]
        text = "\n".join(p for p in parts if p)
        return _cap(text, DETAIL_BYTES) if len(text) > _BASH_LIMIT or "\n" in text else ""
    return ""


_TRACKER_TOOL_RE = re.compile(r"(?i)issue|pull_request|comment|linear|jira|ticket")
_TRACKER_FIELDS = ("title", "summary", "body", "description", "comment", "text", "reason")


def _queued_prompt(
    rec: dict[str, Any], line: int, offset: int, st: _State, include_sidechains: bool
) -> tuple[list[Turn], str]:
    """A prompt typed while the assistant worked (Claude Code 2.1.x records it only as
    `queue-operation` / `enqueue` with `content`); background task notices queued the
    same way are machine text and `clean_prompt` drops them."""
    if rec.get("operation") == "remove" and st.last_queued is not None:
        st.pull_back = True  # the person took the last queued prompt back to edit it
        return [], "queue-removed"
    if rec.get("operation") != "enqueue" or (rec.get("isSidechain") and not include_sidechains):
        return [], "queue-operation"
    content = rec.get("content")  # a task notification queued comes again as a user record
    text = clean_prompt(content) if isinstance(content, str) else ""
    if not text or terminal_command(text):
        return [], "queue-operation"
    st.queued[text] += 1
    ts = rec.get("timestamp")
    turn = Turn("user", "prompt", text, line, offset, ts if isinstance(ts, str) else None)
    st.last_queued = turn
    return [turn], ""


SUMMARY_BYTES = 12_000  # cap before fitting; `capture.fit` sheds it first
_SUMMARY_HEAD = "This session is being continued from a previous conversation"
_SUMMARY_TAIL = ("If you need specific details from before compaction", "Please continue the")


def _summary(rec: dict[str, Any], line: int, offset: int) -> tuple[list[Turn], str]:
    """A compaction summary as kind "summary" (lower trust): its boilerplate opening and
    closing lines go, and of an `Analysis:` + `Summary:` pair only the summary stays
    (the analysis is the same ground, narrated)."""
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    text = content if isinstance(content, str) else _result_text(content)
    text = _REMINDER_RE.sub("", text).strip() if "<system-reminder>" in text else text.strip()
    if text.startswith(_SUMMARY_HEAD):
        text = text.partition("\n")[2].strip()
    at = text.find("\nSummary:\n")
    if at >= 0 and "Analysis:" in text[:at]:
        text = text[at + 1 :]
    for tail in _SUMMARY_TAIL:
        cut = text.rfind(tail)
        if cut > len(text) // 2:
            text = text[:cut].rstrip()
    if not text:
        return [], "compact_summary"
    ts = rec.get("timestamp")
    ts = ts if isinstance(ts, str) else None
    return [Turn("user", "summary", _cap(text, SUMMARY_BYTES), line, offset, ts)], ""


def _without_surrogates(turn: Turn) -> Turn:
    """JSON escapes can encode lone surrogates ("\\ud800"): valid in a Python str but
    unencodable as UTF-8, so sqlite or a file write downstream would fail on them."""
    try:
        turn.text.encode("utf-8")
    except UnicodeEncodeError:
        return replace(turn, text=turn.text.encode("utf-8", "replace").decode("utf-8"))
    return turn


def _bounded(turn: Turn) -> Turn:
    """A turn of at most MAX_TURN_CHARS: head and tail kept, the cut marked in the text."""
    if len(turn.text) <= MAX_TURN_CHARS:
        return turn
    keep = MAX_TURN_CHARS // 2
    cut = len(turn.text) - 2 * keep
    return replace(turn, text=f"{turn.text[:keep]}\n[… {cut:,} characters cut …]\n"
                   f"{turn.text[-keep:]}")


SUBAGENT_PEEK = 256 * 1024  # bytes read from the top to tell a subagent's own file


def is_subagent_transcript(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is a subagent's own transcript (Claude Code 2.x writes each Task
    subagent to an `agent-*.jsonl` of its own, every record `isSidechain`): there the
    side chain IS the conversation, and dropping it would drop everything. Decided from
    the first conversation records (bounded read), not the name alone."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(SUBAGENT_PEEK)
    except OSError:
        return False
    lines = head.split(b"\n")
    if len(head) == SUBAGENT_PEEK:
        lines = lines[:-1]  # the last one may be cut
    seen = 0
    for raw in lines[:200]:
        rec = _parse(raw)
        if not isinstance(rec, dict) or rec.get("type") not in ("user", "assistant"):
            continue
        if not rec.get("isSidechain"):
            return False
        seen += 1
        if seen >= 3:
            break
    return seen > 0


def read_turns(
    path: str | os.PathLike[str],
    start: int = 0,
    *,
    include_sidechains: bool = False,
    first_line: int | None = None,
    max_chars: int | None = None,
    tool_texts: bool = False,
    held: bool = False,
) -> tuple[list[Turn], ReadStats, int]:
    """Read the conversation from byte `start`; return (turns, stats, end_offset).

    With `tool_texts`, what tools were given and gave back is kept in
    `stats.tool_texts` for the verifier (the worker's path; `preview` needs none).
    With `held`, what condensation dropped of them is kept in `stats.held`, where it was
    said (`capture.fill`: the worker's and `preview`'s path alike).

    With `max_chars`, stop after the line whose turns reach that much text (`stats.more`
    then says the file goes on from `end_offset`): what one job holds stays bounded.

    `end_offset` is just after the last complete line: pass it as `start` next time.
    Line numbers are true file line numbers: with start > 0 the newlines before it are
    counted (a fast scan), unless the caller already knows and passes `first_line`.
    A `start` past the end of the file (it shrank or was replaced) reads nothing and
    returns `start`. Never raises on content; OSError from opening or reading the path
    propagates (callers treat it as permanent).
    """
    start = max(0, int(start))
    include_sidechains = include_sidechains or is_subagent_transcript(path)
    stats = ReadStats()
    turns: list[Turn] = []
    st = _State()
    if not tool_texts:
        st.tool_chars = TOOL_TEXT_CHARS  # full from the start: nothing is kept
    if held:
        st.holder = Holder()
    dropped = stats.dropped
    chars = 0
    lines = _iter_lines(path, start, stats, first_line)
    for lineno, offset, raw in lines:
        if not raw or raw.isspace():
            stats.bad_lines += 1
            continue
        # The verifier reads what subagents said too: sidechains are parsed when kept.
        reason = _peek_drop(raw, include_sidechains or st.tool_chars < TOOL_TEXT_CHARS
                            or st.holder is not None)
        if reason is not None:
            dropped[reason] += 1
            if reason == "summary" and len(raw) < 4096:  # a session's title: the verifier's
                title = _parse(raw)
                if isinstance(title, dict) and isinstance(title.get("summary"), str):
                    _keep_tool_text(st, "summary", "", title["summary"])
            continue
        rec = _parse(raw)
        if not isinstance(rec, dict):
            stats.bad_lines += 1
            continue
        got, reason = _record_turns(rec, lineno, offset, st, include_sidechains)
        if st.pull_back:
            _pull_back(turns, st)
        if st.pending and got:
            _resolve_pending(turns, got, st)
        if st.unsent:
            at = len(turns) + len(got)
            st.pending.extend((at, *u) for u in st.unsent)
            st.unsent.clear()
        if got:
            stats.kept += 1
            turns.extend(
                _bounded(_clean_turn(t)) for t in got
            )
            chars += sum(len(t.text) for t in turns[-len(got):])
            if max_chars is not None and chars >= max_chars:
                lines.close()
                stats.more = True
                stats.bytes_read = offset + len(raw) + 1 - start
                stats.pending_bytes = 0
                break
        else:
            dropped[reason] += 1
    stats.tool_texts = st.tool_texts
    stats.held = st.holder.items if st.holder is not None else []
    return _without_repeats(turns), stats, start + stats.bytes_read


def _new_lines(output: str, st: _State) -> str:
    """A short output's lines not already sent under an earlier call (the same status
    printed after every run says it once); "" when none is new."""
    lines = output.split("\n")
    new = [ln for ln in lines if ln not in st.out_lines]
    if len(st.out_lines) < 4096:
        st.out_lines.update(lines)
        st.said.update(ln[len(OUTPUT_PREFIX):] for ln in lines)
    return "\n".join(new)


def _resolve_pending(turns: list[Turn], got: list[Turn], st: _State) -> None:
    """Results waiting for an answer, when the next record is one: each hangs the lines
    of it the answer draws on under its call (capture.results); a person's prompt ends
    the wait (no answer drew on them)."""
    answer = "\n".join(t.text for t in got if t.kind == "prose")
    if not answer:
        if any(t.kind == "prompt" for t in got):
            st.pending.clear()
        return
    pending, st.pending = st.pending, []
    words, stressed = answer_words(answer), stressed_words(answer)
    for at, name, raw, line, offset, ts in reversed(pending):
        body = strip_ansi(raw)
        # Under a failure, only what its key lines do not already say.
        failed = turns[at - 1] if 0 < at <= len(turns) and turns[at - 1].kind == "tool_error" \
            else None
        lines = quoted_lines(body, answer, words=words, stressed=stressed,
                             shown=failed.text if failed else "")
        lines += [w for w in output_warnings(body) if w not in lines][:WARNING_LINES]
        if not lines:
            continue
        text = "\n".join(QUOTED_PREFIX + ln for ln in lines)
        if text in st.details:
            continue
        st.details.add(text)
        turns.insert(min(at, len(turns)), Turn("user", "detail", text, line, offset, ts,
                                               "Bash" if name == "tool" else name))


def _clean_turn(t: Turn) -> Turn:
    """Surrogates replaced, ANSI colour codes dropped."""
    if t.text.isascii():
        return replace(t, text=strip_ansi(t.text)) if "\x1b" in t.text else t
    t = _without_surrogates(t)
    return replace(t, text=strip_ansi(t.text)) if "\x1b" in t.text else t


def _pull_back(turns: list[Turn], st: _State) -> None:
    """Drop the queued prompt a person took back to edit (its final version comes as a
    new prompt)."""
    st.pull_back = False
    gone, st.last_queued = st.last_queued, None
    if gone is None:
        return
    for i in range(len(turns) - 1, -1, -1):
        if turns[i] is gone:
            del turns[i]
            st.queued[gone.text] = max(0, st.queued[gone.text] - 1)
            return


_COUNT_RE = re.compile(r" \(×\d+\)$")


def without_count(text: str) -> str:
    """A call line without the count `_without_repeats` gave it."""
    return _COUNT_RE.sub("", text) if text.endswith(")") else text


REPLAYED_PROMPT = 40  # a prompt this long said again word for word is a replay, not news


def _without_repeats(turns: list[Turn]) -> list[Turn]:
    """A prompt sent again with nothing said in between (an API retry, a resend) once,
    and a long one said again anywhere later (a resumed session's file replays the
    person's words and answers: issue 21); the same call line several times in a row
    once, with its count."""
    out: list[Turn] = []
    said: set[str] = set()
    last_prompt: str | None = None
    runs = 1  # calls in a row with the same line (`· Edit app.py` four times: once, ×4)
    for t in turns:
        if t.kind == "tool_call" and out and out[-1].kind == "tool_call" and \
                without_count(out[-1].text) == t.text:
            runs += 1
            out[-1] = replace(out[-1], text=f"{t.text} (×{runs})")
            continue
        runs = 1
        if t.kind == "prompt":
            if t.text == last_prompt or t.text in said:
                continue
            last_prompt = t.text
            if len(t.text) >= REPLAYED_PROMPT and len(said) < 4096:
                said.add(t.text)
        elif t.kind in ("prose", "summary"):
            last_prompt = None
        out.append(t)
    return out
