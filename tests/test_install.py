"""install / uninstall: merging our hooks into Claude Code settings and taking them out exactly."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from reviewer.claude_code import settings_file
from reviewer.errors import UserError

BIN = Path(sys.executable).parent
EXE = "/opt/mem review/bin/mem-review"  # a space, so quoting matters

THEIRS = {
    "model": "claude-sonnet-4-5",
    "permissions": {"allow": ["Bash(npm test)"], "deny": []},
    "env": {"FOO": "1"},
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}
        ],
        "PostToolUse": [
            {"matcher": "Edit", "hooks": [{"type": "command", "command": "npx prettier -w"}]}
        ],
    },
}


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "userhome"))
    (tmp_path / "userhome").mkdir()
    return tmp_path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


def their_file(path: Path, indent: int = 4) -> bytes:
    """A settings file written the way a person might: their own indentation, no newline."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(THEIRS, indent=indent).encode()
    path.write_bytes(raw)
    return raw


def ours(data: dict[str, object]) -> list[tuple[str, str, str]]:
    return settings_file.entries(data)


@pytest.mark.parametrize(
    ("scope", "relative"),
    [
        ("project", "proj/.claude/settings.json"),
        ("local", "proj/.claude/settings.local.json"),
        ("user", "userhome/.claude/settings.json"),
    ],
)
def test_each_scope_installs_into_its_file_and_uninstall_removes_it(
    scope: str, relative: str, project: Path, tmp_path: Path
) -> None:
    change = settings_file.install(scope, project, exe=EXE)
    path = tmp_path / relative
    assert change.path == path and change.changed and change.backup is None
    data = json.loads(path.read_text())
    quoted = shlex.quote(EXE)
    assert data == {
        "hooks": {
            "SessionStart": [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "timeout": 10,
                            "command": f"{quoted} hook session-start",
                        }
                    ]
                }
            ],
            "SessionEnd": [
                {
                    "hooks": [
                        {"type": "command", "timeout": 5, "command": f"{quoted} hook session-end"}
                    ]
                }
            ],
            "PreCompact": [
                {
                    "hooks": [
                        {"type": "command", "timeout": 5, "command": f"{quoted} hook pre-compact"}
                    ]
                }
            ],
        }
    }
    assert shlex.split(data["hooks"]["SessionStart"][0]["hooks"][0]["command"])[0] == EXE

    back = settings_file.uninstall(scope, project)
    assert back.changed and back.removed_file
    assert not path.exists()
    assert not path.parent.exists()  # .claude/ was made by install


def test_merges_with_their_hooks_and_keys_and_uninstall_restores_the_bytes(
    project: Path,
) -> None:
    path = project / ".claude" / "settings.json"
    original = their_file(path)
    change = settings_file.install("project", project, exe=EXE)
    assert change.backup == settings_file.backup_path(path)
    assert change.backup.read_bytes() == original
    data = json.loads(path.read_text())
    assert {k: v for k, v in data.items() if k != "hooks"} == {
        k: v for k, v in THEIRS.items() if k != "hooks"
    }
    assert data["hooks"]["PostToolUse"] == THEIRS["hooks"]["PostToolUse"]
    assert data["hooks"]["SessionStart"][0] == THEIRS["hooks"]["SessionStart"][0]
    assert len(data["hooks"]["SessionStart"]) == 2
    assert sorted(arg for _, arg, _ in ours(data)) == [
        "pre-compact",
        "session-end",
        "session-start",
    ]

    back = settings_file.uninstall("project", project)
    assert back.restored_exactly
    assert path.read_bytes() == original
    assert not settings_file.backup_path(path).exists()


@pytest.mark.parametrize("content", [b"", b"{}", b'{"hooks": {}}', b'{\n  "hooks": {}\n}\n'])
def test_an_empty_file_they_had_survives_install_and_uninstall(
    project: Path, content: bytes
) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    settings_file.install("project", project, exe=EXE)
    assert ours(json.loads(path.read_text()))
    settings_file.uninstall("project", project)
    assert path.exists() and path.read_bytes() == content


def test_install_twice_changes_nothing(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    their_file(path)
    settings_file.install("project", project, exe=EXE)
    after_first = path.read_bytes()
    stamp = path.stat().st_mtime_ns
    again = settings_file.install("project", project, exe=EXE)
    assert not again.changed and again.backup is None
    assert path.read_bytes() == after_first and path.stat().st_mtime_ns == stamp
    assert len(list(path.parent.glob("*.bak"))) == 1


def test_a_new_executable_replaces_the_old_entries_not_doubles_them(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    original = their_file(path)
    settings_file.install("project", project, exe="/old/venv/bin/mem-review")
    change = settings_file.install("project", project, exe=EXE)
    assert change.changed
    assert change.backup is not None and change.backup.name.startswith("settings.json.mem-review.")
    data = json.loads(path.read_text())
    assert [c for _, _, c in ours(data) if "/old/" in c] == []
    assert len(ours(data)) == 3
    settings_file.uninstall("project", project)
    assert path.read_bytes() == original


def test_what_they_add_after_install_survives_uninstall(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    their_file(path)
    settings_file.install("project", project, exe=EXE)
    data = json.loads(path.read_text())
    data["outputStyle"] = "concise"
    data["hooks"]["SessionEnd"][0]["hooks"].append({"type": "command", "command": "echo bye"})
    path.write_text(json.dumps(data))
    back = settings_file.uninstall("project", project)
    assert back.changed and not back.restored_exactly and back.backup is not None
    left = json.loads(path.read_text())
    expected = json.loads(json.dumps(THEIRS))
    expected["outputStyle"] = "concise"
    expected["hooks"]["SessionEnd"] = [{"hooks": [{"type": "command", "command": "echo bye"}]}]
    assert left == expected


def test_guard_is_opt_in_and_removed_too(project: Path) -> None:
    settings_file.install("project", project, exe=EXE)
    path = project / ".claude" / "settings.json"
    assert "PreToolUse" not in json.loads(path.read_text())["hooks"]
    settings_file.install("project", project, exe=EXE, guard=True)
    group = json.loads(path.read_text())["hooks"]["PreToolUse"][0]
    assert group["matcher"] == "Bash|Edit|MultiEdit|Write|NotebookEdit"
    assert group["hooks"][0]["command"].endswith(" hook pre-tool-use")
    settings_file.uninstall("project", project)
    assert not path.exists()


@pytest.mark.parametrize(
    "content",
    [
        b'{"hooks": {"SessionStart": [}',  # broken JSON
        b'{"hooks": []}',  # hooks not an object
        b"[1, 2, 3]",  # not an object at all
        b"\xff\xfe garbage",
        b'{"hooks": {"SessionEnd": {"command": "x"}}}',  # an event that is not a list
    ],
)
def test_a_file_that_is_not_usable_is_refused_untouched(project: Path, content: bytes) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(content)
    with pytest.raises(UserError) as info:
        settings_file.install("project", project, exe=EXE)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
    assert path.read_bytes() == content
    assert list(path.parent.iterdir()) == [path]  # no backup, no temp file
    with contextlib.suppress(UserError):  # refused, or nothing of ours to remove
        assert not settings_file.uninstall("project", project).changed
    assert path.read_bytes() == content


def test_file_mode_is_kept_and_a_symlink_is_written_through(project: Path, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "claude-settings.json"
    original = their_file(real)
    os.chmod(real, 0o640)
    link = project / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)
    settings_file.install("project", project, exe=EXE)
    assert link.is_symlink()
    assert (real.stat().st_mode & 0o777) == 0o640
    assert len(ours(json.loads(real.read_text()))) == 3
    settings_file.uninstall("project", project)
    assert link.is_symlink() and real.read_bytes() == original


def test_is_ours_recognises_only_our_commands() -> None:
    assert settings_file.is_ours("/x/bin/mem-review hook session-start") == "session-start"
    assert settings_file.is_ours("'/a b/mem-review' hook pre-compact") == "pre-compact"
    assert settings_file.is_ours("/x/bin/mem-review hook unknown") is None
    assert settings_file.is_ours("/x/bin/other-tool hook session-start") is None
    assert settings_file.is_ours("echo mem-review hook session-start") is None
    assert settings_file.is_ours(42) is None


def test_executable_is_the_console_script_beside_this_python() -> None:
    exe = settings_file.executable()
    assert Path(exe).is_absolute() and Path(exe).name == "mem-review"
    assert Path(exe).parent == BIN


def _cli(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, HOME=str(tmp_path / "userhome"), MEM_REVIEW_HOME=str(tmp_path / "data"))
    return subprocess.run(
        [str(BIN / "mem-review"), *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )


def test_cli_install_uninstall_round_trip(project: Path, tmp_path: Path) -> None:
    path = project / ".claude" / "settings.local.json"
    original = their_file(path, indent=2)
    done = _cli("install", "--scope", "local", "--project", str(project), tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"installed mem-review hooks in {path}" in done.stdout
    command = json.loads(path.read_text())["hooks"]["SessionStart"][-1]["hooks"][0]["command"]
    assert command == f"{shlex.quote(str(BIN / 'mem-review'))} hook session-start"
    done = _cli("install", "--scope", "local", "--project", str(project), tmp_path=tmp_path)
    assert "already installed" in done.stdout
    done = _cli("uninstall", "--scope", "local", "--project", str(project), tmp_path=tmp_path)
    assert done.returncode == 0 and "restored as it was" in done.stdout
    assert path.read_bytes() == original


def test_cli_refuses_broken_json_in_one_line(project: Path, tmp_path: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{ not json")
    done = _cli("install", "--scope", "project", "--project", str(project), tmp_path=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith(f"mem-review: {path}: not valid JSON")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert path.read_text() == "{ not json"
    done = _cli("install", "--project", str(tmp_path / "missing"), tmp_path=tmp_path)
    assert done.returncode == 1 and "no such directory" in done.stderr


def test_an_empty_hooks_object_comes_back_exactly(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    original = b'{"hooks": {}, "model": "x"}'
    path.write_bytes(original)
    settings_file.install("project", project, exe=EXE)
    assert settings_file.uninstall("project", project).restored_exactly
    assert path.read_bytes() == original
