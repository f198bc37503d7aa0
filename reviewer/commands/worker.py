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
    return run_worker(once=args.once, wait=args.wait)
