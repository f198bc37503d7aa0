"""What the verifier knows, probed on any text (issue 21): each TRUE candidate of the
held-out sessions (MEM_REVIEW_HELDOUT_DIR), its fact changed one way at a time while its
quote stays, the way a misleading candidate is made. A check that holds for any text
flags every change for its reason; one read off a few examples does not.

- number: a number of the fact that its quote gives, changed (`number_mismatch`);
- unit: a quantity's unit changed (5 s → 5 ms, 10 MB → 10 GB);
- name: a letter of a name the quote gives, changed (a slip);
- swap: a name the quote gives, swapped for another name of its kind from the session;
- negation: "not" added to or taken from the fact's predicate (`negation_flip`);
- speaker: the fact attributed to the other speaker ("The user decided that …");

and, for a quote of the assistant's prose, its context changed while fact and quote stay
(the suspicions, which read around the quote):

- hedge: "I think " put before the quote in its turn (`hedged`);
- denied: "It is not true that " put before it (`negation_flip`);
- answered: the person's next words "No, that's wrong: check A and B again." naming two
  of the quote's words (`corrected_later`);

and the quote itself misquoted, fact kept:

- misquote: a word of the quote (6+ letters) put for another word of the session of
  about its length (the quote is then not the transcript's words: any known check).

Counts per half, never pooled; which ones were missed only for the tune half (or with
MEM_REVIEW_HELDOUT_SHOW=1), as in the held-out section. A change that leaves the fact
true (a swapped name the quote also supports) counts as missed: the figures are a floor.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

from bench.eval.common import Row
from bench.eval.sections.heldout import HALVES, SHOW_ENV, heldout_dir, label_files

SECTION = "mutated true candidates"
EXPECT = {
    "number": {"number_mismatch", "identifier_mismatch", "identifier_missing"},
    "unit": {"number_mismatch", "identifier_mismatch"},
    "name": {"identifier_mismatch", "identifier_missing", "number_mismatch"},
    "swap": {"identifier_mismatch", "identifier_missing", "number_mismatch"},
    "negation": {"negation_flip"},
    "speaker": {"speaker"},
    "hedge": {"hedged"},
    "denied": {"negation_flip"},
    "answered": {"corrected_later"},
    "misquote": {"not_found", "negation_flip", "number_mismatch", "identifier_mismatch",
                 "elision", "stitched", "identifier_missing"},
}
_CONTEXT = (("hedge", "I think "), ("denied", "It is not true that "))
_UNITS = {"ms": "s", "s": "ms", "sec": "min", "seconds": "minutes", "min": "s",
          "minutes": "seconds", "kb": "mb", "mb": "gb", "gb": "mb", "KB": "MB", "MB": "GB",
          "GB": "MB"}
_NUM = re.compile(r"(?<![\w.])(\d+)(?![\d.])")
_QTY = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?(ms|s|sec|seconds|min|minutes|kb|mb|gb|KB|MB"
                  r"|GB)\b")
_NOT = re.compile(r"\b(is|are|was|were|does|do|can|will|should|has|must)\s+not\b")
_BE = re.compile(r"\b(is|are|was|were|can|will|should|must)\b")


def mutations(fact: str, quote: str, speaker: str | None,
              names: Callable[[str], list[str]]) -> Iterator[tuple[str, str]]:
    """(kind, changed fact) for each change that applies to this candidate."""
    from capture.verify.names import identifiers

    if (m := _NUM.search(fact)) and m.group(1) in quote:
        n = int(m.group(1))
        yield "number", fact[:m.start()] + str(n + (1 if n < 9 else 7)) + fact[m.end():]
    if (m := _QTY.search(fact)) and m.group(0) in quote:
        yield "unit", fact[:m.start(2)] + _UNITS[m.group(2)] + fact[m.end(2):]
    ids = sorted(x for x in identifiers(fact) if x in quote and len(x) >= 5
                 and re.search(r"[a-z]", x))
    if ids:
        x = ids[0]
        at = max(i for i, ch in enumerate(x) if ch.isalpha())
        yield "name", fact.replace(x, x[:at] + ("x" if x[at] != "x" else "y") + x[at + 1:])
        pool = names(x)
        if pool:
            yield "swap", fact.replace(x, random.Random(x).choice(pool))
    if m := _NOT.search(fact):
        yield "negation", fact[:m.start()] + m.group(1) + fact[m.end():]
    elif m := _BE.search(fact):
        yield "negation", fact[:m.end()] + " not" + fact[m.end():]
    if speaker in ("assistant", "tool", "user"):
        lead = "Claude found that " if speaker == "user" else "The user decided that "
        yield "speaker", lead + fact[0].lower() + fact[1:]


def contexts(turns: list[Any], at: int, quote: str) -> Iterator[tuple[str, list[Any]]]:
    """(kind, changed turns) around the assistant's quote at turn `at`."""
    import dataclasses

    from capture.transcript import Turn

    t = turns[at]
    i = t.text.find(quote)
    if i < 0 or t.kind != "prose" or t.role != "assistant":
        return
    for kind, lead in _CONTEXT:
        changed = list(turns)
        changed[at] = dataclasses.replace(t, text=t.text[:i] + lead + t.text[i:])
        yield kind, changed
    named = re.findall(r"[A-Za-z_][\w.-]{4,}", quote)[:2]
    if len(named) == 2:
        reply = Turn("user", "prompt", f"No, that's wrong: check {named[0]} and {named[1]} "
                     "again.", t.line, t.offset)
        yield "answered", [*turns[: at + 1], reply, *turns[at + 1:]]


def misquote(quote: str, vocabulary: list[str]) -> str:
    """The quote with its middle long word put for another of the session's words, of
    about its length and not a form of it; "" when it has no such word."""
    words = re.findall(r"\b[a-z]{6,}\b", quote)
    if not words:
        return ""
    w = words[len(words) // 2]
    others = [v for v in vocabulary if abs(len(v) - len(w)) <= 2 and v[:4] != w[:4]]
    if not others:
        return ""
    other = random.Random(w).choice(others)
    return re.sub(r"\b" + w + r"\b", other, quote, count=1)


def run() -> list[Row]:
    root = heldout_dir()
    files = label_files(root)
    if not files:
        return [Row(SECTION, "skipped", {}, f"no labelled sessions under {root}")]
    from bench.eval.sections.heldout import _kind, _prepared, _text, _transcript_of
    from capture.verify import verify
    from capture.verify.names import _kind_of, identifiers

    tally: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    missed: dict[str, list[str]] = defaultdict(list)
    for lf in files:
        data: dict[str, Any] = json.loads(lf.read_text(encoding="utf-8"))
        half = str(data.get("half", "?"))
        path = _transcript_of(lf, data)
        if not path.is_file():
            continue
        sent = _prepared(str(path))
        said = sorted({i for t in sent.turns for i in identifiers(t.text) if len(i) >= 5})
        vocabulary = sorted({w for t in sent.turns[:400] for w in re.findall(
            r"\b[a-z]{6,}\b", t.text)})

        def names(x: str, said: list[str] = said) -> list[str]:
            kind = _kind_of(x)
            return [i for i in said if _kind_of(i) == kind and x not in i and i not in x]

        for k, c in enumerate(data.get("candidates") or []):
            fact, quote = _text(c, "fact", "text"), _text(c, "evidence", "quote")
            if _kind(c) != "true" or not fact or not quote:
                continue
            base = verify(fact, quote, sent.turns, tool_texts=sent.tool_texts)
            tried = [(kind, verify(changed, quote, sent.turns, tool_texts=sent.tool_texts))
                     for kind, changed in mutations(fact, quote, base.speaker, names)]
            if base.supported and (changed_quote := misquote(quote, vocabulary)):
                tried.append(("misquote", verify(fact, changed_quote, sent.turns,
                                                 tool_texts=sent.tool_texts)))
            if base.turn is not None and base.supported and base.hint is None:
                tried += [(kind, verify(fact, quote, turns, tool_texts=sent.tool_texts))
                          for kind, turns in contexts(sent.turns, base.turn, quote)]
            for kind, vd in tried:
                caught = bool({vd.check, vd.hint} & EXPECT[kind])
                tally[half][kind][0] += 1
                tally[half][kind][1] += caught
                if not caught:
                    missed[half].append(f"{path.stem[:8]}:{c.get('id', k)} {kind}")
    rows = []
    for half in sorted(tally, key=lambda h: (h not in HALVES, h)):
        shown = half == "tune" or os.environ.get(SHOW_ENV)
        values: dict[str, Any] = {"half": half}
        for kind in EXPECT:
            n, k = tally[half][kind]
            values[kind] = f"{k}/{n}" if n else "—"
        n_all = sum(n for n, _ in tally[half].values())
        k_all = sum(k for _, k in tally[half].values())
        values["all"] = f"{k_all}/{n_all} ({100 * k_all / max(1, n_all):.0f}%)"
        rows.append(Row(SECTION, f"{half} half", values,
                        ("missed: " + ", ".join(missed[half])) if shown and missed[half]
                        else ""))
    return rows
