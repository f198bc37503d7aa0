"""The derivational roots of a word, for recall: what the index's Porter stemmer leaves apart.

Porter strips inflections (`scans`, `scanned` → scan) but not most derivations: an agent
noun (`scanner`), an adverb (`publicly`), a negated form (`unlisted`, `nonblocking`) stay
their own stems, so a question asking for the `scanner` misses the fact about the `scan`.
Recall (recall.py) searches a question word's roots beside it, weighed as another spelling
of it, and counts a word of the question as held when the fact holds one of its roots or
the fact's word has it as a root. Rules, not a word list; each keeps a root long enough
to mean something (short roots such as `us` of `user` are not made).
"""

from __future__ import annotations

import functools
import re

_DOUBLE = re.compile(r"([bdgklmnprt])\1$")  # scann → scan, logg → log
MIN_ROOT = 4
MIN_NEGATED = 5  # `unlisted` → listed; not `unix`, `until`, `unique` (root too short)
# The words of a lowercase text that may have a root (a superset, one pass in C): a fact's
# other words are not looked up.
MAY_HAVE_ROOT = re.compile(
    r"(?<![^\W_])(?:(?:non|un)[a-z]{5,}|[a-z]{4,}(?:ly|ers?|ors?))(?![^\W_])")


@functools.lru_cache(maxsize=8192)
def roots(word: str) -> tuple[str, ...]:
    """Lowercase roots of `word` (itself excluded), () for most words."""
    w = word.casefold()
    if not w.isalpha():
        return ()
    out: list[str] = []
    for prefix in ("non", "un"):
        rest = w[len(prefix):]
        if w.startswith(prefix) and len(rest) >= MIN_NEGATED:
            out.append(rest)
            break
    if w.endswith("ly") and len(w) - 2 >= MIN_ROOT + 1:
        out.append(w[:-2])
    for suffix in ("ers", "er", "ors", "or"):
        if w.endswith(suffix) and len(w) - len(suffix) >= MIN_ROOT:
            base = w[: -len(suffix)]
            out.append(_DOUBLE.sub(r"\1", base))
            break
    return tuple(r for r in dict.fromkeys(out) if r != w and len(r) >= 3)
