"""gitleaks' maintained rule set, loaded as data: the provider shapes we do not hand-write.

``gitleaks/gitleaks.toml`` is gitleaks' own default configuration (MIT, its LICENSE and
the commit it came from beside it); updating the rules is replacing that file and running
``scripts/gitleaks_rules.py``. This module reads the same data (as ``rules.json``) on
first use and applies each rule the way gitleaks does: a rule runs only on a text
holding one of its keywords (case-insensitive), its regex
(Go RE2 syntax, translated once to Python's), the secret is its ``secretGroup`` or first
non-empty group, then its entropy floor, its allowlists and the global one.

Not on any hook's path: only ``reviewer.sanitize.detect`` imports this, and that is
imported by the worker, ``preview`` and the store's door.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
import re._parser as _re_parser  # a pattern's width, to bound where it can match
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# gitleaks.toml as JSON (scripts/gitleaks_rules.py; a test keeps them equal): no TOML
# parser on the worker's or preview's path.
RULES_FILE = Path(__file__).with_name("gitleaks") / "rules.json"
# Rules we leave out, and why: each is covered by a context layer of our own that keeps
# the text readable (only the value goes), or fires on ordinary prose and code.
SKIPPED = frozenset({
    "generic-api-key",  # a key name then any value: reviewer/sanitize/redact.py's assignments
    "pkcs12-file",  # a path rule (a .p12 file), not text
})
_MARKER_MAX = 40


@dataclass(frozen=True)
class _Allow:
    regexes: tuple[re.Pattern[str], ...]
    stopwords: tuple[str, ...]
    target: str  # "secret" | "match" | "line"
    all_of: bool  # condition AND

    def allows(self, secret: str, match: str, line: str) -> bool:
        if self.all_of and not self.regexes and not self.stopwords:
            return False
        target = {"match": match, "line": line}.get(self.target, secret)
        checks: list[bool] = []
        if self.regexes:
            checks.append(any(r.search(target) for r in self.regexes))
        if self.stopwords:
            low = secret.lower()
            checks.append(any(w in low for w in self.stopwords))
        return all(checks) if self.all_of else any(checks)


_NEVER = re.compile(r"(?!)")


@dataclass
class Rule:
    """One gitleaks rule; its regexes are compiled the first time a text holds one of its
    keywords (most rules never are, in a given process)."""

    id: str
    pattern: str
    keywords: tuple[str, ...]
    entropy: float
    group: int
    allow_specs: tuple[dict[str, Any], ...]

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        try:
            with warnings.catch_warnings():  # "possible nested set": valid RE2, valid here
                warnings.simplefilter("ignore", FutureWarning)
                return re.compile(go_to_python(_keyword_first(self.pattern)))
        except re.error:
            return _NEVER  # a construct Python lacks: one rule less, never a crash

    @functools.cached_property
    def widest(self) -> int:
        """The longest text a match can span (0 if unbounded): a match holding a keyword
        lies within this of it."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            hi = _re_parser.parse(self.regex.pattern, self.regex.flags).getwidth()[1]
        return hi if hi < _AFTER else 0

    @functools.cached_property
    def allow(self) -> tuple[_Allow, ...]:
        return tuple(a for a in (_allow(x) for x in self.allow_specs) if a is not None)


_LEAD = "(?i)[\\w.-]{0,50}?"


def _keyword_first(pattern: str) -> str:
    """Start a rule at its keyword: ~100 rules open with ``[\\w.-]{0,50}?`` (the key's
    name before the keyword), which ``re`` tries at every position; it is optional and
    the secret is a later group, so the same secrets are found without it (only the
    whole match's start moves, which no allowlist we apply looks at)."""
    return "(?i)" + pattern[len(_LEAD):] if pattern.startswith(_LEAD) else pattern


_FLAG_RE = re.compile(r"\(\?([imsU]+)\)")


def go_to_python(pattern: str) -> str:
    """RE2 → Python ``re``: a flag group ``(?i)`` that is not at the start applies to the
    rest of its enclosing group in Go, so it becomes a scoped ``(?i:…)`` closed there;
    ``\\z`` is Python's ``\\Z``."""
    out: list[str] = []
    opened: list[int] = []  # per open paren depth: scoped groups to close at its end
    depth_closes: list[int] = [0]
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            out.append("\\Z" if nxt == "z" and not in_class else c + nxt)
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":
                out.append("\\]")
                i += 1
            continue
        m = _FLAG_RE.match(pattern, i)
        if m is not None and i > 0:
            out.append(f"(?{m.group(1).replace('U', '')}:")
            depth_closes[-1] += 1
            i = m.end()
            continue
        if c == "(":
            depth_closes.append(0)
            opened.append(i)
        elif c == ")" and len(depth_closes) > 1:
            out.append(")" * depth_closes.pop())
            opened.pop()
        out.append(c)
        i += 1
    out.append(")" * depth_closes[0])
    return "".join(out)


def _allow(spec: dict[str, Any]) -> _Allow | None:
    if spec.get("paths") and spec.get("condition", "OR").upper() == "AND":
        return None  # needs a file path to match: never true for a text
    regexes = []
    for r in spec.get("regexes", ()):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                regexes.append(re.compile(go_to_python(r)))
        except re.error:
            continue
    stop = tuple(w.lower() for w in spec.get("stopwords", ()))
    if not regexes and not stop:
        return None
    return _Allow(tuple(regexes), stop, spec.get("regexTarget", "secret"),
                  spec.get("condition", "OR").upper() == "AND")


@functools.cache
def rules() -> tuple[tuple[Rule, ...], _Allow | None]:
    """The rules that apply to text, and the global allowlist (parsed once)."""
    import json

    data = json.loads(RULES_FILE.read_text(encoding="utf-8"))
    out = []
    for spec in data.get("rules", ()):
        if spec["id"] in SKIPPED or "regex" not in spec or spec.get("path"):
            continue
        out.append(Rule(
            id=spec["id"], pattern=spec["regex"],
            keywords=tuple(k.lower() for k in spec.get("keywords", ())),
            entropy=float(spec.get("entropy", 0.0)), group=int(spec.get("secretGroup", 0)),
            allow_specs=tuple(spec.get("allowlists", ())),
        ))
    glob = data.get("allowlist")
    return tuple(out), (_allow(glob) if glob else None)


@functools.cache
def _by_keyword() -> dict[str, tuple[Rule, ...]]:
    index: dict[str, list[Rule]] = {}
    for rule in rules()[0]:
        for k in rule.keywords:
            index.setdefault(k, []).append(rule)
    return {k: tuple(v) for k, v in index.items()}


# Where a word (or a part of a name, after "_", "-", ".") starts: its first two letters. A
# keyword that begins with two letters or digits is looked for only when some word of the
# text starts with them: one pass over the text instead of one per keyword (~240).
_ANYWHERE = frozenset({"q~"})  # keywords seen inside a token (Azure's "…8Q~…")


_WORD_RE = re.compile(r"[a-z0-9]+")


# Every byte but ASCII lowercase letters and digits made a space: the words of a text's
# UTF-8 are then its ``split()`` (a non-ASCII letter's bytes are all >= 0x80, so they part
# words exactly as ``_WORD_RE`` does), a third cheaper than ``findall``.
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
_NOT_WORD_TO_SPACE = bytes(c if c in _WORD_BYTES else 32 for c in range(256))


@functools.lru_cache(maxsize=4)
def words(low: str) -> tuple[str, ...]:
    """The distinct words (runs of ``_WORD_RE``: ASCII letters and digits) of a lowercased
    text, sorted: one pass over the text, then a word's presence as a prefix is a binary
    search."""
    raw = low.encode("utf-8", "surrogatepass").translate(_NOT_WORD_TO_SPACE)
    return tuple(sorted(w.decode("ascii") for w in set(raw.split())))


@functools.lru_cache(maxsize=4)
def word_starts(low: str) -> frozenset[str]:
    """The first two characters of every word (and part of a name) of a lowercased text."""
    return frozenset(w[:2] for w in words(low) if len(w) >= 2)


def starts_a_word(low: str, prefix: str) -> bool:
    """Whether some word of ``low`` starts with ``prefix`` (letters and digits)."""
    ws = words(low)
    i = bisect.bisect_left(ws, prefix)
    return i < len(ws) and ws[i].startswith(prefix)


def has_word(low: str, word: str) -> bool:
    """Whether ``word`` (letters and digits) is a whole word of ``low``."""
    ws = words(low)
    i = bisect.bisect_left(ws, word)
    return i < len(ws) and ws[i] == word


_FIRST_RUN_RE = re.compile(r"[a-z0-9]*")


@functools.lru_cache(maxsize=8192)
def first_run(word: str) -> str:
    """A keyword's leading letters and digits ("github" of "github_pat_")."""
    return _FIRST_RUN_RE.match(word).group()


def may_hold(low: str, word: str) -> bool:
    """A cheap necessary test for an ASCII keyword that starts a word: its leading run
    of letters and digits starts some word of the text."""
    head = first_run(word)
    return len(head) < 2 or starts_a_word(low, head)


_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]+")
_NON_ASCII_KEY_RE = re.compile(r"[^\x00-\x7f]+")


@functools.lru_cache(maxsize=4)
def non_ascii(low: str) -> str:
    """The text's runs of non-ASCII characters, joined by a NUL: where a word of another
    script can be looked for at a fraction of the cost (code and English prose hold few)."""
    return "" if low.isascii() else "\0".join(_NON_ASCII_RE.findall(low))


@functools.lru_cache(maxsize=4)
def ascii_view(low: str) -> str:
    """The text without its non-ASCII characters, for presence tests of ASCII words only
    (1 byte a character to scan instead of 2 or 4; a word found here may be absent from
    the text, which only costs a finder's call, never a miss)."""
    return low if low.isascii() else low.encode("ascii", "ignore").decode("ascii")


_TOKENS_MIN_TEXT = 4096  # below this, one scan of the text costs less than its tokens


@functools.lru_cache(maxsize=4)
def tokens(low: str) -> str:
    """The distinct whitespace-free tokens of ``ascii_view(low)``, one a line: about half
    the text in code and logs, where tokens repeat. A word without whitespace is in the
    text exactly when it is in these (it lies within one token; the joins are whitespace)."""
    return "\n".join(set(ascii_view(low).split()))


@functools.lru_cache(maxsize=4)
def distinct_tokens(text: str) -> str:
    """``text``'s distinct whitespace-free tokens, one a line, case kept: a regex that never
    matches whitespace and looks at nothing before its match finds, token by token, the same
    strings here as in the text (at about half the cost in code and logs)."""
    return "\n".join(set(text.split()))


@functools.lru_cache(maxsize=8192)
def _spaceless(word: str) -> bool:
    return word.split() == [word]


def holds(low: str, word: str) -> bool:
    """``word in ascii_view(low)``, for an ASCII word, looked for among the text's distinct
    tokens when the text is long (every finder's presence tests share them)."""
    if len(low) < _TOKENS_MIN_TEXT or not _spaceless(word):
        return word in ascii_view(low)
    return word in tokens(low)


@functools.lru_cache(maxsize=4096)
def _script_key(word: str) -> str:
    return max(_NON_ASCII_KEY_RE.findall(word), key=len, default="")


def has_other_script_word(low: str, word: str) -> bool:
    """``word in low`` for a word with non-ASCII letters, first tested on its longest
    non-ASCII run against ``non_ascii(low)`` (a str of 4 bytes a character scanned once
    per word otherwise)."""
    key = _script_key(word)
    return bool(key) and key in non_ascii(low) and word in low


def _head(k: str) -> str:
    return "" if k in _ANYWHERE or not k[:2].isalnum() or not k[:2].isascii() else k[:2]


Keyword = str | bytes


@functools.cache
def _by_head(as_bytes: bool) -> tuple[dict[str, list[tuple[Keyword, tuple[Rule, ...]]]],
                                      list[tuple[Keyword, tuple[Rule, ...]]]]:
    """Keywords by their first two characters, and those looked for in any text."""
    by_head: dict[str, list[tuple[Keyword, tuple[Rule, ...]]]] = {}
    other: list[tuple[Keyword, tuple[Rule, ...]]] = []
    for k, rs in _by_keyword().items():
        key: Keyword = k.encode() if as_bytes else k
        head = _head(k)
        if head:
            by_head.setdefault(head, []).append((key, rs))
        else:
            other.append((key, rs))
    return by_head, other


def entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values()) if n else 0.0


def kind_of(rule_id: str) -> str:
    """A marker kind (``[a-z0-9-]{1,40}``) from a gitleaks rule id."""
    kind = re.sub(r"[^a-z0-9-]+", "-", rule_id.lower()).strip("-")
    return kind[:_MARKER_MAX].rstrip("-") or "secret"


def _secret_span(rule: Rule, m: re.Match[str]) -> tuple[int, int]:
    if m.re.groups:
        if rule.group and rule.group <= m.re.groups and m.group(rule.group):
            return m.span(rule.group)
        for g in range(1, m.re.groups + 1):
            if m.group(g):
                return m.span(g)
    return m.span()


def _line(text: str, s: int, e: int) -> str:
    return text[text.rfind("\n", 0, s) + 1 : (text.find("\n", e) + 1 or len(text) + 1) - 1]


_WINDOW_MIN_TEXT = 2048  # below this, one pass over the text costs less than windows
_BEFORE, _AFTER = 96, 640  # a match starts at most this far before its keyword…


def _matches(rule: Rule, text: str, low: str) -> Iterator[re.Match[str]]:
    """The rule's matches. In a long text, only near its keywords: many rules begin with
    ``[\\w.-]{0,50}?`` before the keyword, which ``re`` tries at every position of the
    text (a third of a second per megabyte each); gitleaks needs a keyword in a match, so
    a window around each occurrence finds the same matches. Key blocks, which may run for
    kilobytes, are matched on the whole text."""
    if len(text) < _WINDOW_MIN_TEXT or "[\\s\\S" in rule.pattern:
        yield from rule.regex.finditer(text)
        return
    windows: list[list[int]] = []
    widest = rule.widest
    for k in rule.keywords:
        before, after = _BEFORE, len(k) + _AFTER
        if widest >= len(k):  # a match holding this occurrence lies within widest of it;
            # one character more, so that the window's end is never the match's ``$``
            before, after = min(before, widest - len(k)), min(after, widest + 1)
        at = low.find(k)
        while at >= 0:
            windows.append([max(0, at - before), min(len(text), at + after)])
            at = low.find(k, at + 1)
    windows.sort()
    merged: list[list[int]] = []
    for w in windows:
        if merged and w[0] <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], w[1])
        else:
            merged.append(w)
    done = 0
    for lo, hi in merged:
        for m in rule.regex.finditer(text, max(lo, done), hi):
            done = m.end()
            yield m


def find(text: str, low: str) -> Iterator[tuple[int, int, str]]:
    """Every gitleaks finding in ``text``: (start, end, kind) of the secret part."""
    glob = rules()[1]
    starts = word_starts(low)
    by_head, other = _by_head(False)
    present = [rs for head in starts & by_head.keys() for k, rs in by_head[head]
               if may_hold(low, str(k)) and holds(low, str(k))]
    present += [rs for k, rs in other if holds(low, str(k))]
    if not present:
        return
    seen: set[str] = set()
    for group in present:
        for rule in group:
            if rule.id in seen:
                continue
            seen.add(rule.id)
            for m in _matches(rule, text, low):
                s, e = _secret_span(rule, m)
                secret = text[s:e]
                if not secret or (rule.entropy and entropy(secret) < rule.entropy):
                    continue
                if glob is not None and glob.allows(secret, m.group(), ""):
                    continue
                if rule.allow:
                    line = _line(text, s, e)
                    if any(a.allows(secret, m.group(), line) for a in rule.allow):
                        continue
                yield s, e, kind_of(rule.id)
