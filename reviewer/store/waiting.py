"""Sessions kept for a model (issue 21): with `extractor = "auto"` and neither an API key
nor a `claude` to run, the offline rules stage what they can (a person's explicit
"remember …") and the job stays queued, marked by its `last_error`, instead of ending
done with a session no model ever read. `status`, `doctor` and the TUI count these jobs
and name the one step that unblocks them; the worker makes them due again as soon as a
model can run, and each is then extracted once.

Stdlib sqlite3 only: the TUI and `status` count them without loading capture.
"""

from __future__ import annotations

import sqlite3

from reviewer.store import db

# The job's `last_error` while it waits: fixed words, matched by prefix.
WAITING = "waiting for a model extractor"
UNBLOCK = ("sign in to Claude Code (run `claude` once) or set ANTHROPIC_API_KEY, then "
           "`mem-review worker`")
# Between two looks at a waiting job when nothing changed: the worker makes it due at
# once when a model appears (`wake`), so this only bounds how often it is re-read.
RECHECK_SECONDS = 3600.0


def reason(staged: int) -> str:
    """The `last_error` a waiting job carries (its prefix is WAITING)."""
    found = f"; the rules staged {staged} fact(s) from your own prompts" if staged else ""
    return f"{WAITING} (no ANTHROPIC_API_KEY and no `claude` found){found}; {UNBLOCK}"


def is_waiting(last_error: str | None) -> bool:
    return bool(last_error) and str(last_error).startswith(WAITING)


def count(conn: sqlite3.Connection) -> int:
    """Queued jobs that wait for a model."""
    row = conn.execute(
        "SELECT COUNT(*) FROM job WHERE state = 'queued' AND substr(last_error, 1, ?) = ?",
        (len(WAITING), WAITING),
    ).fetchone()
    return int(row[0])


def staged(conn: sqlite3.Connection, job_id: int) -> int:
    """Facts the rules staged for this job so far."""
    return int(conn.execute("SELECT COUNT(*) FROM fact WHERE job_id = ?", (job_id,))
               .fetchone()[0])


def wake(conn: sqlite3.Connection) -> int:
    """A model can run now: every waiting job is due at once. Returns how many."""
    with db.transaction(conn):
        cur = conn.execute(
            "UPDATE job SET not_before = ? WHERE state = 'queued' "
            "AND substr(last_error, 1, ?) = ?",
            (db.now(), len(WAITING), WAITING),
        )
        return cur.rowcount


def summary(n: int) -> str:
    """One line for `status` and `doctor`; "" when nothing waits."""
    if not n:
        return ""
    s = "session waits" if n == 1 else "sessions wait"
    return f"{n} {s} for a model: {UNBLOCK}"
