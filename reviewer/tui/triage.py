"""The review's rules as plain code: views, filtering, where the selection goes, undo.

Nothing here knows about a terminal or the store. The app applies a decision to its rows
at once (so the screen never waits on the disk), keeps what each row was before on the
undo stack, and hands the same decision to the store in the background.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from reviewer.tui.rows import EMPTY, FactRow

VIEWS = ("pending", "approved", "rejected", "stale", "all")
STATUS_RANK = {"pending": 0, "approved": 1, "rejected": 2}

# (reason stored with the rejection, label in the picker). "other" asks for free text.
REASONS: tuple[tuple[str, str], ...] = (
    ("wrong or invented", "wrong / invented"),
    ("not durable", "not durable"),
    ("duplicate", "duplicate"),
    ("too vague", "too vague"),
    ("sensitive", "sensitive"),
    ("outdated", "outdated"),
    ("other", "other…"),
)
OUTDATED = "outdated"
UNDO_LIMIT = 1000
EMPTY_SKIPS: Mapping[int, int] = MappingProxyType({})
EMPTY_GRADES: Mapping[int, str] = MappingProxyType({})
GRADE_RANK = {"part": 0, "unknown": 1, "elsewhere": 2}  # as reviewer.freshness.parts.RANK


# ---- views and filter -------------------------------------------------------------


def in_view(row: FactRow, view: str) -> bool:
    if view == "all":
        return True
    if view == "stale":
        return row.stale and row.status != "rejected"
    return row.status == view


def sort_key(
    row: FactRow, skipped: Mapping[int, int] = EMPTY_SKIPS
) -> tuple[int, int, bool, float, int]:
    """Pending first; skipped ones after the rest, in the order skipped; grounded before
    ungrounded (GUIDE §5); newest session first."""
    return (STATUS_RANK.get(row.status, 3), skipped.get(row.id, 0), not row.grounded,
            -row.created_at, row.id)


def terms(query: str) -> list[str]:
    """Every whitespace-separated word must match (case-insensitive substring)."""
    return query.lower().split()


def matches(row: FactRow, words: Sequence[str]) -> bool:
    haystack = row.haystack
    return all(word in haystack for word in words)


def select_rows(
    rows: Iterable[FactRow], view: str, query: str = "",
    skipped: Mapping[int, int] = EMPTY_SKIPS, grades: Mapping[int, str] = EMPTY_GRADES,
) -> list[FactRow]:
    """The rows a view shows, filtered by `query` (text, category, file), in list order.
    The stale view puts facts whose cited part changed first, then the ungraded, then
    those changed only elsewhere in their files."""
    words = terms(query)
    chosen = [r for r in rows if in_view(r, view) and (not words or matches(r, words))]
    if view == "stale" and grades:
        chosen.sort(key=lambda r: (GRADE_RANK.get(grades.get(r.id, ""), 1),
                                   *sort_key(r, skipped)))
    elif skipped:
        chosen.sort(key=lambda r: sort_key(r, skipped))
    else:
        chosen.sort(key=sort_key)
    return chosen


class Skips:
    """Candidates deferred with `s` in this review: still pending, listed after the rest
    in the order they were skipped (skipping again sends one to the very end)."""

    def __init__(self) -> None:
        self.order: dict[int, int] = {}
        self._next = 1

    def skip(self, fact_id: int) -> None:
        self.order[fact_id] = self._next
        self._next += 1

    def __len__(self) -> int:
        return len(self.order)


def narrow(rows: Sequence[FactRow], query: str) -> list[FactRow]:
    """Filter an already ordered list (typing in the filter re-narrows from the view).

    One pass per word, each over what the last one kept: at 10,000 rows a keystroke
    costs about a millisecond.
    """
    out = list(rows)
    for word in terms(query):
        out = [r for r in out if word in r.haystack]
    return out


def next_view(view: str, step: int = 1) -> str:
    return VIEWS[(VIEWS.index(view) + step) % len(VIEWS)]


# ---- selection --------------------------------------------------------------------


def next_pending(rows: Sequence[FactRow], index: int) -> int:
    """Where the selection goes after a decision: the next pending fact below, else the
    nearest one above, else stay (so the person's next key lands on something to decide)."""
    for i in range(index + 1, len(rows)):
        if rows[i].status == "pending":
            return i
    for i in range(min(index, len(rows)) - 1, -1, -1):
        if rows[i].status == "pending":
            return i
    return max(0, min(index, len(rows) - 1))


class Marks:
    """Facts marked with space for a batch decision; ids, so filtering keeps them."""

    def __init__(self) -> None:
        self._ids: set[int] = set()

    def toggle(self, fact_id: int) -> bool:
        if fact_id in self._ids:
            self._ids.discard(fact_id)
            return False
        self._ids.add(fact_id)
        return True

    def __contains__(self, fact_id: object) -> bool:
        return fact_id in self._ids

    def __len__(self) -> int:
        return len(self._ids)

    def clear(self) -> None:
        self._ids.clear()

    def discard(self, ids: Iterable[int]) -> None:
        self._ids.difference_update(ids)

    def targets(self, rows: Sequence[FactRow], selected: FactRow | None) -> list[FactRow]:
        """The marked rows (in list order) if any, else the selected one."""
        if self._ids:
            return [r for r in rows if r.id in self._ids]
        return [] if selected is None else [selected]


# ---- decisions and undo -----------------------------------------------------------


@dataclass
class UndoEntry:
    """One decision: each row's state before it, and the store's undo token."""

    label: str
    before: list[tuple[FactRow, tuple[Any, ...]]]
    token: Any = None  # what the store needs to restore (a future of its snapshots)

    @property
    def ids(self) -> list[int]:
        return [row.id for row, _ in self.before]


@dataclass
class UndoStack:
    entries: list[UndoEntry] = field(default_factory=list)
    limit: int = UNDO_LIMIT

    def push(self, entry: UndoEntry) -> None:
        self.entries.append(entry)
        if len(self.entries) > self.limit:
            del self.entries[0]

    def pop(self) -> UndoEntry | None:
        return self.entries.pop() if self.entries else None

    def __len__(self) -> int:
        return len(self.entries)

    def __bool__(self) -> bool:
        return bool(self.entries)


def _begin(label: str, rows: Sequence[FactRow]) -> UndoEntry:
    return UndoEntry(label, [(row, row.state()) for row in rows])


def approve(rows: Sequence[FactRow], now: float | None = None) -> UndoEntry | None:
    """Mark rows approved (those not already); None when nothing changes."""
    todo = [r for r in rows if r.status != "approved"]
    if not todo:
        return None
    entry = _begin(f"approved {_count(todo)}", todo)
    at = time.time() if now is None else now
    for row in todo:
        row.status, row.reject_reason, row.decided_at = "approved", None, at
        row.touch()
    return entry


def retire_superseded(
    entry: UndoEntry, rows: Sequence[FactRow], now: float | None = None
) -> list[FactRow]:
    """What `Store.approve` does to the facts the approved ones supersede, mirrored in
    the list: each is rejected "superseded by #N", and the same undo restores it."""
    approved = {r.supersedes: r.id for r, _ in entry.before
                if r.status == "approved" and r.supersedes is not None}
    if not approved:
        return []
    at = time.time() if now is None else now
    retired = []
    for row in rows:
        new_id = approved.get(row.id)
        if new_id is None or row.status == "rejected" or row.id == new_id:
            continue
        entry.before.append((row, row.state()))
        row.status, row.reject_reason, row.decided_at = "rejected", f"superseded by #{new_id}", at
        row.touch()
        retired.append(row)
    return retired


def reject(rows: Sequence[FactRow], reason: str, now: float | None = None) -> UndoEntry | None:
    todo = [r for r in rows if not (r.status == "rejected" and r.reject_reason == reason)]
    if not todo:
        return None
    entry = _begin(f"rejected {_count(todo)} ({reason})", todo)
    at = time.time() if now is None else now
    for row in todo:
        row.status, row.reject_reason, row.decided_at = "rejected", reason, at
        row.touch()
    return entry


def edit(
    row: FactRow, text: str, category: str, now: float | None = None,
    reanchor: tuple[str | None, dict[str, str | None]] | None = None,
) -> UndoEntry:
    """A person's wording; it approves the fact (and re-anchors a stale one)."""
    entry = _begin(f"edited #{row.id}", [row])
    row.text, row.category = text.strip(), category
    row.status, row.reject_reason, row.decided_at = "approved", None, (
        time.time() if now is None else now
    )
    if reanchor is not None:
        _reanchor(row, *reanchor, now=row.decided_at)
    row.touch()
    return entry


def verify(
    row: FactRow, commit_sha: str | None, anchors: dict[str, str | None],
    files: list[str] | None = None, now: float | None = None,
) -> UndoEntry:
    """A person says the fact still holds for today's code: re-anchor it."""
    entry = _begin(f"re-verified #{row.id}", [row])
    if files is not None:
        row.files = list(files)
    _reanchor(row, commit_sha, anchors, now=time.time() if now is None else now)
    row.touch()
    return entry


def verify_many(
    items: Sequence[tuple[FactRow, str | None, dict[str, str | None]]],
    now: float | None = None,
) -> UndoEntry:
    """Several facts re-verified in one confirmed step (one undo)."""
    at = time.time() if now is None else now
    entry = _begin(f"re-verified {plural(len(items), 'fact')}", [row for row, _, _ in items])
    for row, commit_sha, anchors in items:
        _reanchor(row, commit_sha, anchors, now=at)
        row.touch()
    return entry


def _reanchor(
    row: FactRow, commit_sha: str | None, anchors: dict[str, str | None], *, now: float
) -> None:
    row.commit_sha, row.anchors, row.verified_at = commit_sha, dict(anchors), now
    row.missing = [path for path, sha in anchors.items() if sha is None]
    row.stale, row.renamed = False, EMPTY
    row.file_states = {path: "fresh" if sha else "missing" for path, sha in anchors.items()}
    row.verdict = "fresh" if anchors else "unanchored"


def merge_base(rows: Sequence[FactRow]) -> FactRow:
    """The fact a merge keeps (and whose text it starts from): an approved one, else a
    grounded one, then the most confident, the most often seen, the oldest."""
    return min(rows, key=lambda r: (r.status != "approved", not r.grounded, -r.confidence,
                                    -r.times_seen, r.id))


def merge(
    keep: FactRow, others: Sequence[FactRow], text: str, category: str,
    now: float | None = None,
) -> UndoEntry:
    """Several facts become `keep` with the person's wording (approved, as any edit);
    the others are rejected as merged into it, each keeping its evidence and history."""
    at = time.time() if now is None else now
    entry = _begin(f"merged {len(others) + 1} facts into #{keep.id}", [keep, *others])
    keep.text, keep.category = text.strip(), category
    keep.status, keep.reject_reason, keep.decided_at = "approved", None, at
    keep.touch()
    reason = merged_reason(keep.id)
    for row in others:
        row.status, row.reject_reason, row.decided_at = "rejected", reason, at
        row.touch()
    return entry


def supersede_pair(a: FactRow, b: FactRow) -> tuple[FactRow, FactRow]:
    """(old, new): the approved one is replaced (the older if both are, or neither)."""
    if (a.status == "approved") != (b.status == "approved"):
        return (a, b) if a.status == "approved" else (b, a)
    return (a, b) if (a.created_at, a.id) <= (b.created_at, b.id) else (b, a)


def supersede(new: FactRow, old: FactRow, now: float | None = None) -> UndoEntry:
    """The person's link: `new` approved, `old` retired as superseded (as the store does)."""
    at = time.time() if now is None else now
    entry = _begin(f"#{new.id} supersedes #{old.id}", [new, old])
    new.status, new.reject_reason, new.decided_at = "approved", None, at
    new.supersedes = old.id
    new.touch()
    old.status, old.reject_reason, old.decided_at = "rejected", f"superseded by #{new.id}", at
    old.touch()
    return entry


def merged_reason(keep_id: int) -> str:
    return f"merged into #{keep_id}"


def follow_paths(text: str, renamed: Mapping[str, str]) -> str:
    """The fact's words with each renamed path (whole, not inside a longer path) replaced."""
    import re

    for old, new in renamed.items():
        text = re.sub(rf"(?<![\w./-]){re.escape(old)}(?![\w/-])", new, text)
    return text


def undo(entry: UndoEntry) -> list[FactRow]:
    """Put every row of the entry back as it was; returns them."""
    for row, state in entry.before:
        row.restore(state)
    return [row for row, _ in entry.before]


def _count(rows: Sequence[FactRow]) -> str:
    return f"#{rows[0].id}" if len(rows) == 1 else f"{len(rows)} facts"


def plural(n: int, noun: str) -> str:
    """`1 fact`, `2 facts`: never "1 facts"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


# ---- counts -----------------------------------------------------------------------


@dataclass(frozen=True)
class Counts:
    pending: int = 0
    approved: int = 0
    rejected: int = 0
    approved_today: int = 0
    stale: int = 0

    def line(self) -> str:
        """ "12 pending · 3 approved today · 1 stale" (the zeros that matter stay). """
        parts = [f"{self.pending:,} pending", f"{self.approved_today:,} approved today"]
        if self.stale:
            parts.append(f"{self.stale:,} stale")
        return " · ".join(parts)


def local_midnight(now: float) -> float:
    t = time.localtime(now)
    return time.mktime((t.tm_year, t.tm_mon, t.tm_mday, 0, 0, 0, 0, 0, -1))


def count(rows: Iterable[FactRow], now: float | None = None) -> Counts:
    midnight = local_midnight(time.time() if now is None else now)
    pending = approved = rejected = today = stale = 0
    for row in rows:
        if row.status == "pending":
            pending += 1
        elif row.status == "approved":
            approved += 1
            if (row.decided_at or 0) >= midnight:
                today += 1
        else:
            rejected += 1
        if row.stale and row.status != "rejected":
            stale += 1
    return Counts(pending, approved, rejected, today, stale)
