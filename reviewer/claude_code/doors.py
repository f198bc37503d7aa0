"""Every door through which memory reaches a Claude Code session in this project, and
whether it passes mem-review's gate (a person's approval).

`doctor`, `status --json` and the review screen's header show these. A door that is open
and unreviewed is not ok, and says the one command that closes it. CLAUDE.md and
`.claude/rules` files are written by people and reviewed in git: listed; with the guard,
Claude's edits of them are put to the person (`permissions.ask`) and its commands cannot
write the project's own (the OS sandbox).
What the pinned CLI does is in reviewer/claude_code/native_memory.py.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from reviewer.claude_code import native_memory, sandbox, settings_file
from reviewer.errors import UserError

MEMORY_SOURCE = "claude-code memory"  # the fact source capture/native_import.py writes


@dataclass
class Door:
    name: str
    ok: bool
    gated: bool  # passes a person's review before it reaches Claude
    open: bool  # reaches sessions now
    detail: str
    fix: str = ""
    notes: int = 0  # note files behind the door (auto and team memory)

    def line(self) -> str:
        return self.detail + (f"; {self.fix}" if self.fix else "")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def doors(project: str, conn: sqlite3.Connection | None = None,
          env: dict[str, str] | None = None) -> list[Door]:
    env = dict(os.environ) if env is None else env
    auto = native_memory.state(project, env)
    out = [_facts(project, conn), _auto(project, auto, conn), _team(auto),
           _account(env), *_hooks(project), _instructions(project)]
    return out


def _count(conn: sqlite3.Connection | None, sql: str, args: tuple[Any, ...]) -> int:
    if conn is None:
        return 0
    try:
        return int(conn.execute(sql, args).fetchone()[0])
    except sqlite3.Error:
        return 0


def _facts(project: str, conn: sqlite3.Connection | None) -> Door:
    n = _count(conn, "SELECT COUNT(*) FROM fact WHERE project = ? AND status = 'approved'",
               (project,))
    return Door("mem-review facts", True, True, n > 0,
                f"{n} approved fact(s) injected at SessionStart and recalled over MCP; only "
                "a person approves")


def _auto(project: str, auto: native_memory.AutoMemory,
          conn: sqlite3.Connection | None) -> Door:
    files, lines, waiting = native_memory.unimported(conn, project, auto.folder)
    pending = _count(conn, "SELECT COUNT(*) FROM fact WHERE project = ? AND source = ? "
                     "AND status = 'pending'", (project, MEMORY_SOURCE))
    where = f"{auto.folder}" + ("" if auto.folder_why == "default" else f" ({auto.folder_why})")
    held = (f"{files} note(s), {lines} line(s); {pending} pending review, {waiting} not "
            "imported yet")
    held += _overflow(auto.folder / native_memory.INDEX)
    if not auto.enabled:
        return Door("Claude Code auto memory", True, True, False,
                    f"off ({auto.why}); {where}: {held}; notes reach Claude only once "
                    "approved", notes=files)
    return Door("Claude Code auto memory", False, False, True,
                f"ON ({auto.why}); {where}: {held}; MEMORY.md, and whatever Claude writes "
                "there, reaches sessions unreviewed",
                _close_auto(auto), notes=files)


INDEX_LINES, INDEX_BYTES = 200, 25 * 1024  # what Claude Code loads of MEMORY.md (measured)


def _overflow(index: Path) -> str:
    """Claude Code cuts MEMORY.md at 200 lines / 25 KB (measured with 2.1.332: lines 1-200
    reached the request, then a warning); the rest is silently lost to it, not to us."""
    text = native_memory.read_note(index)
    lines, size = len(text.splitlines()), len(text.encode())
    if lines <= INDEX_LINES and size <= INDEX_BYTES:
        return ""
    return (f"; MEMORY.md is {lines} lines / {size:,} bytes, over the {INDEX_LINES}-line / "
            "25 KB Claude Code loads (every line is imported for review all the same)")


def _close_auto(auto: native_memory.AutoMemory) -> str:
    if auto.ignored:
        return f"fix the file Claude Code ignores ({auto.ignored[0]}), then `mem-review install`"
    if auto.decided_by == "env":
        return f"unset {native_memory.DISABLE_ENV} (or set it to 1) where Claude Code runs"
    if auto.decided_by in ("setting:user", "setting:project"):
        return "run `mem-review install` (turns it off in .claude/settings.local.json)"
    if auto.decided_by == "setting:local":
        return "run `mem-review install` in this project"
    return "run `mem-review install`"


def _team(auto: native_memory.AutoMemory) -> Door:
    files = native_memory.notes(auto.team) if auto.team.is_dir() else []
    files = [f for f in files if f.parent == auto.team]
    if not files:
        return Door("team memory", True, True, False,
                    f"no notes in {auto.team} (synced only for organisation accounts)")
    if not auto.enabled:
        return Door("team memory", True, True, False,
                    f"{len(files)} note(s) in {auto.team}: off with auto memory; imported "
                    "as pending like the rest of the folder")
    # Measured with an API key: notes here did not reach the request; Claude Code loads
    # them where its team memory is on (organisation accounts), so they are counted open.
    return Door("team memory", False, False, True,
                f"{len(files)} note(s) in {auto.team} may reach Claude unreviewed (team "
                "memory, synced to every collaborator, is on for organisation accounts)",
                "run `mem-review install`", notes=len(files))


def _account(env: dict[str, str]) -> Door:
    creds = native_memory.config_dir(env) / ".credentials.json"
    if not creds.exists():
        return Door("account memory", True, True, False,
                    "not on this machine (needs a claude.ai login; none found in "
                    f"{creds.parent})")
    # Whether the account has it is decided by Anthropic's servers, not by any file here:
    # shown, not judged (a ✗ no one can clear would teach people to ignore doctor).
    return Door("account memory", True, False, False,
                "a claude.ai login is present: if your account has account memory (kept by "
                "Anthropic, not on this machine), it reaches sessions without mem-review's "
                "review; Claude Code's /memory turns it off")


def _hooks(project: str) -> list[Door]:
    out: list[Door] = []
    for scope in ("user", "project", "local"):
        path = settings_file.settings_path(scope, project)
        try:
            data, _ = settings_file.load(path)
        except Exception:
            continue
        groups = data.get("hooks", {}).get("SessionStart") if isinstance(
            data.get("hooks"), dict) else None
        for group in groups if isinstance(groups, list) else []:
            hooks = group.get("hooks") if isinstance(group, dict) else None
            for hook in hooks if isinstance(hooks, list) else []:
                command = hook.get("command") if isinstance(hook, dict) else None
                if isinstance(command, str) and not settings_file.is_ours(command):
                    out.append(Door("SessionStart hook", True, False, True,
                                    f"{command[:120]} ({path}) may add context; not "
                                    "reviewed by mem-review: a settings file you keep"))
    return out


def instruction_files(project: str) -> list[Path]:
    """The CLAUDE.md and rules files Claude Code loads for the project."""
    root = Path(project)
    found: list[Path] = [Path("/etc/claude-code/CLAUDE.md"),  # managed (Linux, macOS)
                         Path("/Library/Application Support/ClaudeCode/CLAUDE.md"),
                         native_memory.config_dir() / "CLAUDE.md"]
    for folder in reversed([root, *root.parents]):
        found += [folder / "CLAUDE.md", folder / ".claude" / "CLAUDE.md",
                  folder / "CLAUDE.local.md"]
    for rules in (native_memory.config_dir() / "rules", root / ".claude" / "rules"):
        try:
            found += sorted(p for p in rules.rglob("*.md"))[:200]
        except OSError:
            continue
    return [p for p in dict.fromkeys(found) if p.is_file()]


def _instructions(project: str) -> Door:
    files = instruction_files(project)
    names = ", ".join(str(p) for p in files[:8]) + (" …" if len(files) > 8 else "")
    asked = _edits_asked(project)
    how = ("Claude's edits of them are put to you and its commands cannot write the "
           "project's own (install --guard)" if asked else
           "Claude can edit them unseen")
    return Door("CLAUDE.md and rules", True, asked, bool(files),
                f"{len(files)} file(s) written by people, reviewed in git; {how}"
                + (f": {names}" if files else ""),
                "" if asked else "`mem-review install --guard` puts each edit to you")


def _edits_asked(project: str) -> bool:
    """Whether a settings file of the project holds the guard's `permissions.ask` rules
    for instruction files (SECURITY.md, "The boundary")."""
    want = set(sandbox.ask_rules())
    for scope in settings_file.SCOPES:
        try:
            data, _ = settings_file.load(settings_file.settings_path(scope, project))
        except UserError:  # doctor reports an unreadable file on its own line
            continue
        perms = data.get("permissions") if isinstance(data, dict) else None
        ask = perms.get("ask") if isinstance(perms, dict) else None
        if isinstance(ask, list) and want <= set(ask):
            return True
    return False


def header(found: list[Door]) -> str:
    """The review screen's warning: memory notes reaching Claude without review ("" when
    none do; an open door with nothing behind it yet is left to `doctor`)."""
    bad = [d for d in found if not d.ok and d.notes]
    if not bad:
        return ""
    notes = max(d.notes for d in bad)  # the auto door counts its team folder too
    return f"✗ {notes} Claude Code memory note(s) unreviewed (doctor)"


def to_json(found: list[Door]) -> str:
    return json.dumps([d.as_dict() for d in found])
