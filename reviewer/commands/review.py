"""`mem-review` / `mem-review review`: open the review TUI on this project's facts."""

from __future__ import annotations

import argparse
import os
import sys
import threading
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project", metavar="DIR",
        help="review this project's facts (default: the git top level of the current dir)",
    )
    parser.add_argument(
        "--view", choices=("pending", "approved", "rejected", "stale", "all"),
        default="pending", help="the list to open on (default: pending)",
    )


def check_store() -> None:
    """A damaged store is said in one line before the app starts, not as a traceback
    from the middle of the TUI; a missing one is created by the app as usual."""
    from reviewer import paths
    from reviewer.store import db

    if not paths.db_path().exists():
        return
    conn = db.connect()
    try:
        db.ensure_sound(conn)
    finally:
        conn.close()


def _check_into(found: list[BaseException]) -> None:
    try:
        check_store()
    except BaseException as exc:  # handed to the main thread, which raises it
        found.append(exc)


def run(args: argparse.Namespace) -> int:
    from reviewer.errors import UserError
    from reviewer.project import project_root

    if args.project is not None and not Path(args.project).expanduser().is_dir():
        raise UserError(f"{args.project}: not a directory")
    # The integrity check reads the whole file (~80 ms at 10,000 facts) in SQLite's C code,
    # which lets go of the GIL: it runs beside the TUI's import instead of before it.
    found: list[BaseException] = []
    checker = threading.Thread(target=_check_into, args=(found,), daemon=True)
    checker.start()
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        checker.join()  # a damaged store is the more useful thing to say
        if found:
            raise found[0]
        raise UserError("the review needs a terminal; `mem-review list` prints the facts")
    root = project_root(args.project or os.getcwd())
    from reviewer.tui.app import ReviewApp

    checker.join()
    if found:
        raise found[0]
    app = ReviewApp(project=root)
    app.main.view = args.view
    app.run()
    return 0
