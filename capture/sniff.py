"""Is this file a Claude Code transcript? A look at its first lines, before anything is
queued (the hook, `capture`, `preview`).

Stdlib `json` only and no store: the hooks and `preview` import it, and `preview` loads
nothing of the store.
"""

from __future__ import annotations

import os

# Keys every Claude Code record shape seen so far carries at least one of, beside "type"
# (GUIDE §3: user/assistant messages, progress, summaries, snapshots, queue operations).
_RECORD_KEYS = frozenset({"uuid", "parentUuid", "sessionId", "message", "messageId",
                          "leafUuid", "operation", "snapshot"})
_HEAD_BYTES = 64 << 10
_HEAD_LINES = 50


def not_a_transcript(path: str | os.PathLike[str]) -> str | None:
    """None when the file's first lines look like a Claude Code transcript, else why not.

    Cheap (the first 64 KiB, at most 50 lines): a JSON object with a string "type" and a
    Claude Code record key. A first line longer than that is judged by its opening only.
    OSError propagates."""
    import json

    with open(path, "rb") as f:
        head = f.read(_HEAD_BYTES)
    if not head.strip():
        return "empty, not a Claude Code transcript (yet)"
    lines = head.split(b"\n")
    complete = lines[:-1] if len(lines) > 1 else []
    for raw in complete[:_HEAD_LINES]:
        try:  # as the reader will: UTF-8 (json.loads of bytes would also take UTF-16)
            rec = json.loads(raw.decode("utf-8"))
        except ValueError:  # UnicodeDecodeError is one
            continue
        if isinstance(rec, dict) and isinstance(rec.get("type"), str) and (
            _RECORD_KEYS & rec.keys()
        ):
            return None
    if not complete:  # one line longer than the head: its opening must look right
        opening = head.lstrip()
        if opening.startswith(b'{"') and b'"type":' in opening and any(
            b'"' + key.encode() + b'":' in opening for key in _RECORD_KEYS
        ):
            return None
    return "not a Claude Code transcript (no JSON record of its shape in its first lines)"
