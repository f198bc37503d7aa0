"""`mem-review worker [--once] [--wait SECONDS]`: drain the capture queue (the hooks start
it detached, with `--wait 0`).

When another worker holds the lock, a worker started by hand waits for it (bounded), so
"capture, then drain" scripts read a finished queue, or says in one line why it could not.
"""

from __future__ import annotations

import argparse

DEFAULT_WAIT = 600.0  # ten minutes: a long session's extraction, with the SDK's retries


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--once",
        action="store_true",
        help="exit when no job is due (the default for hook-started workers is to loop)",
    )
    parser.add_argument(
        "--wait", type=float, default=DEFAULT_WAIT, metavar="SECONDS",
        help="if another worker is running, wait this long for it to finish, then drain "
        f"what is left; exit 1 if it is still running (default {DEFAULT_WAIT:g}; 0: leave "
        "at once, silently, as hook-started workers do)",
    )


def run(args: argparse.Namespace) -> int:
    import math

    from capture.worker import run as run_worker
    from reviewer.errors import UserError

    if not math.isfinite(args.wait) or args.wait < 0:
        raise UserError(f"--wait {args.wait:g}: give a number of seconds, 0 or more")
    if not args.once or args.wait == 0:  # a hook-started worker: silent, its lines are logged
        return run_worker(once=args.once, wait=args.wait)
    done: list[str] = []

    def report(line: str) -> None:
        done.append(line)
        print(line, flush=True)

    code = run_worker(once=True, wait=args.wait, report=report)
    print(_summary(len(done), code))
    return code


def _summary(jobs: int, code: int) -> str:
    """What `worker --once` did, in one line: it printed nothing, even after 25 s of work."""
    from reviewer.store import db, queue

    left = ""
    try:
        conn = db.connect()
        try:
            counts = queue.counts(conn)
        finally:
            conn.close()
        left = f"; {counts['queued']} queued for later" if counts["queued"] else (
            "; the queue is empty")
    except Exception:
        pass
    if code != 0:
        return f"worker stopped after {plural(jobs, 'job')}: see `mem-review doctor`{left}"
    if jobs == 0:
        return f"worker: nothing was due{left}"
    return f"worker: processed {plural(jobs, 'job')}{left}; review them with `mem-review`"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
