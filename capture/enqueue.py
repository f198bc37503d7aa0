"""What the SessionEnd / PreCompact hooks do: queue the session, wake the worker, leave.

Stdlib only, no network, no transcript reading: the whole hook has 1.5 s and we aim for
well under 50 ms of our own work. Everything slow happens in the detached worker.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from typing import Any

from capture.sniff import not_a_transcript
from reviewer import paths
from reviewer.log import log
from reviewer.project import project_root
from reviewer.store import db, queue

# A hook must not wait 10 s on a busy store: a later hook or `capture` catches up.
HOOK_BUSY_TIMEOUT_MS = 800
NO_SPAWN_ENV = "MEM_REVIEW_NO_SPAWN"


def enqueue_session(payload: dict[str, Any], event: str) -> int | None:
    """Queue the payload's transcript; returns the job id, or None when there is nothing to do.

    Raises on a broken store (the caller logs it and exits 0). A damaged store is marked
    so nothing more is written into it; the session is found again by a later rescan.
    """
    transcript = payload["transcript_path"]
    if not os.path.isfile(transcript):
        log("hook", f"{event}: transcript missing, nothing queued: {transcript}")
        return None
    why_not = not_a_transcript(transcript)
    if why_not is not None:
        log("hook", f"{event}: {transcript}: {why_not}; nothing queued")
        return None
    cwd = payload.get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    project = project_root(cwd)
    conn = db.connect()
    try:
        conn.execute(f"PRAGMA busy_timeout={HOOK_BUSY_TIMEOUT_MS}")
        if _nothing_new(conn, transcript):  # e.g. /clear right after a capture
            return None
        job_id = queue.enqueue(
            conn,
            session_id=payload["session_id"],
            transcript_path=transcript,
            project=project,
            cwd=cwd,
            event=event,
        )
    except sqlite3.DatabaseError as exc:
        if db.is_damage(exc):
            db.mark_damaged(paths.db_path(), exc)
            raise db.damaged(paths.db_path(), exc) from None
        raise
    finally:
        conn.close()
    start_worker()
    # No log line on success: the log scrubs secrets with reviewer.sanitize.redact, whose import
    # alone costs more than this whole hook. The worker logs what became of the job.
    return job_id


def _nothing_new(conn: Any, transcript: str) -> bool:
    """True when the file has not grown past what finished jobs already read (e.g. /clear)."""
    row = conn.execute(
        "SELECT MAX(end_cursor) FROM job WHERE transcript_path = ? AND state = 'done'",
        (transcript,),
    ).fetchone()
    cursor = row[0] if row else None
    return cursor is not None and os.path.getsize(transcript) <= cursor


def start_worker() -> bool:
    """Start `mem-review worker --once` detached unless one runs (or tests disabled it).

    Ordering matters: callers enqueue first, then probe. The worker re-checks the queue
    after releasing its lock, so a job queued while it was finishing is never stranded.
    """
    if os.environ.get(NO_SPAWN_ENV) == "1":
        return False
    from capture.worker_lock import is_running

    if is_running():
        return False
    import subprocess  # only now: most hook runs never spawn

    paths.ensure_home()
    log_file = paths.log_path()
    paths.touch_private(log_file)
    with open(log_file, "ab") as err:
        subprocess.Popen(
            [sys.executable, "-m", "reviewer.cli", "worker", "--once", "--wait", "0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
            close_fds=True,
            env=os.environ.copy(),
            cwd=str(paths.home()),  # not the project: its own `reviewer/` must not shadow ours
        )
    return True
