"""`install` registers the MCP server where Claude Code reads it, per scope; `uninstall`
takes out exactly what install added (same rules as the hooks)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reviewer.claude_code import mcp_config
from reviewer.errors import UserError

BIN = Path(sys.executable).parent
EXE = str(BIN / "mem-review")
ALLOW = ["mcp__mem-review__recall", "mcp__mem-review__remember"]


PROJECT = ("--scope", "project", "--project")  # install's default scope is `local`


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "userhome"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "data"))
    return h


@pytest.fixture
def project(tmp_path: Path, home: Path) -> Path:
    p = (tmp_path / "proj").resolve()
    (p / ".git").mkdir(parents=True)
    return p


def cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE")}
    env.update(HOME=str(home), MEM_REVIEW_HOME=str(home.parent / "data"))
    return subprocess.run([EXE, *args], capture_output=True, text=True, env=env, check=False,
                          timeout=60)


# What `claude mcp add --scope S mem-review -- EXE mcp` wrote with Claude Code 2.1.332.
ENTRY = {"type": "stdio", "command": EXE, "args": ["mcp"], "env": {}}


def test_project_scope_writes_dot_mcp_json_and_uninstall_deletes_what_it_created(
    project: Path, home: Path
) -> None:
    done = cli("install", "--scope", "project", "--project", str(project), home=home)
    assert done.returncode == 0, done.stderr
    assert json.loads((project / ".mcp.json").read_text()) == {"mcpServers": {"mem-review": ENTRY}}
    # Claude Code 2.1.332 ignores MCP allow rules in the committed settings.json: the
    # personal settings.local.json of the project holds them.
    assert "permissions" not in json.loads((project / ".claude" / "settings.json").read_text())
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert local == {"permissions": {"allow": ALLOW}}
    assert mcp_config.registered(project, home)
    again = cli("install", "--scope", "project", "--project", str(project), home=home)
    assert "MCP server already in" in again.stdout and "tool permissions already in" in again.stdout
    done = cli("uninstall", "--scope", "project", "--project", str(project), home=home)
    assert done.returncode == 0, done.stderr
    assert not (project / ".mcp.json").exists()
    assert not (project / ".claude").exists()
    assert not mcp_config.registered(project, home)


def test_their_mcp_json_and_settings_come_back_byte_for_byte(project: Path, home: Path) -> None:
    mcp = project / ".mcp.json"
    mcp_bytes = b'{"mcpServers":{"github":{"command":"gh-mcp","args":[]}}, "x": 1}\n'
    mcp.write_bytes(mcp_bytes)
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings_bytes = b'{\n    "permissions": {"allow": ["Bash(ls:*)"], "deny": ["Read(.env)"]}\n}\n'
    settings.write_bytes(settings_bytes)
    assert cli("install", *PROJECT, str(project), home=home).returncode == 0
    data = json.loads(mcp.read_text())
    assert data["mcpServers"]["github"] == {"command": "gh-mcp", "args": []} and data["x"] == 1
    perms = json.loads(settings.read_text())["permissions"]
    assert perms["allow"] == ["Bash(ls:*)", *ALLOW] and perms["deny"] == ["Read(.env)"]
    assert cli("uninstall", *PROJECT, str(project), home=home).returncode == 0
    assert mcp.read_bytes() == mcp_bytes
    assert settings.read_bytes() == settings_bytes


def test_rules_they_had_before_install_survive_uninstall(project: Path, home: Path) -> None:
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"allow": [ALLOW[0]]}}))
    assert cli("install", *PROJECT, str(project), home=home).returncode == 0
    assert json.loads(settings.read_text())["permissions"]["allow"] == ALLOW
    assert cli("uninstall", *PROJECT, str(project), home=home).returncode == 0
    assert json.loads(settings.read_text()) == {"permissions": {"allow": [ALLOW[0]]}}


@pytest.mark.parametrize("scope", ["local", "user"])
def test_local_and_user_scopes_use_claude_json_and_keep_claude_codes_state(
    project: Path, home: Path, scope: str
) -> None:
    state = home / ".claude.json"
    theirs = {"numStartups": 4, "projects": {str(project): {"allowedTools": [],
              "mcpServers": {"db": {"type": "stdio", "command": "db-mcp", "args": []}}}},
              "mcpServers": {"web": {"type": "stdio", "command": "web-mcp", "args": []}}}
    state.write_text(json.dumps(theirs))
    done = cli("install", "--scope", scope, "--project", str(project), home=home)
    assert done.returncode == 0, done.stderr
    data = json.loads(state.read_text())
    servers = data["projects"][str(project)]["mcpServers"] if scope == "local" else (
        data["mcpServers"])
    assert servers["mem-review"] == ENTRY and len(servers) == 2
    assert mcp_config.registered(project, home)
    settings = project / ".claude" / "settings.local.json" if scope == "local" else (
        home / ".claude" / "settings.json")
    assert json.loads(settings.read_text())["permissions"]["allow"] == ALLOW
    # Claude Code rewrites its state file meanwhile: that must survive uninstall.
    data["numStartups"] = 5
    state.write_text(json.dumps(data))
    assert cli("uninstall", "--scope", scope, "--project", str(project), home=home).returncode == 0
    assert json.loads(state.read_text()) == {**theirs, "numStartups": 5}
    assert not settings.exists()
    assert not mcp_config.registered(project, home)
    assert list(home.glob(".claude.json.mem-review.*.bak"))  # a copy before each write


def test_local_scope_is_for_this_project_only(project: Path, home: Path, tmp_path: Path) -> None:
    assert cli("install", "--scope", "local", "--project", str(project), home=home).returncode == 0
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    assert mcp_config.registered(project, home) and not mcp_config.registered(other, home)


@pytest.mark.parametrize("content", [
    b"{ not json", b"[]", b'{"mcpServers": []}',
    b'{"mcpServers": {"mem-review": {"command": "/opt/other-tool", "args": ["serve"]}}}',
])
def test_an_unusable_or_foreign_mcp_json_is_refused_and_nothing_is_written(
    project: Path, home: Path, content: bytes
) -> None:
    (project / ".mcp.json").write_bytes(content)
    done = cli("install", "--scope", "project", "--project", str(project), home=home)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and "nothing was changed" in done.stderr
    assert (project / ".mcp.json").read_bytes() == content
    assert not (project / ".claude").exists()  # refused before the hooks were written


def test_a_moved_executable_replaces_the_entry(project: Path, home: Path) -> None:
    mcp_config.install("project", project, exe="/old/venv/bin/mem-review")
    change = mcp_config.install("project", project, exe=EXE)
    assert change.changed
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["mem-review"] == ENTRY


def test_registered_never_raises(project: Path, home: Path) -> None:
    (home / ".claude.json").write_bytes(b"\xff mem-review {")
    (project / ".mcp.json").write_bytes(b"{broken")
    assert mcp_config.registered(project, home) is False


def test_a_bad_scope_is_a_user_error(project: Path) -> None:
    with pytest.raises(UserError, match="unknown scope"):
        mcp_config.config_path("team", project)


def test_a_project_server_the_person_turned_down_is_not_registered(
    project: Path, home: Path
) -> None:
    mcp_config.install("project", project, exe=EXE)
    assert mcp_config.registered(project, home)
    state = {"projects": {str(project): {"disabledMcpjsonServers": ["mem-review"]}}}
    (home / ".claude.json").write_text(json.dumps(state))
    assert not mcp_config.registered(project, home)
