"""`install --guard` adds Claude Code's own `permissions.deny` rules; uninstall removes
exactly those it added (a person's own rules, even identical ones, stay)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewer.claude_code import settings_file

EXE = "/opt/mem-review/bin/mem-review"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "data"))
    p = tmp_path / "proj"
    p.mkdir()
    return p


def _deny(path: Path) -> list[str]:
    return json.loads(path.read_text()).get("permissions", {}).get("deny", [])


def test_rules_name_the_data_dir_absolutely_and_the_approving_commands(
    project: Path, tmp_path: Path
) -> None:
    rules = settings_file.deny_rules()
    assert f"Edit(/{tmp_path}/data/**)" in rules  # `//abs`: absolute, not settings-relative
    assert "Bash(*mem-review import *--keep-status*)" in rules
    assert any(r.startswith("Bash(*sqlite3 ") for r in rules)


def test_guard_adds_rules_and_uninstall_restores_the_file_exactly(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    theirs = {"permissions": {"allow": ["Bash(npm test)"], "deny": ["Bash(rm -rf /)"]},
              "model": "x"}
    raw = (json.dumps(theirs, indent=4) + "\n").encode()
    path.write_bytes(raw)
    change = settings_file.install("project", project, exe=EXE, guard=True)
    assert any(e.startswith("permissions.deny: Edit(//") for e in change.entries)
    deny = _deny(path)
    assert deny[0] == "Bash(rm -rf /)" and set(settings_file.deny_rules()) <= set(deny)
    assert not settings_file.install("project", project, exe=EXE, guard=True).changed
    back = settings_file.uninstall("project", project)
    assert back.changed and back.restored_exactly
    assert path.read_bytes() == raw


def test_a_persons_identical_rule_survives_uninstall(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    mine = settings_file.deny_rules()[2]
    path.write_text(json.dumps({"permissions": {"deny": [mine]}}))
    settings_file.install("project", project, exe=EXE, guard=True)
    assert _deny(path).count(mine) == 1
    data = json.loads(path.read_text())
    data["theme"] = "dark"  # changed since install: no exact restore, a real removal
    path.write_text(json.dumps(data))
    back = settings_file.uninstall("project", project)
    assert back.changed and not back.restored_exactly
    assert _deny(path) == [mine]
    assert "hooks" not in json.loads(path.read_text())


def test_a_file_install_created_is_removed(project: Path) -> None:
    settings_file.install("project", project, exe=EXE, guard=True)
    path = project / ".claude" / "settings.json"
    assert set(settings_file.deny_rules()) <= set(_deny(path))
    back = settings_file.uninstall("project", project)
    assert back.removed_file and not path.exists()


def test_without_guard_no_rules(project: Path) -> None:
    settings_file.install("project", project, exe=EXE)
    assert "permissions" not in json.loads((project / ".claude" / "settings.json").read_text())


def test_a_permissions_key_of_the_wrong_shape_is_refused(project: Path) -> None:
    from reviewer.errors import UserError

    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"permissions": {"deny": "Bash"}}')
    with pytest.raises(UserError):
        settings_file.install("project", project, exe=EXE, guard=True)
    assert path.read_text() == '{"permissions": {"deny": "Bash"}}'
