"""`mem-review capture FILE...`: queue transcripts by hand (a backfill, or a missed hook).

The project is the current directory's, or `--project DIR`'s; the session id is each
file's stem. A directory stands for the `.jsonl` transcripts directly inside it. A file
that is not a Claude Code transcript is refused, and nothing is queued.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from reviewer.errors import UserError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="transcripts (.jsonl), or directories of them"
    )
    parser.add_argument(
        "--no-worker", action="store_true", help="only queue; do not start the background worker"
    )
    parser.add_argument(
        "--project", metavar="DIR",
        help="file the facts under this project (default: the current directory's)",
    )


def check_transcript(name: str, *, nothing: str = "nothing queued") -> Path:
    """The path if it is a readable file, else a one-line UserError saying what is wrong
    (ending with `nothing`: what was not done; preview never queues)."""
    path = Path(name).expanduser()
    if not path.exists():
        raise UserError(f"{name}: no such file")
    if path.is_dir():
        raise UserError(f"{name}: is a directory, not a transcript")
    if not path.is_file():  # a FIFO or a device would block or never end
        raise UserError(f"{name}: not a regular file, not a transcript")
    if not os.access(path, os.R_OK):
        raise UserError(f"{name}: permission denied")
    from capture.sniff import not_a_transcript

    try:
        why_not = not_a_transcript(path)
    except OSError as exc:
        raise UserError(f"{name}: {exc.strerror or exc}") from None
    if why_not is not None:
        raise UserError(f"{name}: {why_not}; {nothing}")
    return path.resolve()


def expand(names: list[str]) -> list[Path]:
    """Files as given, directories as their `*.jsonl`; errors name the first bad path."""
    out: list[Path] = []
    for name in names:
        path = Path(name).expanduser()
        if path.is_dir():
            found = sorted(p for p in path.glob("*.jsonl") if p.is_file())
            if not found:
                raise UserError(f"{name}: no .jsonl transcripts in this directory")
            out.extend(check_transcript(str(p)) for p in found)
        else:
            out.append(check_transcript(name))
    return list(dict.fromkeys(out))


def run(args: argparse.Namespace) -> int:
    from capture.enqueue import start_worker
    from reviewer.project import project_root
    from reviewer.store import db, queue

    files = expand(args.files)
    if args.project is not None:
        given = Path(args.project).expanduser()
        if not given.is_dir():
            raise UserError(f"{args.project}: not a directory")
        cwd = str(given.resolve())
    else:
        cwd = os.getcwd()
    project = project_root(cwd)
    conn = db.connect()
    try:
        db.ensure_sound(conn)  # never queue into a damaged file
        ids = [
            queue.enqueue(
                conn,
                session_id=path.stem,
                transcript_path=str(path),
                project=project,
                cwd=cwd,
                event="capture",
            )
            for path in files
        ]
    finally:
        conn.close()
    print(f"queued {len(files)} transcript(s) for {project} (job {', '.join(map(str, ids))})")
    if args.no_worker:
        print("not starting the worker (--no-worker): run `mem-review worker --once`")
    elif start_worker():
        print("worker started in the background; see `mem-review status`")
    else:
        print("a worker is already running (or spawning is disabled); see `mem-review status`")
    return 0
