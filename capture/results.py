"""What a tool result carries that condensation would otherwise drop (issue 21): the
lines of a result that the assistant's next words rely on, a script's commands past its
first line. Stdlib only (the reader's path).

A tool result is mostly noise (a listing, a file's code, a build log), and sending it
whole would cost the budget many times over. But when the assistant answers right after
it, the lines it draws on are the finding: "`queue-operation` is for enqueue/dequeue"
rests on the `grep` line that shows `"operation":"enqueue"`. Overlap between a result's
line and the next assistant text is the signal: a line kept must share distinctive words
(identifiers, paths, numbers, long words) with it, or a long run of its text.
"""

from __future__ import annotations

import re

QUOTED_PREFIX = "» "  # a result's line the next answer relies on, hung under its call
SCRIPT_PREFIX = "$ "  # a script's command past its first line, hung under its call
QUOTED_LINES = 3  # of one result, at most
QUOTED_LINE_CHARS = 220  # of one line, at most
RESULT_SCAN = 48_000  # of a result, only this much is searched (its head and its end)
MIN_LINE = 12  # a shorter line says too little to be worth its place
MIN_SHARED = 2  # distinctive words a line must share with the answer
_RUN = 28  # … or a run of this many characters of it (a sentence quoted)

_TOKEN = re.compile(r"[^\W_][\w.:/@-]*[\w]", re.U)
_DISTINCT = re.compile(r"[\d_./:@-]|[a-z][A-Z]|[^\x00-\x7f]")
_PATHLIKE = re.compile(r"[\d_/]")
_NOISE = re.compile(r"^\s*(?:\d+\s*(?:→|\t)\s*)?(?:[{}\[\](),;]*|[-=*#_~`|+ ]*)\s*$")
_NUMBERED = re.compile(r"^\s*\d+(?:→|\t)")
# Common words of English prose that say nothing of the project.
_COMMON = frozenset((
    "this", "that", "with", "from", "have", "will", "what", "when", "where", "which",
    "there", "their", "these", "those", "then", "than", "them", "they", "were", "been",
    "being", "into", "only", "also", "just", "like", "more", "most", "some", "such",
    "very", "each", "file", "files", "line", "lines", "code", "make", "made", "does",
    "done", "should", "would", "could", "about", "after", "before", "other", "using",
    "used", "uses", "show", "shows", "need", "needs", "here", "let's", "check", "look",
    "looks", "found", "find", "result", "results", "output", "true", "false", "none",
    "null", "return", "value", "values", "function", "error", "errors", "test", "tests",
))


def _words(text: str) -> set[str]:
    """Distinctive words of a text, case-folded: an identifier, a path, a number, a word
    of 8 letters or more; not the common words of prose."""
    out: set[str] = set()
    for m in _TOKEN.finditer(text):
        w = m.group()
        if len(w) < 4:
            continue
        low = w.casefold()
        if low in _COMMON:
            continue
        if len(w) >= 8 or _DISTINCT.search(w):
            out.add(low.strip(".:/-"))
    return out


def _runs(text: str) -> set[str]:
    """The answer's text in overlapping pieces of _RUN characters (whitespace squeezed,
    case-folded), every _RUN // 2: a line holding one of them quotes the answer."""
    flat = " ".join(text.split()).casefold()
    step = _RUN // 2
    return {flat[i: i + _RUN] for i in range(0, max(0, len(flat) - _RUN) + 1, step)}


def quoted_lines(body: str, answer: str, most: int = QUOTED_LINES) -> list[str]:
    """Up to `most` lines of a tool result that the answer after it draws on, in the
    result's order, each cut to QUOTED_LINE_CHARS; none when the answer shares nothing
    distinctive with it."""
    if not body.strip() or not answer.strip():
        return []
    mine = _words(answer)
    runs = _runs(answer) if len(answer) >= _RUN else set()
    if not mine and not runs:
        return []
    if len(body) > RESULT_SCAN:
        body = body[: RESULT_SCAN // 2] + "\n" + body[-RESULT_SCAN // 2:]
    scored: list[tuple[int, int, str]] = []
    seen: set[str] = set()
    for n, raw in enumerate(body.split("\n")):
        line = _NUMBERED.sub("", raw).strip()
        if len(line) < MIN_LINE or _NOISE.match(line):
            continue
        flat = " ".join(line.split())
        if flat in seen:
            continue
        seen.add(flat)
        # A long identifier or path in common says as much as two words.
        shared = sum(2 if len(w) >= 12 and _PATHLIKE.search(w) else 1
                     for w in _words(flat) & mine)
        low = flat.casefold()
        quoted = bool(runs) and len(low) >= _RUN and any(
            low[i: i + _RUN] in runs for i in range(0, len(low) - _RUN + 1, 4))
        score = shared + (2 if quoted else 0)
        if score >= MIN_SHARED:
            scored.append((score, n, flat))
    best = sorted(scored, key=lambda x: (-x[0], x[1]))[:most]
    return [_short(flat) for _, _, flat in sorted(best, key=lambda x: x[1])]


def _short(line: str, limit: int = QUOTED_LINE_CHARS) -> str:
    """`line` cut to `limit` at a space; redacted first when cut (a secret cut in two is
    a piece no rule recognises, sent as is)."""
    if len(line) <= limit:
        return line
    from reviewer.sanitize.redact import redact

    line = redact(line)
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    sp = cut.rfind(" ", limit // 2)
    return (cut[:sp] if sp > 0 else cut) + "…"


SCRIPT_LINES = 6  # of a multi-line shell script, the commands kept, at most
SCRIPT_LINE_CHARS = 200
# A line of a script that only prints, tests or sets a variable for the next line says
# nothing of what changed; a comment says why (kept when it heads a command).
_SCRIPT_QUIET = re.compile(
    r"^(?:(?:echo|printf|if|then|else|elif|fi|for|do|done|while|case|esac|set|local|true"
    r"|false|exit|return|sleep|read)\b|[{}();]|[A-Za-z_]\w*=)")


_LETTERS = re.compile(r"[A-Za-z]{2}")


def script_lines(command: str) -> list[str]:
    """The commands of a multi-line shell script after its first line (the call line
    shows that one), each line as written: `mv ~/Code/app ~/Code/work/app` on line 3 is
    what the session did. Prints, control words and here-document bodies are left out."""
    lines = command.split("\n")
    if len(lines) < 2:
        return []
    out: list[str] = []
    in_doc: str | None = None
    for n, raw in enumerate(lines):
        line = raw.strip()
        if in_doc is not None:
            if line.rstrip(")\"'") == in_doc:
                in_doc = None
            continue
        doc = re.search(r"<<-?\s*['\"]?(\w+)", line)
        if doc:
            in_doc = doc.group(1)
        if not n or not line or line.startswith("#") or _SCRIPT_QUIET.match(line) \
                or not _LETTERS.search(line):
            continue
        out.append(SCRIPT_PREFIX + _short(" ".join(line.split()), SCRIPT_LINE_CHARS))
        if len(out) >= SCRIPT_LINES:
            break
    return out
