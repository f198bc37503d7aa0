"""Find sessions whose hook never fired, and queue them.

SessionEnd is skipped when the terminal is killed, so some sessions end uncaptured. The
worker looks, once per run, in the directories where hooks already found transcripts
(Claude Code keeps one directory per project): a transcript there that went quiet and has
grown past what finished jobs read, or that appeared after mem-review started capturing
there, is queued. Nothing older than the first capture in a directory is backfilled:
that is what `mem-review capture` is for, by choice.

Stdlib only; a few `scandir` calls.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass

from reviewer.store import db, queue

IDLE_SECONDS = 600.0  # a transcript untouched this long belongs to a session that ended
HOOK_EVENTS = ("SessionEnd", "PreCompact")


@dataclass(frozen=True)
class Missed:
    transcript_path: str
    project: str
    cwd: str
    session_id: str


def find_missed(
    conn: sqlite3.Connection, *, now: float | None = None, idle: float = IDLE_SECONDS
) -> list[Missed]:
    now = db.now() if now is None else now
    known: dict[str, sqlite3.Row] = {
        r["transcript_path"]: r
        for r in conn.execute(
            "SELECT transcript_path, "
            "MAX(CASE WHEN state = 'done' THEN end_cursor END) AS cursor, "
            "SUM(state IN ('queued', 'running')) AS open, "
            "MAX(CASE WHEN state = 'failed' THEN updated_at END) AS failed_at "
            "FROM job GROUP BY transcript_path"
        )
    }
    dirs: dict[str, sqlite3.Row] = {}  # directory -> its newest hook job (the project)
    first_seen: dict[str, float] = {}  # directory -> when capture started there
    placeholders = ", ".join("?" for _ in HOOK_EVENTS)
    for r in conn.execute(
        "SELECT transcript_path, project, cwd, created_at FROM job "
        f"WHERE event IN ({placeholders}) ORDER BY created_at DESC",
        HOOK_EVENTS,
    ):
        d = os.path.dirname(r["transcript_path"])
        dirs.setdefault(d, r)
        first_seen[d] = r["created_at"]

    out: list[Missed] = []
    for d, owner in dirs.items():
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for entry in entries:
            if not entry.name.endswith(".jsonl"):
                continue
            if entry.name.startswith("agent-"):  # a subagent's own file (Claude Code 2.0):
                continue  # its findings reach the session through its Task result; each
                # would cost a model call. `capture FILE` still reads one on purpose.
            try:
                if not entry.is_file():
                    continue
                st = entry.stat()
            except OSError:
                continue
            if now - st.st_mtime < idle:
                continue  # possibly still being written: its own hook will come
            row = known.get(entry.path)
            if row is None:
                if st.st_mtime < first_seen[d]:
                    continue  # from before capture started here
            elif row["open"] or st.st_size <= (row["cursor"] or 0):
                continue
            elif row["failed_at"] is not None and row["failed_at"] >= st.st_mtime:
                continue  # failed, and unchanged since: retrying cannot help
            out.append(
                Missed(entry.path, owner["project"], owner["cwd"], entry.name[: -len(".jsonl")])
            )
    return out


def enqueue_missed(conn: sqlite3.Connection, **kw: float) -> list[int]:
    """Queue every missed transcript; returns the job ids."""
    return [
        queue.enqueue(
            conn,
            session_id=m.session_id,
            transcript_path=m.transcript_path,
            project=m.project,
            cwd=m.cwd,
            event="rescan",
        )
        for m in find_missed(conn, **kw)
    ]
