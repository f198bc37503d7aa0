"""The worker's lock: a `fcntl.flock` on `worker.lock` in the data dir.

Its own module, stdlib only, because the hook probes it to decide whether to start a
worker, and must not import the worker (which reaches the SDK) to do so.
"""

from __future__ import annotations

import fcntl
import os
import time

from reviewer import paths

LOCK_TRIES = 5
LOCK_RETRY_SECONDS = 0.02


def _open_lock() -> int:
    paths.ensure_home()
    lock = paths.worker_lock_path()
    return os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)


def is_running() -> bool:
    """True when some worker holds the lock (a probe: takes and drops it if free)."""
    try:
        fd = _open_lock()
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def take(tries: int = LOCK_TRIES) -> int | None:
    """The worker lock, or None when another worker holds it.

    A few quick tries, because `is_running()` probes (hooks, `status`) hold the lock for
    an instant: a worker starting at that instant must not mistake a probe for a worker.
    """
    fd = _open_lock()
    for attempt in range(tries):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            if attempt + 1 < tries:
                time.sleep(LOCK_RETRY_SECONDS)
            continue
        try:  # who holds it, for a worker that waits on it to name (`holder`)
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        except OSError:
            pass
        return fd
    os.close(fd)
    return None


def holder() -> int | None:
    """The pid the current lock holder wrote, if any (a hint for messages, not a proof)."""
    try:
        with open(paths.worker_lock_path(), "rb") as fh:
            text = fh.read(32).strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def release(fd: int) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
