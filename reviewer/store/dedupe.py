"""Recognise a candidate that the project already knows (GUIDE §5).

Stdlib only. Two texts are the same fact when their keys are equal (case, punctuation,
articles and spacing ignored) and near-same when their content words (filler dropped,
inflection stripped) are equal, or differ in at most 1 + n/10 pairs of near-identical
spellings (colour/color) with numbers and negations agreeing. That is stricter than a
token-set Jaccard of 0.85, which below 13 words already means equal sets; a bag of
words alone would call "use httpx for X" and "use requests for X" the same fact once
the sentence is long enough. The definition is deliberately strict:
a false match hides a genuinely new fact from the reviewer (or suppresses it), while a
missed match only shows a repeat.

Lookups go through an index (by key, and by the rarest content words), so classifying
against 10,000 facts costs a handful of comparisons, not a scan.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Literal

_ARTICLES = frozenset({"a", "an", "the"})
# Words whose presence or absence never makes two statements different facts.
_STOP = _ARTICLES | frozenset(
    """
    this that these those is are be been being was were am of to in on for with by at as
    from into and or it its also currently now just here there should must will shall can
    we our us you your they their i my me project repo repository
    """.split()  # noqa: SIM905
)
# Words that flip or pin a statement's meaning: they must agree exactly.
_POLARITY = frozenset(
    """
    not no never none nothing nor without avoid dont doesnt didnt isnt arent wasnt werent
    cant cannot wont shouldnt mustnt neednt always only instead except unless
    """.split()  # noqa: SIM905
)
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'", "`": "'"})
_TOKEN = re.compile(r"\d+(?:\.\d+)+|\w+")

WORD_SIMILARITY = 0.8


def _words(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).casefold().translate(_QUOTES)
    text = text.replace("'", "")  # don't -> dont, user's -> users
    return _TOKEN.findall(text)


def fact_key(text: str) -> str:
    """Normalised key: casefolded words without punctuation and articles."""
    return " ".join(w for w in _words(text) if w not in _ARTICLES)


def _stem(word: str) -> str:
    """Crude, consistent suffix stripping: use/uses/using/used, commit/committing."""
    if word.isdigit() or len(word) <= 3:
        return word
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]
    return word


def _content(text: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in _words(text) if w not in _STOP)


def _pinned(tokens: Iterable[str]) -> bool:
    return any(t in _POLARITY or any(c.isdigit() for c in t) for t in tokens)


def _similar_words(a: str, b: str) -> bool:
    """colour/color, initialise/initialize; never install/uninstall or sync/async."""
    if _pinned((a, b)) or a[:3] != b[:3]:
        return False
    return SequenceMatcher(None, a, b).ratio() >= WORD_SIMILARITY


def _pairs(only_a: frozenset[str], only_b: frozenset[str]) -> int | None:
    """Pair every differing word with a similar one, or None when one is left over."""
    if len(only_a) != len(only_b):
        return None
    pool = set(only_b)
    for word in sorted(only_a):
        mate = next((w for w in sorted(pool) if _similar_words(word, w)), None)
        if mate is None:
            return None
        pool.discard(mate)
    return len(only_a)


def _max_pairs(n: int) -> int:
    return 1 + n // 10


def _near(ca: frozenset[str], cb: frozenset[str]) -> bool:
    if ca == cb:
        return len(ca) >= 2
    if min(len(ca), len(cb)) < 2:
        return False
    only_a, only_b = ca - cb, cb - ca
    if _pinned(only_a) or _pinned(only_b):
        return False
    pairs = _pairs(only_a, only_b)  # also the length guard: equal sizes only
    return pairs is not None and pairs <= _max_pairs(len(ca))


def near_duplicate(a: str, b: str) -> bool:
    """Same fact, up to case, punctuation, articles, filler words and inflection."""
    return fact_key(a) == fact_key(b) or _near(_content(a), _content(b))


Kind = Literal["new", "seen_again", "suppressed"]


@dataclass(frozen=True)
class Decision:
    kind: Kind
    match_id: int | None = None


_RANK = {"approved": 0, "pending": 1}


@dataclass
class FactIndex:
    """Existing facts indexed for fast lookup; `add` as new rows are stored."""

    _by_key: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    _content: dict[int, tuple[frozenset[str], str]] = field(default_factory=dict)
    _postings: dict[str, set[int]] = field(default_factory=dict)

    @classmethod
    def build(cls, existing: Iterable[tuple[int, str, str]]) -> FactIndex:
        index = cls()
        for fid, text, status in existing:
            index.add(fid, text, status)
        return index

    def add(self, fid: int, text: str, status: str) -> None:
        self._by_key.setdefault(fact_key(text), []).append((fid, status))
        if status in _RANK:  # only live facts take part in near matching
            content = _content(text)
            self._content[fid] = (content, status)
            for token in content:
                self._postings.setdefault(token, set()).add(fid)

    def _best(self, matches: Iterable[tuple[int, str]]) -> int | None:
        live = [(_RANK[s], fid) for fid, s in matches if s in _RANK]
        return min(live)[1] if live else None

    def classify(self, text: str) -> Decision:
        """new, seen_again (an approved/pending match), or suppressed (a rejected twin).

        Order: exact key match with a live fact, exact key match with a rejected fact,
        then near match with a live fact. Near-same rejected facts are not suppressed:
        "same as rejected" must really be the same, or a new fact would vanish unseen.
        """
        same = self._by_key.get(fact_key(text), [])
        best = self._best(same)
        if best is not None:
            return Decision("seen_again", best)
        rejected = [fid for fid, s in same if s == "rejected"]
        if rejected:
            return Decision("suppressed", min(rejected))

        content = _content(text)
        if len(content) < 2:
            return Decision("new")
        # A near match differs in at most _max_pairs words, so it shares at least one of
        # the k rarest ones; looking only there keeps this independent of the store's size.
        k = _max_pairs(len(content)) + 1
        rare = sorted(content, key=lambda t: len(self._postings.get(t, ())))[:k]
        ids: set[int] = set()
        for token in rare:
            ids |= self._postings.get(token, set())
        found = [
            (fid, self._content[fid][1]) for fid in ids if _near(content, self._content[fid][0])
        ]
        best = self._best(found)
        return Decision("seen_again", best) if best is not None else Decision("new")


@lru_cache(maxsize=4)
def _cached_index(existing: tuple[tuple[int, str, str], ...]) -> FactIndex:
    return FactIndex.build(existing)


def classify(candidate_text: str, existing: Iterable[tuple[int, str, str]]) -> Decision:
    """Classify one candidate against (id, text, status) rows.

    The index is cached for the last few `existing` collections (by value, so a changed
    list is re-indexed), so calling this once per candidate with the same rows stays
    fast; long-running callers can keep a FactIndex and `add` to it.
    """
    rows = existing if isinstance(existing, tuple) else tuple(existing)
    try:
        index = _cached_index(rows)
    except TypeError:  # unhashable rows (lists): normalise them
        index = _cached_index(tuple((int(i), str(t), str(s)) for i, t, s in rows))
    return index.classify(candidate_text)
