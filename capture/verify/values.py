"""Knowledge checks on values: a number, unit, name or flag value differs from the quote's.

Pure comparisons of a fact against its quote (or the text near it); a mismatch here is
known, not suspected, so it may mark a candidate ungrounded.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from capture.ground import normalise
from capture.verify.names import (
    _PLACEHOLDER,
    _TICKED,
    _present,
    identifiers,
    numbers,
    same_kind,
)
from capture.verify.words import _CUT_MARKER, _STOP, _WORD, _expand, _stem, negations

_UNIT = re.compile(r"(?:(?<=\bv)|(?<![\w.]))(\d+(?:[.,]\d+)?)(?:\s?|-)(ms|us|ns|s|sec|secs|min"
                   r"|mins|h|hr|hrs|kb|mb|gb|tb|kib|mib|gib|tib|px|%|milliseconds?|seconds?"
                   r"|minutes?|hours?|days?|bytes?|kilobytes?|megabytes?|gigabytes?)(?![\w])",
                   re.I)
# A unit spelt out is its short form: "5 seconds" and "5s" say the same.
_SPELT = {"millisecond": "ms", "milliseconds": "ms", "second": "s", "seconds": "s",
          "minute": "min", "minutes": "min", "hour": "h", "hours": "h", "day": "d", "days": "d",
          "byte": "b", "bytes": "b", "kilobyte": "kb", "kilobytes": "kb", "megabyte": "mb",
          "megabytes": "mb", "gigabyte": "gb", "gigabytes": "gb"}
# A rate: "10/second", "10 per minute", "5/s", "100 requests per hour" (a word or two
# between the number and "per").
_RATE = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)\s?(?:[a-z]+\s){0,2}?(?:/|per\s+|an?\s+)"
                   r"(ns|us|ms|s|sec|secs?|seconds?|m|min|mins?|minutes?|h|hr|hrs?|hours?|d"
                   r"|days?)(?![\w])", re.I)
_RATE_BASE = {"ns": "ns", "us": "us", "ms": "ms", "s": "s", "sec": "s", "secs": "s",
              "second": "s", "seconds": "s", "m": "min", "min": "min", "mins": "min",
              "minute": "min", "minutes": "min", "h": "h", "hr": "h", "hrs": "h", "hour": "h",
              "hours": "h", "d": "d", "day": "d", "days": "d"}
# Units of one kind: a number given in the wrong one is a changed value. The scale says
# which are the same amount ("sec" and "s").
_UNIT_SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "secs": 1.0,
               "min": 60.0, "mins": 60.0, "h": 3600.0, "hr": 3600.0, "hrs": 3600.0,
               "d": 86400.0, "b": 1.0, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "kib": 1024.0,
               "mib": 1024.0 ** 2, "gib": 1024.0 ** 3, "tib": 1024.0 ** 4,
               **{f"/{b}": 1 / v for b, v in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3),
                                              ("s", 1.0), ("min", 60.0), ("h", 3600.0),
                                              ("d", 86400.0))}}
_UNIT_KIND = {**dict.fromkeys(("ns", "us", "ms", "s", "sec", "secs", "min", "mins", "h", "hr",
                               "hrs", "d"), "time"),
              **dict.fromkeys(("b", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib"), "size"),
              **dict.fromkeys(("/ns", "/us", "/ms", "/s", "/min", "/h", "/d"), "rate")}


def unit_numbers(text: str) -> dict[str, set[str]]:
    """Numbers with a unit, by unit (`0.6s`, `10MB`, `500 ms`, a rate `10/second` as
    "/s"): {"s": {"0.6"}, …}."""
    out: dict[str, set[str]] = {}
    rates = list(_RATE.finditer(text))
    for m in rates:
        number = float(m.group(1).replace(",", "."))
        out.setdefault("/" + _RATE_BASE[m.group(2).casefold()], set()).add(f"{number:g}")
    taken = [m.span() for m in rates]
    for m in _UNIT.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue  # "10/s" is a rate, not ten seconds
        number = float(m.group(1).replace(",", "."))  # "100.00 MB" is "100 MB"
        unit = m.group(2).casefold()
        out.setdefault(_SPELT.get(unit, unit), set()).add(f"{number:g}")
    return out


# A value the fact denies or sets aside ("not the 145% shown by top", "instead of 30s"):
# the fact does not claim it, so it is no value changed.
_DENIED_VALUE = re.compile(r"\b(?:not|never|rather than|instead of|unlike|no longer|vs\.?"
                           r"|versus)\s+(?:the\s+|a\s+|an\s+)?(?:[~≈]\s?)?\d[\w.,%/]*")


def claimed(fact: str) -> str:
    """The fact without the values it denies ("… 77.7 MB, not the 145% shown")."""
    return _DENIED_VALUE.sub(" ", normalise(fact))


def unit_changed(fact: str, quote: str) -> list[str]:
    """The fact's quantities whose unit the quote also gives, with none of the quote's
    values for it: "1MB" where the quote says "10MB", "0.3s" where it says "0.6s"; and
    a rate or size whose number the quote gives in another unit of its kind ("10 per
    minute" where the quote says "10/second", "128 MB" where it says "128 KB")."""
    q = unit_numbers(quote)
    f = unit_numbers(claimed(fact))
    # A number the quote gives without a unit ("--update 2" for "every 2 seconds") may be
    # the same value: not known changed.
    bare = set(re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.%/]|\s?(?:[a-z%]))",
                          normalise(quote)))
    out = [f"{v}{u}" for u, vs in f.items() if u in q for v in sorted(vs - q[u] - bare)]
    for u, vs in f.items():
        kind = _UNIT_KIND.get(u)
        if kind is None:
            continue
        for v in sorted(vs):
            elsewhere = [qu for qu, qvs in q.items() if qu != u and v in qvs
                         and _UNIT_KIND.get(qu) == kind and not _same_amount(v, u, qu)]
            if elsewhere and v not in q.get(u, ()):
                out.append(f"{v}{u} where the quote has {v}{elsewhere[0]}")
    return out


def _same_amount(v: str, u: str, other: str) -> bool:
    """`v` in unit `u` is the same amount as `v` in `other` ("sec" and "s")."""
    return _UNIT_SCALE.get(u) == _UNIT_SCALE.get(other)


_TRANSITION = re.compile(r"\bfrom\s+v?(\d+(?:\.\d+)*)\s+(?:to|→|->)\s+v?(\d+(?:\.\d+)*)")
_TO_VALUE = re.compile(r"(?:\bto|→|->)\s+v?(\d+(?:\.\d+)*)\b")


def transition_changed(fact: str, quote: str) -> str:
    """The quote moves a value "from A to B"; the fact says it went to another value
    ("changed to 1.23" where the quote says "from 1.24.0 to 1.21 to match CI (Go 1.23)").
    What the fact gets wrong, or ""."""
    targets = {b for _, b in _TRANSITION.findall(normalise(quote))}
    if not targets:
        return ""
    for m in _TO_VALUE.finditer(normalise(fact)):
        if m.group(1) not in targets:
            return f"the quote moves it to {', '.join(sorted(targets))}, not {m.group(1)}"
    return ""


_QTY = r"(\d+(?:[.,]\d+)*)\s?([a-z%]{1,4}\b)?"
# A quantity moved: "128 KB → 512 KB", "1000 -> 5000 entries", "increased the cap from
# 30 to 90" (an arrow, or "from … to" after a verb of change: "from 1 to 5" alone may be a
# range).
_QTY_MOVE = re.compile(
    r"(?<![\w.])" + _QTY + r"\s*(?:→|->|=>|⟶)\s*" + _QTY
    + r"|\b(?:increas\w*|decreas\w*|rais\w*|lower\w*|chang\w*|bump\w*|reduc\w*|grew|grow\w*"
    r"|went|moved?|dropp\w*|cut|doubl\w*|halv\w*|shrank|shrunk|updat\w*|set)\b[^.;:\n]{0,40}?"
    r"\bfrom\s+" + _QTY + r"\s+to\s+" + _QTY
    # "the chunk size from 8 MB to 32 MB": both sides with a unit, and no range
    + r"|(?<!range)(?<!ranges)(?<!ranging)(?<!ranged)(?<!varies)(?<!vary)(?<!anywhere)"
    r"(?<!between)\s"
    r"from\s+(\d+(?:[.,]\d+)*)\s?([a-z%]{1,4})\s+to\s+(\d+(?:[.,]\d+)*)\s?([a-z%]{1,4})\b")
# A fact that tells of a change, or of the old value as old.
_TELLS_CHANGE = re.compile(r"\b(?:from|was|were|previously|formerly|used to|old|before|no longer"
                           r"|increas\w*|decreas\w*|rais\w*|lower\w*|chang\w*|bump\w*|reduc\w*"
                           r"|replac\w*|instead|→)|→|->")


def _said(n: str, unit: str, text: str) -> bool:
    """The number `n` (with its unit, when it has one) stands in `text`."""
    return bool(re.search(r"(?<![\d.,])" + re.escape(n) + r"(?![\d]|[.,]\d)"
                          + (r"\s?" + re.escape(unit) if unit else ""), text))


def old_value_as_current(fact: str, quote: str) -> str:
    """The quote moves a quantity ("log buffer size: 128 KB → 512 KB"); the fact gives
    the old one as the value, never the new one, and tells of no change: what it gets
    wrong, or ""."""
    f = claimed(fact)
    if _TELLS_CHANGE.search(f):
        return ""
    for m in _QTY_MOVE.finditer(normalise(quote)):
        g = m.groups()
        k = next(i for i in (0, 4, 8) if g[i] is not None)
        (old, ou, new, nu) = g[k: k + 4]
        if old == new:
            continue
        unit = ou or nu or ""
        if _said(old, unit, f) and not _said(new, unit, f):
            return (f"the quote moves it from {old}{' ' + unit if unit else ''} to {new}"
                    f"{' ' + unit if unit else ''}; the fact gives the old value")
    return ""


_CODE_TOKEN = re.compile(r"[\w./:@=+-]+")
VARIANT_RATIO = 0.85  # a single name this close to the quote's, but not it: a slip


def code_variant(fact: str, quote: str) -> str:
    """A code span of the fact that the quote gives otherwise: the same command with
    one argument changed (`go test ./pkg/export -run T` / `go test ./cmd -run T`), the
    same flag with another value (`--output-format json` / `stream-json`), a name one
    slip away (`current-profiles` / `current-profile`). What differs, or ""."""
    q = normalise(quote)
    q_tokens = _CODE_TOKEN.findall(q)
    for span in _TICKED.findall(fact) or _flag_runs(fact):
        low = normalise(span)
        if _PLACEHOLDER.search(span) or low in q:
            continue
        toks = _CODE_TOKEN.findall(low)
        if len(toks) == 1:
            t = toks[0]
            if len(t) < 8 or not re.search(r"[-_./]|[a-z][A-Z]", span):
                continue
            for qt in q_tokens:
                # A flag named by its bare word (`--update` / "update the display") is
                # the same name, not a slip of it.
                if qt.lstrip("-") == t.lstrip("-"):
                    continue
                if qt != t and abs(len(qt) - len(t)) <= 3 and \
                        SequenceMatcher(None, t, qt).ratio() >= VARIANT_RATIO:
                    return f"`{span}` where the quote has `{qt}`"
            continue
        n = len(toks)
        for k in range(len(q_tokens) - n + 1):
            win = q_tokens[k: k + n]
            diff = [i for i in range(n) if win[i] != toks[i]]
            if len(diff) != 1:
                continue
            d = diff[0]
            # Two tokens: a flag and its value (`--output-format json`). More: all but
            # one the same, one of them a name, and the other argument nowhere in the
            # quote (a command with one argument changed).
            # (or a method and its path: `POST /v1/jobs` / `POST /v2/jobs`)
            if n == 2 and not (d == 1 and (toks[0].startswith("-") or "/" in toks[1])):
                continue
            if toks[d] in q_tokens or ((n > 2 or toks[0].startswith("-")) and not any(
                    re.search(r"[-_./]|\d", x) or len(x) >= 8
                    for i, x in enumerate(toks) if i != d)):
                continue
            return f"`{span}` where the quote has `{' '.join(win)}`"
    return ""


def _flag_runs(fact: str) -> list[str]:
    """A fact's command written without backticks, as the three words that end in a
    long flag ("gitleaks detect --staged"): what `code_variant` compares. (Not the words
    after it: they may be the fact's prose.)"""
    toks = _CODE_TOKEN.findall(normalise(fact))
    return [" ".join(toks[i - 2: i + 1]) for i, t in enumerate(toks)
            if i >= 2 and t.startswith("--") and len(t) > 3 and not toks[i - 1].startswith("-")]


SLIP_RATIO = 0.85  # a name this close to one beside the quote, but said nowhere: a slip
_NAME_TOKEN = re.compile(r"(?:~|\.{1,2})?/?[\w~@-]+(?:[./:][\w~@-]+)+"
                         r"|[\w-]*[A-Z_][\w-]*|[\w]+(?:-[\w]+)+")


def _bare(name: str) -> str:
    return normalise(name).strip("`'\".,;:()[]{}").removesuffix("()")


def slipped_name(fact: str, near: str, everything: str) -> tuple[str, str] | None:
    """A name of the fact said nowhere in the session (normalised text `everything`),
    while a name beside the quote (`near`) is one slip from it: transposed or changed
    letters (`apckage.json` / `package.json`, `/tec/resolv.conf` / `/etc/resolv.conf`).
    (the fact's name, the transcript's), or None."""
    missing = [n for n in identifiers(fact) if len(_bare(n)) >= 5
               and not _PLACEHOLDER.search(n) and _bare(n) not in everything]
    tokens = {_bare(t) for t in _NAME_TOKEN.findall(near)} if missing else set()
    for name in missing:
        x = _bare(name)
        for y in tokens:
            if y != x and abs(len(y) - len(x)) <= 2 and len(y) >= 5 and \
                    SequenceMatcher(None, x, y).ratio() >= SLIP_RATIO:
                # A plural, a case or a call's parentheses is no slip.
                if x.rstrip("s") == y.rstrip("s"):
                    continue
                return name, y
    return None


def swapped_name(fact: str, quote: str) -> tuple[str, str] | None:
    """The fact names X where its quote names Y, X and Y of the same shape (two `.py`
    files, two flags, two CamelCase names), X nowhere in the quote and Y nowhere in the
    fact: one name put for another. (X, Y), or None."""
    nf, nq = normalise(fact), normalise(quote)
    f_names = [i for i in identifiers(fact) if not _present(i, nq)]
    q_names = [i for i in identifiers(quote) if not _present(i, nf)]
    for x in f_names:
        if _PLACEHOLDER.search(x):
            continue  # `<session-uuid>.json` generalises the quote's name, it is no swap
        for y in q_names:
            if same_kind(x, y) and normalise(x) != normalise(y) and not _parent_named(y, nf):
                return x, y
    return None


def _parent_named(name: str, fact: str) -> bool:
    """The fact names the folder or URL prefix the quote's path sits under ("the /blog/
    URL" for `/blog/my-article`): it speaks of the quote's example in general, it does not
    put another name for it."""
    parent = normalise(name).rstrip("/").rsplit("/", 1)[0]
    # the folder itself, not a sibling in it (`docs/a.json` for `docs/b.md` is a swap)
    return len(parent.strip("/.~")) >= 3 and bool(
        re.search(re.escape(parent) + r"/?(?![\w./-])", fact))


def region_differs(quote: str, region: str) -> str | None:
    """For a fuzzy match: a changed negation, number or identifier is not a typo."""
    if negations(quote) != negations(region):
        return "negation_flip"
    if numbers(quote) != numbers(region):
        return "number_mismatch"
    fold = {i.casefold() for i in identifiers(quote)} ^ {i.casefold() for i in identifiers(region)}
    if fold:
        return "identifier_mismatch"
    if changed_word(quote, region):
        return "not_found"  # a word put for another is no slip of the pen: not its words
    return None


WORD_SLIP = 0.75  # a word this close to one of the region's is a misspelling of it


def changed_word(quote: str, region: str) -> str:
    """A content word of the quote (4+ letters) that the near-matching region of the
    transcript lacks, in any form or spelling ("required for elephant functionality" /
    "required for session functionality"): the word, or "". Re-flowed lines, dropped
    articles and a slipped letter are not changed words."""
    r_words = _WORD.findall(_expand(normalise(region)))  # "isn't" is "is not"
    r_stems = {_stem(w) for w in r_words}
    # What the quoter put in brackets ("it [the cache] is stale") is theirs, not a misquote.
    for w in _WORD.findall(_expand(normalise(re.sub(r"\[[^\]]{1,60}\]", " ", quote)))):
        if len(w) < 4 or w in _STOP or _stem(w) in r_stems:
            continue
        if not any(abs(len(x) - len(w)) <= 3 and SequenceMatcher(None, w, x).ratio()
                   >= WORD_SLIP for x in r_words):
            return w
    return ""


# Words whose loss changes what the rest says: a negation, a condition, a contrast, a
# limit, a guess (issue 21: an ellipsis that leaves out "and then" is quoting; one that
# leaves out "not" or "only on Linux" is a different claim).
_MEANING = re.compile(
    r"\b(?:not|no|never|none|nothing|nor|neither|without|cannot|can't|won't|n't|except"
    r"|unless|but|however|although|though|only|instead|rather|if|when|until|unless"
    r"|might|may|maybe|perhaps|probably|possibly|should|would|could|fails?|failed|broken"
    r"|wrong|except|unlike)\b|n't\b|\d")


def dropped_words(text: str, *, across: bool = False) -> bool:
    """What an elision left out changes the meaning (a negation, a condition, a number;
    not just a cut marker, punctuation or connecting words). `across` two turns, any
    word left out does."""
    left = _CUT_MARKER.sub(" ", text)
    if not _WORD.search(left):
        return False
    return across or bool(_MEANING.search(_expand(normalise(left))))


def missing_terms(fact: str, near: str) -> tuple[list[str], list[str]]:
    """(identifiers, numbers) the fact names that the text around the quote lacks."""
    hay = normalise(near)
    idents = sorted(i for i in identifiers(fact) if not _present(i, hay))
    nums = [n for n in dict.fromkeys(numbers(fact)) if not re.search(
        r"(?<![\d.])" + re.escape(n) + r"(?![\d])", hay)]
    # A count spelt out ("all five agents") is a number too: neither it nor its digits
    # near the quote is a count the fact made up. Not inside a name ("two-line mode").
    for m in _SPELT_COUNT.finditer(normalise(fact)):
        word = m.group(1)
        n = str(_COUNTS[word])
        if not re.search(rf"(?<![\w.-]){word}(?![\w-])|(?<![\d.]){n}(?![\d])", hay) and \
                word not in nums:
            nums.append(word)
    return idents, nums


_COUNTS = {w: i for i, w in enumerate(("zero", "one", "two", "three", "four", "five", "six",
                                       "seven", "eight", "nine", "ten", "eleven", "twelve"))}
# "one" is too often no count ("one of", "the one that"), so counts start at two.
_SPELT_COUNT = re.compile(r"(?<![\w-])(two|three|four|five|six|seven|eight|nine|ten|eleven"
                          r"|twelve)(?![\w-])")
