"""The capture queue: one row per session to extract, in the store, stdlib `sqlite3` only.

The hook adds rows in milliseconds; the single worker (a file lock makes it single)
claims them one at a time. A job is never deleted: it ends `done` or `failed`, and only
a permanent error (an unreadable transcript, an invalid request) makes it `failed`.
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from reviewer.store import db

MAX_BACKOFF = 3600.0


class Claimed(NamedTuple):
    """A job taken by the worker (a NamedTuple: `dataclasses` costs the hook ~6 ms)."""

    id: int
    session_id: str
    transcript_path: str
    project: str
    cwd: str
    event: str
    attempts: int
    start_cursor: int
    first_failed_at: float | None = None  # start of the current transient-failure streak


def enqueue(
    conn: sqlite3.Connection, *, session_id: str, transcript_path: str, project: str,
    cwd: str, event: str,
) -> int:
    """Queue a transcript; a job already waiting for the same file is reused, not doubled."""
    now = db.now()
    with db.transaction(conn):
        row = conn.execute(
            "SELECT id FROM job WHERE transcript_path = ? AND state = 'queued' LIMIT 1",
            (transcript_path,),
        ).fetchone()
        if row is not None:
            conn.execute(
                "UPDATE job SET event = ?, updated_at = ?, not_before = MIN(not_before, ?) "
                "WHERE id = ?",
                (event, now, now, row[0]),
            )
            return int(row[0])
        cur = conn.execute(
            "INSERT INTO job (session_id, transcript_path, project, cwd, event, state, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)",
            (session_id, transcript_path, project, cwd, event, now, now),
        )
        return int(cur.lastrowid or 0)


def reclaim_orphans(conn: sqlite3.Connection) -> int:
    """Put back `running` jobs; called by the worker holding the lock, so their owner died."""
    with db.transaction(conn):
        cur = conn.execute(
            "UPDATE job SET state = 'queued', claimed_by = NULL, updated_at = ?, "
            "last_error = COALESCE(last_error, 'worker stopped mid-job; retried') "
            "WHERE state = 'running'",
            (db.now(),),
        )
        return cur.rowcount


def claim(
    conn: sqlite3.Connection, pid: int, now: float | None = None, *, job_id: int | None = None
) -> Claimed | None:
    """Take the oldest due job (or the given queued one, due or not); its cursor starts
    where the last finished job of that file ended."""
    now = db.now() if now is None else now
    with db.transaction(conn):
        if job_id is None:
            row = conn.execute(
                "SELECT * FROM job WHERE state = 'queued' AND not_before <= ? "
                "ORDER BY not_before, id LIMIT 1",
                (now,),
            ).fetchone()
        else:
            row = conn.execute(
                "SELECT * FROM job WHERE id = ? AND state = 'queued'", (job_id,)
            ).fetchone()
        if row is None:
            return None
        cursor = conn.execute(
            "SELECT COALESCE(MAX(end_cursor), 0) FROM job "
            "WHERE transcript_path = ? AND state = 'done'",
            (row["transcript_path"],),
        ).fetchone()[0]
        conn.execute(
            "UPDATE job SET state = 'running', attempts = attempts + 1, claimed_by = ?, "
            "heartbeat = ?, start_cursor = ?, updated_at = ? WHERE id = ?",
            (pid, now, cursor, now, row["id"]),
        )
    return Claimed(
        id=row["id"], session_id=row["session_id"], transcript_path=row["transcript_path"],
        project=row["project"], cwd=row["cwd"], event=row["event"],
        attempts=row["attempts"] + 1, start_cursor=int(cursor),
        first_failed_at=row["first_failed_at"],
    )


def heartbeat(conn: sqlite3.Connection, job_id: int) -> None:
    conn.execute("UPDATE job SET heartbeat = ? WHERE id = ?", (db.now(), job_id))


def requeue(
    conn: sqlite3.Connection, job_id: int, error: str, *, delay: float | None = None,
    count_attempt: bool = True, transient: bool = False,
) -> float:
    """Leave the job queued with its error and a later attempt time; returns the delay.

    `transient` marks a failed attempt (an outage, a bad answer): the first one starts the
    job's failure streak, which is what decides when the job is given up."""
    now = db.now()
    with db.transaction(conn):
        attempts = conn.execute("SELECT attempts FROM job WHERE id = ?", (job_id,)).fetchone()
        n = int(attempts[0]) if attempts else 1
        if delay is None:
            delay = min(MAX_BACKOFF, 60.0 * (2 ** max(0, n - 1)))
        conn.execute(
            "UPDATE job SET state = 'queued', last_error = ?, not_before = ?, claimed_by = NULL, "
            "attempts = attempts - ?, updated_at = ?, first_failed_at = "
            "CASE WHEN ? THEN COALESCE(first_failed_at, ?) ELSE first_failed_at END "
            "WHERE id = ?",
            (error[:500], now + delay, 0 if count_attempt else 1, now, transient, now, job_id),
        )
    return delay


def fail(conn: sqlite3.Connection, job_id: int, reason: str) -> None:
    """A permanent error: the job will not be retried; `status` shows the reason."""
    with db.transaction(conn):
        conn.execute(
            "UPDATE job SET state = 'failed', last_error = ?, permanent_error = 1, "
            "claimed_by = NULL, updated_at = ? WHERE id = ?",
            (reason[:500], db.now(), job_id),
        )


def retry_failed(
    conn: sqlite3.Connection, ids: list[int] | None
) -> tuple[list[tuple[int, str]], dict[int, str]]:
    """Put failed jobs (all of them when `ids` is None) back in the queue, due now, with a
    fresh streak and count. Returns ([(id, the reason it had failed)], {id: why skipped}).

    The old reason stays in `last_error` (prefixed) until the job finishes."""
    now = db.now()
    put_back: list[tuple[int, str]] = []
    skipped: dict[int, str] = {}
    with db.transaction(conn):
        if ids is None:
            found = conn.execute(
                "SELECT id, state, last_error FROM job WHERE state = 'failed' ORDER BY id"
            ).fetchall()
        else:
            found = []
            for job_id in dict.fromkeys(ids):
                if not 0 < job_id < 2**63:  # not a row id SQLite could hold
                    skipped[job_id] = "no such job"
                    continue
                row = conn.execute(
                    "SELECT id, state, last_error FROM job WHERE id = ?", (job_id,)
                ).fetchone()
                if row is None:
                    skipped[job_id] = "no such job"
                else:
                    found.append(row)
        for job_id, state, last_error in found:
            if state != "failed":
                skipped[job_id] = state
                continue
            reason = last_error or "no reason recorded"
            conn.execute(
                "UPDATE job SET state = 'queued', not_before = ?, attempts = 0, "
                "permanent_error = 0, first_failed_at = NULL, claimed_by = NULL, "
                "last_error = ?, updated_at = ? WHERE id = ?",
                (now, f"retried by hand; had failed: {reason}"[:500], now, job_id),
            )
            put_back.append((job_id, reason))
    return put_back, skipped


def counts(conn: sqlite3.Connection) -> dict[str, int]:
    out = {"queued": 0, "running": 0, "done": 0, "failed": 0}
    for state, n in conn.execute("SELECT state, COUNT(*) FROM job GROUP BY state"):
        out[state] = n
    return out
