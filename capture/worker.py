"""The detached worker: one at a time, it drains the capture queue.

A non-blocking `fcntl.flock` on `worker.lock` makes it single: a second worker started
at the same moment exits at once, and a killed worker's lock is released by the OS, so
the next one takes over and puts its `running` job back in the queue. No job is ever
dropped: each ends done, queued again with its error, or failed with a reason.

The lock itself lives in `capture/worker_lock.py`, which the hook may import.
"""

from __future__ import annotations

import errno
import os
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from capture.worker_lock import is_running  # noqa: F401 - part of the worker API
from capture.worker_lock import release as _release
from capture.worker_lock import take as _take_lock
from reviewer.errors import UserError
from reviewer.log import log
from reviewer.store import db, queue

HEARTBEAT_SECONDS = 10.0
POLL_SECONDS = 2.0
LOCK_POLL_SECONDS = 0.25  # how often a waiting worker tries the lock again


class WorkerBusy(UserError):
    """Another worker kept the lock for longer than this one was told to wait."""


def run(
    once: bool = True,
    *,
    wait: float = 0.0,
    poll: float = POLL_SECONDS,
    api_key: str | None = None,
    base_url: str | None = None,
    http_client: Any = None,
    report: Callable[[str], None] | None = None,
) -> int:
    """Work until the queue has nothing due (`once`) or forever; 0 unless the store is broken.

    When another worker holds the lock: with `wait` 0 (hook-started workers) log it and
    return 0, that worker drains the queue; otherwise wait up to `wait` seconds for it to
    finish (then drain what it left), and raise WorkerBusy saying why if it does not.
    After releasing the lock it looks once more: a hook that queued a job while this worker
    was finishing saw the lock held and started no one, so this worker must pick it up.
    `report` is told one line per finished job (`worker --once` prints them).
    """
    deadline = time.monotonic() + max(0.0, wait)
    while True:
        fd = _take_lock()
        if fd is None:
            if wait <= 0:
                log("worker", "another worker holds the lock; exiting")
                return 0
            if time.monotonic() >= deadline:
                raise WorkerBusy(_busy(wait))
            time.sleep(LOCK_POLL_SECONDS)
            continue
        try:
            stopped = _drain(once, poll, api_key, base_url, http_client, report)
            _verify_shared()
            _embed_approved()
        except OSError as exc:
            if exc.errno == errno.EROFS:  # the log is on that filesystem too: say it above
                raise
            log("worker", f"stopped: {type(exc).__name__}: {exc}")
            return 1
        except Exception as exc:  # a store that cannot be opened, a config that cannot load
            if db.is_damage(exc):  # stop writing there; jobs stay queued for after repair
                db.mark_damaged(None, exc)
            log("worker", f"stopped: {type(exc).__name__}: {exc}")
            return 1
        finally:
            _release(fd)
        if stopped or not once or not _due():
            return 0


def _verify_shared() -> None:
    """Ask each sharing project's recorded remote again when its record is older than
    `remote_trust.STALE_SECONDS` (the worker runs outside Claude Code's sandbox; a remote
    that cannot be reached leaves the last record in place)."""
    from reviewer.sharing import remote_trust

    conn = db.connect()
    try:
        for project in remote_trust.due(conn):
            try:
                remote_trust.refresh(conn, project)
            except remote_trust.VerifyError as exc:
                log("worker", f"shared facts of {project} not verified: {exc}")
    finally:
        conn.close()


def _embed_approved() -> None:
    """Backfill semantic recall's vectors (only with the `semantic` extra): approved facts
    that have none, e.g. approved before the extra was installed, or by another tool."""
    from reviewer.store import vectors

    if vectors.encoder() is None:
        return
    conn = db.connect()
    try:
        done = vectors.refresh(conn)
        if done:
            log("worker", f"embedded {done} approved fact(s) for semantic recall")
    except Exception as exc:
        log("worker", f"embedding facts for recall failed: {type(exc).__name__}: {exc}")
    finally:
        conn.close()


def _busy(wait: float) -> str:
    """One line: who holds the lock, and what is left in the queue."""
    from capture.worker_lock import holder

    pid = holder()
    who = f"another worker (pid {pid})" if pid else "another worker"
    try:
        conn = db.connect()
        try:
            counts = queue.counts(conn)
        finally:
            conn.close()
        left = f"; {counts['queued']} job(s) queued, {counts['running']} running"
    except Exception:
        left = ""
    return (f"{who} still holds the worker lock after {wait:g} s{left}; the queue is not "
            "drained yet: wait longer with --wait SECONDS, or see `mem-review status`")


def _due() -> bool:
    conn = db.connect()
    try:
        row = conn.execute(
            "SELECT 1 FROM job WHERE state = 'queued' AND not_before <= ? LIMIT 1", (db.now(),)
        ).fetchone()
        return row is not None
    finally:
        conn.close()


def _drain(
    once: bool, poll: float, api_key: str | None, base_url: str | None, http_client: Any,
    report: Callable[[str], None] | None = None,
) -> bool:
    """Claim and process jobs; True when told to stop taking jobs (no key, spend cap)."""
    from capture import pipeline
    from reviewer.config import load
    from reviewer.store.facts import Store

    cfg = load()
    conn = db.connect()
    store = Store()
    try:
        db.ensure_sound(conn)  # a damaged store is marked, so the hooks stop writing there
        reclaimed = queue.reclaim_orphans(conn)
        if reclaimed:
            log("worker", f"put back {reclaimed} job(s) left running by a stopped worker")
        _rescan(conn)
        _native_memory(store)
        _wake_waiting(conn, cfg, api_key)
        while True:
            job = queue.claim(conn, os.getpid())
            if job is None:
                if once:
                    return False
                time.sleep(poll)
                continue
            with _Heartbeat(job.id):
                try:
                    out = pipeline.process(
                        store,
                        conn,
                        job,
                        cfg,
                        api_key=api_key,
                        base_url=base_url,
                        http_client=http_client,
                    )
                except KeyboardInterrupt:  # Ctrl-C: the job goes back now, not "running"
                    _put_back(conn, job)
                    raise
                except Exception as exc:
                    if db.is_damage(exc):
                        raise
                    _unexpected(conn, job, exc)
                    if report is not None:
                        report(f"job {job.id} will be retried: unexpected error "
                               f"{type(exc).__name__} (details in the log)")
                    continue
            log("worker", _describe(out))
            if report is not None:
                report(_describe(out))
            if out.stop:
                return True
    finally:
        store.close()
        conn.close()


def _wake_waiting(conn: Any, cfg: Any, api_key: str | None) -> None:
    """A model can run now: the sessions kept for one are due at once."""
    from capture.extractors import resolve
    from reviewer.store import waiting

    if not resolve(cfg, api_key=api_key).waiting:
        woken = waiting.wake(conn)
        if woken:
            log("worker", f"a model can run: {woken} waiting session(s) are due now")


def _rescan(conn: Any) -> None:
    """Queue sessions that ended without their hook (a killed terminal); never fatal."""
    from capture.rescan import enqueue_missed

    try:
        found = enqueue_missed(conn)
    except Exception as exc:
        log("worker", f"rescan skipped: {type(exc).__name__}: {exc}")
        return
    if found:
        log("worker", f"queued {len(found)} session(s) that ended without a capture")


def _put_back(conn: Any, job: queue.Claimed) -> None:
    """Interrupted mid-job: queue it again at once; a failure here is left to the next
    worker, which reclaims any job left `running` (and doctor says so meanwhile)."""
    try:
        queue.requeue(conn, job.id, "interrupted (Ctrl-C) mid-job; retried", delay=0,
                      count_attempt=False)
    except Exception as exc:
        log("worker", f"job {job.id} could not be put back after Ctrl-C: {exc}")
    else:
        log("worker", f"job {job.id} put back in the queue after Ctrl-C")


def _native_memory(store: Any) -> None:
    """Claude Code's memory notes written since the last sweep become pending; never fatal."""
    from capture.native_import import sweep_changed

    try:
        swept = sweep_changed(store)
    except Exception as exc:
        log("worker", f"native memory sweep skipped: {type(exc).__name__}: {exc}")
        return
    for one in swept:
        if one.added:
            log("worker", f"imported {one.added} Claude Code memory note(s) from {one.folder} "
                "as pending")


def _unexpected(conn: Any, job: queue.Claimed, exc: Exception) -> None:
    """Never lose the job: log the traceback, leave it queued (or failed once such errors
    have lasted a day, as for any transient error)."""
    from capture.pipeline import transient_failure
    from reviewer.config import load
    from reviewer.sanitize.redact import redact

    log("worker", f"job {job.id} crashed: " + "".join(traceback.format_exception(exc)))
    message = redact(f"unexpected error: {type(exc).__name__}: {exc}")  # stored in the queue
    try:
        transient_failure(conn, job, load(), message)
    except Exception as again:  # the store itself is failing: the next worker reclaims it
        log("worker", f"job {job.id} could not be requeued: {again}")


def _describe(out: Any) -> str:
    if out.state == "done":
        return (
            f"job {out.job_id} done: {len(out.new_ids)} new, {len(out.seen_again)} seen "
            f"again, {out.suppressed} suppressed, {len(out.dropped)} dropped, "
            f"{out.input_tokens}+{out.output_tokens} tokens, ${out.cost_usd:.4f}"
        )
    return f"job {out.job_id} {out.state}: {out.error}"


class _Heartbeat:
    """Touch the job's heartbeat from a thread (own connection) while it is processed."""

    def __init__(self, job_id: int, every: float = HEARTBEAT_SECONDS) -> None:
        self.job_id = job_id
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="heartbeat", daemon=True)

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _beat(self) -> None:
        conn = None
        try:
            conn = db.connect()
            while not self._stop.wait(self.every):
                queue.heartbeat(conn, self.job_id)
        except Exception as exc:
            log("worker", f"heartbeat for job {self.job_id} stopped: {exc}")
        finally:
            if conn is not None:
                conn.close()
