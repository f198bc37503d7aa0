"""`mem-review worker [--once]`: drain the capture queue (the hooks start it detached)."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--once",
        action="store_true",
        help="exit when no job is due (the default for hook-started workers is to loop)",
    )


def run(args: argparse.Namespace) -> int:
    from capture.worker import run as run_worker

    return run_worker(once=args.once)
