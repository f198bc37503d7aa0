"""Small helpers shared by test files (imported bare, like `fakeapi`)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

WAIT = 60.0  # a guard against hanging, never a speed assertion


def git(root: Path, *args: str, check: bool = True) -> str:
    """git in `root` with a fixed identity and no signing; returns stdout."""
    done = subprocess.run(
        ["git", "-C", str(root), "-c", "user.email=t@example.com", "-c", "user.name=t",
         "-c", "commit.gpgsign=false", *args],
        capture_output=True, text=True, check=check,
    )
    return done.stdout


def worker_cmd() -> list[str]:
    return [sys.executable, "-m", "reviewer.cli", "worker", "--once"]


def wait_for(what: str, check: Any, timeout: float = WAIT) -> Any:
    """Poll `check` until it returns something truthy; fail the test after `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")
