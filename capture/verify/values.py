"""Knowledge checks on values: a number, unit, name or flag value differs from the quote's.

Pure comparisons of a fact against its quote (or the text near it); a mismatch here is
known, not suspected, so it may mark a candidate ungrounded.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from capture.ground import normalise
from capture.verify.names import _PLACEHOLDER, _TICKED, _kind_of, _present, identifiers, numbers
from capture.verify.words import _CUT_MARKER, _WORD, _expand, negations

_UNIT = re.compile(r"(?:(?<=\bv)|(?<![\w.]))(\d+(?:[.,]\d+)?)\s?(ms|us|ns|s|sec|secs|min|mins"
                   r"|h|hr|hrs|kb|mb|gb|tb|kib|mib|gib|tib|px|%)(?![\w])", re.I)


def unit_numbers(text: str) -> dict[str, set[str]]:
    """Numbers with a unit, by unit (`0.6s`, `10MB`, `500 ms`): {"s": {"0.6"}, …}."""
    out: dict[str, set[str]] = {}
    for value, unit in _UNIT.findall(text):
        number = float(value.replace(",", "."))  # "100.00 MB" is "100 MB"
        out.setdefault(unit.casefold(), set()).add(f"{number:g}")
    return out


def unit_changed(fact: str, quote: str) -> list[str]:
    """The fact's quantities whose unit the quote also gives, with none of the quote's
    values for it: "1MB" where the quote says "10MB", "0.3s" where it says "0.6s"."""
    q = unit_numbers(quote)
    return [f"{v}{u}" for u, vs in unit_numbers(fact).items() if u in q
            for v in sorted(vs - q[u])]


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


_CODE_TOKEN = re.compile(r"[\w./:@=+-]+")
VARIANT_RATIO = 0.85  # a single name this close to the quote's, but not it: a slip


def code_variant(fact: str, quote: str) -> str:
    """A code span of the fact that the quote gives otherwise: the same command with
    one argument changed (`go test ./pkg/export -run T` / `go test ./cmd -run T`), the
    same flag with another value (`--output-format json` / `stream-json`), a name one
    slip away (`current-profiles` / `current-profile`). What differs, or ""."""
    q = normalise(quote)
    q_tokens = _CODE_TOKEN.findall(q)
    for span in _TICKED.findall(fact):
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
            if n == 2 and not (d == 1 and toks[0].startswith("-")):
                continue
            if toks[d] in q_tokens or not any(re.search(r"[-_./]|\d", x) or len(x) >= 8
                                              for i, x in enumerate(toks) if i != d):
                continue
            return f"`{span}` where the quote has `{' '.join(win)}`"
    return ""


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
        kind = _kind_of(x)
        if kind == "other" or _PLACEHOLDER.search(x):
            continue  # `<session-uuid>.json` generalises the quote's name, it is no swap
        for y in q_names:
            if _kind_of(y) == kind and normalise(x) != normalise(y):
                return x, y
    return None


def region_differs(quote: str, region: str) -> str | None:
    """For a fuzzy match: a changed negation, number or identifier is not a typo."""
    if negations(quote) != negations(region):
        return "negation_flip"
    if numbers(quote) != numbers(region):
        return "number_mismatch"
    fold = {i.casefold() for i in identifiers(quote)} ^ {i.casefold() for i in identifiers(region)}
    if fold:
        return "identifier_mismatch"
    return None


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
    return idents, nums
