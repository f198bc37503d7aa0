"""`mem-review hook session-end|pre-compact|session-start`: Claude Code's entry points.

Fails open, always: exit 0, nothing on stdout but SessionStart's JSON, one line in the
log for anything that went wrong. Stdout may become model context, so even a stray print
from a module we call is swallowed. Stdlib only.
"""

from __future__ import annotations

import contextlib
import io
import sys
from typing import TYPE_CHECKING

from reviewer.log import log

if TYPE_CHECKING:  # argparse costs the hook milliseconds it does not need
    import argparse
    from collections.abc import Sequence

EVENTS = {
    "session-end": "SessionEnd",
    "pre-compact": "PreCompact",
    "session-start": "SessionStart",
    "pre-tool-use": "PreToolUse",  # the opt-in guard (`install --guard`)
}
GUARD_MAX_BYTES = 256 * 1024 * 1024
GUARD_STDIN_TIMEOUT = 4.0  # within the guard's 5 s hook timeout
STDIN_TIMEOUT = 1.0  # SessionEnd's whole budget is 1.5 s


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("event", choices=sorted(EVENTS))


def run(args: argparse.Namespace) -> int:
    return main([args.event])


def main(argv: Sequence[str]) -> int:
    """Handle one hook invocation; returns 0 whatever happens."""
    try:
        event = argv[0] if argv else ""
        if event not in EVENTS:
            log("hook", f"unknown hook event {event!r}; expected one of {', '.join(EVENTS)}")
            return 0
        from reviewer.claude_code.hook_io import read_payload

        # The guard reads whatever Claude Code sends: a Write of a 2 MB file into the data
        # dir must not pass unchecked because its payload was over the usual cap.
        guard = event == "pre-tool-use"
        payload = read_payload(timeout=GUARD_STDIN_TIMEOUT if guard else STDIN_TIMEOUT,
                               max_bytes=GUARD_MAX_BYTES if guard else 1_000_000)
        if payload is None:
            log("hook", f"{event}: no usable payload on stdin; nothing done")
            return 0
        answer = _dispatch(event, payload)
        if answer is not None:
            sys.stdout.write(answer if answer.endswith("\n") else answer + "\n")
            sys.stdout.flush()
    except BaseException as exc:  # a hook must never fail Claude Code, not even on ^C
        log("hook", f"{argv[0] if argv else '?'}: {type(exc).__name__}: {exc}")
    return 0


def _dispatch(event: str, payload: dict[str, object]) -> str | None:
    """Run the event's work with stdout captured; only SessionStart returns text to print."""
    stray = io.StringIO()
    with contextlib.redirect_stdout(stray):
        if event != "pre-tool-use":
            _record_session(payload)
        if event == "session-start":
            answer = _session_start(payload)
        elif event == "pre-tool-use":
            from reviewer.claude_code.guard import check

            answer = check(payload)
        else:
            from capture.enqueue import enqueue_session

            enqueue_session(payload, EVENTS[event])
            answer = None
        if event in ("session-start", "session-end"):
            _native_memory(payload)
    if stray.getvalue():
        log("hook", f"{event}: discarded {len(stray.getvalue())} stray characters of stdout")
    return answer


def _record_session(payload: dict[str, object]) -> None:
    """The transcript Claude Code named for this session: the only one `remember`'s
    evidence check will read (reviewer/claude_code/sessions.py)."""
    from reviewer.claude_code.sessions import record
    from reviewer.project import project_root

    cwd = payload.get("cwd")
    session_id, transcript = payload.get("session_id"), payload.get("transcript_path")
    if isinstance(cwd, str) and isinstance(session_id, str) and isinstance(transcript, str):
        record(project_root(cwd), session_id,
               transcript)


def _native_memory(payload: dict[str, object]) -> None:
    """Wake the worker when Claude Code's memory folder changed: it imports the new notes
    as pending (capture/native_import.py). When nothing changed: a read of the last sweep's
    record (a small file) and a stat of the folder and its notes. Otherwise the store, on a
    read-only connection (closing a writer would checkpoint the WAL: milliseconds)."""
    try:
        import os
        import sqlite3

        from reviewer import paths
        from reviewer.claude_code.native_memory import (
            default_folder,
            needs_sweep,
            notes,
            unchanged,
        )
        from reviewer.project import project_root

        cwd = payload.get("cwd")
        if not isinstance(cwd, str) or not cwd:
            cwd = os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
        root = project_root(cwd)
        state = unchanged(root)  # the common case ends here: one small file, some stats
        if state is True or (state is None and not notes(default_folder(root))):
            return
        if not paths.db_path().exists():
            return  # nothing captured yet: the store's first sweep is install's or the worker's
        paths.check_home()
        conn = sqlite3.connect(f"file:{paths.db_path()}?mode=ro", uri=True, timeout=0.8)
        try:
            changed = needs_sweep(conn, root, register=_register)
        finally:
            conn.close()
        if changed:
            from capture.enqueue import start_worker

            start_worker()
    except Exception as exc:  # never costs the session anything but a log line
        log("hook", f"native memory check skipped: {type(exc).__name__}: {exc}")


def _register(sql: str, args: tuple[object, ...]) -> None:
    """Write the row for a memory folder seen for the first time (rare: a writer)."""
    from reviewer.store import db

    conn = db.connect()
    try:
        conn.execute("PRAGMA busy_timeout=800")
        conn.execute(sql, args)
    finally:
        conn.close()


def _session_start(payload: dict[str, object]) -> str | None:
    try:
        from reviewer.claude_code.inject import session_start
    except ImportError as exc:
        log("hook", f"session-start: injection unavailable ({exc})")
        return None
    return session_start(payload)
