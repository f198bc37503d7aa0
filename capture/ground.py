"""Check a candidate against what was actually sent (GUIDE §5).

Stdlib only. Grounding answers "is the quoted evidence really in the transcript?": the
model is told to quote verbatim, but quotes come back with curly quotes, stripped
markdown, re-flowed whitespace or a slipped letter. Exact containment after
normalisation decides most cases; the tolerant pass finds candidate regions through the
evidence's rarest words and compares only there, so a 100 KB source costs milliseconds.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from pathlib import Path

_TRANSLATE = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u00b4", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u200b\u200c\u200d\u2060\ufeff`*", ""),
        "\u2026": "...",
    }
)
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")
_ELLIPSIS = re.compile(r"\s*(?:\[\.\.\.\]|\.\.\.)\s*")
_LABEL = re.compile(r"\b(?:user|assistant):")

FUZZY_RATIO = 0.9  # SequenceMatcher ratio needed for a tolerant match
MIN_FUZZY_CHARS = 12  # shorter evidence must match exactly
MIN_WORDS = 3  # a quote shorter than this supports nothing, wherever it is found
MIN_PIECE_WORDS = 2  # each piece of a quote elided with "..."
ANCHORS = 3  # rarest evidence words used to locate candidate regions
MAX_HITS = 40  # occurrences followed per anchor word


def normalise(text: str) -> str:
    """Casefold, unify quotes and dashes, drop markdown emphasis, collapse whitespace."""
    text = unicodedata.normalize("NFKC", text).translate(_TRANSLATE).casefold()
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True)
class _Source:
    text: str
    starts: list[int]  # char offset of each word in text
    ends: list[int]
    words: list[str]
    where: dict[str, list[int]]  # word -> word indexes


@lru_cache(maxsize=4)
def _prepare(source: str) -> _Source:
    """Index a source once; the worker grounds every candidate against the same text."""
    text = normalise(source)
    starts, ends, words = [], [], []
    where: dict[str, list[int]] = {}
    for i, m in enumerate(_WORD.finditer(text)):
        starts.append(m.start())
        ends.append(m.end())
        words.append(m.group())
        where.setdefault(m.group(), []).append(i)
    return _Source(text, starts, ends, words, where)


def _fuzzy(ev: str, src: _Source) -> bool:
    ev_words = _WORD.findall(ev)
    if len(ev) < MIN_FUZZY_CHARS or len(ev_words) < 2:
        return False
    n = len(ev_words)
    # Rarest in the source first; words absent from the source may be the typo itself.
    present = sorted((len(src.where[w]), i, w) for i, w in enumerate(ev_words) if w in src.where)
    anchors: list[tuple[int, str]] = []
    for _count, i, w in present:
        if len(anchors) == ANCHORS:
            break
        if all(w != a for _, a in anchors):
            anchors.append((i, w))
    tried: set[tuple[int, int]] = set()
    total = len(src.words)
    for pos_in_ev, word in anchors:
        for hit in src.where[word][:MAX_HITS]:
            start = hit - pos_in_ev
            for s in (start - 1, start, start + 1):
                for length in (n - 1, n, n + 1):
                    e = s + length - 1
                    if s < 0 or length < 1 or e >= total or (s, e) in tried:
                        continue
                    tried.add((s, e))
                    region = src.text[src.starts[s] : src.ends[e]]
                    sm = SequenceMatcher(None, ev, region, autojunk=False)
                    if sm.real_quick_ratio() < FUZZY_RATIO or sm.quick_ratio() < FUZZY_RATIO:
                        continue
                    if sm.ratio() >= FUZZY_RATIO:
                        return True
    return False


def _strip_quote(ev: str) -> str:
    """Drop wrapping quotes and leading/trailing ellipses the model adds around a quote."""
    ev = ev.strip()
    while True:
        before = ev
        ev = ev.strip(" \"'")
        for mark in ("...", "[...]"):
            ev = ev.removeprefix(mark).removesuffix(mark)
        if ev == before:
            return ev


def _grounded_part(part: str, src: _Source, after: int) -> int | None:
    """Offset just past the part's match at or after `after`, or None."""
    at = src.text.find(part, after)
    if at >= 0:
        return at + len(part)
    if src.text.find(part) >= 0:  # present, but before the previous part
        return None
    return after if _fuzzy(part, src) else None


def is_grounded(evidence: str, source: str) -> bool:
    """True when the evidence is found in the source, exactly or nearly.

    A quote elided with "..." is grounded when each piece is, pieces found exactly must
    appear in order. Evidence of fewer than MIN_WORDS words (speaker labels not counted),
    or with a piece under MIN_PIECE_WORDS, is never grounded: it would match anything.
    """
    ev = _strip_quote(normalise(evidence))
    if _words(ev) < MIN_WORDS:  # "User:", "the ... in": found anywhere, support nothing
        return False
    src = _prepare(source)
    if ev in src.text:
        return True
    parts = [p for p in _ELLIPSIS.split(ev) if p.strip(" \"'")]
    if len(parts) <= 1:
        return _fuzzy(ev, src)
    if any(_words(p) < MIN_PIECE_WORDS for p in parts):
        return False
    after = 0
    for part in parts:
        found = _grounded_part(part.strip(" \"'"), src, after)
        if found is None:
            return False
        after = found
    return True


def _words(text: str) -> int:
    """Words of a quote that say something: speaker labels do not count."""
    return len(_WORD.findall(_LABEL.sub(" ", text)))


def missing_files(files: Iterable[str], project_root: str | os.PathLike[str]) -> list[str]:
    """Cited files that do not exist inside the project (escapes count as missing).

    Lexical checks only for containment (no symlink resolution), so a path can never
    point the caller outside the root through `..` or an absolute path.
    """
    root = os.path.normpath(os.path.abspath(os.fspath(project_root)))
    out: list[str] = []
    for name in files:
        if name in out:
            continue
        if not name or not name.strip() or "\0" in name:
            out.append(name)
            continue
        path = os.path.normpath(os.path.join(root, name))  # absolute `name` replaces root
        try:
            inside = os.path.commonpath([root, path]) == root
        except ValueError:  # different drives on Windows
            inside = False
        if not inside or not Path(path).exists():
            out.append(name)
    return out
