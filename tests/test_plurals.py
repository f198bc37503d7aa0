"""Counts read as English: "1 fact", never "1 facts" (seen in three places)."""

from __future__ import annotations

import sqlite3

from reviewer.claude_code.inject import Stats
from reviewer.commands.listing import table
from reviewer.tui import triage
from reviewer.tui.rows import FactRow
from reviewer.tui.widgets import detail


def _row(**kw: object) -> FactRow:
    return FactRow(7, "approved", "convention", 0.9, "Use pnpm.", **kw)  # type: ignore[arg-type]


def test_one_of_each_is_singular() -> None:
    assert triage.plural(1, "fact") == "1 fact" and triage.plural(2, "fact") == "2 facts"
    assert triage.verify_many([(_row(), None, {})]).label == "re-verified 1 fact"
    line = Stats(project="p", approved=1, injected=1, branch_files=1).line()
    assert "1 file changed on this branch" in line
    conn = sqlite3.connect(":memory:")
    conn.row_factory = sqlite3.Row
    fact = conn.execute("SELECT 1 AS id, 'approved' AS status, 'convention' AS category, "
                        "0.9 AS confidence, 'Use pnpm.' AS text, 1 AS grounded, "
                        "'[]' AS missing_files, 1 AS times_seen").fetchone()
    assert "\n1 fact (1 approved) in p\n" in table([fact], {}, project="p")
    text = " ".join(str(c) for c in detail.summary(_row(times_seen=1, used=1)))
    assert "seen in 1 session · injected 1 time" in text, text


def test_no_count_is_pluralised_by_hand_without_a_check() -> None:
    """Every `{n} facts`-style f-string in the package counts with a guard or `plural`."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    pattern = re.compile(r"\{(len\([^)]*\)|[a-z_.]+)\} (facts|files|sessions|times|jobs)\b")
    bad = []
    for path in sorted((root / "reviewer").rglob("*.py")) + sorted(
            (root / "capture").rglob("*.py")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            found = pattern.search(line)
            if found and found.group(1) != "view" and not any(
                    ok in line for ok in ("!= 1", "== 1", "plural", "two or more")):
                bad.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    assert bad == [], "\n".join(bad)
