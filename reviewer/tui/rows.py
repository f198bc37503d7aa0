"""Load the fact list straight from SQLite: the TUI's first paint must not wait for sqlmodel.

`load_rows` reads only the columns the list shows (the evidence and its context are
large and read per fact, when the detail pane needs them) into slotted dataclasses, with
the "used N times" count from the injection table in the same pass.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

_ROW_SQL = (
    "SELECT id, status, category, confidence, text, grounded, files, missing_files, "
    "times_seen, created_at, decided_at, reject_reason, commit_sha, branch, anchors, "
    "session_id, verified_at, supersedes, personal FROM fact WHERE project = ?"
)
_USED_SQL = "SELECT fact_id, COUNT(*) FROM injection WHERE project = ? GROUP BY fact_id"

# Shared by every row without renames or per-file verdicts (nearly all of them):
# read-only, so a row gets its own dict only when it has something to say.
EMPTY: Mapping[str, str] = MappingProxyType({})

# What a decision may change in a row: undo puts exactly these back.
STATE_FIELDS = (
    "status", "text", "category", "reject_reason", "decided_at", "files", "anchors",
    "commit_sha", "branch", "verified_at", "missing", "stale", "verdict", "renamed",
    "file_states", "supersedes",
)


def _json_list(raw: str | None) -> list[str]:
    if not raw or raw == "[]":
        return []
    try:
        value = json.loads(raw)
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def _json_map(raw: str | None) -> dict[str, str | None]:
    if not raw or raw == "{}":
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return {str(k): v for k, v in value.items()} if isinstance(value, dict) else {}


_LAZY_DEFAULTS = {"files": "[]", "missing": "[]", "anchors": "{}"}
_DECODERS = {"files": _json_list, "missing": _json_list, "anchors": _json_map}


def _intern(value: Any) -> Any:
    return sys.intern(value) if type(value) is str and len(value) <= 64 else value


def _lazy(name: str) -> property:
    """A JSON column decoded on first use: 10,000 rows load without 30,000 json.loads."""
    raw_slot, value_slot, decode = f"_{name}_raw", f"_{name}", _DECODERS[name]

    def get(self: FactRow) -> Any:
        value = getattr(self, value_slot)
        if value is None:
            value = decode(getattr(self, raw_slot))
            setattr(self, value_slot, value)
        return value

    def set_(self: FactRow, value: Any) -> None:
        setattr(self, value_slot, value)

    return property(get, set_)


class FactRow:
    """One fact as the list shows it; mutated in place when a person decides.

    A plain slotted class, built straight from a database tuple by `load_rows`: the
    list's first paint waits on constructing every row, so nothing is computed up front
    that the first frame does not show (JSON columns and the filter's haystack are lazy).
    """

    __slots__ = (
        "_anchors", "_anchors_raw", "_files", "_files_raw", "_haystack", "_missing",
        "_missing_raw", "branch", "category", "commit_sha", "confidence", "created_at",
        "decided_at", "file_states", "grounded", "id", "personal", "reject_reason", "renamed",
        "session_id", "stale", "status", "supersedes", "text", "times_seen", "used",
        "verdict", "verified_at", "version",
    )

    files = _lazy("files")
    missing = _lazy("missing")
    anchors = _lazy("anchors")

    def __init__(
        self, id: int, status: str, category: str, confidence: float, text: str, *,
        grounded: bool = True, files: list[str] | None = None,
        missing: list[str] | None = None, times_seen: int = 1, created_at: float = 0.0,
        decided_at: float | None = None, reject_reason: str | None = None,
        commit_sha: str | None = None, branch: str | None = None,
        anchors: dict[str, str | None] | None = None, session_id: str | None = None,
        verified_at: float | None = None, used: int = 0, stale: bool = False,
        verdict: str | None = None, renamed: dict[str, str] | None = None,
        file_states: dict[str, str] | None = None, version: int = 0,
        supersedes: int | None = None, personal: bool = False,
    ) -> None:
        self.id, self.status, self.category = id, status, category
        self.confidence, self.text, self.grounded = confidence, text, grounded
        self._files, self._missing, self._anchors = (
            list(files or ()), list(missing or ()), dict(anchors or {}))
        self._files_raw, self._missing_raw, self._anchors_raw = "[]", "[]", "{}"
        self.times_seen, self.created_at, self.decided_at = times_seen, created_at, decided_at
        self.reject_reason, self.commit_sha, self.branch = reject_reason, commit_sha, branch
        self.session_id, self.verified_at, self.used = session_id, verified_at, used
        self.stale, self.verdict = stale, verdict
        self.renamed = dict(renamed) if renamed else EMPTY
        self.file_states = dict(file_states) if file_states else EMPTY
        self.version = version
        self.supersedes = supersedes  # an older fact's id: approving this one retires it
        self.personal = personal  # a person keeps it out of `mem-review share`
        self._haystack: str | None = None

    @classmethod
    def from_db(cls, t: tuple[Any, ...], used: int) -> FactRow:
        """From a `_ROW_SQL` tuple, assigning slots directly (the 10,000-row path)."""
        row = cls.__new__(cls)
        (row.id, status, category, row.confidence, row.text, grounded, files, missing, seen,
         row.created_at, row.decided_at, row.reject_reason, commit, branch, anchors,
         session, row.verified_at, row.supersedes, personal) = t
        row.personal = bool(personal)
        # Values repeated across thousands of rows are stored once (memory at 10,000).
        row.status, row.category = _intern(status), _intern(category)
        row.commit_sha, row.branch, row.session_id = _intern(commit), _intern(branch), (
            _intern(session))
        row._files_raw, row._missing_raw, row._anchors_raw = (
            _intern(files), _intern(missing), _intern(anchors))
        row.grounded, row.times_seen, row.used = bool(grounded), seen or 1, used
        row._files = row._missing = row._anchors = row._haystack = None
        row.stale, row.verdict, row.renamed, row.file_states, row.version = (
            False, None, EMPTY, EMPTY, 0)
        return row

    def anchors_source(self) -> str | dict[str, str | None]:
        """The anchors as staleness takes them: the stored JSON text while it has not
        been decoded (no dict per row just to check it), else a copy of the dict."""
        if self._anchors is None:
            return self._anchors_raw or "{}"
        return dict(self._anchors)

    def __repr__(self) -> str:
        return f"FactRow(id={self.id}, status={self.status!r}, text={self.text[:40]!r})"

    @property
    def haystack(self) -> str:
        """Lowercase text, category and files: what the filter searches."""
        if self._haystack is None:
            self._haystack = "\n".join((self.text, self.category, *self.files)).lower()
        return self._haystack

    def reindex(self) -> None:
        self._haystack = None

    def state(self) -> tuple[Any, ...]:
        """Everything a decision can change, copied (undo restores it exactly)."""
        return tuple(
            value.copy() if isinstance(value, list | dict) else value
            for value in (getattr(self, name) for name in STATE_FIELDS)
        )

    def restore(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(STATE_FIELDS, state, strict=True):
            setattr(self, name, value.copy() if isinstance(value, list | dict) else value)
        self.touch()

    def touch(self) -> None:
        self.version += 1
        self.reindex()


# The list's order (`triage.sort_key`) in SQL, so a first page can be read on its own.
_ORDER = (
    " ORDER BY CASE status WHEN 'pending' THEN 0 WHEN 'approved' THEN 1 "
    "WHEN 'rejected' THEN 2 ELSE 3 END, grounded = 0, created_at DESC, id"
)


def load_page(
    conn: sqlite3.Connection, project: str, status: str | None, limit: int
) -> list[FactRow]:
    """The first `limit` rows of a view in list order: enough for the first paint.

    The whole list follows from a background thread (`load_rows`); at 10,000 facts,
    building every row first would make the person wait for rows they cannot see yet.
    Two steps, ids in order then their rows: sorting ids alone is a third of the cost
    of sorting whole rows.
    """
    where, params = " WHERE project = ?", [project]
    if status is not None:
        where += " AND status = ?"
        params.append(status)
    ids = [i for (i,) in conn.execute(
        "SELECT id FROM fact" + where + _ORDER + " LIMIT ?", (*params, limit)).fetchall()]
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    cursor = conn.execute(_ROW_SQL.replace("project = ?", f"id IN ({marks})"), ids)
    cursor.row_factory = None
    by_id = {t[0]: t for t in cursor.fetchall()}
    used = dict(conn.execute(
        f"SELECT fact_id, COUNT(*) FROM injection WHERE fact_id IN ({marks}) "
        "GROUP BY fact_id", ids).fetchall())
    return [FactRow.from_db(by_id[i], used.get(i, 0)) for i in ids if i in by_id]


def count_facts(conn: sqlite3.Connection, project: str, since: float) -> dict[str, int]:
    """Facts by status (from the index alone), and approvals since `since` (today)."""
    out = {"pending": 0, "approved": 0, "rejected": 0, "approved_since": 0}
    out.update(conn.execute(
        "SELECT status, COUNT(*) FROM fact WHERE project = ? GROUP BY status", (project,)
    ).fetchall())
    if out["approved"]:
        out["approved_since"] = conn.execute(
            "SELECT COUNT(*) FROM fact WHERE project = ? AND status = 'approved' "
            "AND decided_at >= ?", (project, since),
        ).fetchone()[0]
    return out


def load_rows(conn: sqlite3.Connection, project: str) -> list[FactRow]:
    """Every fact of the project (all statuses), with how often each was injected."""
    used = dict(conn.execute(_USED_SQL, (project,)).fetchall())
    cursor = conn.execute(_ROW_SQL, (project,))
    cursor.row_factory = None  # plain tuples: several times faster than sqlite3.Row
    from_db = FactRow.from_db
    if not used:
        return [from_db(t, 0) for t in cursor]
    get = used.get
    return [from_db(t, get(t[0], 0)) for t in cursor]


@dataclass(frozen=True, slots=True)
class FactDetail:
    """The large columns, read for one fact when the detail pane shows it."""

    evidence: str
    context: str
    source: str
    model: str | None
    job_id: int | None
    check: str | None = None  # the verifier's failed check (capture/verify/)
    speaker: str | None = None  # who said the quote, as the verifier found it
    said_by: str | None = None  # who said it, as the model claimed
    supersedes: tuple[int, str] | None = None  # (id, text) of the fact this one replaces
    hint: str | None = None  # the verifier's suspicion and what it rests on


@dataclass(frozen=True, slots=True)
class HistoryRow:
    at: float
    actor: str
    action: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None


def load_detail(conn: sqlite3.Connection, fact_id: int) -> FactDetail | None:
    row = conn.execute(
        "SELECT evidence, context, source, model, job_id, verify_check, evidence_speaker, "
        "evidence_source, supersedes, verify_hint FROM fact WHERE id = ?", (fact_id,)
    ).fetchone()
    if row is None:
        return None
    old = None
    if row[8] is not None:
        found = conn.execute("SELECT text FROM fact WHERE id = ?", (row[8],)).fetchone()
        old = (int(row[8]), found[0] if found else "(no longer in the store)")
    return FactDetail(
        evidence=row[0] or "", context=row[1] or "", source=row[2] or "", model=row[3],
        job_id=row[4], check=row[5], speaker=row[6], said_by=row[7], supersedes=old,
        hint=row[9],
    )


def _json_obj(raw: str | None) -> dict[str, Any] | None:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def load_history(conn: sqlite3.Connection, fact_id: int) -> list[HistoryRow]:
    """The fact's history rows, oldest first (the same rows `Store.history` returns)."""
    cursor = conn.execute(
        "SELECT at, actor, action, before, after FROM fact_history WHERE fact_id = ? "
        "ORDER BY id",
        (fact_id,),
    )
    return [
        HistoryRow(at=float(at), actor=actor, action=action, before=_json_obj(before),
                   after=_json_obj(after))
        for at, actor, action, before, after in cursor.fetchall()
    ]


def queue_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Jobs by state (queued, running, done, failed), for the empty state and the bar."""
    from reviewer.store import queue, waiting

    return {**queue.counts(conn), "waiting_for_model": waiting.count(conn)}
