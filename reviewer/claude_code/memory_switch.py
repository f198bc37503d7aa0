"""Close Claude Code's auto-memory door in one settings file, and open it again exactly.

`install` sets `"autoMemoryEnabled": false` in the file of its scope (Claude Code honours
it in the local, project and user files alike; local wins over project over user) and,
with `--guard`, adds `permissions.deny` rules for Edit (which covers Write) into the
memory folders. `uninstall` takes out exactly that, before settings_file's own uninstall,
which then finds the file equal to its pre-install backup and puts those bytes back.
A value or rule the pre-install file already held is the person's and stays.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from reviewer.claude_code import native_memory, settings_file

KEY = native_memory.SETTING


@dataclass
class Switched:
    path: os.PathLike[str] | str
    changed: bool
    rules: list[str]


def deny_rules(project: str) -> list[str]:
    """`Edit(//abs/**)` for each memory folder (absolute, as settings_file.deny_rules)."""
    out: list[str] = []
    for folder in native_memory.memory_folders(project)[:1]:  # the team folder is inside
        for spelling in dict.fromkeys([str(folder), os.path.realpath(folder)]):
            out.append(f"Edit(/{spelling.rstrip('/')}/**)")
    return list(dict.fromkeys(out))


def turn_off(scope: str, project: str, *, guard: bool, off: bool = True) -> Switched:
    """Write the switch (and the guard's rules) into the scope's file; idempotent."""
    path = settings_file.settings_path(scope, project)
    settings, _ = settings_file.load(path)
    new = json.loads(json.dumps(settings))
    if off:
        new[KEY] = False
    rules = deny_rules(project) if guard else []
    if rules:
        perms = new.setdefault("permissions", {})
        deny = perms.setdefault("deny", []) if isinstance(perms, dict) else None
        if isinstance(deny, list):
            deny.extend(r for r in rules if r not in deny)
    if new == settings:
        return Switched(path, False, rules)
    settings_file.write_atomic(path, settings_file.dump(new))
    return Switched(path, True, rules)


def restore(scope: str, project: str) -> bool:
    """Undo `turn_off` in the scope's file, keeping what the pre-install backup held."""
    path = settings_file.settings_path(scope, project)
    try:
        settings, raw = settings_file.load(path)
    except Exception:
        return False  # settings_file.uninstall reports an unreadable file
    if raw is None:
        return False
    before = _backup(path)
    new = json.loads(json.dumps(settings))
    if new.get(KEY) is False:
        if KEY in before:
            new[KEY] = before[KEY]
        else:
            del new[KEY]
    perms = new.get("permissions")
    deny = perms.get("deny") if isinstance(perms, dict) else None
    if isinstance(perms, dict) and isinstance(deny, list):
        theirs = _deny_of(before)
        ours = set(deny_rules(project)) - set(theirs)
        kept = [r for r in deny if r not in ours]
        if len(kept) != len(deny):
            if kept:
                perms["deny"] = kept
            else:
                del perms["deny"]
                if not perms:
                    del new["permissions"]
    if new == settings:
        return False
    settings_file.write_atomic(path, settings_file.dump(new))
    return True


def _backup(path: Any) -> dict[str, Any]:
    try:
        data = json.loads(settings_file.backup_path(path).read_bytes().decode("utf-8-sig"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _deny_of(settings: dict[str, Any]) -> list[str]:
    perms = settings.get("permissions")
    deny = perms.get("deny") if isinstance(perms, dict) else None
    return [r for r in deny if isinstance(r, str)] if isinstance(deny, list) else []
