"""Two reviewers on one store: each sees the other's decisions (and the worker's new
candidates) within about a second, without ctrl+r, and a decision on a fact that changed
under the person asks first instead of overwriting the other's silently.

The screen polls `PRAGMA data_version` on its read connection: SQLite bumps it when any
other connection commits (the worker, another TUI, this TUI's own writer thread), and
reading it touches no table. Only when it moved is the project's list read again, off
the UI thread, and merged into the rows on screen in place, so marks, the cursor and the
undo stack (which hold row objects) stay valid.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from reviewer.tui.rows import _ROW_SQL, FactRow

POLL_SECONDS = 1.0

# What a person would notice changed (another review's decision, an edit).
SEEN = ("status", "text", "category", "reject_reason", "personal", "supersedes")
# Everything else a row holds from the store, copied along.
PLAIN = ("confidence", "grounded", "times_seen", "created_at", "decided_at", "commit_sha",
         "branch", "session_id", "verified_at", "used")
LAZY = ("files", "missing", "anchors")


def data_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


@dataclass
class Merged:
    """What `merge` found (off the UI thread); `apply` makes it so (on it)."""

    rows: list[FactRow]
    pairs: list[tuple[FactRow, FactRow, bool]] = field(default_factory=list)  # old, new, seen
    changed: list[FactRow] = field(default_factory=list)  # a person would see the change
    updated: list[FactRow] = field(default_factory=list)  # any field moved (incl. changed)
    added: list[FactRow] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)

    def apply(self) -> None:
        """Copy the store's values into the rows on screen (the UI thread's part: 10,000
        rows compared cost ~30 ms, kept off it)."""
        for old, new, seen in self.pairs:
            _copy(old, new)
            self.updated.append(old)
            if seen:
                self.changed.append(old)


def _lazy_equal(old: FactRow, new: FactRow, name: str) -> bool:
    if getattr(old, f"_{name}") is None:  # never decoded: compare the stored JSON text
        return bool(getattr(old, f"_{name}_raw") == getattr(new, f"_{name}_raw"))
    return bool(getattr(old, name) == getattr(new, name))


def _copy(old: FactRow, new: FactRow) -> None:
    for name in SEEN + PLAIN:
        setattr(old, name, getattr(new, name))
    for name in LAZY:
        setattr(old, f"_{name}_raw", getattr(new, f"_{name}_raw"))
        setattr(old, f"_{name}", getattr(new, f"_{name}"))
    old.stale = False  # judged again by the caller's staleness scan
    old.touch()


def merge(by_id: Mapping[int, FactRow], fresh: Sequence[FactRow]) -> Merged:
    """The store's rows, keeping each row object already on screen; which of them differ
    (compared only: `Merged.apply` updates them in place)."""
    out = Merged(rows=[])
    for new in fresh:
        old = by_id.get(new.id)
        if old is None:
            out.rows.append(new)
            out.added.append(new)
            continue
        out.rows.append(old)
        seen = any(getattr(old, n) != getattr(new, n) for n in SEEN)
        if seen or any(getattr(old, n) != getattr(new, n) for n in PLAIN) or not all(
            _lazy_equal(old, new, n) for n in LAZY
        ):
            out.pairs.append((old, new, seen))
    kept = {r.id for r in fresh}
    out.removed = [i for i in by_id if i not in kept]
    return out


def changed_under(conn: sqlite3.Connection, rows: Sequence[FactRow]) -> list[FactRow]:
    """The store's version of each row whose status, text or category is not what the
    screen shows (another review decided or edited it meanwhile); read on the UI thread,
    a few rows by primary key."""
    if not rows:
        return []
    marks = ",".join("?" * len(rows))
    cursor = conn.execute(_ROW_SQL.replace("project = ?", f"id IN ({marks})"),
                          [r.id for r in rows])
    cursor.row_factory = None
    found = {t[0]: FactRow.from_db(t, 0) for t in cursor.fetchall()}
    out = []
    for row in rows:
        now = found.get(row.id)
        if now is not None and (now.status, now.text, now.category, now.reject_reason) != (
                row.status, row.text, row.category, row.reject_reason):
            now.used = row.used
            out.append(now)
    return out


def describe(store_row: FactRow, shown: FactRow) -> str:
    """`#12 is now approved (you saw it pending)`, for the question."""
    if store_row.status != shown.status:
        now = store_row.status + (f" ({store_row.reject_reason})"
                                  if store_row.status == "rejected" and
                                  store_row.reject_reason else "")
        return f"#{shown.id} is now {now} (you saw it {shown.status})"
    return f"#{shown.id} was edited (now: {store_row.text[:80]})"
