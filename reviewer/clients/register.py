"""Register the `mem-review mcp` server in another agent's configuration, and take it out.

The rules are the ones Claude Code's registration keeps (reviewer/claude_code/
mcp_config.py): every other server and key stays byte for byte (edits are spliced into
the text: `jsonc_edit`, and tomlkit for Codex), a server of our name that is not ours is
refused, installing twice changes nothing, and uninstall restores the file exactly as it
was when nothing else changed since (install's before-and-after is kept in the data dir,
not beside the person's file), else takes out only our entry.

The server is the same one Claude Code gets: `recall` gated exactly as for Claude Code,
`remember` proposing pending facts. Only registration differs per client.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from reviewer import paths
from reviewer.clients import jsonc_edit
from reviewer.clients.catalog import CLIENTS, SERVER, Client
from reviewer.errors import UserError

MAX_CONFIG_BYTES = 5_000_000


@dataclass
class Result:
    client: Client
    path: Path
    changed: bool
    message: str


def _is_ours(value: object) -> bool:
    if not isinstance(value, dict):
        return False
    command, args = value.get("command"), value.get("args")
    return (isinstance(command, str)
            and os.path.basename(command) in (SERVER, SERVER + ".exe")
            and isinstance(args, list) and args[:1] == ["mcp"])


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise UserError(f"{path}: larger than {MAX_CONFIG_BYTES} bytes; nothing was changed")
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text; nothing was changed") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a directory; nothing was changed") from None


def _servers(client: Client, text: str | None, path: Path) -> dict[str, object]:
    if text is None or not text.strip():
        return {}
    try:
        if client.fmt == "toml":
            import tomllib

            data: object = tomllib.loads(text)
        else:
            data = jsonc_edit.loads(text)
    except ValueError as exc:  # JSONDecodeError, TOMLDecodeError and JsoncError alike
        raise UserError(f"{path}: cannot be parsed ({exc}); nothing was changed") from None
    for key in client.table:
        data = data.get(key) if isinstance(data, dict) else None
        if data is None:
            return {}
    if not isinstance(data, dict):
        raise UserError(f'{path}: "{".".join(client.table)}" is not a table of servers; '
                        "nothing was changed")
    return data


def _with(client: Client, text: str | None, entry: dict[str, object]) -> str:
    if client.fmt == "toml":
        import tomlkit

        doc = tomlkit.parse(text or "")
        table = doc
        for key in client.table:
            if key not in table:
                table[key] = tomlkit.table(is_super_table=True)
            table = table[key]
        server = tomlkit.table()
        for k, v in entry.items():
            server[k] = v
        table[SERVER] = server
        out = tomlkit.dumps(doc)
        return out if out.endswith("\n") else out + "\n"
    return jsonc_edit.insert(text or "", list(client.table), SERVER, entry)


def _without(client: Client, text: str) -> str:
    if client.fmt == "toml":
        import tomlkit

        doc = tomlkit.parse(text)
        table = doc
        for key in client.table:
            table = table[key]
        del table[SERVER]
        if not table and len(client.table) == 1 and client.table[0] in doc:
            del doc[client.table[0]]  # install made the `[mcp_servers]` table: take it too
        return tomlkit.dumps(doc)
    return jsonc_edit.remove(text, list(client.table), SERVER)


def _has_table(client: Client, text: str | None, path: Path) -> bool:
    if text is None or not text.strip():
        return False
    data: object = (jsonc_edit.loads(text) if client.fmt == "json"
                    else __import__("tomllib").loads(text))
    for key in client.table:
        if not isinstance(data, dict) or key not in data:
            return False
        data = data[key]
    return True


def _drop_empty_table(client: Client, text: str, path: Path) -> str:
    """Install added the servers table itself: once our entry is out and it is empty,
    it goes too (the TOML side does this in `_without`)."""
    if client.fmt != "json" or _servers(client, text, path):
        return text
    return jsonc_edit.remove(text, list(client.table[:-1]), client.table[-1])


def _record_path(path: Path) -> Path:
    digest = hashlib.sha256(os.fsencode(os.path.abspath(path))).hexdigest()[:24]
    return paths.home() / "clients" / f"{digest}.json"


def _sha(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def install(client: Client, scope: str, project: str, exe: str) -> Result:
    path = client.path(scope, project)
    text = _read(path)
    current = _servers(client, text, path).get(SERVER)
    want = client.entry(exe, project, scope)
    if current is not None and not _is_ours(current):
        raise UserError(f'{path}: an MCP server named "{SERVER}" that is not mem-review\'s '
                        "is already there; rename or remove it, nothing was changed")
    if current == want:
        return Result(client, path, False, f"mem-review already registered in {path}")
    base = text if current is None else _without(client, text or "")
    had_table = _has_table(client, text, path)
    new = _with(client, base, want)
    if _servers(client, new, path).get(SERVER) != want:  # never write what we cannot read
        raise UserError(f"{path}: could not add the server safely; nothing was changed")
    record = _record_path(path)
    if current is None:  # what uninstall restores when nothing else changed since
        paths.make_private_dirs(record.parent)
        _write(record, json.dumps({"path": str(path), "before": text, "after": _sha(new),
                                   "created_table": not had_table}))
    _write(path, new, create_parents=True)
    return Result(client, path, True, f"registered the mem-review MCP server for "
                  f"{client.label} in {path}")


def uninstall(client: Client, scope: str, project: str) -> Result:
    path = client.path(scope, project)
    text = _read(path)
    if not _is_ours(_servers(client, text, path).get(SERVER)):
        return Result(client, path, False, f"no mem-review server in {path}; nothing changed")
    assert text is not None
    record = _record_path(path)
    saved: dict[str, object] = {}
    with contextlib.suppress(OSError, ValueError):
        saved = json.loads(record.read_text("utf-8"))
    how = ""
    if saved.get("after") == _sha(text) and saved.get("path") == str(path):
        before = saved.get("before")
        if before is None:
            path.unlink()
            how = " (install had created it)"
            with contextlib.suppress(OSError):
                path.parent.rmdir()  # only if empty: made by install
        else:
            _write(path, str(before))
            how = " (restored as it was before install)"
    else:
        new = _without(client, text)
        if saved.get("created_table") and saved.get("path") == str(path):
            new = _drop_empty_table(client, new, path)
        _write(path, new)
    with contextlib.suppress(OSError):
        record.unlink()
    return Result(client, path, True, f"removed the mem-review MCP server for "
                  f"{client.label} from {path}{how}")


def registered(project: str) -> list[tuple[Client, str, Path]]:
    """Every client configuration (of this project, or the person's) that starts our
    server. Never raises: an unreadable file counts as not registered."""
    out = []
    for client in CLIENTS:
        for scope in client.scopes:
            path = client.path(scope, project)
            try:
                found = _servers(client, _read(path), path).get(SERVER)
            except (UserError, OSError):
                continue
            if _is_ours(found):
                out.append((client, scope, path))
    return out


def _write(path: Path, text: str, *, create_parents: bool = False) -> None:
    from reviewer.claude_code.settings_file import write_atomic

    if create_parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text.encode("utf-8"))
