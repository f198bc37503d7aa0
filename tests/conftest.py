"""Shared fixtures: the real transcripts live beside the project, in ../shared."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from shared import need_transcripts


@pytest.fixture(autouse=True)
def _no_real_extractor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`extractor = "auto"` takes a key or a `claude` it finds: a test must never run the
    developer's own (signed in, paying) Claude Code or use their key. Tests that want
    either set it themselves."""
    monkeypatch.setenv("MEM_REVIEW_CLAUDE_BIN", str(tmp_path / "no-claude-here"))
    for var in ("ANTHROPIC_API_KEY", "MEM_REVIEW_EXTRACTOR"):
        monkeypatch.delenv(var, raising=False)
    # The `semantic` extra, where installed, stays off unless a test turns it on: results
    # must not depend on whether the machine has it (tests/test_recall_semantic.py does).
    monkeypatch.setenv("MEM_REVIEW_SEMANTIC", "0")


@pytest.fixture(scope="session")
def claude() -> Path:
    """The pinned Claude Code CLI for the end-to-end tests (installed once per run)."""
    from claude_cli import ensure_claude

    try:
        return ensure_claude()
    except RuntimeError as exc:  # no npm / no registry: the only acceptable reason to skip
        pytest.skip(f"Claude Code {exc}")


@pytest.fixture
def transcripts() -> Path:
    """The real transcripts; skips (fails under CI's MEM_REVIEW_REQUIRE_SHARED) when absent."""
    return need_transcripts()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private, empty data dir; no worker spawns and no key leaks in from the machine.

    Test files that need another setup define their own `home`, which takes precedence.
    """
    home = tmp_path / "home"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(home))
    monkeypatch.setenv("MEM_REVIEW_NO_SPAWN", "1")
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "MEM_REVIEW_EXTRACTOR"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def worker_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`home` set up for running the worker in-process against a fake Messages API: the
    API extractor, no retries, none of the machine's spend, pause or timeout settings."""
    monkeypatch.setenv("MEM_REVIEW_MAX_RETRIES", "0")
    monkeypatch.setenv("MEM_REVIEW_EXTRACTOR", "api")
    for var in ("MEM_REVIEW_DAILY_SPEND_CAP", "MEM_REVIEW_TEST_PAUSE", "MEM_REVIEW_API_TIMEOUT"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch HOME: Claude Code's user settings, ~/.claude.json and auto memory."""
    user = tmp_path / "userhome"
    user.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(user))
    return user


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The review app's world (tests/test_tui_seed.py): a data dir, a project, a store."""
    from test_tui_seed import make_env

    yield from make_env(tmp_path, monkeypatch)


@pytest.fixture
def conn(home: Path) -> Iterator[Any]:
    """A connection to the private store of `home` (migrated on open)."""
    from reviewer.store import db

    c = db.connect()
    yield c
    c.close()


@pytest.fixture
def store(home: Path) -> Iterator[Any]:
    """The store of `home`, as the worker and the review app use it."""
    from reviewer.store.facts import Store

    s = Store()
    yield s
    s.close()
