"""What the end-to-end tests share: a scratch world (git project, HOME, store) and the
real `mem-review` executable run the way a person runs it.

Everything here runs real programs: git, the installed `mem-review` console script, the
real Claude Code CLI (`tests/claude_cli.py`) and its hooks, and the detached worker those
hooks start. Waiting is always a bounded poll on a state (never a sleep for a duration
that is then asserted on), so a slow machine makes the tests slower, not flaky.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claude_cli import run_claude
from fakeapi import FakeMessagesAPI, RecordedRequest, messages_text, system_text

VENV_BIN = Path(sys.executable).parent
WAIT_SECONDS = 60.0  # bound on any wait for the detached worker
POLL_SECONDS = 0.3

# The inherited variables that would point the product or git somewhere else.
_DROP_PREFIXES = ("MEM_REVIEW_", "ANTHROPIC_", "CLAUDE", "GIT_", "XDG_")


def mem_review_exe() -> Path:
    """The installed console script: the one hooks must name by absolute path."""
    beside = VENV_BIN / "mem-review"
    if beside.is_file():
        return beside
    found = shutil.which("mem-review")
    if found is None:
        raise RuntimeError("the mem-review console script is not installed")
    return Path(found)


def git(project: Path, *args: str) -> str:
    """Run git in `project` as a fixed, config-free identity; returns stdout."""
    env = _clean_env(os.environ)
    env.update(
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Test",
        GIT_AUTHOR_EMAIL="test@example.com",
        GIT_COMMITTER_NAME="Test",
        GIT_COMMITTER_EMAIL="test@example.com",
    )
    proc = subprocess.run(
        ["git", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def make_project(path: Path, files: Mapping[str, str]) -> Path:
    """A git repository holding `files`, committed on branch main."""
    path.mkdir(parents=True)
    for name, text in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path


def _clean_env(src: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in src.items() if not k.startswith(_DROP_PREFIXES)}


@dataclass
class World:
    """One person's machine in miniature: a project, a HOME, a mem-review store, and the
    fake Messages API both Claude Code and the worker talk to."""

    project: Path
    home: Path
    store_home: Path
    api: FakeMessagesAPI
    exe: Path = field(default_factory=mem_review_exe)

    @property
    def db_path(self) -> Path:
        return self.store_home / "store.db"

    @property
    def log_path(self) -> Path:
        return self.store_home / "mem-review.log"

    @property
    def settings_path(self) -> Path:
        return self.project / ".claude" / "settings.json"

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a `mem-review` command typed in the project's shell."""
        env = _clean_env(os.environ)
        env.update(
            HOME=str(self.home),
            MEM_REVIEW_HOME=str(self.store_home),
            PATH=os.pathsep.join([str(self.exe.parent), env.get("PATH", "")]),
        )
        env.update(extra)
        return env

    def cli(self, *args: str, check: bool = True, **extra: str) -> subprocess.CompletedProcess[str]:
        """Run `mem-review ARGS` in the project; `check` asserts exit 0 with stderr shown."""
        proc = subprocess.run(
            [str(self.exe), *args],
            cwd=self.project,
            env=self.env(**extra),
            capture_output=True,
            text=True,
            check=False,
            stdin=subprocess.DEVNULL,
            timeout=120,
        )
        if check:
            assert proc.returncode == 0, (
                f"mem-review {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}"
            )
            assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    def cli_json(self, *args: str) -> Any:
        return json.loads(self.cli(*args, "--json").stdout)

    def claude(
        self, prompt: str, *, env: Mapping[str, str] | None = None, **kwargs: Any
    ) -> subprocess.CompletedProcess[str]:
        """`claude -p PROMPT` in the project; the hooks it runs see our store."""
        full = {"MEM_REVIEW_HOME": str(self.store_home)}
        full.update(env or {})
        proc = run_claude(
            prompt, project=self.project, home=self.home, api=self.api, env=full, **kwargs
        )
        assert proc.returncode == 0, f"claude exited {proc.returncode}:\n{proc.stderr}"
        return proc

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """Read the store with a second, independent connection (what is on disk)."""
        conn = sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=10)
        conn.row_factory = sqlite3.Row
        try:
            return list(conn.execute(sql, params))
        finally:
            conn.close()

    def log_tail(self, lines: int = 30) -> str:
        if not self.log_path.exists():
            return "(no log)"
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def wait_until(self, what: str, check: Callable[[], Any], timeout: float = WAIT_SECONDS) -> Any:
        """Poll `check` until it returns something truthy; fail with the log when it never does."""
        deadline = time.monotonic() + timeout
        while True:
            value = check()
            if value:
                return value
            if time.monotonic() > deadline:
                jobs = [
                    {k: row[k] for k in ("id", "state", "event", "attempts", "last_error")}
                    for row in self.jobs()
                ]
                raise AssertionError(
                    f"timed out waiting for {what}\njobs: {jobs}\nlog:\n{self.log_tail()}"
                )
            time.sleep(POLL_SECONDS)

    def jobs(self) -> list[sqlite3.Row]:
        try:
            return self.query("SELECT * FROM job ORDER BY id")
        except sqlite3.OperationalError:  # no store yet
            return []

    def wait_for_captures(self, done: int) -> dict[str, Any]:
        """Poll `mem-review status --json`, as a person would, until `done` jobs are finished,
        none is waiting and the worker has exited; returns that status.

        A failed job, a job back in the queue with an error, or a job left `running` with
        no worker alive (the worker died without a word) ends the wait at once, with the
        reason, instead of running out the clock.
        """
        dead_seen = 0

        def settled() -> dict[str, Any] | None:
            nonlocal dead_seen
            status = self.cli_json("status")
            jobs = status["jobs"]
            assert jobs["failed"] == 0, json.dumps(status["failures"], indent=2)
            assert not status["waiting"], json.dumps(status["waiting"], indent=2)
            if jobs["running"] and not status["worker_running"]:
                # Twice in a row: once may be a job that ended between the two readings.
                dead_seen += 1
                assert dead_seen < 2, (
                    f"a job is `running` but no worker holds the lock: the worker died "
                    f"mid-job without logging (killed by a signal?)\nlog:\n{self.log_tail()}"
                )
            else:
                dead_seen = 0
            if (
                jobs["done"] >= done
                and jobs["queued"] == 0
                and jobs["running"] == 0
                and not status["worker_running"]
            ):
                return status
            return None

        status = self.wait_until(f"{done} capture job(s) done", settled)
        assert status["jobs"] == {"queued": 0, "running": 0, "done": done, "failed": 0}, status
        return status

    def facts(self, status: str = "all") -> list[dict[str, Any]]:
        return list(self.cli_json("list", "--status", status))

    def store_files_text(self) -> str:
        """Every byte mem-review keeps on disk (database, its WAL, the log), as text."""
        parts = []
        for path in sorted(self.store_home.rglob("*")):
            if path.is_file():
                parts.append(path.read_bytes().decode("utf-8", "replace"))
        return "\n".join(parts)


def request_text(req: RecordedRequest) -> str:
    """Everything one request carried: raw body and every decoded string in it."""
    return "\n".join(
        [
            req.raw.decode("utf-8", "replace"),
            system_text(req),
            messages_text(req),
            json.dumps(req.body, ensure_ascii=False),
        ]
    )


class GatedAPI(FakeMessagesAPI):
    """The fake API, able to hold one request of a lane until the test lets it go.

    This makes a moment inside a running Claude Code observable without timing: e.g. hold
    the compaction summary request, look at the store (PreCompact has fired, SessionEnd
    has not), then release it.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._gate_lane: str | None = None
        self.held = threading.Event()
        self.released = threading.Event()

    def hold_next(self, lane: str) -> None:
        self._gate_lane = lane
        self.held.clear()
        self.released.clear()

    def release(self) -> None:
        self.released.set()

    def handle(self, req: RecordedRequest) -> Any:
        answer = super().handle(req)
        if self._gate_lane is not None and req.lane == self._gate_lane:
            self._gate_lane = None
            self.held.set()
            self.released.wait(WAIT_SECONDS)
        return answer

    def stop(self) -> None:
        self.released.set()  # never leave a handler thread waiting
        super().stop()
