"""What a fact gets wrong against its own quote, known from the text's form (issue 21).

Each check compares one token of the fact with the token in the same slot of its quote,
so it reads code, values and symbols, not English sentences: a session in Japanese gives
`text-black` → `text-gray-900` and `"type": "command"` as any other does.

- a move reversed: the quote moves A to B, the fact B to A;
- a setting's quoted value (`"type": "command"` / type "static");
- a command in backticks with one word changed (`make update` / `make install`);
- a value that differs in case only where case is its meaning (`[y/N]` / `[Y/n]`);
- a number beside the part of a compound key (`ratio_threshold=100.0` / threshold 500);
- a default the quote gives (`(default 50)`) the fact gives otherwise (10 "unless …");
- a look that found nothing (`No files found`) stated as a thing that exists;
- a line a command printed from its own literal whatever happened (`; echo "All
  fixed"`): what the call was written to say, not what it found. (`&& echo ok` and
  `|| echo NOT_INSTALLED` print on a condition: their line is what the condition found.)
"""

from __future__ import annotations

import re

from capture.claims import moves
from capture.ground import normalise
from capture.verify.words import _predicate_negations


def _same(a: str, b: str) -> bool:
    return normalise(a).strip("`'\" .:") == normalise(b).strip("`'\" .:")


def move_reversed(fact: str, quote: str) -> str:
    """The quote moves A to B and the fact moves B to A: what the quote says, or ""."""
    mine = moves(fact)
    for old, new in moves(quote):
        if _same(old, new):
            continue
        for f_old, f_new in mine:
            if _same(f_old, new) and _same(f_new, old):
                return f"the quote moves {old} to {new}; the fact moves {new} to {old}"
    return ""


# A look's result that found nothing, the whole of the quote.
_NOTHING = re.compile(
    r"^\W*(?:no (?:files?|matches|match|results?|entries|items|output|such file"
    r"(?: or directory)?|[\w.-]+ files?)(?: (?:were |was )?found)?|nothing (?:was )?found"
    r"|(?:file )?not found|0 (?:files?|matches|results?)(?: found)?|found 0 \w+)\W*$")
# The fact says something is absent: it agrees with a look that found nothing.
_ABSENT = re.compile(r"\b(?:no|none|not|nothing|without|absent|missing|lacks?|lacked|never"
                     r"|zero|0|neither|nor|doesn't|does not|isn't|is not|aren't|are not"
                     r"|wasn't|was not|weren't|were not|didn't|did not|hasn't|has not"
                     r"|haven't|have not|cannot|can't|removed|deleted|gone)\b")


def nothing_found(fact: str, quote: str) -> str:
    """The quote is a look's empty result ("No files found") and the fact states that a
    thing exists, negating nothing: the quote, or ""."""
    q = normalise(quote)
    if not _NOTHING.match(q):
        return ""
    f = normalise(fact)
    if _ABSENT.search(f) or _predicate_negations(fact):
        return ""
    return q.strip()


# A key given a quoted value: `"type": "command"`, `mode = 'fast'`, `type "static"`.
_KEY = r"[\"'`]?(?P<key>[A-Za-z_][\w.-]{1,40})[\"'`]?"
_QUOTED = r"(?P<q>[\"'`])(?P<value>[^\"'`\n]{1,60})(?P=q)"
_QUOTED_SETTING = re.compile(r"(?<![\w.-])" + _KEY + r"\s*(?:=|:|=>)\s*" + _QUOTED)
_FACT_SETTING = re.compile(r"(?<![\w.-])" + _KEY
                           + r"(?:\s*(?:=|:|=>)\s*|\s+(?:(?:is|was|set to|of|as|to|=)\s+)?)"
                           + _QUOTED)


def quoted_value_changed(fact: str, quote: str) -> str:
    """The quote gives a key a quoted value and the fact gives the same key another one,
    said nowhere in the quote: what differs, or ""."""
    given: dict[str, set[str]] = {}
    for m in _QUOTED_SETTING.finditer(quote):
        given.setdefault(m.group("key").casefold(), set()).add(m.group("value").strip())
    if not given:
        return ""
    q = normalise(quote)
    for m in _FACT_SETTING.finditer(fact):
        key, value = m.group("key").casefold(), m.group("value").strip()
        # a value that holds the quote's, or is held by it (`class="tool-call"` of
        # `class="tool-call collapsible"`), names the same thing more or less fully
        if key in given and not any(_overlaps(value, v) for v in given[key]) and \
                normalise(value) not in q:
            said = ", ".join(sorted(given[key]))
            return f"{m.group('key')}: the quote says “{said}”, the fact “{value}”"
    return ""


def _overlaps(a: str, b: str) -> bool:
    a, b = normalise(a), normalise(b)
    return a in b or b in a


_TICKED = re.compile(r"`([^`\n]{2,80})`")
_WORD = re.compile(r"[^\s]+")


def ticked_changed(fact: str, quote: str) -> str:
    """A command in backticks in both, of the same length and head, one later word
    changed, and the fact's word nowhere in the quote (`make update` / `make install`):
    what differs, or ""."""
    q = normalise(quote)
    spans = [_WORD.findall(normalise(s)) for s in _TICKED.findall(quote)]
    for span in _TICKED.findall(fact):
        toks = _WORD.findall(normalise(span))
        if len(toks) < 2 or " ".join(toks) in q:
            continue
        for other in spans:
            if len(other) != len(toks) or other[0] != toks[0]:
                continue
            diff = [i for i, (a, b) in enumerate(zip(toks, other, strict=True)) if a != b]
            if len(diff) == 1 and diff[0] > 0 and not re.search(
                    r"(?<![\w-])" + re.escape(toks[diff[0]]) + r"(?![\w-])", q):
                return f"`{span}` where the quote has `{' '.join(other)}`"
    return ""


# A value whose letters' case is its meaning: a prompt's default (`[y/N]`), a mode.
_CASED = re.compile(r"\[[A-Za-z]{1,5}(?:/[A-Za-z]{1,5})+\]|\([A-Za-z]{1,5}(?:/[A-Za-z]{1,5})+\)")


def case_changed(fact: str, quote: str) -> str:
    """The fact gives a choice whose case marks its default (`[Y/n]`) otherwise than
    its quote (`[y/N]`): what differs, or ""."""
    said = _CASED.findall(quote)
    for mine in _CASED.findall(fact):
        for theirs in said:
            if mine != theirs and mine.casefold() == theirs.casefold():
                return f"{mine} where the quote has {theirs} (the capital is the default)"
    return ""


_PARTS = re.compile(r"[_.-]")


def compound_number_changed(fact: str, quote: str) -> str:
    """The quote gives a compound key a number (`ratio_threshold=100.0`), the fact gives
    the key's last part another one ("a threshold of 500") and does not say the quote's:
    what differs, or ""."""
    from capture.claims import beside

    got: dict[str, set[str]] = {}
    for key, nums in beside(quote).items():
        parts = [p for p in _PARTS.split(key) if p]
        if len(parts) > 1 and len(parts[-1]) >= 4:
            got.setdefault(parts[-1].rstrip("s"), set()).update(nums)
    if not got:
        return ""
    for word, nums in beside(fact).items():
        if word in got and not nums & got[word] and not any(
                _number_in(n, normalise(fact)) for n in got[word]):
            return f"{sorted(nums)[0]} {word} where the quote has {', '.join(sorted(got[word]))}"
    return ""


def _number_in(n: str, text: str) -> bool:
    return bool(re.search(r"(?<![\d.])" + re.escape(n) + r"(?![\d])", text))


_ECHO = re.compile(r"(?:^(?:bash:)?|(?P<op>&&|\|\||;|\||\bthen|\belse|\bdo))\s*(?:echo|printf)"
                   r"(?:\s+-[a-z]+)*\s+(?P<q>[\"'])(?P<text>.*?)(?P=q)")


def echoed(call: str, quote: str) -> tuple[str, bool]:
    """The call printed the quote from a literal of its own (`echo "No errors"`): the
    literal and whether it printed it whatever happened (at the start, after `;` or a
    pipe) rather than on a condition (`&& echo ok`, `|| echo none`, a `then` branch),
    where the line still says what the condition found. ("", False) when not."""
    q = normalise(quote).strip()
    if len(q) < 8:
        return "", False
    for m in _ECHO.finditer(normalise(call)):
        if q in m.group("text"):
            return m.group("text"), m.group("op") in (None, ";", "|")
    return "", False


# "(default 50)", "default: 3600s", "defaults to 10", "default is 8080", "default=5"
_DEFAULT_IS = re.compile(r"\bdefault(?:s to|s? is|s? of|\s*[:=]|\b)\s*[\"'`(]?\s*"
                         r"(\d+(?:\.\d+)?)(?![\d.])")
# The fact speaks of a default: "by default", "defaults to", "unless a limit is passed".
_FACT_DEFAULT = re.compile(r"\bdefault|\bunless\b|\botherwise\b|\bif (?:none|no|not)\b"
                           r"|\bwhen (?:none|no|not|omitted|unset)\b|\bwithout (?:a|an|any)\b")
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\d.]|\.\d)")


def default_changed(fact: str, quote: str) -> str:
    """The quote gives a default (`limit` (default 50)) and the fact, speaking of the
    default, gives a number the quote does not, while saying none of the quote's
    defaults: what differs, or ""."""
    q = normalise(quote)
    defaults = set(_DEFAULT_IS.findall(q))
    f = normalise(fact)
    if not defaults or not _FACT_DEFAULT.search(f):
        return ""
    mine = set(_NUMBER.findall(f))
    if not mine or any(_number_in(d, f) for d in defaults) or any(
            _number_in(n, q) for n in mine):
        return ""
    return (f"the fact gives {', '.join(sorted(mine))}; the quote's default is "
            f"{', '.join(sorted(defaults))}")


def against_quote(fact: str, quote: str) -> tuple[str, str] | None:
    """The first of these checks the fact fails against its quote: (check, detail)."""
    if said := nothing_found(fact, quote):
        return "negation_flip", f"the quote says “{said}”; the fact says it exists"
    if moved := move_reversed(fact, quote):
        return "negation_flip", moved
    if value := quoted_value_changed(fact, quote):
        return "identifier_mismatch", "the quote sets it otherwise: " + value
    if ticked := ticked_changed(fact, quote):
        return "identifier_mismatch", "the fact's command differs from its quote's: " + ticked
    if cased := case_changed(fact, quote):
        return "identifier_mismatch", cased
    if default := default_changed(fact, quote):
        return "number_mismatch", default
    if counted := compound_number_changed(fact, quote):
        return "number_mismatch", "the quote gives another value: " + counted
    return None
