"""Which transcripts Claude Code itself named for a project's sessions.

`remember` checks an agent's quote against the session's transcript. Picking "the newest
`.jsonl` under ~/.claude/projects/<folder>/" let an agent write a transcript of its own
there and have its proposal come back grounded (issue 19). Evidence now counts only from
a transcript path a hook payload gave: Claude Code sends `transcript_path` with every
hook, and SessionStart / SessionEnd / PreCompact record it here, in the data dir (which
the sandbox keeps the agent from writing).

One small JSON file per project (the last `KEEP` sessions), replaced atomically; reads
are bounded. Stdlib only: it runs in the hooks. Never raises: a failure is a log line.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from reviewer import paths
from reviewer.log import log

KEEP = 20
MAX_BYTES = 64 * 1024


def _file(project: str) -> Path:
    key = hashlib.sha256(project.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return paths.home() / "sessions" / f"{key}.json"


def recorded(project: str) -> list[dict[str, object]]:
    """The sessions recorded for `project`, newest first: {session_id, transcript_path, at}."""
    try:
        paths.check_home()
        with open(_file(project), "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            return []
        data = json.loads(raw)
    except (OSError, ValueError, paths.HomeError):
        return []
    if not isinstance(data, dict) or data.get("project") != project:
        return []
    items = data.get("sessions")
    if not isinstance(items, list):
        return []
    return [s for s in items if isinstance(s, dict) and isinstance(s.get("transcript_path"), str)
            and isinstance(s.get("session_id"), str)]


def record(project: str, session_id: str, transcript_path: str) -> None:
    """Remember that Claude Code named `transcript_path` for `session_id` in `project`."""
    try:
        if not session_id or not transcript_path or len(transcript_path) > 4096:
            return
        paths.ensure_home()  # never into a data dir swapped for a symlink or another's
        kept = [s for s in recorded(project) if s.get("session_id") != session_id]
        entry = {"session_id": session_id[:200], "transcript_path": transcript_path,
                 "at": time.time()}
        data = {"project": project, "sessions": [entry, *kept][:KEEP]}
        target = _file(project)
        paths.make_private_dirs(target.parent)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
        os.replace(tmp, target)
    except Exception as exc:  # a read-only or full data dir: the check degrades, no more
        log("sessions", f"transcript of session not recorded: {type(exc).__name__}: {exc}")


def transcript_of(project: str) -> Path | None:
    """The newest recorded transcript of the project that is still a regular file."""
    for entry in recorded(project):
        path = Path(str(entry["transcript_path"]))
        try:
            if path.is_file() and not path.is_symlink():
                return path
        except OSError:
            continue
    return None
