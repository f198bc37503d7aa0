"""`mem-review doctor`: every check passes on a healthy setup and names the fix when broken."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reviewer.claude_code import memory_switch, settings_file
from reviewer.commands import doctor
from reviewer.store import db, schema

BIN = Path(sys.executable).parent
DOORS = [f"memory door: {name}" for name in (
    "mem-review facts", "Claude Code auto memory", "team memory", "account memory",
    "CLAUDE.md and rules")]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "userhome"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    for var in ("MEM_REVIEW_EXTRACTOR", "MEM_REVIEW_BUDGET", "MEM_REVIEW_MODEL"):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "userhome").mkdir()
    return tmp_path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


@pytest.fixture
def healthy(project: Path) -> Path:
    settings_file.install("project", project)  # the real console script of this venv
    memory_switch.turn_off("project", str(project), guard=False)  # as `install` does
    db.connect().close()
    return project


def by_name(project: Path) -> dict[str, list[doctor.Check]]:
    out: dict[str, list[doctor.Check]] = {}
    for check in doctor.checks(str(project)):
        out.setdefault(check.name, []).append(check)
    return out


def bad(project: Path) -> dict[str, str]:
    return {c.name: c.detail for c in doctor.checks(str(project)) if not c.ok}


def add_job(**fields: object) -> None:
    now = time.time()
    row = {
        "session_id": "s",
        "transcript_path": "/t.jsonl",
        "project": "/p",
        "cwd": "/p",
        "event": "SessionEnd",
        "state": "queued",
        "created_at": now,
        "updated_at": now,
        **fields,
    }
    conn = db.connect()
    conn.execute(
        f"INSERT INTO job ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
        tuple(row.values()),
    )
    conn.close()


def test_healthy_setup_is_all_green(healthy: Path) -> None:
    checks = doctor.checks(str(healthy))
    assert [c for c in checks if not c.ok] == []
    names = [c.name for c in checks]
    assert names == [
        "config",
        "hooks",
        "executable",
        "other agents",
        "extractor",
        "data dir",
        "store",
        "worker",
        "queue",
        "last error",
        "semantic recall",
        *DOORS,
    ]
    detail = {c.name: c.detail for c in checks}
    assert "project (" in detail["hooks"]
    assert "runs (mem-review " in detail["executable"]
    assert f"schema version {schema.VERSION}" in detail["store"]


def test_cli_exit_status_and_one_line_per_check(healthy: Path, tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    done = subprocess.run(
        [str(BIN / "mem-review"), "doctor", "--project", str(healthy)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(doctor.checks(str(healthy)))
    assert all(line.startswith("✓ ") for line in lines)
    # The doors: mem-review's facts, auto memory, team memory, account memory, CLAUDE.md.
    assert all(line.startswith("✓ memory door: ") for line in lines[-5:])

    env.pop("ANTHROPIC_API_KEY")
    done = subprocess.run(
        [str(BIN / "mem-review"), "doctor", "--project", str(healthy)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert done.returncode == 1
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("✗")]
    assert line.startswith("✗ extractor: rules (auto: no ANTHROPIC_API_KEY and ")
    assert "they find nothing in agent-driven sessions" in line
    assert "set ANTHROPIC_API_KEY, or install Claude Code and sign in" in line


def test_no_hooks(project: Path) -> None:
    db.connect().close()
    problems = bad(project)
    assert set(problems) == {"hooks", "memory door: Claude Code auto memory"}
    assert "missing session-start, session-end, pre-compact" in problems["hooks"]
    assert "mem-review install" in problems["hooks"]


def test_hooks_in_user_scope_count(project: Path) -> None:
    settings_file.install("user", project)
    assert "hooks" not in bad(project)
    assert "user (" in by_name(project)["hooks"][0].detail


def test_hooks_pointing_at_a_missing_executable(project: Path, tmp_path: Path) -> None:
    gone = tmp_path / "old-venv" / "bin" / "mem-review"
    settings_file.install("local", project, exe=str(gone))
    problems = bad(project)
    assert problems["executable"].startswith(f"{gone} does not exist")


def test_an_executable_that_fails(project: Path, tmp_path: Path) -> None:
    broken = tmp_path / "bin" / "mem-review"
    broken.parent.mkdir()
    broken.write_text("#!/bin/sh\necho 'ImportError: no module reviewer' >&2\nexit 1\n")
    broken.chmod(0o755)
    settings_file.install("project", project, exe=str(broken))
    assert "--version failed (ImportError: no module reviewer)" in bad(project)["executable"]


def test_two_scopes_with_different_executables(project: Path, tmp_path: Path) -> None:
    settings_file.install("project", project)
    other = tmp_path / "other" / "mem-review"
    settings_file.install("user", project, exe=str(other))
    details = [c.detail for c in doctor.checks(str(project)) if not c.ok]
    assert any("runs them twice" in d for d in details)


def test_unreadable_settings_file(project: Path) -> None:
    settings_file.install("user", project)
    broken = project / ".claude" / "settings.local.json"
    broken.parent.mkdir()
    broken.write_text("{oops")
    problems = bad(project)
    assert "not valid JSON" in problems["settings (local)"]


def test_api_key_not_needed_with_rules(healthy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert "extractor" in bad(healthy)  # auto fell back to the rules: said plainly
    monkeypatch.setenv("MEM_REVIEW_EXTRACTOR", "rules")
    assert bad(healthy) == {}
    (rules,) = by_name(healthy)["extractor"]
    assert "find nothing in agent-driven sessions" in rules.detail  # asked for, still said
    monkeypatch.setenv("MEM_REVIEW_EXTRACTOR", "api")
    assert "ANTHROPIC_API_KEY is not set" in bad(healthy)["extractor"]


def test_broken_config(healthy: Path, isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (isolated / "data" / "config.toml").write_text("budget = = 3")
    assert "not valid TOML" in bad(healthy)["config"]
    (isolated / "data" / "config.toml").write_text('extractor = "magic"')
    assert "extractor='magic'" in bad(healthy)["config"]  # named by the config loader


def test_no_store_yet_is_fine(project: Path) -> None:
    settings_file.install("project", project)
    checks = by_name(project)
    assert checks["store"][0].ok and "first capture creates it" in checks["store"][0].detail
    assert "worker" not in checks


def test_store_too_new_or_world_readable(healthy: Path, isolated: Path) -> None:
    store = isolated / "data" / "store.db"
    store.chmod(0o644)
    assert "chmod 600" in bad(healthy)["store"]
    store.chmod(0o600)
    conn = db.connect()
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    assert "newer than this mem-review" in bad(healthy)["store"]


def test_garbage_store(healthy: Path, isolated: Path) -> None:
    (isolated / "data" / "store.db").write_bytes(b"not sqlite at all" * 50)
    for side in ("store.db-wal", "store.db-shm"):
        (isolated / "data" / side).unlink(missing_ok=True)
    assert "is damaged" in bad(healthy)["store"] and ".recover" in bad(healthy)["store"]


def test_stuck_worker_waiting_queue_and_last_error(healthy: Path) -> None:
    now = time.time()
    add_job(state="running", heartbeat=now - 3600, claimed_by=999_999, attempts=1)
    add_job(state="queued", not_before=now - 7200)
    add_job(
        state="failed",
        last_error="transcript unreadable: permission denied",
        permanent_error=1,
        updated_at=now - 60,
    )
    problems = bad(healthy)
    assert "left running by a worker that stopped" in problems["worker"]
    assert problems["queue"].startswith("1 queued, 1 left running, to be retried, 0 done, 1 failed")
    assert "run `mem-review worker`" in problems["queue"]
    assert "job 3 failed" in problems["last error"]
    assert "`mem-review retry 3` (or `--all`) puts it back" in problems["last error"]
    assert "transcript unreadable" in problems["last error"]


def test_recent_running_job_and_done_jobs_are_fine(healthy: Path) -> None:
    from capture.worker_lock import release, take

    add_job(state="running", heartbeat=time.time(), claimed_by=os.getpid())
    add_job(state="done", last_error=None)
    fd = take()  # the worker running that job holds the lock
    assert fd is not None
    try:
        assert bad(healthy) == {}
    finally:
        release(fd)


def test_a_running_job_whose_worker_lock_is_free_is_not_called_idle(healthy: Path) -> None:
    """Seen after Ctrl-C in `worker --once`: "✓ worker: idle" beside "✓ queue: 0 queued,
    1 running". A fresh heartbeat does not make it live: nobody holds the lock."""
    add_job(state="running", heartbeat=time.time(), claimed_by=999_999, attempts=1)
    problems = bad(healthy)
    assert "idle; job 1 was left running" in problems["worker"]
    assert "puts it back in the queue and retries it" in problems["worker"]
    queue_line = {c.name: c for c in doctor.checks(str(healthy))}["queue"].detail
    assert queue_line.startswith("0 queued, 1 left running, to be retried"), queue_line
