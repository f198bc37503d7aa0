"""What the reader drops or reduces as noise, and what it recovers from tool output that
is not a failure (issue 21). Stdlib only (the reader's path).

- ANSI colour codes: bytes the model reads as garbage;
- slash commands that only drive the terminal (`/exit`, `/clear`, …) sent as prompts;
- "Sibling tool call errored": a parallel call cancelled, says nothing of its own;
- read-only shell commands (`cat`, `ls`, `git status`, …): a look, not a change;
- background task notifications: their outcome (a failure reads as one), not their
  boilerplate;
- the error lines in a tool result that exited 0 (a test panic piped through `tee`,
  `grep: invalid option` inside a loop).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from reviewer.shell_words import unwrapped

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")


def ends(text: str, most: int) -> str:
    """`text` when it is at most `most` characters, else its first and last halves of
    that joined by a line break: a long output's command echo and its verdict, read
    in bounded time."""
    if len(text) <= most:
        return text
    return text[: most // 2] + "\n" + text[-most // 2:]


def last_state(text: str) -> str:
    """Each line as a terminal leaves it: a progress line rewritten after carriage
    returns (`[13/13] Linking x…\r[mrk1] Linked 14 tool(s)`) shows its last state, not
    every step run together (issue 21: the outcome sat past a 400-character cut)."""
    if "\r" not in text:
        return text
    text = text.replace("\r\n", "\n")
    if "\r" not in text:
        return text
    return "\n".join(next((p for p in reversed(ln.split("\r")) if p.strip()), "")
                     if "\r" in ln else ln for ln in text.split("\n"))


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text) if "\x1b" in text else text


# Slash commands that steer the terminal; one sent alone says nothing durable.
_TERMINAL_COMMANDS = frozenset({
    "exit", "quit", "clear", "compact", "cost", "help", "status", "model", "resume", "login",
    "logout", "config", "doctor", "permissions", "ide", "vim", "theme", "terminal-setup",
    "context", "usage", "agents", "hooks", "mcp", "bashes", "export", "rewind", "todos",
    "privacy-settings", "release-notes", "upgrade", "output-style", "statusline", "add-dir",
    "feedback", "bug", "plugin", "plugins", "stats", "tasks", "sandbox", "fast",
})
_SLASH = re.compile(r"^/([\w:-]+)\s*(.*)$", re.S)


_SETTING_ARGS = frozenset({"model", "theme", "config", "permissions", "add-dir",
                           "output-style", "resume", "export", "vim", "fast"})


def terminal_command(prompt: str) -> bool:
    """A prompt that is only `/exit`, `/clear`, `/model sonnet`… (no words of a person:
    `/compact keep the API notes` keeps its words)."""
    m = _SLASH.match(prompt.strip())
    if not m or m.group(1).casefold() not in _TERMINAL_COMMANDS:
        return False
    args = m.group(2).strip()
    return not args or (m.group(1).casefold() in _SETTING_ARGS and "\n" not in args)


SIBLING = "Sibling tool call errored"

# Shell commands that only look: each piece of a pipeline or `&&` chain is one of these
# (and nothing is redirected into a file).
_LOOK = re.compile(
    r"^(?:cat|ls|ll|la|head|tail|less|more|wc|pwd|tree|find|fd|grep|egrep|rg|ag|file|stat"
    r"|which|whereis|type|echo|printf|du|df|sort|uniq|cut|awk|sed\s+-n|jq|column|nl|basename"
    r"|dirname|realpath|readlink|date|env|printenv|id|whoami|hostname|uname|true"
    r"|git\s+(?:status|log|diff|show|branch|remote|rev-parse|ls-files|blame|describe|shortlog"
    r"|reflog|config\s+--get|stash\s+list|tag(?:\s+-l|\s*$)))\b"
)
# A look at a machine's state (often through `ssh`, see reviewer.shell_words.unwrapped): processes,
# memory, logs, settings and packages read, never changed (`dmesg -n 7` sets a level).
_STATE_LOOK = re.compile(
    r"^(?:ps|free|uptime|top|logread|lsof|lsblk|netstat|ss|journalctl|dmesg(?!\s+-[nCcDE])"
    r"|uci\s+(?:show|get|export)|opkg\s+(?:list[\w-]*|info|status|files|whatdepends)"
    r"|apt\s+list|dpkg\s+-[lLs]|rpm\s+-q\w*|systemctl\s+(?:status|is-\w+|list-[\w-]+)"
    r"|crontab\s+-l|wg\s+show|ip(?:\s+-\w+)*\s+(?:a|addr|address|r|route|link|neigh|rule)"
    r"(?:\s+show\b[^|;&]*)?$)\b")
_SPLIT = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")
_CD = re.compile(r"^cd\s+\S+$")


def read_only(command: str) -> bool:
    """A shell command that only reads (`cat x | head`, `cd d && ls -la`, `git log`)."""
    return _every_piece(command, (_LOOK,))


def only_looks(command: str) -> bool:
    """`read_only`, or a look at a machine's state (`free -m`, `uci show x`, `logread |
    tail`), run here or through a wrapper (`ssh host "opkg list-installed | grep vpn"`):
    a call line `capture.fit` drops (what it printed stays, under it)."""
    return _every_piece(unwrapped(command.strip()), (_LOOK, _STATE_LOOK))


def _every_piece(command: str, looks: tuple[re.Pattern[str], ...]) -> bool:
    """Each piece of a pipeline or chain is a look (`cd` aside), nothing redirected."""
    cmd = command.strip()
    if not cmd or "\n" in cmd or ">" in cmd.replace("2>&1", "").replace("2>/dev/null", "") \
            or "$(" in cmd or "`" in cmd:
        return False
    pieces = [p for p in _SPLIT.split(cmd) if p]
    return bool(pieces) and all(_CD.match(p) or any(rx.match(p) for rx in looks)
                                for p in pieces) and not all(_CD.match(p) for p in pieces)


_READS_FILES = re.compile(
    r"^(?:cd\s+\S+\s*&&\s*)?(?:cat|head|tail|less|more|ls|ll|la|tree|find|fd|grep|egrep|rg|ag"
    r"|sed|awk|wc|nl|jq|git\s+(?:show|diff|log|blame|ls-files))\b")


# Files that are the system's state, not the project's text: reading one answers a
# question (`cat /proc/cmdline`, `grep overlay /proc/mounts`).
_SYSTEM_FILE = re.compile(r"(?<![\w.~/-])/(?:proc|sys|etc|dev)/\S+")
_PATH_ARG = re.compile(r"(?<![\w=:-])(?:~|\.{1,2})?/[\w.@/-]+|\b[\w.-]+/[\w.@/-]+")


def reads_files(command: str) -> bool:
    """A look at files (`cat`, `ls`, `grep`, `git show`): its output is what was read.
    A look at the system's state (`df`, `findmnt`, `git status`, `cat /proc/mounts`)
    answers a question."""
    cmd = command.strip()
    if not _READS_FILES.match(cmd):
        return False
    paths = _PATH_ARG.findall(cmd)
    return not paths or not all(_SYSTEM_FILE.fullmatch(p) for p in paths)


_TASK_STATUS = re.compile(r"<status>\s*([\w-]+)\s*</status>")
_TASK_SUMMARY = re.compile(r"<summary>\s*(.*?)\s*</summary>", re.S)


def task_outcome(text: str) -> tuple[str, str] | None:
    """(status, summary) of a background task notification, or None."""
    if "<task-notification>" not in text:
        return None
    status = _TASK_STATUS.search(text)
    summary = _TASK_SUMMARY.search(text)
    if status is None and summary is None:
        return None
    return (status.group(1).casefold() if status else "unknown",
            " ".join(summary.group(1).split())[:300] if summary else "")


# A line of a successful result that says something went wrong: strict, so that ordinary
# output (a log that mentions "error handling") stays out.
_OUTPUT_ERROR = re.compile(
    r"^(?:\S+:\s*)?(?:[Ee]rror(?:\[\w+\])?:|ERROR\b|[Ff]atal:|FATAL\b|panic(?:ked)?:|thread '.*'"
    r" panicked|Traceback \(most recent call last\)|[A-Z]\w*(?:Error|Exception):|FAILED\b|FAIL\b"
    r"|E {2,}\S|[Ss]egmentation fault|.*: command not found$|.*: [Nn]o such file or directory$"
    r"|.*[Ii]nvalid option|.*unrecognized option|.*[Pp]ermission denied$"
    # A coreutils-style complaint: `cat: x: Too many levels of symbolic links`
    r"|[\w.-]+: .+: (?:Too many levels of symbolic links|Is a directory|Not a directory"
    r"|Operation not permitted|Read-only file system|File exists|Directory not empty"
    r"|Input/output error|No space left on device)$"
    r"|.*flag provided but not defined|.*unknown (?:flag|option|shorthand flag|command)\b"
    r"|.*(?:no such|illegal) option)"
    r"|\b(?:test result: FAILED|[1-9]\d* (?:failed|errors?)\b|[Bb]uild failed"
    r"|exit (?:code|status) [1-9])",
)
OUTPUT_LINES = 3
_OUTPUT_SCAN = 64_000


# Every pattern above holds one of these literally.
_CUES = ("rror", "RROR", "atal", "ATAL", "panic", "FAIL", "Traceback", "E  ", "egmentation",
         "not found", "o such file", "nvalid option", "nrecognized option", "denied",
         "failed", "errors", "xit code", "xit status", "flag provided", "nknown",
         "o such option", "llegal option", "symbolic links", "s a directory",
         "ot a directory", "ot permitted", "ead-only file", "ile exists", "ot empty",
         "nput/output", "o space left")
_OUTPUT_ERROR_M = re.compile(_OUTPUT_ERROR.pattern, re.M)


def output_errors(body: str) -> list[str]:
    """Up to OUTPUT_LINES distinct lines of a successful result that name an error (one
    pass over the whole text: most results have none)."""
    body = ends(body, _OUTPUT_SCAN)
    if not any(k in body for k in _CUES):  # memchr-fast: most outputs name no error
        return []
    out: list[str] = []
    pos = 0
    while len(out) < OUTPUT_LINES:
        m = _OUTPUT_ERROR_M.search(body, pos)
        if m is None:
            break
        start = body.rfind("\n", 0, m.start()) + 1
        end = body.find("\n", m.end())
        end = len(body) if end < 0 else end
        pos = end + 1
        line = strip_ansi(body[start:end]).strip(" \t┃│|")
        if _GENERIC.search(line) and (cause := _cause_line(body, start)):
            # "Process completed with exit code 1" says only that it failed; the line
            # before it says why (`go: go.mod requires go >= 1.24.0`).
            if cause not in out:
                out.append(cause)
            if len(out) >= OUTPUT_LINES:
                break
        if len(line) >= 4 and not line.startswith(("#", "//")):
            short = " ".join(line.split())[:200]
            if short not in out:
                out.append(short)
    return out


# An error line that names no cause: only that a step failed.
_GENERIC = re.compile(r"(?i)exit (?:code|status) [1-9]|process completed with exit code"
                      r"|make: \*\*\*|command failed")


def _cause_line(body: str, start: int) -> str:
    """The last non-empty line before `start` when it is not itself a generic failure
    line; "" when there is none."""
    head = body[max(0, start - 2_000): start].rstrip("\n").rsplit("\n", 1)[-1]
    line = " ".join(strip_ansi(head).strip(" \t┃│|").split())[:200]
    return "" if len(line) < 8 or _GENERIC.search(line) else line


# A line of output that warns: a compiler's `x.swift:68:13: warning: …`, a script's
# `⚠️ …` or `WARNING: …`. Not an error, but often the finding (a cycle detected, a
# deprecated call the next step fixes).
# A linter's report puts the line and column first (`27:14  Warning: 'error' is defined
# but never used.` from Next.js, `  3:7  warning  'x' is assigned…` from ESLint).
_WARNING = re.compile(
    r"^(?:[^\n:]{1,300}:\d+(?::\d+)?: warning: |⚠|(?:\[?WARN(?:ING)?\]?|Warning):? "
    r"|[ \t]*\d+:\d+[ \t]+(?:[Ww]arning|WARN(?:ING)?)(?::|[ \t]{2}))", re.M)
WARNING_LINES = 2
# What every warning line holds: found first (plain substring searches), so that only the
# lines holding one are tried against _WARNING (a line-anchored pattern tried at every line
# start costs a pass per line).
_WARNING_CUES = (": warning: ", "⚠", "WARN", "Warning", " warning")


def _warning_lines(body: str) -> Iterator[re.Match[str]]:
    """_WARNING's matches in `body`, in order, trying only the lines that hold a cue."""
    starts: set[int] = set()
    for cue in _WARNING_CUES:
        at = body.find(cue)
        while at >= 0 and len(starts) < 64:
            starts.add(body.rfind("\n", 0, at) + 1)
            end = body.find("\n", at)
            at = body.find(cue, end) if end >= 0 else -1
    for start in sorted(starts):
        m = _WARNING.match(body, start)
        if m is not None:
            yield m


def output_warnings(body: str) -> list[str]:
    """Up to WARNING_LINES distinct warning lines of a result (the same warning at
    another line number once)."""
    if "arn" not in body and "ARN" not in body and "⚠" not in body:
        return []
    body = ends(body, _OUTPUT_SCAN)
    out: list[str] = []
    shapes: set[str] = set()
    for m in _warning_lines(body):
        end = body.find("\n", m.start())
        line = " ".join(strip_ansi(body[m.start(): end if end >= 0 else len(body)]).split())
        shape = re.sub(r"\d+", "0", line.split(": warning: ")[-1])[:80]
        if len(line) < 12 or shape in shapes:
            continue
        shapes.add(shape)
        out.append(line[:220])
        if len(out) >= WARNING_LINES:
            break
    return out


_LEADER = re.compile(r"\.{5,}|(?<=\S) {6,}(?=\S)")


def squeeze_leaders(text: str) -> str:
    """A run of dots or spaces that only pads a line to a width (`ruff.......Failed`) as
    one ` … `: the words stay, the padding goes."""
    return _LEADER.sub(" … ", text) if "....." in text or "      " in text else text
