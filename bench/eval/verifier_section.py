"""The verifier half of `make eval`: misleading candidates caught, true ones wrongly flagged.

Candidates (bench/eval/candidates.json) are built against real sessions in
../shared/transcripts: true facts with their quotes, and misleading ones of every kind
issue 12 names (inverted quote, an elision that drops "doesn't", a fuzzy negation flip,
a three-word quote, a tool-call line, a corrected guess, a stitched quote, a
compaction-summary-only quote, names the quote lacks). Each goes through
`capture.verify.verify` against the same turns the pipeline verifies against (condensed,
then redacted). Printed, not timed, not a test.

    python bench/eval/verifier_section.py      # standalone
    make eval                                  # with the other sections
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
if str(ROOT) not in sys.path:  # run as a script: make the project importable
    sys.path.insert(0, str(ROOT))

CANDIDATES = Path(__file__).resolve().parent / "candidates.json"
SHARED = Path(os.environ.get("MEM_REVIEW_SHARED_DIR") or ROOT.parent / "shared")
TRANSCRIPTS = SHARED / "transcripts"
SECTION = "verifier"

try:  # the harness's row, when the harness is there
    from bench.eval.common import Row
except ImportError:  # standalone, before the harness lands

    @dataclass
    class Row:  # type: ignore[no-redef]
        section: str
        label: str
        values: dict[str, Any] = field(default_factory=dict)
        note: str = ""


@cache
def turns_of(session: str) -> list[Any]:
    """The redacted condensed turns of a session, as `capture.pipeline` verifies against,
    with its compaction summaries as `summary` turns if this checkout's condenser drops
    them (older condensers did)."""
    from capture.condense import condense_file
    from reviewer.sanitize.redact import redact

    path = TRANSCRIPTS / session
    turns = [dataclasses.replace(t, text=redact(t.text)) for t in condense_file(path).turns]
    if not any(t.kind == "summary" for t in turns):
        turns = sorted(turns + _summaries(path), key=lambda t: (t.line, t.kind != "summary"))
    return turns


def _summaries(path: Path) -> list[Any]:
    from capture.transcript import Turn
    from reviewer.sanitize.redact import redact

    out = []
    offset = 0
    with open(path, "rb") as f:
        for n, raw in enumerate(f, start=1):
            if b"isCompactSummary" in raw:
                rec = json.loads(raw)
                content = rec.get("message", {}).get("content", "")
                if isinstance(content, list):
                    content = "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
                if rec.get("isCompactSummary") and content:
                    out.append(Turn("user", "summary", redact(content), n, offset))  # type: ignore[arg-type]
            offset += len(raw)
    return out


def load(path: Path = CANDIDATES) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    items = data["candidates"]
    for c in items:
        missing = [k for k in ("id", "kind", "session", "fact", "evidence") if not c.get(k)]
        if missing:
            raise ValueError(f"{path}: candidate {c.get('id')!r} lacks {', '.join(missing)}")
    return items


def judge(items: list[dict[str, Any]]) -> list[tuple[dict[str, Any], Any]]:
    """Each candidate with its verdict (skipping sessions that are absent)."""
    from capture.verify import verify

    out = []
    for c in items:
        if not (TRANSCRIPTS / c["session"]).is_file():
            continue
        verdict = verify(c["fact"], c["evidence"], turns_of(c["session"]),
                         confidence=float(c.get("confidence", 0.8)))
        out.append((c, verdict))
    return out


def rows() -> list[Row]:
    """The section's table: per kind, how many the verifier refused (and by the
    expected check); for true ones, how many it wrongly flagged."""
    if not TRANSCRIPTS.is_dir():
        return [Row(SECTION, "skipped", {}, f"{TRANSCRIPTS} is absent: no real sessions")]
    judged = judge(load())
    by_kind: dict[str, list[tuple[dict[str, Any], Any]]] = defaultdict(list)
    for c, verdict in judged:
        by_kind[c["kind"]].append((c, verdict))
    out: list[Row] = []
    bad_total = bad_caught = bad_exact = 0
    for kind in sorted(k for k in by_kind if k != "true"):
        pairs = by_kind[kind]
        caught = [(c, vd) for c, vd in pairs if _flagged(vd)]
        exact = [c for c, vd in caught if c.get("expect") in (vd.check, vd.hint)]
        missed = [c["id"] for c, vd in pairs if not _flagged(vd)]
        other = Counter(vd.check or vd.hint for c, vd in caught
                        if c.get("expect") not in (vd.check, vd.hint))
        note = "; ".join(filter(None, [
            f"missed: {', '.join(missed)}" if missed else "",
            "also caught as " + ", ".join(f"{k} ×{n}" for k, n in sorted(other.items()))
            if other else "",
        ]))
        out.append(Row(SECTION, kind, {
            "candidates": len(pairs), "caught": len(caught), "by its check": len(exact),
            "wrongly flagged": "",
        }, note))
        bad_total += len(pairs)
        bad_caught += len(caught)
        bad_exact += len(exact)
    true = by_kind.get("true", [])
    flagged = [(c, vd) for c, vd in true if not vd.supported]
    hinted = [(c, vd) for c, vd in true if vd.supported and getattr(vd, "hint", None)]
    out.append(Row(SECTION, "true", {
        "candidates": len(true), "caught": "", "by its check": "", "wrongly flagged": len(flagged),
        "true hinted": len(hinted),
    }, "; ".join([f"{c['id']}: {vd.check}" for c, vd in flagged]
                 + [f"{c['id']}: hint {vd.hint}" for c, vd in hinted])))
    # The first set was used while building the verifier, the second written after it
    # and not tuned on: the second is the fairer figure.
    for name in sorted({c.get("set", "") for c, _ in judged} - {""}):
        part = [(c, vd) for c, vd in judged if c.get("set") == name]
        out.append(_summary_row(f"{name} set", part))
    out.append(_summary_row("overall", judged))
    return out


def _flagged(vd: Any) -> bool:
    """Marked ungrounded (what the checks know) or hinted at (what they suspect, shown
    beside the evidence: issue 21). Only the first counts against a true candidate."""
    return not vd.supported or bool(getattr(vd, "hint", None))


def _summary_row(label: str, judged: list[tuple[dict[str, Any], Any]]) -> Row:
    bad = [(c, vd) for c, vd in judged if c["kind"] != "true"]
    true = [(c, vd) for c, vd in judged if c["kind"] == "true"]
    caught = sum(1 for _, vd in bad if _flagged(vd))
    exact = sum(1 for c, vd in bad if c.get("expect") in (vd.check, vd.hint))
    flagged = sum(1 for _, vd in true if not vd.supported)
    # A hint catches a misleading candidate, so hints on true ones are counted too.
    hinted = sum(1 for _, vd in true if vd.supported and getattr(vd, "hint", None))
    pct = f"{100 * caught / len(bad):.0f}%" if bad else "—"
    fp = f"{100 * flagged / len(true):.0f}%" if true else "—"
    note = {"first set": "used while building the verifier",
            "second set": "written afterwards, not tuned on",
            "overall": "misleading caught; true ones wrongly flagged"}.get(label, "")
    return Row(SECTION, label, {
        "candidates": len(judged), "caught": f"{caught}/{len(bad)} ({pct})",
        "by its check": exact, "wrongly flagged": f"{flagged}/{len(true)} ({fp})",
        "true hinted": f"{hinted}/{len(true)}",
    }, note)


def _table(table_rows: list[Row]) -> str:
    cols: list[str] = []
    for r in table_rows:
        cols += [c for c in r.values if c not in cols]
    header = ["", *cols, "note"]
    cells = [[r.label, *(str(r.values.get(c, "")) for c in cols), r.note] for r in table_rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header)]
    widths[-1] = len(header[-1])

    def line(values: list[str]) -> str:
        return "  ".join([values[0].ljust(widths[0]),
                          *(v.rjust(widths[i + 1]) for i, v in enumerate(values[1:-1])),
                          values[-1]]).rstrip()

    out = [line(header), line(["-" * w for w in widths])]
    for r, c in zip(table_rows, cells, strict=True):
        if r.label == "overall":
            out.append(line(["-" * w for w in widths]))
        out.append(line(c))
    return "\n".join(out)


def run() -> list[Row]:
    """Print the section's table (standalone use) and return its rows."""
    table_rows = rows()
    print(f"\n== {SECTION} ==")
    print(_table(table_rows))
    return table_rows


if __name__ == "__main__":
    run()
