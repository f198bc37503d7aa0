"""Install for teams: `local` is the default scope (an absolute venv path is one person's),
and `--portable` writes hooks a committed settings file can carry to every clone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reviewer.claude_code import settings_file

BIN = Path(sys.executable).parent


def _cli(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, HOME=str(tmp_path / "userhome"), MEM_REVIEW_HOME=str(tmp_path / "data"))
    return subprocess.run([str(BIN / "mem-review"), *args], capture_output=True, text=True,
                          env=env, check=False, timeout=60)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


def _commands(path: Path) -> dict[str, str]:
    hooks = json.loads(path.read_text())["hooks"]
    return {event: groups[-1]["hooks"][0]["command"] for event, groups in hooks.items()}


def test_default_scope_is_the_personal_local_file(project: Path, tmp_path: Path) -> None:
    done = _cli("install", "--project", str(project), tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (project / ".claude" / "settings.local.json").is_file()
    assert not (project / ".claude" / "settings.json").exists()
    done = _cli("uninstall", "--project", str(project), tmp_path=tmp_path)
    assert done.returncode == 0 and not (project / ".claude" / "settings.local.json").exists()


def test_portable_project_install_names_no_path_and_round_trips(
    project: Path, tmp_path: Path,
) -> None:
    path = project / ".claude" / "settings.json"
    done = _cli("install", "--scope", "project", "--portable", "--guard", "--project",
                str(project), tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    commands = _commands(path)
    assert commands["SessionStart"] == (
        "command -v mem-review >/dev/null 2>&1 && mem-review hook session-start || true")
    assert str(BIN) not in path.read_text() and str(tmp_path) not in path.read_text()
    assert {arg for _, arg, _ in settings_file.entries(json.loads(path.read_text()))} == {
        "session-start", "session-end", "pre-compact", "pre-tool-use"}
    again = _cli("install", "--scope", "project", "--portable", "--guard", "--project",
                 str(project), tmp_path=tmp_path)
    assert "already installed" in again.stdout
    # An absolute install replaces the portable entries rather than doubling them.
    settings_file.install("project", project, exe=str(BIN / "mem-review"), guard=True,
                          deny=False)  # the deny rules would name this process's data dir
    found = settings_file.entries(json.loads(path.read_text()))
    assert len(found) == 4 and not any(settings_file.is_portable(c) for _, _, c in found)
    done = _cli("uninstall", "--scope", "project", "--project", str(project), tmp_path=tmp_path)
    assert done.returncode == 0 and not path.exists()


def test_non_portable_project_install_says_so(project: Path, tmp_path: Path) -> None:
    done = _cli("install", "--scope", "project", "--project", str(project), tmp_path=tmp_path)
    assert done.returncode == 0 and "--portable" in done.stdout


@pytest.mark.parametrize("on_path", [True, False])
def test_portable_command_runs_the_hook_or_nothing(
    on_path: bool, tmp_path: Path, project: Path,
) -> None:
    """What Claude Code runs: `sh -c COMMAND`, with or without mem-review on PATH."""
    command = settings_file.hook_command(settings_file.PORTABLE_EXE, "session-start")
    bare = tmp_path / "bare-bin"
    bare.mkdir()
    path = f"{BIN}:/usr/bin:/bin" if on_path else "/usr/bin:/bin"
    env = {"PATH": path, "HOME": str(tmp_path), "MEM_REVIEW_HOME": str(tmp_path / "data")}
    payload = json.dumps({"cwd": str(project), "session_id": "s", "source": "startup"})
    done = subprocess.run(["sh", "-c", command], input=payload, capture_output=True, text=True,
                          env=env, check=False, timeout=60)
    assert done.returncode == 0 and done.stdout == ""  # no store: nothing to say either way
    assert (tmp_path / "data").exists() == on_path  # the hook ran (and logged) only on PATH


@pytest.mark.parametrize("on_path", [True, False])
def test_doctor_checks_the_mem_review_a_portable_install_finds(
    on_path: bool, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from reviewer.commands import doctor

    monkeypatch.setenv("HOME", str(tmp_path / "userhome"))
    monkeypatch.setenv("PATH", f"{BIN}:/usr/bin:/bin" if on_path else "/usr/bin:/bin")
    settings_file.install("project", project, exe=settings_file.PORTABLE_EXE)
    checks = {c.name: c for c in doctor.check_hooks(str(project))}
    assert checks["hooks"].ok
    assert checks["executable"].ok is on_path, checks["executable"]
    if not on_path:
        assert "not on PATH" in checks["executable"].detail
