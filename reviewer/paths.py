"""Where mem-review keeps its files, and with which permissions.

Stdlib only: the hooks import this on Claude Code's critical path.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP = "mem-review"


def home() -> Path:
    """The data dir: `MEM_REVIEW_HOME`, else the platform's user data dir."""
    env = os.environ.get("MEM_REVIEW_HOME")
    if env:
        return Path(env).expanduser()
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / APP
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / APP


def ensure_home() -> Path:
    """Create the data dir 0700: the store holds what a team decided, and transcripts' words."""
    path = home()
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if os.name == "posix" and (path.stat().st_mode & 0o777) != 0o700:
        os.chmod(path, 0o700)
    return path


def db_path() -> Path:
    return home() / "store.db"


def log_path() -> Path:
    return home() / "mem-review.log"


def worker_lock_path() -> Path:
    return home() / "worker.lock"


def config_path() -> Path:
    return home() / "config.toml"


def touch_private(path: Path) -> None:
    """Create `path` 0600 if missing (a umask of 022 would otherwise leave it world-readable)."""
    fd = os.open(path, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o600)
    os.close(fd)
    if os.name == "posix" and (path.stat().st_mode & 0o777) != 0o600:
        os.chmod(path, 0o600)
