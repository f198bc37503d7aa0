"""`mem-review retry [--all | ID...]`: put failed jobs back in the queue.

A job fails at once on a permanent error (a bad key, an unreadable transcript) and after a
day of transient ones (an outage); once the cause is fixed, this gives it a fresh start.
What it had failed with stays in the log and in the job's `last_error` until it finishes.
"""

from __future__ import annotations

import argparse

from reviewer.errors import UserError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ids", nargs="*", type=int, metavar="ID",
                        help="failed job ids (see `mem-review status`)")
    parser.add_argument("--all", action="store_true", help="every failed job")
    parser.add_argument("--no-worker", action="store_true",
                        help="only queue; do not start the background worker")


def run(args: argparse.Namespace) -> int:
    from capture.enqueue import start_worker
    from reviewer.log import log
    from reviewer.store import db, queue

    if args.all == bool(args.ids):
        raise UserError("say which failed jobs to retry: `retry --all`, or their ids "
                        "(see `mem-review status`)")
    conn = db.connect()
    try:
        db.ensure_sound(conn)
        put_back, skipped = queue.retry_failed(conn, None if args.all else args.ids)
    finally:
        conn.close()
    for job_id, reason in put_back:
        log("retry", f"job {job_id} put back in the queue by hand; it had failed: {reason}")
    parts = []
    if put_back:
        ids = ", ".join(str(i) for i, _ in put_back)
        parts.append(f"put {len(put_back)} failed job(s) back in the queue ({ids})")
    else:
        parts.append("no failed job to put back")
    if skipped:
        parts.append("skipped " + ", ".join(
            f"{i} ({why if why == 'no such job' else 'it is ' + why})"
            for i, why in sorted(skipped.items())))
    if put_back and not args.no_worker:
        parts.append("worker started" if start_worker()
                     else "a worker is running or spawning is off; see `mem-review status`")
    print("; ".join(parts))
    return 0 if put_back or args.all else 1
