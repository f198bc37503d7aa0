"""A value a person gives to a named thing, in any language: found by its shape and its
place in a sentence, not by the words around it.

The keyword layers know the word for *password* in some sixty languages; every fresh
battery brought languages and spellings they did not know. What does not change from one
language to the next is the sentence: a run of words (any script) that names something,
then one token that is not a word — letters and digits, the way people make passwords
(``falcon2024!``, ``GlacierCanyon12``, ``anchor_canyon_1136``, ``Hazel%obelisk4155``) —
bound to the words by its place: after a colon-like mark, a quote, or a word (a copula or
a preposition, in whatever language), and followed by the end of the clause.

The precision guard is the same language-free reading: the sentence around the value is
prose (words, at most one technical token: no paths, flags, assignments, code or markup
around it), and the value is none of what people write in prose about code (a version,
a file name, a host, a date, a digest, a name of words without digits, a ticket id, an
acronym with a number).

Found from where a digit run ends a token after a letter (``re`` skips to it in C), so
a text without one costs a single scan.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from reviewer.sanitize import redact as _redact

Span = tuple[int, int, str]

# A run of 2-6 digits right after a letter (or a letter and one separator), ending a
# token or followed by signs: where a person's password ends ("…2024!", "…_1136").
_ANCHOR_RE = re.compile(r"[0-9](?:(?<=[A-Za-z][0-9])|(?<=[A-Za-z][_.\-!@#$%^&*~?+][0-9]))[0-9]{1,5}"
                        r"[!@#$%^&*~?+]{0,3}(?![0-9A-Za-z_])")
_TOKEN_STOP = frozenset(" \t\r\n\"'`<>()[]{}=,;|\\/«»“”„‘’「」『』：，、。")
_SIGNS = frozenset("!@#$%^&*~?+")
_MAX_TOKEN = 64

# Shape B: words (each three letters or more, capitalised or small) joined or glued,
# then 2-6 digits: "GlacierCanyon12", "anchor_canyon_1136", "walrus-cobalt-…-73".
_WORDED_RE = re.compile(r"[A-Za-z][a-z]{2,14}(?:[_.\-][A-Za-z][a-z]{2,14}|[A-Z][a-z]{2,14}){1,4}"
                        r"[_.\-]?\d{2,6}")
# Shape A: letters, digits and a sign a person typed ("falcon2024!", "Hazel%obelisk4155").
_LETTERS_RE = re.compile(r"[A-Za-z]{3,}")

# What prose about code holds that a password does not.
_NOT_VALUE_RE = re.compile(
    r"v?\d+(?:[._\-]\d+)+.*"  # a version or a date
    r"|.*\.(?:[a-z]{1,4}\d?)"  # a file name
    r"|[A-Z]{2,}[_\-]?\d.*|.*[_\-][A-Z]{2,}\d*"  # CVE-2024…, AES_256, ISO-8859, …_V2
    r"|.*(?:\.\.|::|->|=>).*"
    r"|.*[#@]\d+"  # "poetry-core#826", "pkg@18": an issue, a version
)
_CODE_RE = re.compile(r"sha-?\d|md5|utf-?\d|base\d\d|aes-?\d|rsa-?\d|x86|amd64|arm64|int\d|uint"
                      r"|float\d|ipv\d", re.IGNORECASE)
_TECH_RE = re.compile(
    r"python|node|java|ubuntu|debian|alpine|win(?:dows)?\d|macos|ios\d|android|gpt|claude"
    r"|llama|test|spec|fixture|step|phase|part|chapter|page|item|case|issue|ticket|build"
    r"|release|version|feature|branch|commit|patch|batch|sprint|round|stage|level|tier|zone"
    r"|region|node|pod|host|server\d|db\d|table|column|row|field|param|arg|var|func|method"
    r"|class|module|lib|pkg|package|plugin|config|setting|option|flag|mode|type|kind",
    re.IGNORECASE,
)

# The sentence: back to a line's start or a sentence's end, forward to the same.
_REACH = 200
_SENTENCE_END_RE = re.compile(r"[.!?。！？।]\s|[\n\r]|\\n")
_LETTER_WORD_RE = re.compile(r"[^\W\d_]{2,}")
_BIND_MARKS = frozenset(":：=—–→>-\"'“”„«»‘’「『")
_CLAUSE_END = frozenset(".,;:!?)»”’\"'。，、！？؟،")
_TECHNICAL_RE = re.compile(r"[/\\=_{}()<>\[\]$|`&]|\w\.\w|^--?\w|[A-Za-z]\d|\d[A-Za-z]|@\w"
                           r"|^[^A-Za-z]*\d[:.,][^A-Za-z]*$")  # 8080:8080, 10.0.0.5


def _shape(core: str) -> str | None:
    """Which kind of person-made value ``core`` is ("signed", "worded"), if any."""
    if not 7 <= len(core) <= _MAX_TOKEN or not core.isascii() or ":" in core:
        return None  # ":": a user and a password, an image and its tag: other layers'
    if _CODE_RE.search(core):
        return None
    if _NOT_VALUE_RE.fullmatch(core) or _redact.MARKER_RE.search(core) or "://" in core:
        return None
    if "@" in core and re.search(r"@[\w\-]+\.\w", core):
        return None  # an address
    if _redact._UUID_RE.match(core) or _redact._HEX_RE.match(core) or _redact.placeholder(core):
        return None
    letters = _LETTERS_RE.search(core)
    if letters is None:
        return None
    signed = any(c in _SIGNS for c in core[1:]) and core[0] not in "@#$%&~+!?"
    if signed:
        if core.count("%") >= 2 or (core.rstrip("!?").isalnum() and core[-1] in "!?" and (
                sum(c.isdigit() for c in core) < 2)):
            return None
        return "signed"
    if _WORDED_RE.fullmatch(core) and not _TECH_RE.search(core):
        return "worded"
    return None


def _token(text: str, end: int) -> tuple[int, int] | None:
    """The token that ends at ``end`` (``re`` found its last digits or signs)."""
    s = end
    lo = max(0, end - _MAX_TOKEN - 1)
    while s > lo and text[s - 1] not in _TOKEN_STOP and text[s - 1].isascii():
        s -= 1
    if s == lo and lo > 0:
        return None  # longer than a password
    while s < end and text[s] in "*_.-:":
        s += 1
    return s, end


def _sentence(text: str, s: int, e: int) -> tuple[str, str]:
    """The sentence's words before the value and after it."""
    lo = max(0, s - _REACH)
    left = text[lo:s]
    cut = None
    for m in _SENTENCE_END_RE.finditer(left):
        cut = m.end()
    if cut is not None:
        left = left[cut:]
    right = text[e : e + _REACH]
    m = _SENTENCE_END_RE.search(right)
    if m is not None:
        right = right[: m.start() + 1]
    return left, right


# Scripts written without spaces between words (CJK, kana, Thai, Lao, Tibetan, Myanmar,
# Khmer): a run of them is several words.
_UNSPACED_RE = re.compile("[\u0e00-\u0fff\u1000-\u109f\u1780-\u17ff\u2e80-\u9fff"
                          "\uac00-\ud7af\uf900-\ufaff]+")


def _is_letter(c: str) -> bool:
    """A letter or a mark of a word, in any script (Indic words end in a vowel sign)."""
    return c.isalpha() or unicodedata.category(c)[0] == "M"


def _letter_words(part: str) -> int:
    n = 0
    for p in part.split():
        if not any(_is_letter(c) for c in p) or any(c.isdigit() for c in p):
            continue
        runs = _UNSPACED_RE.findall(p)
        n += max(1, (sum(len(r) for r in runs) + 1) // 2) if runs else 1
    return n


_EDGES = ".,;:!?()[]\"'«»“”„‘’"


def _prose(left: str, right: str, strict: bool) -> bool:
    """A person's sentence around the value: words, bound to it by place, no code."""
    before = left.rstrip()
    after = right.strip()
    if before:
        tail = before[-1]
        if not (tail in _BIND_MARKS or _is_letter(tail) or not tail.isascii()):
            return False  # after a digit, a bracket, a flag's "-x" … : not a value given
        prev = before[-2] if len(before) >= 2 else " "
        if tail == "-" and not (prev.isspace() or _is_letter(prev)):
            return False  # "--pass-"…: a flag, not a dash (nor "ל-", glued to a word)
    elif strict or not after or not _is_letter(after[0]) or after[0].isascii():
        return False  # first in its sentence: only glued to the words of another script
    if right and not (right[0].isspace() or right[0] in _CLAUSE_END or not right[0].isascii()):
        return False
    words = _letter_words(left) + _letter_words(right)
    if words < 2:
        return False
    pieces = [p.strip(_EDGES) for p in (left + " " + right).split()]
    pieces = [p for p in pieces if p]
    technical = sum(1 for p in pieces if _TECHNICAL_RE.search(p))
    if technical > (1 if strict else 2) or technical * (6 if strict else 4) > len(pieces):
        return False
    return not (strict and (left.count("`") % 2 == 1))  # inside backticks: code


def find_bound_values(text: str, low: str) -> Iterator[Span]:
    """A person-made value in a sentence of words, bound to them by place: any language."""
    done = 0
    for m in _ANCHOR_RE.finditer(text):
        if m.start() < done:
            continue
        span = _token(text, m.end())
        if span is None:
            continue
        s, e = span
        done = e
        kind = _shape(text[s:e])
        if kind is None:
            continue
        left, right = _sentence(text, s, e)
        if _prose(left, right, strict=kind == "worded"):
            yield s, e, "password"


FINDERS = (find_bound_values,)
