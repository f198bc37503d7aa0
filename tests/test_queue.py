"""The queue: one waiting job per transcript, cursors that move forward, nothing deleted."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from reviewer.store import db, queue


@pytest.fixture
def conn(tmp_path: Path) -> sqlite3.Connection:
    return db.connect(tmp_path / "s.db")


def _enqueue(conn: sqlite3.Connection, path: str = "/t.jsonl") -> int:
    return queue.enqueue(
        conn, session_id="s", transcript_path=path, project="/p", cwd="/p", event="session-end"
    )


def test_enqueue_reuses_a_waiting_job(conn: sqlite3.Connection) -> None:
    assert _enqueue(conn) == _enqueue(conn)
    assert _enqueue(conn, "/other.jsonl") != _enqueue(conn)
    assert queue.counts(conn)["queued"] == 2


def test_claim_starts_at_the_last_done_cursor(conn: sqlite3.Connection) -> None:
    first = _enqueue(conn)
    job = queue.claim(conn, pid=1)
    assert job is not None and job.id == first and job.start_cursor == 0 and job.attempts == 1
    conn.execute("UPDATE job SET state='done', end_cursor=500 WHERE id=?", (first,))
    second = _enqueue(conn)
    assert second != first
    job2 = queue.claim(conn, pid=1)
    assert job2 is not None and job2.id == second and job2.start_cursor == 500


def test_requeue_backs_off_and_keeps_the_error(conn: sqlite3.Connection) -> None:
    jid = _enqueue(conn)
    assert queue.claim(conn, pid=1) is not None
    delay = queue.requeue(conn, jid, "429 rate limited")
    row = conn.execute("SELECT * FROM job WHERE id=?", (jid,)).fetchone()
    assert row["state"] == "queued" and row["last_error"] == "429 rate limited"
    assert row["not_before"] >= db.now() + delay - 5
    assert queue.claim(conn, pid=1) is None  # not due yet
    assert queue.claim(conn, pid=1, now=db.now() + delay + 1) is not None


def test_orphans_are_reclaimed_and_failures_kept(conn: sqlite3.Connection) -> None:
    jid = _enqueue(conn)
    assert queue.claim(conn, pid=999_999) is not None
    assert queue.reclaim_orphans(conn) == 1
    assert queue.counts(conn)["queued"] == 1
    claimed = queue.claim(conn, pid=1)
    assert claimed is not None and claimed.attempts == 2
    queue.fail(conn, jid, "transcript is a directory")
    row = conn.execute("SELECT state, last_error, permanent_error FROM job").fetchone()
    assert tuple(row) == ("failed", "transcript is a directory", 1)
