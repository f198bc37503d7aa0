"""The review's rules without a terminal: views, filter, selection, marks, undo, counts."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reviewer.tui import triage
from reviewer.tui.rows import FactRow

NOW = 1767268800.0  # 2026-01-01 12:00 UTC


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs against a scratch data dir."""
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "home"))


def row(fid: int, status: str = "pending", text: str | None = None, **kw: object) -> FactRow:
    return FactRow(
        id=fid,
        status=status,
        category=str(kw.pop("category", "convention")),
        confidence=float(kw.pop("confidence", 0.8)),  # type: ignore[arg-type]
        text=text or f"fact {fid}",
        **kw,
    )  # type: ignore[arg-type]


def test_views_select_by_status_and_stale() -> None:
    rows = [
        row(1),
        row(2, "approved"),
        row(3, "rejected"),
        row(4, "approved", stale=True),
        row(5, stale=True),
        row(6, "rejected", stale=True),
    ]
    ids = {v: [r.id for r in triage.select_rows(rows, v)] for v in triage.VIEWS}
    assert ids["pending"] == [1, 5]
    assert ids["approved"] == [2, 4]
    assert ids["rejected"] == [3, 6]
    assert ids["stale"] == [5, 4]  # a rejected fact is never "stale": it is retired
    assert ids["all"] == [1, 5, 2, 4, 3, 6]


def test_order_pending_first_ungrounded_last_newest_first() -> None:
    rows = [
        row(1, created_at=100.0),
        row(2, created_at=200.0),
        row(3, grounded=False, created_at=300.0),
        row(4, "approved", created_at=400.0),
    ]
    assert [r.id for r in triage.select_rows(rows, "all")] == [2, 1, 3, 4]


def test_filter_matches_text_category_and_file_case_insensitively() -> None:
    rows = [
        row(1, text="Use httpx, not requests", category="decision", files=["src/client.py"]),
        row(2, text="TODO: squash migrations", category="todo"),
        row(3, text="Pool size stays at 5", files=["src/settings.py"]),
    ]

    def ids(q: str) -> list[int]:
        return [r.id for r in triage.narrow(rows, q)]

    assert ids("HTTPX") == [1]
    assert ids("todo") == [2]  # category (and text)
    assert ids("settings.py") == [3]  # a cited file
    assert ids("src pool") == [3]  # every word must match
    assert ids("") == [1, 2, 3]
    assert ids("nothing-like-this") == []


def test_filter_follows_an_edit() -> None:
    r = row(1, text="old words")
    r.text = "new words"
    r.touch()
    assert triage.narrow([r], "new") == [r]
    assert triage.narrow([r], "old") == []


def test_next_view_cycles_both_ways() -> None:
    assert triage.next_view("pending") == "approved"
    assert triage.next_view("all") == "pending"
    assert triage.next_view("pending", -1) == "all"
    seen = ["pending"]
    for _ in triage.VIEWS:
        seen.append(triage.next_view(seen[-1]))
    assert seen[-1] == "pending" and set(seen) == set(triage.VIEWS)


def test_selection_advances_to_the_next_pending_fact() -> None:
    rows = [row(1), row(2, "approved"), row(3, "rejected"), row(4), row(5)]
    assert triage.next_pending(rows, 0) == 3  # skips decided rows
    assert triage.next_pending(rows, 3) == 4
    rows[4].status = "approved"
    assert triage.next_pending(rows, 4) == 3  # none below: the nearest above
    for r in rows:
        r.status = "approved"
    assert triage.next_pending(rows, 2) == 2  # nothing pending: stay
    assert triage.next_pending([], 0) == 0


def test_marks_target_marked_rows_in_list_order_else_the_selected() -> None:
    rows = [row(1), row(2), row(3)]
    marks = triage.Marks()
    assert marks.targets(rows, rows[1]) == [rows[1]]
    assert marks.targets(rows, None) == []
    assert marks.toggle(3) is True
    assert marks.toggle(1) is True
    assert marks.targets(rows, rows[1]) == [rows[0], rows[2]]
    assert marks.toggle(3) is False
    assert 3 not in marks and 1 in marks and len(marks) == 1
    marks.clear()
    assert not marks


def test_approve_then_undo_restores_exactly() -> None:
    r = row(1, decided_at=None, files=["a.py"])
    before = r.state()
    entry = triage.approve([r], now=NOW)
    assert entry is not None and entry.ids == [1]
    assert (r.status, r.decided_at) == ("approved", NOW)
    assert triage.undo(entry) == [r]
    assert r.state() == before


def test_approve_skips_approved_and_returns_none_when_nothing_changes() -> None:
    a, b = row(1, "approved"), row(2)
    entry = triage.approve([a, b], now=NOW)
    assert entry is not None and entry.ids == [2]
    assert triage.approve([a, b], now=NOW) is None


def test_reject_records_reason_and_undo_restores_previous_reason() -> None:
    r = row(1, "rejected", reject_reason="duplicate", decided_at=5.0)
    entry = triage.reject([r], "not durable", now=NOW)
    assert entry is not None
    assert (r.status, r.reject_reason, r.decided_at) == ("rejected", "not durable", NOW)
    assert triage.reject([r], "not durable") is None  # same reason: nothing to do
    triage.undo(entry)
    assert (r.reject_reason, r.decided_at) == ("duplicate", 5.0)


def test_edit_approves_new_wording_and_undo_restores_text_and_category() -> None:
    r = row(1, text="orig", category="todo")
    v0 = r.version
    entry = triage.edit(r, "  new words ", "decision", now=NOW)
    assert (r.text, r.category, r.status) == ("new words", "decision", "approved")
    assert r.version > v0
    triage.undo(entry)
    assert (r.text, r.category, r.status) == ("orig", "todo", "pending")
    assert r.haystack.startswith("orig")


def test_edit_of_a_stale_fact_reanchors_it() -> None:
    r = row(1, "approved", files=["a.py"], anchors={"a.py": "old"}, stale=True, verdict="changed")
    entry = triage.edit(r, "still true", "gotcha", now=NOW, reanchor=("c1", {"a.py": "new"}))
    assert (r.stale, r.verdict, r.anchors, r.commit_sha) == (False, "fresh", {"a.py": "new"}, "c1")
    triage.undo(entry)
    assert (r.stale, r.verdict, r.anchors) == (True, "changed", {"a.py": "old"})


def test_verify_follows_a_rename_and_undo_puts_the_old_path_back() -> None:
    r = row(
        1,
        "approved",
        files=["old.py"],
        anchors={"old.py": "s1"},
        stale=True,
        verdict="moved",
        renamed={"old.py": "new.py"},
    )
    entry = triage.verify(r, "c2", {"new.py": "s1"}, files=["new.py"], now=NOW)
    assert (r.files, r.anchors, r.verified_at, r.renamed) == (["new.py"], {"new.py": "s1"}, NOW, {})
    assert r.haystack.endswith("new.py")
    triage.undo(entry)
    assert (r.files, r.renamed, r.verified_at) == (["old.py"], {"old.py": "new.py"}, None)


def test_undo_state_is_a_copy_not_an_alias() -> None:
    r = row(1, files=["a.py"])
    entry = triage.approve([r], now=NOW)
    assert entry is not None
    r.files.append("b.py")  # a later in-place change must not leak into the snapshot
    triage.undo(entry)
    assert r.files == ["a.py"]


def test_undo_stack_is_lifo_and_bounded() -> None:
    stack = triage.UndoStack(limit=3)
    assert not stack and stack.pop() is None
    for i in range(5):
        stack.push(triage.UndoEntry(f"e{i}", []))
    assert len(stack) == 3
    assert [stack.pop().label for _ in range(3)] == ["e4", "e3", "e2"]  # type: ignore[union-attr]


def test_counts_line_and_approved_today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        midnight = triage.local_midnight(NOW)
        assert midnight == NOW - 12 * 3600
        rows = [
            row(1),
            row(2),
            row(3, "approved", decided_at=NOW - 60),
            row(4, "approved", decided_at=midnight - 1),
            row(5, "rejected"),
            row(6, "approved", stale=True, decided_at=midnight - 10),
            row(7, "rejected", stale=True),
        ]
        counts = triage.count(rows, now=NOW)
        assert counts == triage.Counts(pending=2, approved=3, rejected=2, approved_today=1, stale=1)
        assert counts.line() == "2 pending · 1 approved today · 1 stale"
        assert triage.Counts(pending=12).line() == "12 pending · 0 approved today"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


@given(
    st.lists(st.sampled_from(["pending", "approved", "rejected"]), max_size=30),
    st.integers(min_value=0, max_value=40),
)
def test_next_pending_always_lands_on_pending_when_any(statuses: list[str], index: int) -> None:
    rows = [row(i, s) for i, s in enumerate(statuses)]
    index = min(index, max(0, len(rows) - 1))
    got = triage.next_pending(rows, index)
    if any(s == "pending" for s in statuses):
        assert rows[got].status == "pending"
        below = [i for i in range(index + 1, len(rows)) if statuses[i] == "pending"]
        if below:
            assert got == below[0]
    else:
        assert got == index
