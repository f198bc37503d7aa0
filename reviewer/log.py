"""One line per event in a private log file: hooks may never print to stdout.

Stdlib only. Messages pass through a cheap secret scrub before they land.
"""

from __future__ import annotations

import os
import sys
import time

from reviewer import paths


def log(component: str, message: str) -> None:
    """Append a line; never raise (logging must not break a hook)."""
    try:
        try:
            home = paths.ensure_home()
        except paths.HomeError as exc:  # never write there: say it where it can be seen
            sys.stderr.write(f"mem-review: {component}: {_scrub(message)} (not logged: "
                             f"{exc})\n"[:2000])
            return
        path = home / "mem-review.log"
        paths.touch_private(path)
        line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {component}[{os.getpid()}] {_scrub(message)}"
        line = line.replace("\n", " ").replace("\r", " ")[:2000]
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    except Exception:
        pass


def _scrub(message: str) -> str:
    try:
        from reviewer.sanitize.redact import redact
    except Exception:  # the redactor is optional on this path; never fail logging
        return message
    try:
        return redact(message)
    except Exception:
        return message
