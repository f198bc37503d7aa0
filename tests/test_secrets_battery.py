"""Issue 20's goals, measured on both halves of an independent battery of secrets.

tests/data/secrets_battery.json was written by a red team that did not read this code
(its README is in the issue's closing note). Half A was tuned on first and half B held
out; half B's misses were then studied too, so both halves are now tuning material and
held-out figures come from a new blind battery the lead runs. This test holds what both
halves measure to a floor a regression cannot pass. See tests/secrets_battery.py for how
each figure is taken (the real worker, the real SDK, the fake Messages API, an echoing
model, the store's files read as bytes).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from secrets_battery import load, measure, table, totals

# Goals of issue 20: ≥ 98% not sent, ≥ 98% not stored under an echoing model, ≤ 2% of
# ordinary strings touched.
GOAL_NOT_SENT = 0.98
GOAL_NOT_STORED = 0.98
GOAL_TOUCHED = 0.02
# Measured (both halves studied, see above): {half: (items, not sent, not stored,
# ordinary items, ordinary touched at most)}.
FLOORS = {
    "A": (280, 280, 280, 79, 0),
    "B": (283, 282, 282, 78, 0),
}


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("half", sorted(FLOORS))
def test_half_holds_its_measured_floor(half: str, home: Path, tmp_path: Path) -> None:
    n_items, floor_sent, floor_stored, n_ordinary, ceiling_touched = FLOORS[half]
    items = load(half)
    assert len(items) == n_items + n_ordinary and {it["half"] for it in items} == {half}
    groups = measure(items, tmp_path)
    print(f"\nsecrets battery, half {half}:\n" + table(groups))
    for name, g in sorted(groups.items()):
        for miss in g.misses:
            print(f"  {name}: {miss}")
    not_sent, not_stored, touched = totals(groups)
    print(f"goals: not sent {not_sent:.1%} (goal {GOAL_NOT_SENT:.0%}), not stored "
          f"{not_stored:.1%} (goal {GOAL_NOT_STORED:.0%}), ordinary touched {touched:.1%} "
          f"(goal ≤ {GOAL_TOUCHED:.0%})")
    secret = [g for k, g in groups.items() if k != "ordinary"]
    ordinary = groups["ordinary"]
    assert sum(g.items for g in secret) == n_items and ordinary.items == n_ordinary
    assert sum(g.not_sent for g in secret) >= floor_sent
    assert sum(g.not_stored for g in secret) >= floor_stored
    assert ordinary.items - ordinary.untouched <= ceiling_touched


def test_the_battery_is_whole() -> None:
    """Both halves, every item's secrets are exact substrings of its text, and the halves
    do not share a family (whole families went to one half)."""
    items = load()
    assert {it["half"] for it in items} == {"A", "B"}
    for it in items:
        assert all(s in it["text"] for s in it["secrets"]), it["id"]
    fam = {h: {it["family"] for it in items if it["half"] == h} for h in "AB"}
    assert fam["A"].isdisjoint(fam["B"])
