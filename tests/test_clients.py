"""`install --client NAME`: the same reviewed memory registered in other agents' configs.

Each client's format is tested on a file shaped like the ones its users have (other
servers, comments, tabs, unrelated keys): install adds one entry, uninstall gives the
file back byte for byte, and a server started from what was written answers recall.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from test_mcp_server import Client
from test_recall import add

from reviewer.clients import jsonc_edit, register
from reviewer.clients.catalog import CLIENTS, get
from reviewer.store import db

BIN = Path(sys.executable).parent
EXE = str(BIN / "mem-review")

CURSOR = """{
    // team servers
    "mcpServers": {
        "playwright": {
            "command": "npx",
            "args": ["@playwright/mcp@latest"]
        },
        "context7": {"url": "https://mcp.context7.com/mcp", "headers": {"K": "${env:K}"}}
    }
}
"""
VSCODE = """{
\t// Copilot's MCP servers
\t"inputs": [{"type": "promptString", "id": "token", "password": true}],
\t"servers": {
\t\t"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"},
\t},
}
"""
CODEX = """# Codex settings
model = "o4-mini"
approval_policy = "on-request"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]  # keep me

[mcp_servers.docs.env]
DOCS_TOKEN = "${DOCS_TOKEN}"

[profiles.fast]
model = "o4-mini"
"""
DESKTOP = """{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]
    }
  },
  "globalShortcut": "Ctrl+Space"
}
"""
GEMINI = """{
  "theme": "GitHub",
  "mcpServers": {
    "pythonTools": {"command": "python", "args": ["-m", "my_mcp"], "cwd": "./mcp", "timeout": 15000}
  }
}
"""
WINDSURF = '{"mcpServers": {"sentry": {"command": "npx", "args": ["-y", "mcp-remote", "x"]}}}\n'

EXISTING = {"cursor": CURSOR, "vscode": VSCODE, "codex": CODEX, "claude-desktop": DESKTOP,
            "gemini": GEMINI, "windsurf": WINDSURF}


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "data"))
    for var in ("XDG_CONFIG_HOME", "APPDATA", "CODEX_HOME"):
        monkeypatch.delenv(var, raising=False)
    return home, project


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EXE, *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ), timeout=60, check=False)


def _servers(client_name: str, path: Path) -> dict[str, object]:
    client = get(client_name)
    text = path.read_text()
    data: object = tomllib.loads(text) if client.fmt == "toml" else jsonc_edit.loads(text)
    for key in client.table:
        assert isinstance(data, dict)
        data = data[key]
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize(("name", "scope"), [(c.name, s) for c in CLIENTS for s in c.scopes])
def test_round_trip_keeps_every_other_byte(name: str, scope: str,
                                           scratch: tuple[Path, Path]) -> None:
    _, project = scratch
    client = get(name)
    path = client.path(scope, str(project))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(EXISTING[name])
    before = _servers(name, path)

    done = _cli("install", "--client", name, "--scope", scope, cwd=project)
    assert done.returncode == 0, done.stderr
    assert str(path) in done.stdout
    after = _servers(name, path)
    assert {k: v for k, v in after.items() if k != "mem-review"} == before
    entry = after["mem-review"]
    assert isinstance(entry, dict) and entry["command"] == EXE and entry["args"][0] == "mcp"
    for other in before:  # the other servers' own text is untouched
        assert json.dumps(other) in path.read_text() or f"mcp_servers.{other}" in path.read_text()

    again = _cli("install", "--client", name, "--scope", scope, cwd=project)
    assert again.returncode == 0 and "already registered" in again.stdout
    assert _cli("doctor", cwd=project).stdout.count(client.label) == 1

    gone = _cli("uninstall", "--client", name, "--scope", scope, cwd=project)
    assert gone.returncode == 0, gone.stderr
    assert path.read_text() == EXISTING[name]


@pytest.mark.parametrize("name", [c.name for c in CLIENTS])
def test_a_file_that_did_not_exist_is_created_and_removed(name: str,
                                                         scratch: tuple[Path, Path]) -> None:
    _, project = scratch
    client = get(name)
    path = client.path(client.default_scope, str(project))
    assert _cli("install", "--client", name, cwd=project).returncode == 0
    assert "mem-review" in _servers(name, path)
    assert _cli("uninstall", "--client", name, cwd=project).returncode == 0
    assert not path.exists()


def test_someone_elses_edit_since_install_is_kept_and_only_ours_goes(
    scratch: tuple[Path, Path],
) -> None:
    _, project = scratch
    path = project / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text(CURSOR)
    assert _cli("install", "--client", "cursor", cwd=project).returncode == 0
    edited = path.read_text().replace('"context7"', '"context8"')
    path.write_text(edited)
    assert _cli("uninstall", "--client", "cursor", cwd=project).returncode == 0
    assert path.read_text() == CURSOR.replace('"context7"', '"context8"')


def test_codex_surgical_removal_keeps_other_tables(scratch: tuple[Path, Path]) -> None:
    home, project = scratch
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(CODEX)
    assert _cli("install", "--client", "codex", "--scope", "user", cwd=project).returncode == 0
    path.write_text(path.read_text() + '\n[profiles.slow]\nmodel = "o3"\n')
    assert _cli("uninstall", "--client", "codex", "--scope", "user", cwd=project).returncode == 0
    assert path.read_text() == CODEX + '\n[profiles.slow]\nmodel = "o3"\n'


def test_a_foreign_server_of_our_name_is_refused_and_nothing_changes(
    scratch: tuple[Path, Path],
) -> None:
    _, project = scratch
    path = project / ".cursor" / "mcp.json"
    path.parent.mkdir()
    text = '{"mcpServers": {"mem-review": {"command": "npx", "args": ["other-tool"]}}}\n'
    path.write_text(text)
    done = _cli("install", "--client", "cursor", cwd=project)
    assert done.returncode != 0
    assert "not mem-review's" in done.stderr and "Traceback" not in done.stderr
    assert path.read_text() == text
    assert _cli("uninstall", "--client", "cursor", cwd=project).returncode == 0
    assert path.read_text() == text


@pytest.mark.parametrize("broken", ['{"servers": ', "[1, 2]", '{"servers": []}'])
def test_a_broken_file_is_one_line_and_untouched(broken: str, scratch: tuple[Path, Path]) -> None:
    _, project = scratch
    path = project / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text(broken)
    done = _cli("install", "--client", "vscode", cwd=project)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert path.read_text() == broken


def test_a_scope_the_client_lacks_is_refused(scratch: tuple[Path, Path]) -> None:
    _, project = scratch
    done = _cli("install", "--client", "claude-desktop", "--scope", "project", cwd=project)
    assert done.returncode != 0 and "--scope user" in done.stderr


def test_the_registered_server_answers_recall_with_the_same_gate(
    scratch: tuple[Path, Path],
) -> None:
    """Start the server exactly as Claude Desktop would from what install wrote (from
    another directory: the entry is pinned to the project) and ask it."""
    home, project = scratch
    subprocess.run(["git", "-C", str(project), "commit", "-q", "--allow-empty", "-m", "i"],
                   check=True, env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL":
                                    "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})
    conn = db.connect()
    approved = add(conn, project, "Releases are tagged from the main branch only")
    add(conn, project, "Releases are tagged from any branch", status="pending")
    conn.close()
    assert _cli("install", "--client", "claude-desktop", cwd=project).returncode == 0
    entry = _servers("claude-desktop", get("claude-desktop").path("user", str(project)))
    entry = entry["mem-review"]
    assert isinstance(entry, dict)
    client = Client(home, dict(os.environ), [entry["command"], *entry["args"]])
    try:
        client.initialize()
        error, text = client.call("recall", {"query": "which branch are releases tagged from"})
    finally:
        client.close()
    assert not error
    answer = json.loads(text)
    assert [r["id"] for r in answer["results"]] == [approved]
    assert answer["withheld"]["pending"] == 1


def test_registered_lists_each_client_and_scope(scratch: tuple[Path, Path]) -> None:
    _, project = scratch
    assert register.registered(str(project)) == []
    _cli("install", "--client", "cursor", "--client", "codex", cwd=project)
    found = {(c.name, s) for c, s, _ in register.registered(str(project))}
    assert found == {("cursor", "project"), ("codex", "project")}
