"""What a tool result carries that condensation would otherwise drop (issue 21): the
lines of a result that the assistant's next words rely on, a script's commands past its
first line. Stdlib only (the reader's path).

A tool result is mostly noise (a listing, a file's code, a build log), and sending it
whole would cost the budget many times over. But when the assistant answers right after
it, the lines it draws on are the finding: "`queue-operation` is for enqueue/dequeue"
rests on the `grep` line that shows `"operation":"enqueue"`. Overlap between a result's
line and the next assistant text is the signal: a line kept must share distinctive words
(identifiers, paths, numbers, long words) with it.
"""

from __future__ import annotations

import re

from capture.noise import ends
from reviewer.shell_words import command_lines, unwrapped

QUOTED_PREFIX = "» "  # a result's line the next answer relies on, hung under its call
# A script's command past its first line: a call line of its own (what was run, not
# what is true: the verifier treats a quote of it as it treats any call line).
SCRIPT_PREFIX = "Bash ⋯ "
QUOTED_LINES = 3  # of one result, at most
QUOTED_LINE_CHARS = 220  # of one line, at most
RESULT_SCAN = 24_000  # of a result, only this much is searched (its head and its end)
MIN_LINE = 12  # a shorter line says too little to be worth its place
MIN_SHARED = 2  # distinctive words a line must share with the answer (a long path: 2)

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


# Where a script without spaces between words (Japanese, Chinese) meets Latin letters or
# digits: "計40回" holds the number 40, "デモはsettle_vaultを" the name settle_vault.
_SCRIPT_EDGE = re.compile(r"(?<=[\x00-\x7f])(?=[^\x00-\x7f])|(?<=[^\x00-\x7f])(?=[\x00-\x7f])")
_NUMBER = re.compile(r"\d{2,}")


def _words(text: str) -> set[str]:
    """Distinctive words of a text, lower-cased: an identifier, a path, a number of two
    digits or more, a word of 8 letters or more; not the common words of prose."""
    if not text.isascii():
        text = _SCRIPT_EDGE.sub(" ", text)
    out: set[str] = set()
    for w in set(_TOKEN.findall(text)):
        if (len(w) < 4 and not _NUMBER.fullmatch(w)) or \
                (len(w) < 8 and not _DISTINCT.search(w)):
            continue
        low = w.lower()
        if low not in _COMMON:
            out.add(low.strip(".:/-"))
    return out


ANSWER_CHARS = 4000  # of an answer, the words of this much are looked for


def answer_words(answer: str) -> set[str]:
    """The distinctive words of an answer (its opening: what it draws on first), to find
    the lines of results it relies on."""
    return _words(answer[:ANSWER_CHARS])


_OCCURRENCES = 20  # of one word in one result, at most this many looked at


_STRESS = re.compile(r"\*\*([^*\n]{1,160})\*\*|`([^`\n]{1,160})`")


def stressed_words(answer: str) -> set[str]:
    """The distinctive words an answer stresses (`**kmod-x**`, `` `conffile` ``): what it
    singles out of what it read."""
    return _words(" ".join(a or b for a, b in _STRESS.findall(answer[:ANSWER_CHARS])))


def quoted_lines(body: str, answer: str, most: int = QUOTED_LINES, *,
                 words: set[str] | None = None, stressed: set[str] | None = None,
                 shown: str = "") -> list[str]:
    """Up to `most` lines of a tool result that the answer after it draws on, in the
    result's order, each cut to QUOTED_LINE_CHARS; none when the answer shares nothing
    distinctive with it. A word the answer stresses counts once more. `words`,
    `stressed`: the answer's, when already known; `shown`: text already sent of this
    result (a failure's key lines), whose lines are not quoted again.

    Substring searches over the whole result, not a pass per line: a result can be long
    and this is on `preview`'s path."""
    mine = answer_words(answer) if words is None else words
    if not mine or not body.strip():
        return []
    if stressed is None:
        stressed = stressed_words(answer)
    body = ends(body, RESULT_SCAN)
    low = body.lower()  # as _words lowers the answer's (casefold: several times slower)
    if len(low) != len(body):  # a letter that lowers to two: offsets would not match
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in body)
    found: dict[int, int] = {}  # a line's start → how much of the answer it holds
    for w in mine:
        pos = low.find(w)
        weight = (2 if len(w) >= 12 and _PATHLIKE.search(w) else 1) + (w in stressed)
        n = 0
        seen_lines: set[int] = set()
        while pos >= 0 and n < _OCCURRENCES:
            start = low.rfind("\n", 0, pos) + 1
            if start not in seen_lines:
                seen_lines.add(start)
                found[start] = found.get(start, 0) + weight
            n += 1
            nxt = low.find("\n", pos)
            if nxt < 0:
                break
            pos = low.find(w, nxt)
    scored: list[tuple[int, int, str]] = []
    seen: set[str] = set()
    for start, score in found.items():
        if score < MIN_SHARED:
            continue
        end = body.find("\n", start)
        line = _NUMBERED.sub("", body[start: end if end >= 0 else len(body)]).strip()
        if len(line) < MIN_LINE or _NOISE.match(line):
            continue
        flat = " ".join(line.split())
        if flat in seen or (shown and flat in shown):
            continue
        seen.add(flat)
        scored.append((score, start, flat))
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
# A print sent into a file is a write (`echo '*/5 * * * * /root/x.sh' >> /etc/crontabs/root`).
_WRITES = re.compile(r"(?<![\d&])>>?\s*(?!/dev/null)['\"]?[\w~./$-]")


def script_lines(command: str) -> list[str]:
    """The commands of a multi-line shell script after its first line (the call line
    shows that one), each line as written: `mv ~/Code/app ~/Code/work/app` on line 3 is
    what the session did. Prints (not into a file), control words, here-document bodies
    and the lines of a quoted string (`python3 -c "…"`: a program, not commands) are
    left out. A wrapper's script (`ssh host "…"` over several lines) is read as one."""
    if "\n" not in command:
        return []
    command = unwrapped(command)
    out: list[str] = []
    for raw in command_lines(command)[1:]:
        line = raw.strip()
        if not line or line.startswith("#") or (_SCRIPT_QUIET.match(line)
                                                 and not _WRITES.search(line)) \
                or not _LETTERS.search(line):
            continue
        out.append(_short(" ".join(line.split()), SCRIPT_LINE_CHARS))
        if len(out) >= SCRIPT_LINES:
            break
    return out
