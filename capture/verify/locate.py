"""Finding a quote in the transcript: exact, fuzzy, across an ellipsis, and who said it.

The provenance every other check starts from; a quote not found, stitched from distant
turns or dropping words across a cut fails here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import pairwise

from capture.ground import normalise
from capture.transcript import Turn
from capture.verify.turns import _HANGING, _source, _spoken_between, _texts, is_summary, speaker_of
from capture.verify.values import dropped_words, region_differs
from capture.verify.verdict import Verdict
from capture.verify.words import (
    _CUT_MARKER,
    _ELLIPSIS,
    _LABEL,
    _SENTENCE,
    _TOOL_PREFIX,
    _WORD,
    MIN_WORDS,
)

FUZZY_RATIO = 0.88  # character similarity for a quote with a slipped letter or re-flow
MAX_FUZZY_CHARS = 2_000  # longer quotes are only matched exactly
MAX_GAP = 2  # turns a quote may span (prose and the tool lines hanging under it)
STITCH_GAP = 400  # characters an ellipsis may leave out of one answer before it joins places
_ANCHORS = 3  # rarest quote words used to place a fuzzy match
_MAX_HITS = 40  # occurrences followed per anchor word


@dataclass(frozen=True)
class _Hit:
    turn: int
    start: int  # in the normalised rendered turn
    end: int
    exact: bool = True


_BASH_INPUT = re.compile(r"<bash-input>\s*(.*?)\s*</bash-input>", re.S)
_WRAPPER_TAG = re.compile(r"</?(?:bash-(?:stdout|stderr)|command-(?:name|message|args)"
                          r"|local-command-stdout)>")


def clean_quote(evidence: str) -> str:
    """Normalise a quote and drop what the model wraps around it: quotes, edge
    ellipses, a leading speaker label or tool-line bullet."""
    # The transcript's own wrappers, as the reader renders them: `!` mode, slash commands.
    evidence = _BASH_INPUT.sub(r"! \1", evidence)
    evidence = _WRAPPER_TAG.sub(" ", evidence)
    q = normalise(evidence)
    while True:
        before = q
        q = q.strip(" \"'“”")
        q = _ELLIPSIS.sub(" … ", q).strip()
        q = q.removeprefix("…").removesuffix("…").strip()
        q = _TOOL_PREFIX.sub("", q)
        m = _LABEL.match(q)
        if m:
            q = q[m.end():]
        if q == before:
            return q


def _find_all(q: str, texts: list[str]) -> list[_Hit]:
    hits = []
    for i, text in enumerate(texts):
        at = text.find(q)
        if at >= 0:
            hits.append(_Hit(i, at, at + len(q)))
    return hits


def _fuzzy(q: str, texts: list[str]) -> tuple[_Hit, str] | None:
    """The best near match of q (same words but a slip), with the matched region.

    Regions are tried only where q's rarest words occur, so a long turn costs little."""
    qw = _WORD.findall(q)
    if len(qw) < MIN_WORDS or len(q) > MAX_FUZZY_CHARS:
        return None  # a page-long "quote" must match exactly: comparing it costs seconds
    qset = set(qw)
    n = len(qw)
    best: tuple[float, _Hit, str] | None = None
    for i, text in enumerate(texts):
        matches = list(_WORD.finditer(text))
        where: dict[str, list[int]] = {}
        for k, m in enumerate(matches):
            if m.group() in qset:
                where.setdefault(m.group(), []).append(k)
        if len(where) < 0.6 * len(qset):
            continue
        anchors = sorted((len(where[w]), pos, w) for pos, w in enumerate(qw) if w in where)
        chosen: list[tuple[int, str]] = []
        for _count, pos, w in anchors:
            if len(chosen) == _ANCHORS:
                break
            if all(w != c for _, c in chosen):
                chosen.append((pos, w))
        tried: set[tuple[int, int]] = set()
        for pos, w in chosen:
            for hit in where[w][:_MAX_HITS]:
                for start in (hit - pos - 1, hit - pos, hit - pos + 1):
                    for length in (n - 1, n, n + 1):
                        e = start + length - 1
                        if start < 0 or e >= len(matches) or (start, e) in tried:
                            continue
                        tried.add((start, e))
                        region = text[matches[start].start(): matches[e].end()]
                        sm = SequenceMatcher(None, q, region, autojunk=False)
                        if sm.real_quick_ratio() < FUZZY_RATIO or sm.quick_ratio() < FUZZY_RATIO:
                            continue
                        r = sm.ratio()
                        if r >= FUZZY_RATIO and (best is None or r > best[0]):
                            hit_ = _Hit(i, matches[start].start(), matches[e].end(), False)
                            best = (r, hit_, region)
    return None if best is None else (best[1], best[2])


def _rank(h: _Hit, turns: Sequence[Turn]) -> tuple[bool, bool, bool, bool, int]:
    """Prefer the conversation over a summary, words over a tool-call line, what a person
    or a tool said over the assistant repeating it, the person's own prompt over a tool's
    output echoing it, then the last."""
    t = turns[h.turn]
    return (not is_summary(t), t.kind != "tool_call", speaker_of(t) != "assistant",
            speaker_of(t) == "user", h.turn)


def _pick(hits: list[_Hit], turns: Sequence[Turn]) -> _Hit:
    return max(hits, key=lambda h: _rank(h, turns))


def _locate_pieces(
    pieces: list[str], texts: list[str], turns: Sequence[Turn],
    changed: list[tuple[_Hit, str, str]] | None = None,
) -> list[_Hit] | None:
    """Each piece's hit, in order (an elided or multi-turn quote). Every place the first
    piece occurs is tried ("the file" is everywhere); the first whose other pieces follow
    close by wins, else the preferred one (which then reads as stitched). A piece found
    only nearly, with a negation, number or name changed, goes in `changed`."""
    found: list[list[_Hit]] = []
    for piece in pieces:
        hits = _find_all(piece, texts)
        if not hits:
            fz = _fuzzy(piece, texts)
            if fz is None:
                return None
            hits = [fz[0]]
            why = region_differs(piece, fz[1])
            if why is not None and changed is not None:
                changed.append((fz[0], why, fz[1]))
        found.append(hits)
    starts = sorted(found[0], key=lambda h: _rank(h, turns), reverse=True)
    best: list[_Hit] | None = None
    for first in starts:
        seq = [first]
        for piece, hits in zip(pieces[1:], found[1:], strict=True):
            prev = seq[-1]
            after = [h for h in hits if (h.turn, h.start) >= (prev.turn, prev.end)]
            # The first place a piece occurs in a turn may come before the previous
            # piece ends ("}" inside `{ c: { … }, ... }`): look on from where it ended.
            at = texts[prev.turn].find(piece, prev.end) if prev.exact else -1
            if at >= 0:
                after.append(_Hit(prev.turn, at, at + len(piece)))
            seq.append(min(after or hits, key=lambda h: (h.turn, h.start)))
        if _span_ok(seq, turns):
            return seq
        best = best or seq
    return best


def _voice(turns: Sequence[Turn], texts: list[str], hit: _Hit, piece: str) -> str:
    """Who said a piece where it was found: an assistant's turn that quotes the person
    ("The current prompt is: \"…\"") gives the person's words, not its own."""
    source = _source(turns[hit.turn])
    if source != "the assistant" or not hit.exact:
        return source
    before = texts[hit.turn][:hit.start]
    if before.count('"') % 2 == 1 and any(
            t.kind == "prompt" and not is_summary(t) and piece in texts[k]
            for k, t in enumerate(turns)):
        return "the person"
    return source


def _span_ok(hits: list[_Hit], turns: Sequence[Turn]) -> bool:
    """The pieces follow each other within MAX_GAP turns, not counting the tool lines
    that hang between two texts of one stretch of work (an assistant's text blocks of
    one answer, with its calls between them, are one place)."""
    at = [h.turn for h in hits]
    if at != sorted(at):
        return False
    between = turns[min(at) + 1: max(at) + 1]
    return sum(1 for t in between if t.kind not in _HANGING) <= MAX_GAP


def _fail(check: str, hit: _Hit | None, turns: Sequence[Turn], detail: str = "") -> Verdict:
    if hit is None:
        return Verdict(False, check, detail=detail)
    return Verdict(False, check, hit.turn, speaker_of(turns[hit.turn]), detail)


def locate(quote: str, turns: Sequence[Turn]) -> tuple[_Hit | None, str | None, str]:
    """Where the (cleaned) quote is: (hit, failed check or None, detail)."""
    texts = _texts(turns)
    hits = _find_all(quote, texts)
    if hits:
        return _pick(hits, turns), None, ""
    if " … " in quote:
        # An ellipsis the transcript itself holds (code's `{ c: …, ... }`, "wait..."):
        # the quote whole, not an elision.
        for dots in (" ... ", "...", "... ", " ...", "…", " …", "… "):
            hits = _find_all(quote.replace(" … ", dots), texts)
            if hits:
                return _pick(hits, turns), None, ""
    pieces = [p.strip(" \"'") for p in _ELLIPSIS.split(quote) if p.strip(" \"'")]
    if len(pieces) > 1:
        changed: list[tuple[_Hit, str, str]] = []
        found = _locate_pieces(pieces, texts, turns, changed)
        if found is None:
            return None, "not_found", "a piece of the elided quote is not in the transcript"
        if changed:  # a long quote with "…" that flips a negation inside one piece
            hit, why, region = changed[0]
            return hit, why, f"the transcript says: {region[:120]}"
        if not _span_ok(found, turns):
            return found[0], "stitched", "the pieces come from distant turns"
        for (a, pa), (b, pb) in pairwise(zip(found, pieces, strict=True)):
            va, vb = _voice(turns, texts, a, pa), _voice(turns, texts, b, pb)
            if a.turn != b.turn and va != vb:
                # A commit message's line "…" a tool's warning: one quote made of what
                # two different voices said (issue 21: a stitched quote).
                return a, "stitched", f"the pieces come from {va} and {vb}"
            gap = (texts[a.turn][a.end:b.start] if a.turn == b.turn
                   else texts[a.turn][a.end:] + " " + texts[b.turn][:b.start])
            if a.turn == b.turn and len(_CUT_MARKER.sub(" ", gap)) > STITCH_GAP:
                # Two places of one long answer, paragraphs apart: joined, not shortened.
                return a, "stitched", (f"the “…” joins places {len(gap)} characters apart "
                                       "in one answer")
            # Across turns every word left out counts: the "…" joins two speakers.
            if dropped_words(gap, across=a.turn != b.turn):
                left = gap.strip()[:80]
                if a.turn != b.turn and _spoken_between(turns, a.turn, b.turn):
                    # Two answers joined by "…", words spoken between them: a quote
                    # stitched from two places, not one place shortened.
                    return a, "stitched", (f"the “…” joins turns {a.turn} and {b.turn}, "
                                           f"leaving out: {left}")
                return a, "elision", f"the “…” leaves out: {left}"
        return found[0], None, ""
    fz = _fuzzy(quote, texts)
    if fz is not None:
        hit, region = fz
        why = region_differs(quote, region)
        if why is not None:
            return hit, why, f"the transcript says: {region[:120]}"
        return hit, None, ""
    # Sentences or speakers joined without a marker: each found, but where?
    parts = [p.strip(" \"'") for p in _SENTENCE.split(_LABEL.sub("\n", quote))]
    parts = [p for p in parts if len(_WORD.findall(p)) >= 2]
    if len(parts) > 1:
        found = _locate_pieces(parts, texts, turns)
        if found is not None:
            if not _span_ok(found, turns):
                return found[0], "stitched", "the sentences come from distant turns"
            return found[0], None, ""
    return None, "not_found", ""
