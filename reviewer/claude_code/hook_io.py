"""Read a Claude Code hook's stdin payload without ever hanging or raising.

Stdlib only: this runs on Claude Code's critical path. SessionEnd has a 1.5 s budget, so
a stdin that never closes must not hold the hook: reads go through `select` on the raw
fd with a deadline, and a complete JSON object is accepted as soon as it has arrived.
"""

from __future__ import annotations

import json
import os
import select
import sys
import time
from typing import IO, Any

REQUIRED = ("session_id", "transcript_path", "cwd", "hook_event_name")
_CHUNK = 65_536


def read_payload(
    stream: IO[bytes] | None = None, timeout: float = 2.0, max_bytes: int = 1_000_000
) -> dict[str, Any] | None:
    """The payload as a dict, or None when stdin is empty, garbage, late, oversized or
    lacks a field the hooks need (each a string; session id and transcript path non-empty).
    """
    try:
        raw = _read(sys.stdin.buffer if stream is None else stream, timeout, max_bytes)
        if raw is None:
            return None
        return _validate(_parse(raw))
    except Exception:  # garbage of any kind is "no payload", never a crash
        return None


def _read(stream: IO[bytes], timeout: float, max_bytes: int) -> bytes | None:
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # an in-memory stream (tests)
        data = stream.read(max_bytes + 1)
        return None if data is None or len(data) > max_bytes else bytes(data)
    deadline = time.monotonic() + max(0.0, timeout)
    buf = bytearray()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            # Late: accept what came if it is already a whole object, else give up.
            return bytes(buf) if _parse(bytes(buf)) is not None else None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return bytes(buf)
        buf += chunk
        if len(buf) > max_bytes:
            return None
        # Claude Code closes stdin after writing, but do not depend on it.
        if buf.rstrip().endswith(b"}") and _parse(bytes(buf)) is not None:
            return bytes(buf)


def _parse(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return None


def _validate(obj: Any) -> dict[str, Any] | None:
    if not isinstance(obj, dict):
        return None
    for key in REQUIRED:
        if not isinstance(obj.get(key), str):
            return None
    if not obj["session_id"].strip() or not obj["transcript_path"].strip():
        return None
    return obj
