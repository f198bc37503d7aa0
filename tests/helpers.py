"""Small helpers shared by test files (imported bare, like `fakeapi`)."""

from __future__ import annotations

import itertools
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

WAIT = 60.0  # a guard against hanging, never a speed assertion
OLD = time.time() - 3600  # an mtime well past staleness.SETTLE_NS: hashes may be cached
_tick = itertools.count(1)


def write_old(root: Path, rel: str, text: str, mtime: float | None = None) -> None:
    """Write with an old mtime (cacheable), a distinct one each time so git sees edits."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    stamp = OLD + next(_tick) if mtime is None else mtime
    os.utime(path, (stamp, stamp))


def worker_env(home: Path, url: str, **extra: str) -> dict[str, str]:
    """The environment of a worker (or any CLI) process talking to a fake Messages API at
    `url`: this machine's variables without any ANTHROPIC_/MEM_REVIEW_ one it may carry,
    no spawned worker, no retries, the API extractor. `extra` overrides or adds."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "MEM_REVIEW_"))}
    env.update(MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1", MEM_REVIEW_MAX_RETRIES="0",
               MEM_REVIEW_EXTRACTOR="api", ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="test-key")
    env.update(extra)
    return env


@contextmanager
def processes_started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """Every process started inside the block (`subprocess.run` goes through Popen too)."""
    calls: list[list[str]] = []
    real = subprocess.Popen

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, args: list[str], *a: object, **k: object) -> None:
            calls.append(list(args))
            super().__init__(args, *a, **k)

    monkeypatch.setattr(subprocess, "Popen", Counting)
    try:
        yield calls
    finally:
        monkeypatch.setattr(subprocess, "Popen", real)


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


def run_on_terminal(
    argv: list[str], answer: str | None, *, env: dict[str, str], cwd: Path,
    prompt: bytes = b"Type `", timeout: float = WAIT,
) -> tuple[int, str]:
    """Run `argv` with a pseudo-terminal as its controlling terminal (as a person's shell
    would) and type `answer` when `prompt` appears; (exit code, everything it printed)."""
    import pty
    import select

    pid, fd = pty.fork()
    if pid == 0:  # the child: its own session, the pty as /dev/tty
        try:
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    out = b""
    sent = False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if not ready:
                continue
            try:
                data = os.read(fd, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            out += data
            if not sent and answer is not None and prompt in out:
                os.write(fd, answer.encode() + b"\n")
                sent = True
    finally:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def insert_fact(conn: sqlite3.Connection, project: str, text: str,
                status: str = "approved") -> int:
    """A bare fact row written straight into the store (recall's tests: no git, no
    anchors), its normal form the lower-cased text."""
    cur = conn.execute(
        "INSERT INTO fact (project, text, norm, category, files, confidence, status, anchors, "
        "created_at, updated_at, decided_at) VALUES (?, ?, ?, 'decision', '[]', 0.5, ?, '{}', "
        "1, 1, 1)", (project, text, text.lower(), status))
    return int(cur.lastrowid or 0)


def make_repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "init")
    return path


def fact(
    text: str,
    evidence: str,
    *,
    files: list[str] | None = None,
    category: str = "environment",
    confidence: float = 0.9,
) -> dict[str, Any]:
    return {
        "fact": text,
        "category": category,
        "files": files or [],
        "confidence": confidence,
        "evidence": evidence,
    }
