"""`install --guard` turns Claude Code's OS sandbox on; uninstall puts each file back
byte for byte; doctor says whether the sandbox can run here."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from claude_cli import project_dir_name

from reviewer.claude_code import sandbox, settings_file
from reviewer.commands import doctor

EXE = str(Path(sys.executable).parent / "mem-review")

THEIRS = {
    "model": "claude-sonnet-4-5",
    "sandbox": {
        "enabled": False,
        "network": {"allowedDomains": ["pypi.org"]},
        "filesystem": {"denyWrite": ["/srv/secrets"], "allowWrite": ["/tmp/build"]},
        "excludedCommands": ["docker"],
    },
    "permissions": {"deny": ["Read(./.env)"]},
}


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "userhome"))
    (tmp_path / "userhome").mkdir()
    project = tmp_path / "proj"
    project.mkdir()
    return project


def _install(project: Path, scope: str = "local") -> dict:
    settings_file.install(scope, project, guard=True, exe=EXE)
    return json.loads(settings_file.settings_path(scope, project).read_text())


def test_guard_turns_the_sandbox_on_with_exact_paths(isolated: Path) -> None:
    data = _install(isolated)
    box = data["sandbox"]
    assert box["enabled"] is True
    assert box["allowUnsandboxedCommands"] is False
    assert box["failIfUnavailable"] is True
    deny = box["filesystem"]["denyWrite"]
    home = Path.home()
    for must in (
        os.environ["MEM_REVIEW_HOME"],  # the data dir
        os.path.join(os.environ["MEM_REVIEW_HOME"], "store.db"),
        sys.prefix,  # the venv mem-review runs from
        EXE,
        str(home / ".claude" / "settings.json"),
        str(home / ".claude.json"),
        str(isolated / ".claude" / "settings.json"),
        str(isolated / ".claude" / "settings.local.json"),
        str(sandbox.memory_dir(isolated)),
        str(isolated / ".mem-review"),
    ):
        assert must in deny, must
    assert all("*" not in p for p in deny)  # exact paths: globs may be ignored
    # the folder the real CLI writes transcripts and memory under (tests/claude_cli.py)
    assert sandbox.memory_dir(isolated) == (
        Path.home() / ".claude" / "projects" / project_dir_name(isolated) / "memory")
    rules = data["permissions"]["deny"]
    assert f"Edit(/{isolated}/.mem-review/**)" in rules
    assert f"Edit(/{isolated}/.claude/settings.local.json)" in rules


def test_editable_install_protects_the_source() -> None:
    import reviewer

    source = str(Path(reviewer.__file__).resolve().parent)
    assert "site-packages" not in source  # this venv holds an editable install
    assert source in sandbox.protected_paths("/x")


def test_their_sandbox_settings_are_kept_and_restored_exactly(isolated: Path) -> None:
    path = settings_file.settings_path("local", isolated)
    path.parent.mkdir()
    raw = json.dumps(THEIRS, indent=4).encode() + b"\n"
    path.write_bytes(raw)
    data = _install(isolated)
    box = data["sandbox"]
    assert box["network"] == {"allowedDomains": ["pypi.org"]}
    assert box["excludedCommands"] == ["docker"]
    assert box["filesystem"]["allowWrite"] == ["/tmp/build"]
    assert box["filesystem"]["denyWrite"][0] == "/srv/secrets"
    assert box["enabled"] is True
    assert "Read(./.env)" in data["permissions"]["deny"]
    change = settings_file.uninstall("local", isolated)
    assert change.restored_exactly
    assert path.read_bytes() == raw


def test_uninstall_without_backup_leaves_their_later_sandbox_keys(isolated: Path) -> None:
    path = settings_file.settings_path("local", isolated)
    _install(isolated)
    data = json.loads(path.read_text())
    data["sandbox"]["network"] = {"allowedDomains": ["example.org"]}  # added after install
    path.write_text(json.dumps(data))
    settings_file.uninstall("local", isolated)
    left = json.loads(path.read_text())
    assert left == {"sandbox": {"network": {"allowedDomains": ["example.org"]}}}


def test_install_then_uninstall_of_a_fresh_file_removes_it(isolated: Path) -> None:
    _install(isolated)
    change = settings_file.uninstall("local", isolated)
    assert change.removed_file
    assert not settings_file.settings_path("local", isolated).exists()


def test_doctor_says_the_sandbox_runs_here(isolated: Path) -> None:
    _install(isolated)
    works, why = sandbox.probe()
    assert works, why  # make test installs bubblewrap and socat
    [line] = doctor.check_sandbox(str(isolated))
    assert line.ok and line.name == "sandbox", line.detail


def test_doctor_says_tripwire_where_the_sandbox_cannot_start(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    _install(isolated)
    bare = tmp_path / "bin"
    bare.mkdir()
    monkeypatch.setenv("PATH", str(bare))  # no bwrap, no socat
    [line] = doctor.check_sandbox(str(isolated))
    assert not line.ok
    assert "tripwire" in line.detail and "bubblewrap and socat not installed" in line.detail


def test_doctor_flags_a_sandbox_switched_off(isolated: Path) -> None:
    path = settings_file.settings_path("local", isolated)
    data = _install(isolated)
    data["sandbox"]["allowUnsandboxedCommands"] = True
    path.write_text(json.dumps(data))
    [line] = doctor.check_sandbox(str(isolated))
    assert not line.ok and "unconfined" in line.detail


def test_doctor_is_silent_without_the_guard(isolated: Path) -> None:
    settings_file.install("local", isolated, exe=EXE)
    assert doctor.check_sandbox(str(isolated)) == []


def test_install_says_what_the_sandbox_changes(isolated: Path, tmp_path: Path) -> None:
    import subprocess

    env = {**os.environ, "MEM_REVIEW_HOME": str(tmp_path / "data"),
           "HOME": str(tmp_path / "userhome")}
    done = subprocess.run([EXE, "install", "--guard", "--project", str(isolated)], env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "Claude Code's sandbox is on for this scope" in done.stdout
    assert "fail instead of running unconfined" in done.stdout
    assert "sandbox.filesystem.denyWrite: " + str(isolated / ".mem-review") in done.stdout
    gone = subprocess.run([EXE, "uninstall", "--project", str(isolated)], env=env,
                          capture_output=True, text=True, check=False)
    assert gone.returncode == 0, gone.stderr
    assert not (isolated / ".claude" / "settings.local.json").exists()


def test_instruction_files_are_asked_for_and_kept_from_commands(isolated: Path) -> None:
    """CLAUDE.md and kin are memory Claude Code loads every session: the guard puts the
    file tools' edits of them to the person, and the sandbox keeps commands off the
    project's own (measured end to end in test_e2e_sandbox.py)."""
    data = _install(isolated)
    deny = data["sandbox"]["filesystem"]["denyWrite"]
    for name in ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md", ".claude/rules"):
        assert str(isolated / name) in deny, name
    ask = data["permissions"]["ask"]
    assert ask == ["Edit(//**/CLAUDE.md)", "Edit(//**/CLAUDE.local.md)",
                   "Edit(//**/.claude/rules/**)"]
    # asked, not denied: a person may still say yes to an edit
    assert not any("CLAUDE" in rule for rule in data["permissions"]["deny"]
                   if ".claude/CLAUDE.md" not in rule)


def test_their_ask_rules_survive_uninstall(isolated: Path) -> None:
    path = settings_file.settings_path("local", isolated)
    path.parent.mkdir()
    theirs = {"permissions": {"ask": ["Bash(git push:*)", "Edit(//**/CLAUDE.md)"]}}
    path.write_text(json.dumps(theirs))
    data = _install(isolated)
    assert data["permissions"]["ask"][:2] == theirs["permissions"]["ask"]
    data["model"] = "opus"  # a change after install: no exact restore, rules taken out
    path.write_text(json.dumps(data))
    settings_file.uninstall("local", isolated)
    left = json.loads(path.read_text())
    assert left["permissions"] == theirs["permissions"]  # theirs, even the one we also add


def test_the_instruction_door_says_whether_edits_are_asked(isolated: Path) -> None:
    from reviewer.claude_code import doors

    (isolated / "CLAUDE.md").write_text("# notes\n")
    before = next(d for d in doors.doors(str(isolated)) if d.name == "CLAUDE.md and rules")
    assert not before.gated and "unseen" in before.detail and "--guard" in before.fix
    _install(isolated)
    after = next(d for d in doors.doors(str(isolated)) if d.name == "CLAUDE.md and rules")
    assert after.gated and "put to you" in after.detail and not after.fix
