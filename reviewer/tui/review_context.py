"""What the screens need of the app, as a protocol: screens depend on this, not on the
app module that builds them, so the two never import each other."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Protocol

from reviewer.tui.writer import StoreWriter


class Review(Protocol):
    project: str
    db_path: Path | None
    conn: sqlite3.Connection  # the UI thread's read connection, behind `read_lock`
    read_lock: threading.Lock
    writer: StoreWriter

    def file_diff(self, commit_sha: str, path: str, renamed_to: str | None = None) -> str: ...
