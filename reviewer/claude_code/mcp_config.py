"""Register the `mem-review` MCP server with Claude Code, allow its tools, undo it exactly.

Where Claude Code 2.1.332 reads stdio MCP servers (seen: what `claude mcp add --scope …`
writes against a scratch HOME):

- project: `<project>/.mcp.json`, `{"mcpServers": {name: {...}}}` (committed, shared);
- local: `~/.claude.json`, `projects[<project root>].mcpServers` (this project, only you);
- user: `~/.claude.json`, top-level `mcpServers` (every project).

The entry is what the CLI itself writes: `{"type": "stdio", "command": <abs mem-review>,
"args": ["mcp"], "env": {}}`. It is ours when its command's basename is `mem-review` and
its args are `["mcp"]`; a different server of the same name is refused, never replaced.

The rules are the hooks' (reviewer/claude_code/settings_file.py): every other key kept, a
file that is not JSON refused, writes atomic, installing twice changes nothing. `.mcp.json`
is backed up before the first change and restored byte for byte when nothing else
changed; `~/.claude.json` is Claude Code's own state file, rewritten by it all the time,
so it is never restored from a backup: our key is taken out and everything else stays
(a timestamped copy is still made before each write).

`-p` runs need permission to call the tools: `permissions.allow` gets
`mcp__mem-review__recall` and `mcp__mem-review__remember` (in the scope's settings file,
or `.claude/settings.local.json` for the project scope: see `allow_path`); uninstall
takes out only the ones that were not there before install (read from the backup).

Stdlib only: `registered()` runs in the SessionStart hook, so the settings-file helpers
(shutil, tempfile: ~5 ms of imports) load only in the functions that write.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reviewer.claude_code.settings_file import timestamped_backup, write_copy
from reviewer.errors import UserError

SERVER = "mem-review"
TOOLS = ("recall", "remember")
ALLOW = tuple(f"mcp__{SERVER}__{tool}" for tool in TOOLS)
RECALL_TOOL = ALLOW[0]
MAX_STATE_BYTES = 20_000_000  # a ~/.claude.json larger than this is not parsed on the hook path


@dataclass
class Change:
    path: Path
    changed: bool
    what: str = ""
    backup: Path | None = None
    removed_file: bool = False
    restored_exactly: bool = False
    entries: list[str] = field(default_factory=list)


def entry(exe: str) -> dict[str, Any]:
    return {"type": "stdio", "command": exe, "args": ["mcp"], "env": {}}


def is_ours(value: object) -> bool:
    if not isinstance(value, dict):
        return False
    command, args = value.get("command"), value.get("args")
    return (
        isinstance(command, str)
        and os.path.basename(command) in (SERVER, SERVER + ".exe")
        and args == ["mcp"]
    )


def config_path(scope: str, project_dir: str | os.PathLike[str]) -> Path:
    from reviewer.claude_code import settings_file

    if scope == "project":
        return Path(project_dir) / ".mcp.json"
    if scope in ("local", "user"):
        return Path.home() / ".claude.json"
    raise UserError(f"unknown scope {scope!r}; expected one of {', '.join(settings_file.SCOPES)}")


def _servers(data: dict[str, Any], scope: str, project: str, *, create: bool) -> dict[str, Any]:
    """The `mcpServers` object this scope uses inside `data` ({} detached when absent)."""
    holder: Any = data
    if scope == "local":
        projects = data.get("projects")
        if projects is None:
            if not create:
                return {}  # a missing or `{}` state file: nothing of ours to take out
            projects = data["projects"] = {}
        if not isinstance(projects, dict):
            raise UserError('"projects" is not an object')
        holder = projects.get(project)
        if holder is None:
            if not create:
                return {}
            holder = projects[project] = {}
        if not isinstance(holder, dict):
            raise UserError(f'"projects.{project}" is not an object')
    servers = holder.get("mcpServers")
    if servers is None:
        if not create:
            return {}
        servers = holder["mcpServers"] = {}
    if not isinstance(servers, dict):
        raise UserError('"mcpServers" is not an object')
    return servers


# ---- the server entry ------------------------------------------------------------------


def check(scope: str, project_dir: str | os.PathLike[str]) -> None:
    """Raise the UserError `install` or `allow` would, writing nothing: run before the
    hooks are written, so a refused file leaves the whole install undone."""
    from reviewer.claude_code import settings_file

    install(scope, project_dir, exe=SERVER, dry_run=True)
    path = allow_path(scope, project_dir)
    _allow_list(json.loads(json.dumps(settings_file.load(path)[0])), path, create=True)


def install(
    scope: str, project_dir: str | os.PathLike[str], exe: str | None = None, *,
    dry_run: bool = False,
) -> Change:
    from reviewer.claude_code import settings_file

    path = config_path(scope, project_dir)
    project = os.fspath(project_dir)
    data, raw = settings_file.load(path)
    want = entry(exe or settings_file.executable())
    new = json.loads(json.dumps(data))
    try:
        servers = _servers(new, scope, project, create=True)
    except UserError as exc:
        raise UserError(f"{path}: {exc}; nothing was changed") from None
    current = servers.get(SERVER)
    if current is not None and not is_ours(current):
        raise UserError(
            f'{path}: an MCP server named "{SERVER}" that is not mem-review\'s is already '
            "there; rename or remove it, nothing was changed"
        )
    change = Change(path, changed=current != want, what="MCP server",
                    entries=[f"{SERVER}: {want['command']} mcp"])
    if not change.changed or dry_run:
        return change
    servers[SERVER] = want
    if raw is not None:
        if scope == "project" and current is None:
            change.backup = _first_backup(path, raw)
        else:
            change.backup = timestamped_backup(path, raw)
    settings_file.write_atomic(path, settings_file.dump(new))
    return change


def uninstall(scope: str, project_dir: str | os.PathLike[str]) -> Change:
    from reviewer.claude_code import settings_file

    path = config_path(scope, project_dir)
    project = os.fspath(project_dir)
    data, raw = settings_file.load(path)
    new = json.loads(json.dumps(data))
    try:
        servers = _servers(new, scope, project, create=False)
    except UserError as exc:
        raise UserError(f"{path}: {exc}; nothing was changed") from None
    change = Change(path, changed=is_ours(servers.get(SERVER)), what="MCP server")
    if not change.changed:
        return change
    del servers[SERVER]
    _drop_empty(new, scope, project)
    if scope != "project":  # Claude Code's state file: surgical removal only
        if raw is not None:
            change.backup = timestamped_backup(path, raw)
        settings_file.write_atomic(path, settings_file.dump(new))
        return change
    original = settings_file.backup_path(path)
    before = _read(original)
    if before is not None and _same_json(before, new):
        settings_file.write_atomic(path, before)
        change.restored_exactly = True
    elif before is None and not new:
        path.unlink()  # install created it and nothing else was added since
        change.removed_file = True
    else:
        if raw is not None:
            change.backup = timestamped_backup(path, raw)
        settings_file.write_atomic(path, settings_file.dump(new))
    if before is not None:
        with contextlib.suppress(OSError):
            original.unlink()
    return change


def _drop_empty(data: dict[str, Any], scope: str, project: str) -> None:
    """Remove the `mcpServers` object install may have created, when it is now empty, and
    for the local scope the project's entry and `projects` when nothing else is left in
    them (an empty `"<project>": {}` says nothing; Claude Code makes its own on first use)."""
    projects = data.get("projects") if scope == "local" else None
    holder = projects.get(project) if isinstance(projects, dict) else data
    if isinstance(holder, dict) and holder.get("mcpServers") == {}:
        del holder["mcpServers"]
    if scope == "local" and isinstance(projects, dict) and projects.get(project) == {}:
        del projects[project]
        if not projects:
            del data["projects"]


# ---- permissions.allow ------------------------------------------------------------------


def allow_path(scope: str, project_dir: str | os.PathLike[str]) -> Path:
    """Where the allow rules go: the scope's settings file, except that for the project
    scope it is `.claude/settings.local.json`. Seen with 2.1.332: rules for MCP tools in
    the committed `.claude/settings.json` are not honoured (a cloned repository cannot
    grant itself tool permissions), those in the local and user files are."""
    from reviewer.claude_code import settings_file

    return settings_file.settings_path("local" if scope == "project" else scope, project_dir)


def allow(scope: str, project_dir: str | os.PathLike[str], *, hooks_written: bool) -> Change:
    """Add our tools to `permissions.allow`. In the hooks' own file (local, user) this
    runs after their install, whose backup (when `hooks_written`) already holds the file
    as it was; elsewhere the file's pre-install bytes are backed up here."""
    from reviewer.claude_code import settings_file

    path = allow_path(scope, project_dir)
    data, raw = settings_file.load(path)
    new = json.loads(json.dumps(data))
    rules = _allow_list(new, path, create=True)
    missing = [rule for rule in ALLOW if rule not in rules]
    change = Change(path, changed=bool(missing), what="tool permissions",
                    entries=[f"permissions.allow: {rule}" for rule in missing])
    if not missing:
        return change
    rules.extend(missing)
    own_file = scope == "project"  # the hooks' install did not touch this file
    if raw is not None:
        if own_file and not settings_file.entries(data):
            change.backup = _first_backup(path, raw)
        elif own_file or not hooks_written:
            change.backup = timestamped_backup(path, raw)
    settings_file.write_atomic(path, settings_file.dump(new))
    return change


def disallow(scope: str, project_dir: str | os.PathLike[str]) -> Change:
    """Take out the rules `allow` added: those absent from the pre-install backup.
    Runs before the hooks' uninstall, so that one can still restore its file exactly."""
    from reviewer.claude_code import settings_file

    path = allow_path(scope, project_dir)
    data, _raw = settings_file.load(path)
    new = json.loads(json.dumps(data))
    rules = _allow_list(new, path, create=False)
    original = settings_file.backup_path(path)
    before = _read(original)
    had: list[Any] = []
    if before is not None:
        with contextlib.suppress(ValueError, UnicodeDecodeError, AttributeError):
            had = json.loads(before.decode("utf-8-sig")).get("permissions", {}).get("allow", [])
    ours = [rule for rule in ALLOW if rule in rules and rule not in had]
    change = Change(path, changed=bool(ours), what="tool permissions",
                    entries=[f"permissions.allow: {rule}" for rule in ours])
    if not ours:
        return change
    rules[:] = [rule for rule in rules if rule not in ours]
    perms = new["permissions"]
    if not rules:
        del perms["allow"]
        if not perms:
            del new["permissions"]
    if scope == "project" and not settings_file.entries(new):  # this file is ours to settle
        if before is not None and _same_json(before, new):
            settings_file.write_atomic(path, before)
            change.restored_exactly = True
            with contextlib.suppress(OSError):
                original.unlink()
            return change
        if before is None and not new:
            path.unlink()
            change.removed_file = True
            with contextlib.suppress(OSError):
                path.parent.rmdir()  # only if empty
            return change
    settings_file.write_atomic(path, settings_file.dump(new))
    return change


def _allow_list(data: dict[str, Any], path: Path, *, create: bool) -> list[Any]:
    perms = data.get("permissions")
    if perms is None:
        if not create:
            return []
        perms = data["permissions"] = {}
    if not isinstance(perms, dict):
        raise UserError(f'{path}: "permissions" is not an object; fix it, nothing was changed')
    rules = perms.get("allow")
    if rules is None:
        if not create:
            return []
        rules = perms["allow"] = []
    if not isinstance(rules, list):
        raise UserError(f'{path}: "permissions.allow" is not a list; fix it, nothing was changed')
    return rules


# ---- is it installed? (the SessionStart hook asks) ---------------------------------------


def registered(project: str | os.PathLike[str], home: Path | None = None) -> bool:
    """Whether Claude Code will start our server in this project, by any of the three
    scopes. Never raises: an unreadable file counts as "not registered"."""
    root = os.fspath(project)
    try:
        in_project = _has_ours(_json(Path(root) / ".mcp.json"), None)
    except (OSError, ValueError, UnicodeDecodeError):
        in_project = False
    try:
        data = _state(home)
    except (OSError, ValueError, UnicodeDecodeError):
        return in_project
    if data is None:
        return in_project
    if in_project:  # unless the person turned the project's server down in Claude Code
        projects = data.get("projects") if isinstance(data, dict) else None
        entry = projects.get(root) if isinstance(projects, dict) else None
        disabled = entry.get("disabledMcpjsonServers") if isinstance(entry, dict) else None
        return not (isinstance(disabled, list) and SERVER in disabled)
    return _has_ours(data, None) or _has_ours(data, root)


def _state(home: Path | None) -> Any:
    """~/.claude.json parsed, or None when it is absent, huge, or never names us."""
    state = (home or Path.home()) / ".claude.json"
    try:
        if state.stat().st_size > MAX_STATE_BYTES:
            return None
        raw = state.read_bytes()
    except FileNotFoundError:
        return None
    if SERVER.encode() not in raw:  # most runs stop here, without parsing
        return None
    return json.loads(raw.decode("utf-8-sig"))


def _has_ours(data: object, project: str | None) -> bool:
    if not isinstance(data, dict):
        return False
    if project is not None:
        projects = data.get("projects")
        data = projects.get(project) if isinstance(projects, dict) else None
        if not isinstance(data, dict):
            return False
    servers = data.get("mcpServers")
    return isinstance(servers, dict) and is_ours(servers.get(SERVER))


def _json(path: Path) -> object:
    try:
        return json.loads(path.read_bytes().decode("utf-8-sig"))
    except FileNotFoundError:
        return None


# ---- backups ---------------------------------------------------------------------------


def _first_backup(path: Path, raw: bytes) -> Path:
    from reviewer.claude_code import settings_file

    original = settings_file.backup_path(path)
    if original.exists():
        return timestamped_backup(path, raw)
    write_copy(original, raw, path)
    return original


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _same_json(raw: bytes, data: dict[str, Any]) -> bool:
    if not raw.strip():
        return not data
    try:
        return bool(json.loads(raw.decode("utf-8-sig")) == data)
    except (UnicodeDecodeError, ValueError):
        return False
