"""Staleness for the review list: verdicts computed off the UI thread, applied on it.

`reviewer.freshness.staleness` (stdlib, shared with the SessionStart hook) does the work; this
module only snapshots what it needs from the rows and folds the verdicts back in. A
verdict is dropped if its row was re-anchored meanwhile (a re-verify ran while the scan
was going), so an old scan never re-flags a fact a person just verified. Without
`reviewer.freshness.staleness` the review works and simply shows no stale flags.
"""

from __future__ import annotations

import importlib
import json
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from reviewer.tui.rows import EMPTY, FactRow


class Probe:
    """What staleness needs of a row (id, anchors, commit), copied so the scan never
    reads a changing row. Anchors stay JSON text when the row never decoded them."""

    __slots__ = ("anchors", "commit_sha", "id")

    def __init__(self, row: FactRow) -> None:
        self.id, self.commit_sha = row.id, row.commit_sha
        self.anchors = row.anchors_source()

    @classmethod
    def of(cls, fact_id: int, anchors: str, commit_sha: str | None) -> Probe:
        """From the store's columns, before any row object exists."""
        probe = cls.__new__(cls)
        probe.id, probe.anchors, probe.commit_sha = fact_id, anchors or "{}", commit_sha
        return probe

    def matches(self, row: FactRow) -> bool:
        """Is the row still anchored as it was when this probe was taken?"""
        if self.commit_sha != row.commit_sha:
            return False
        now = row.anchors_source()
        if isinstance(now, str) and isinstance(self.anchors, str):
            return now == self.anchors
        before = json.loads(self.anchors) if isinstance(self.anchors, str) else self.anchors
        return before == row.anchors


Scan = tuple[dict[int, Any], dict[int, Probe]]


def scan(db_path: Path | None, project: str, rows: Iterable[FactRow]) -> Scan | None:
    """Verdicts for the rows that can go stale (not rejected); None without the module.

    Runs in a worker thread; its own connection (the hash cache lives in the store).
    """
    try:
        staleness = importlib.import_module("reviewer.freshness.staleness")
    except ImportError:
        return None
    from reviewer.store import db

    probes = {row.id: Probe(row) for row in rows if row.status != "rejected"}
    if not probes:
        return {}, probes
    conn = db.connect(db_path)
    try:
        return staleness.verdicts(conn, project, probes.values()), probes
    finally:
        conn.close()


def scan_store(conn: sqlite3.Connection, project: str) -> Scan | None:
    """Verdicts for every fact of the project that can go stale, straight from the store.

    Run before the rows are built, in the loading thread: the scan's working memory is
    freed before 10,000 row objects are allocated (and reused by them), and the list
    arrives with its stale flags in one repaint. None without `reviewer.freshness.verdict_memo`.
    """
    try:
        verdict_memo = importlib.import_module("reviewer.freshness.verdict_memo")
    except ImportError:
        return None

    with verdict_memo.snapshot(conn, project, "live") as rev:
        cursor = conn.execute(
            "SELECT id, anchors, commit_sha FROM fact "
            "WHERE project = ? AND status IN ('pending', 'approved')",
            (project,),
        )
        cursor.row_factory = None
        rows = cursor.fetchall()
    probes = {fid: Probe.of(fid, anchors, commit) for fid, anchors, commit in rows}
    if not probes:
        return {}, probes
    # Remembered in the store between runs: a TUI opened on unchanged files skips the pass.
    return verdict_memo.verdicts(conn, project, project, "live", rows=rows, rev=rev), probes


def apply(by_id: Mapping[int, FactRow], found: Scan) -> list[FactRow]:
    """Fold verdicts into the rows; returns the rows whose flags changed."""
    verdicts, probes = found
    changed: list[FactRow] = []
    for fact_id, verdict in verdicts.items():
        row = by_id.get(fact_id)
        probe = probes.get(fact_id)
        if row is None or probe is None or not probe.matches(row):
            continue  # re-anchored meanwhile: a newer verdict is on its way
        if verdict.stale:  # only stale rows keep per-file states (the detail pane's)
            state = (True, str(verdict.state), dict(verdict.files),
                     dict(getattr(verdict, "renamed_to", {}) or {}) or EMPTY)
        else:
            state = (False, str(verdict.state), EMPTY, EMPTY)
        if state != (row.stale, row.verdict, row.file_states, row.renamed):
            row.stale, row.verdict, row.file_states, row.renamed = state
            row.version += 1
            changed.append(row)
    return changed


def describe(row: FactRow) -> str:
    """One line: which cited files moved on since the fact was anchored, and how."""
    moved_on = [(p, s) for p, s in row.file_states.items() if s not in ("fresh", "missing")]
    if not moved_on:
        return f"the cited code changed since capture ({row.verdict or 'changed'})"
    parts = []
    for path, state in moved_on:
        target = row.renamed.get(path)
        parts.append(f"{path} {state}" + (f" → {target}" if target else ""))
    since = f" since {row.commit_sha[:10]}" if row.commit_sha else " since capture"
    return "; ".join(parts) + since


def grades(project: str, rows: Iterable[FactRow]) -> dict[int, str]:
    """How each stale row's change relates to what it says (`freshness.parts`): off the
    UI thread, one git process for every anchored blob."""
    from reviewer.freshness import parts

    todo: list[tuple[FactRow, dict[str, tuple[str | None, str | None]]]] = []
    for row in rows:
        if not row.stale:
            continue
        changed: dict[str, tuple[str | None, str | None]] = {}
        for path, state in row.file_states.items():
            if state in ("changed", "moved", "deleted"):
                now = None if state == "deleted" else row.renamed.get(path, path)
                changed[path] = (row.anchors.get(path), now)
        if changed:
            todo.append((row, changed))
    blobs = parts.read_blobs(project, (sha for _, ch in todo for sha, _ in ch.values() if sha))
    return {row.id: parts.grade_files(project, row.text, ch, blobs) for row, ch in todo}
