"""What every eval section shares: where the real sessions and the labels are, and the
row a section returns.

A section is a module in bench/eval/sections/ with `run() -> list[Row]`; `bench/eval/run.py`
finds it by itself. Rows of one section print as one table, columns in first-seen order.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
EVAL = Path(__file__).resolve().parent
LABELS = EVAL / "labels.json"
SHARED = Path(os.environ.get("MEM_REVIEW_SHARED_DIR") or ROOT.parent / "shared")
TRANSCRIPTS = SHARED / "transcripts"


@dataclass
class Row:
    """One line of a section's table. `values` maps column → number or text; a row whose
    label is "overall" is printed last, under a rule."""

    section: str
    label: str
    values: dict[str, Any] = field(default_factory=dict)
    note: str = ""


def load_labels(path: Path = LABELS) -> dict[str, Any]:
    """The hand-made labels; ValueError when a session or fact lacks what it needs."""
    data = json.loads(path.read_text(encoding="utf-8"))
    sessions = data.get("sessions")
    if not isinstance(sessions, list) or not sessions:
        raise ValueError(f"{path}: no sessions")
    for s in sessions:
        if not isinstance(s.get("path"), str) or not s.get("facts"):
            raise ValueError(f"{path}: a session needs a path and facts: {s!r:.80}")
        for f in s["facts"]:
            words = f.get("words")
            if not f.get("id") or not f.get("fact") or not words or not all(
                isinstance(w, str) and w.strip() for w in words
            ):
                raise ValueError(f"{path}: {s['path']}: fact needs id, fact, words: {f!r:.80}")
    return data


_WS = re.compile(r"\s+")
_RENDER_MARKS = re.compile(r"\s*┆\s*")  # a call detail's line prefix (capture.condense)


def norm(text: str) -> str:
    """Case, whitespace and line-prefix insensitive form used to look words up."""
    return _WS.sub(" ", _RENDER_MARKS.sub(" ", text)).strip().casefold()
