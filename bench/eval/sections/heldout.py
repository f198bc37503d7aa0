"""Held-out sessions (issue 21): real sessions from public sources this project never
used, labelled by someone who had not read capture/. They are NOT in the repository
(public repos' transcripts, not ours to commit): they are read in place from
MEM_REVIEW_HELDOUT_DIR (default ../heldout/sessions beside the repo). Each transcript
`<name>.jsonl` has `<name>.jsonl.labels.json` beside it with its `half` ("tune" or
"heldout"), facts with the verbatim `carriers` that state them, and candidates labelled
true or misleading with `why`.

Figures are given per half, never pooled: only the tune half may be looked at while
changing capture/; the heldout half is the measure.

- facts: a fact counts when every carrier is in what `capture.pipeline` sends (case,
  whitespace, quotes and markdown emphasis ignored, as the verifier normalises);
- misleading: flagged when the verifier marks it ungrounded or hints at it; "for its
  reason" when the check or hint matches what `why` says is wrong (see REASONS);
  "known" counts those marked ungrounded for that reason, "by hint" those only hinted
  at (a suspicion a model judge may settle either way);
- true: wrongly flagged when marked ungrounded; "true hinted" counts those given a
  hint (shown, not marking the candidate; counted because a hint catches a misleading
  one, so hinting everything would win the misleading column).
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

from bench.eval.common import ROOT, Row

SECTION = "held-out sessions"


def _default_dir() -> Path:
    """../heldout/sessions beside the repo (a worktree's own parent first, then its
    main checkout's: /work/wt/x and /work/repo both find /work/heldout)."""
    for base in (ROOT.parent, ROOT.parent.parent):
        if (base / "heldout" / "sessions").is_dir():
            return base / "heldout" / "sessions"
    return ROOT.parent / "heldout" / "sessions"


def heldout_dir() -> Path:
    """MEM_REVIEW_HELDOUT_DIR, else ../heldout/sessions (read when the section runs)."""
    return Path(os.environ.get("MEM_REVIEW_HELDOUT_DIR") or _default_dir())
HALVES = ("tune", "heldout")
# Which held-out items were lost or missed is not printed unless asked: reading them is
# how a held-out half turns into a tuned one.
SHOW_ENV = "MEM_REVIEW_HELDOUT_SHOW"

# What a label's `why` says is wrong → the checks or hints that name that defect.
REASONS: list[tuple[re.Pattern[str], set[str]]] = [
    (re.compile(r"negat|invert|opposite|flip|revers"), {"negation_flip"}),
    (re.compile(r"number|value|figure|count|digit|unit|duration|port|version"),
     {"number_mismatch", "identifier_mismatch", "identifier_missing"}),
    (re.compile(r"identifier|name|path|flag|file|command|option|function"),
     {"identifier_mismatch", "identifier_missing", "number_mismatch"}),
    (re.compile(r"speaker|attribut|who said|wrong person|said by"), {"speaker"}),
    (re.compile(r"correct|refut|later|retract|supersed|outdated|reverted|abandon|failed|"
                r"didn't work|did not work|not fixed|still fail"), {"corrected_later"}),
    (re.compile(r"hedg|specul|guess|might|possibl|maybe|opinion|uncertain|tentative"),
     {"hedged"}),
    (re.compile(r"tool[- ]call|tool line|command line"), {"tool_line"}),
    (re.compile(r"summar"), {"summary_only"}),
    (re.compile(r"elision|ellipsis|elided|left out|omit"), {"elision", "negation_flip"}),
    (re.compile(r"stitch|distant|joined|splice"), {"stitched"}),
    # A fabricated quote: nobody said it, or not the one the fact says said it.
    (re.compile(r"not in the transcript|fabricat|invent|nowhere|hallucin|not found"),
     {"not_found", "speaker"}),
    (re.compile(r"short|too few words"), {"too_short"}),
]


def expected_checks(why: str) -> set[str]:
    """The checks or hints that would flag a candidate for the reason `why` gives."""
    low = why.casefold()
    out: set[str] = set()
    for rx, checks in REASONS:
        if rx.search(low):
            out |= checks
    return out


def label_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.labels.json")) if root.is_dir() else []


def _transcript_of(labels: Path, data: dict[str, Any]) -> Path:
    given = data.get("transcript") or data.get("file") or data.get("session")
    if isinstance(given, str) and given.endswith(".jsonl"):
        p = labels.parent / Path(given).name
        if p.is_file():
            return p
    return labels.with_name(labels.name.removesuffix(".labels.json"))


def _carriers(f: dict[str, Any]) -> list[str]:
    c = f.get("carriers") or f.get("words") or []
    return [x for x in (c if isinstance(c, list) else [c]) if isinstance(x, str) and x.strip()]


def _text(c: dict[str, Any], *keys: str) -> str:
    for k in keys:
        v = c.get(k)
        if isinstance(v, str) and v.strip():
            return v
    return ""


def _kind(c: dict[str, Any]) -> str:
    raw = str(c.get("label") or c.get("kind") or c.get("verdict") or "").casefold()
    if raw in ("true", "supported", "ok", "good") or c.get("true") is True:
        return "true"
    if raw.startswith("mislead") or raw in ("false", "bad") or c.get("misleading") is True:
        return "misleading"
    return raw or "?"


@cache
def _prepared(path: str) -> Any:
    from capture.pipeline import _prepare
    from reviewer.config import Config

    cfg = Config()
    return _prepare(path, 0, cfg.window_chars, cfg.send_ratio, tool_texts=True)


def _norm(text: str) -> str:
    from capture.ground import normalise

    return normalise(text.replace("┆", " "))


def run() -> list[Row]:
    root = heldout_dir()
    files = label_files(root)
    if not files:
        why = (f"{root} is absent" if not root.is_dir()
               else f"no *.labels.json under {root}")
        return [Row(SECTION, "skipped", {}, f"{why}: set MEM_REVIEW_HELDOUT_DIR to the "
                    "labelled sessions (never committed: public transcripts)")]
    from capture.verify import verify

    tally: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(int))
    lost: dict[str, list[str]] = defaultdict(list)
    missed: dict[str, list[str]] = defaultdict(list)
    wrong: dict[str, list[str]] = defaultdict(list)
    # half → why → [candidates, flagged for that reason]: counts only, for both halves
    per_why: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    rows: list[Row] = []
    for lf in files:
        data = json.loads(lf.read_text(encoding="utf-8"))
        half = str(data.get("half", "?"))
        path = _transcript_of(lf, data)
        name = str(path.relative_to(root)) if path.is_relative_to(root) else path.name
        if not path.is_file():
            rows.append(Row(SECTION, name, {"half": half}, "transcript absent: skipped"))
            continue
        sent = _prepared(str(path))
        seen = _norm(sent.text)
        t = tally[half]
        n_facts = kept = 0
        for i, f in enumerate(data.get("facts") or []):
            carriers = _carriers(f)
            if not carriers:
                continue
            n_facts += 1
            if all(_norm(c) in seen for c in carriers):
                kept += 1
            else:
                lost[half].append(f"{path.stem[:8]}:{f.get('id', i)}")
        t["facts"] += n_facts
        t["carried"] += kept
        t["sent B"] += len(sent.text.encode())
        t["file B"] += path.stat().st_size
        for i, c in enumerate(data.get("candidates") or []):
            kind = _kind(c)
            fact = _text(c, "fact", "text")
            quote = _text(c, "evidence", "quote")
            if not fact or not quote:
                continue
            cid = f"{path.stem[:8]}:{c.get('id', i)}"
            said = c.get("source") or c.get("speaker") or c.get("said_by")
            vd = verify(fact, quote, sent.turns, confidence=float(c.get("confidence", 0.8)),
                        said_by=said if isinstance(said, str) else None,
                        tool_texts=sent.tool_texts)
            named = {x for x in (vd.check, vd.hint) if x}
            if kind == "misleading":
                t["misleading"] += 1
                why = str(c.get("why", "?"))
                per_why[half][why][0] += 1
                if named:
                    t["flagged"] += 1
                    if named & expected_checks(why):
                        t["for its reason"] += 1
                        per_why[half][why][1] += 1
                        # known (marked ungrounded) or only suspected (a hint a model
                        # judge may settle): reported apart, never pooled silently
                        t["known" if vd.check in expected_checks(why) else "by hint"] += 1
                    else:
                        missed[half].append(f"{cid} as {'/'.join(sorted(named))}")
                else:
                    missed[half].append(f"{cid} passed")
            elif kind == "true":
                t["true"] += 1
                if not vd.supported:
                    t["wrongly flagged"] += 1
                    wrong[half].append(f"{cid}: {vd.check}")
                elif vd.hint:
                    t["hinted"] += 1
        rows.append(Row(SECTION, name, {
            "half": half, "facts": n_facts, "carried": kept,
            "sent/file": f"1/{path.stat().st_size / max(1, len(sent.text.encode())):.0f}",
        }))
    for half in sorted(tally, key=lambda h: (h not in HALVES, HALVES.index(h) if h in HALVES
                                             else 0, h)):
        t = tally[half]
        notes = []
        if half != "tune" and not os.environ.get(SHOW_ENV):
            lost[half], missed[half], wrong[half] = [], [], []  # see SHOW_ENV
        if lost[half]:
            notes.append("lost: " + ", ".join(lost[half]))
        if missed[half]:
            notes.append("misleading not for its reason: " + ", ".join(missed[half]))
        if wrong[half]:
            notes.append("true flagged: " + ", ".join(wrong[half]))
        rows.append(Row(SECTION, f"{half} half", {
            "half": half,
            "facts": t["facts"], "carried": t["carried"], "share": _pct(t["carried"], t["facts"]),
            "sent/file": f"1/{t['file B'] / max(1, t['sent B']):.0f}",
            "misleading": t["misleading"], "flagged": t["flagged"],
            "for its reason":
                f"{t['for its reason']} ({_pct(t['for its reason'], t['misleading'])})",
            "known": t["known"], "by hint": t["by hint"],
            "true": t["true"],
            "wrongly flagged": f"{t['wrongly flagged']} ({_pct(t['wrongly flagged'], t['true'])})",
            # True candidates given a hint: hints count for catching misleading ones, so
            # hinting everything must show here (issue 21: hint precision).
            "true hinted": f"{t['hinted']} ({_pct(t['hinted'], t['true'])})",
        }, "; ".join(notes)))
        if half == "tune" or os.environ.get(SHOW_ENV):
            # a held-out label's `why` beside its count is an item, not an aggregate
            rows.append(Row(SECTION, f"{half} by why", {"half": half}, ", ".join(
                f"{why} {k}/{n}" for why, (n, k) in sorted(per_why[half].items()))))
    return rows


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:.0f}%" if n else "—"
