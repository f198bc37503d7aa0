"""A newcomer's install → uninstall cycle: Claude Code's state file missing or `{}`, no
leftovers in ~/.claude.json or HOME, and the local settings file kept out of `git status`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXE = str(Path(sys.executable).parent / "mem-review")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "userhome"
    h.mkdir()
    return h


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = (tmp_path / "proj").resolve()
    p.mkdir()
    subprocess.run(["git", "init", "-q", str(p)], check=True)
    return p


def cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLAUDE", "MEM_REVIEW_", "GIT_"))}
    env.update(HOME=str(home), MEM_REVIEW_HOME=str(home.parent / "data"),
               XDG_CONFIG_HOME=str(home / ".config"))
    return subprocess.run([EXE, *args], capture_output=True, text=True, env=env, check=False,
                          timeout=60)


@pytest.mark.parametrize("state", [None, b"{}"], ids=["missing", "empty object"])
def test_uninstall_finishes_when_claude_json_is_missing_or_empty(
    project: Path, home: Path, state: bytes | None
) -> None:
    assert cli("install", "--project", str(project), home=home).returncode == 0
    claude_json = home / ".claude.json"
    claude_json.unlink()
    if state is not None:
        claude_json.write_bytes(state)
    done = cli("uninstall", "--project", str(project), home=home)
    assert done.returncode == 0, done.stderr
    assert "not an object" not in done.stdout + done.stderr
    assert "removed mem-review hooks" in done.stdout or "removed " in done.stdout
    assert not (project / ".claude" / "settings.local.json").exists()
    again = cli("uninstall", "--project", str(project), home=home)
    assert again.returncode == 0 and "nothing changed" in again.stdout, again.stderr


def test_a_cycle_leaves_no_empty_project_entry_and_one_backup_at_most(
    project: Path, home: Path
) -> None:
    theirs = {"numStartups": 3, "projects": {"/elsewhere": {"allowedTools": []}}}
    (home / ".claude.json").write_text(json.dumps(theirs))
    for _ in range(3):
        assert cli("install", "--project", str(project), home=home).returncode == 0
        assert cli("uninstall", "--project", str(project), home=home).returncode == 0
    assert json.loads((home / ".claude.json").read_text()) == theirs  # no "<project>": {}
    copies = sorted(p.name for p in home.glob(".claude.json.mem-review.*.bak"))
    assert len(copies) == 1, copies  # six writes, one copy: the newest


def test_a_cycle_from_nothing_leaves_no_projects_object(project: Path, home: Path) -> None:
    assert cli("install", "--project", str(project), home=home).returncode == 0
    assert cli("uninstall", "--project", str(project), home=home).returncode == 0
    assert json.loads((home / ".claude.json").read_text()) == {}


def _status(project: Path) -> str:
    return subprocess.run(["git", "-C", str(project), "status", "--porcelain",
                           "--untracked-files=all"], capture_output=True, text=True,
                          check=True, env={**os.environ, "HOME": str(project.parent)}).stdout


def test_install_keeps_settings_local_json_out_of_git_status(project: Path, home: Path) -> None:
    exclude = project / ".git" / "info" / "exclude"
    before = exclude.read_bytes()
    done = cli("install", "--project", str(project), home=home)
    assert done.returncode == 0, done.stderr
    assert (project / ".claude" / "settings.local.json").is_file()
    assert ".claude" not in _status(project), _status(project)
    assert "out of git status" in done.stdout
    assert cli("install", "--project", str(project), home=home).returncode == 0
    assert exclude.read_text().count("settings.local.json") == 1  # not added twice
    assert cli("uninstall", "--project", str(project), home=home).returncode == 0
    assert exclude.read_bytes() == before  # taken back with the file


def test_a_project_that_already_ignores_it_is_left_alone(project: Path, home: Path) -> None:
    (project / ".gitignore").write_text(".claude/settings.local.json\n")
    exclude = project / ".git" / "info" / "exclude"
    before = exclude.read_bytes()
    done = cli("install", "--project", str(project), home=home)
    assert done.returncode == 0 and "out of git status" not in done.stdout
    assert exclude.read_bytes() == before
