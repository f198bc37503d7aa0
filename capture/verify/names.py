"""Names and numbers a text mentions: identifiers, paths, flags, settings, shared terms.

Apart from words because a fact that names something the transcript never names, or a
different number, is the verifier's most certain knowledge.
"""

from __future__ import annotations

import re

from capture.ground import normalise
from capture.verify.words import _STOP, _WORD, _root

# A number alone or with its unit (`209s`, `48.7s`, `500ms`, `10x`, `4kb`): the unit is
# not part of what is compared, the value is.
_NUMBER = re.compile(r"(?:(?<=\bv)|(?<![\w.]))\d+(?:[.,:]\d+)*"
                     r"(?![.,:]\d)(?=(?i:ms|us|ns|s|sec|secs|m|min|mins|h|hr|hrs|d|x|k|kb|mb|gb|tb|kib|mib|gib"
                     r"|tib|g|t|b|px|w|kw|hz|khz|mhz|ghz|fps|rps|qps|rpm|%)?"
                     r"(?![\w]))")
_PATH = re.compile(r"(?:~|\.{1,2})?/?[\w.@-]+(?:/[\w.@-]+)+/?")
_DOTTED = re.compile(r"\b[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+\b")
_SNAKE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
_CAMEL = re.compile(r"\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z0-9]+[A-Z]\w*\b")
_FLAG = re.compile(r"(?<![\w-])--?[a-z][\w-]*(?:=[\w.,:/+-]+)?")  # `--diff-filter=M` whole
_CAPS = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")
_TICKED = re.compile(r"`([^`\n]{2,80})`")
# A name numbered like an interface or a device (`wgclient1`, `eth0`, `sda1`), and a
# namespaced slash command (`/session-share:publish`): names, though no dot or case says so.
# (lower case: a brand written "Quad9" or "Win32" is a word, not a device's name)
_NUMBERED = re.compile(r"(?<![\w./-])[a-z][a-z-]{2,}[0-9]+(?:[a-z]+[0-9]+)*(?![\w-])")
_SLASH_COMMAND = re.compile(r"(?<![\w./~-])/[a-z][\w-]*(?::[\w-]+)+")
_NOT_IDENTS = {"e.g", "i.e", "etc", "vs"}
# Names whose value a later turn may change ("port 8080" ... "port 8081").
_KEYS = {"port", "timeout", "version", "limit", "size", "budget", "threshold", "default",
         "max", "min", "retries", "ratio", "cap", "line", "lines", "exit", "code"}


def numbers(text: str) -> list[str]:
    return sorted(_NUMBER.findall(text))


# A fact's code span that generalises (`-run <TestName>`, `…`, `{id}`) is no variant.
_PLACEHOLDER = re.compile(r"<[^<>]*>|\.\.\.|…|\{[^{}]*\}|\$\{|\[\w+\]|\bxxx?\b", re.I)


def identifiers(text: str) -> set[str]:
    """Names a reader could look up: paths, dotted/snake/camel names, flags, `code`."""
    found: set[str] = set()
    for pattern in (_PATH, _DOTTED, _SNAKE, _CAMEL, _FLAG, _CAPS, _NUMBERED, _SLASH_COMMAND):
        for m in pattern.finditer(text):
            tok = m.group().strip(".,;:()'\"").rstrip("/")
            if len(tok) > 2 and tok.casefold() not in _NOT_IDENTS and not _NUMBER.fullmatch(tok):
                found.add(tok)
    for m in _TICKED.finditer(text):
        tok = m.group(1).strip()
        if len(tok) > 2 and " " not in tok:
            found.add(tok)
    # A path's parts are not separate identifiers.
    return {t for t in found if not any(t != o and t in o for o in found)}


def same_kind(a: str, b: str) -> bool:
    """Two names of one kind: the same shape (`_kind_of`), or two files of one
    directory (`Docs/a.json`, `Docs/b.md`)."""
    if _kind_of(a) == _kind_of(b) != "other":
        return True
    da, _, fa = a.rpartition("/")
    db, _, fb = b.rpartition("/")
    return bool(da) and da.casefold() == db.casefold() and bool(fa) and bool(fb)


def _kind_of(name: str) -> str:
    """The shape of a name, for comparing like with like: a file by its extension, a
    flag, a path, an ALL_CAPS, snake_case, CamelCase or dotted name."""
    if name.startswith("-"):
        return "flag"
    if m := re.search(r"\.([a-z][a-z0-9]{0,5})$", name, re.I):
        return "file." + m.group(1).casefold()
    if "/" in name:
        return "path"
    if _CAPS.fullmatch(name):
        return "caps"
    if "_" in name:
        return "snake"
    if "." in name:
        return "dotted"
    if _NUMBERED.fullmatch(name):
        return "numbered"
    return "camel" if _CAMEL.fullmatch(name) else "other"


def _present(token: str, haystack: str) -> bool:
    t = normalise(token).strip("./")
    if not t:
        return True
    if t in haystack:
        return True
    if "/" in t:  # a path may be cited by its file name, or the file by a longer path
        return t.rsplit("/", 1)[-1] in haystack
    last = t.rsplit(".", 1)[-1]
    if "." in t and len(last) >= 4 and re.search(
            r"(?<![\w.-])" + re.escape(last) + r"(?![\w-])", haystack):
        # `jsonl.ScanInto` where the code says `func ScanInto` in package jsonl; not a
        # file's extension that another file's name ends in (`whisper.plist` is not
        # said by `com.openwisprmod.plist`).
        return True
    return t.endswith("s") and t[:-1] in haystack  # "LiveViews" where "LiveView" is said


def key_values(text: str) -> dict[str, str]:
    """`port 8080`, `timeout = 30`, `FOO_BAR: 2`: a name and the number it is given."""
    out: dict[str, str] = {}
    keys = {i.casefold() for i in identifiers(text)} | _KEYS
    pattern = re.compile(
        r"([\w./-]+)\s*(?:(?:=|:|is|was|to|at|of|set to|becomes|now)\s*){0,2}(\d+(?:\.\d+)*)\b"
    )
    for m in pattern.finditer(normalise(text)):
        key = m.group(1).strip("./")
        if key in keys and not _NUMBER.fullmatch(key):
            out.setdefault(key, m.group(2))
    return out


_HYPHENATED = re.compile(r"(?<![\w-])[a-z][a-z0-9]{2,}-[a-z][a-z0-9]{2,}(?![\w-])")
_COMMON_COMPOUNDS = {"built-in", "end-to-end", "follow-up", "read-only", "long-term",
                     "short-term", "real-time", "up-to-date", "well-known", "step-by-step",
                     "set-up", "sign-in", "log-in", "opt-in", "opt-out", "one-off",
                     "re-run", "re-check", "non-empty", "pre-existing", "so-called"}


def _shared_terms(a: str, b: str, *, strict: bool = False) -> set[str]:
    """What makes two texts speak of the same thing: a name both use, one long word
    (7+ letters, stemmed) or two medium ones (5+); `strict`: two long or three medium
    ones when no name is shared. Empty when they only share chatter."""
    na, nb = normalise(a), normalise(b)
    # A name, not a word: "tests/" in a path is the word "tests", which any text has.
    names = {i.casefold() for i in identifiers(b)
             if re.search(r"[._\-\d]|.[A-Z]", i.strip("/"))}
    shared = {i for i in names if _present(i, na)}
    # A hyphenated name ("tool-call divs", "two-line mode") is as good as an identifier,
    # unless it is a common compound ("built-in", "end-to-end").
    shared |= {w for w in _HYPHENATED.findall(nb) if w not in _COMMON_COMPOUNDS
               and re.search(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", na)}
    if shared:
        return shared

    def stems(text: str, size: int) -> set[str]:
        # Whole roots, not 5-letter stems: "tracked" and "tracker" are different things.
        return {_root(w) for w in _WORD.findall(text) if len(w) >= size and w not in _STOP}

    long_ = stems(na, 7) & stems(nb, 7)
    if long_ and (not strict or len(long_) >= 2 or max(map(len, long_)) >= 9):
        return long_
    medium = stems(na, 5) & stems(nb, 5)
    return medium if len(medium) >= (3 if strict else 2) else set()


def _names_shared(a: str, b: str) -> bool:
    """Both name the same identifier (a path, a dotted or snake name, a flag)."""
    na = normalise(a)
    return any(_present(i, na) for i in identifiers(b))
