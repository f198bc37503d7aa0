"""The MCP clients mem-review can register with, and where each keeps its servers.

Each location is the one the client's own documentation gives (checked December 2026):

- Cursor: `~/.cursor/mcp.json` (every project) or `<project>/.cursor/mcp.json`,
  `{"mcpServers": {name: {"command", "args", "env"}}}`; `${workspaceFolder}` is expanded.
- VS Code (Copilot agent mode): `<project>/.vscode/mcp.json` or the user profile's
  `mcp.json`, `{"servers": {name: {"type": "stdio", "command", "args"}}}`, JSONC.
- Codex CLI: `$CODEX_HOME/config.toml` (default `~/.codex`) or a trusted project's
  `.codex/config.toml`, one `[mcp_servers.<name>]` table with `command` and `args`.
- Claude Desktop: `claude_desktop_config.json` in `~/Library/Application Support/Claude`
  (macOS), `%APPDATA%\\Claude` (Windows), `$XDG_CONFIG_HOME/Claude` (Linux builds),
  `{"mcpServers": {...}}`. No notion of a project: the server is pinned to one.
- Windsurf: `~/.codeium/windsurf/mcp_config.json`, `{"mcpServers": {...}}`.
- Gemini CLI: `~/.gemini/settings.json` or `<project>/.gemini/settings.json`,
  `{"mcpServers": {name: {"command", "args", "cwd"}}}`.

A client is a small value object; adding one is adding an entry to `CLIENTS`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SERVER = "mem-review"


def _home() -> Path:
    return Path.home()


def _appdata() -> Path:
    return Path(os.environ.get("APPDATA") or _home() / "AppData" / "Roaming")


def _xdg_config() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or _home() / ".config")


def _vscode_user() -> Path:
    if sys.platform == "darwin":
        return _home() / "Library" / "Application Support" / "Code" / "User" / "mcp.json"
    if os.name == "nt":
        return _appdata() / "Code" / "User" / "mcp.json"
    return _xdg_config() / "Code" / "User" / "mcp.json"


def _claude_desktop() -> Path:
    if sys.platform == "darwin":
        return (_home() / "Library" / "Application Support" / "Claude"
                / "claude_desktop_config.json")
    if os.name == "nt":
        return _appdata() / "Claude" / "claude_desktop_config.json"
    return _xdg_config() / "Claude" / "claude_desktop_config.json"


def _codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or _home() / ".codex")


@dataclass(frozen=True)
class Client:
    """One agent that speaks MCP, and where it reads stdio servers."""

    name: str  # what `--client` takes
    label: str
    fmt: str  # "json" | "toml"
    table: tuple[str, ...]  # where the servers live inside the file
    user_path: Callable[[], Path] | None
    project_file: str | None  # relative to the project root
    stdio_type: bool = False  # the entry carries "type": "stdio" (VS Code's shape)
    workspace_var: str | None = None  # the client expands this to the open folder

    @property
    def scopes(self) -> tuple[str, ...]:
        return tuple(s for s, ok in (("project", self.project_file is not None),
                                     ("user", self.user_path is not None)) if ok)

    @property
    def default_scope(self) -> str:
        return self.scopes[0]

    def path(self, scope: str, project: str) -> Path:
        if scope == "project" and self.project_file:
            return Path(project) / self.project_file
        if scope == "user" and self.user_path:
            return self.user_path()
        raise ValueError(f"{self.label} has no {scope} configuration "
                         f"(it has: {', '.join(self.scopes)})")

    def entry(self, exe: str, project: str, scope: str) -> dict[str, object]:
        """The server entry: our executable, `mcp`, and the project it answers for.

        A project file names the folder the client opens (`${workspaceFolder}` where the
        client expands it, else nothing: the server then takes its working directory);
        a user file is pinned to this project, as those clients have no notion of one."""
        args = ["mcp"]
        if scope == "user":
            args += ["--project", project]
        elif self.workspace_var:
            args += ["--project", self.workspace_var]
        out: dict[str, object] = {"command": exe, "args": args}
        if self.stdio_type:
            out = {"type": "stdio", **out}
        return out


CLIENTS: tuple[Client, ...] = (
    Client("cursor", "Cursor", "json", ("mcpServers",), lambda: _home() / ".cursor" / "mcp.json",
           ".cursor/mcp.json", workspace_var="${workspaceFolder}"),
    Client("vscode", "VS Code", "json", ("servers",), _vscode_user, ".vscode/mcp.json",
           stdio_type=True, workspace_var="${workspaceFolder}"),
    Client("codex", "Codex CLI", "toml", ("mcp_servers",),
           lambda: _codex_home() / "config.toml", ".codex/config.toml"),
    Client("claude-desktop", "Claude Desktop", "json", ("mcpServers",), _claude_desktop, None),
    Client("windsurf", "Windsurf", "json", ("mcpServers",),
           lambda: _home() / ".codeium" / "windsurf" / "mcp_config.json", None),
    Client("gemini", "Gemini CLI", "json", ("mcpServers",),
           lambda: _home() / ".gemini" / "settings.json", ".gemini/settings.json"),
)

NAMES = tuple(c.name for c in CLIENTS)


def get(name: str) -> Client:
    for client in CLIENTS:
        if client.name == name:
            return client
    raise ValueError(f"unknown client {name!r}; expected one of {', '.join(NAMES)}")
