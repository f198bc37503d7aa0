"""Claude Code's OS sandbox, turned on by `install --guard` (SECURITY.md, "The boundary").

A same-user agent with a shell can reach any file the person can, so a hook that parses
commands is a tripwire. The pinned CLI (2.1.332) confines its Bash commands with
bubblewrap (Linux) or Seatbelt (macOS) when `sandbox.enabled` is set: writes outside the
project and its temp dir fail, and `sandbox.filesystem.denyWrite` (exact paths: globs may
be ignored) takes paths inside out too. `allowUnsandboxedCommands: false` removes the
escape hatch of rerunning a command unconfined; `failIfUnavailable: true` makes the CLI
refuse to start ("sandbox required but unavailable") instead of warning "Sandbox
disabled: … dependencies are missing" and running commands unconfined. The file tools
(Write, Edit) are governed by `permissions.deny`, so every path also gets Edit rules.

What is denied: the store and its data dir, the installed mem-review (venv, entry point,
for an editable install the package source), every settings file that configures hooks,
permissions or the sandbox (user, project, local; `~/.claude.json` for MCP servers),
Claude Code's auto memory folder of the project, the shared folder `.mem-review/`, and
the repository's `.git/hooks` and `.git/config` (code git would run for the person
later, unconfined; the CLI guards them for Bash itself, not for Write), and a worktree's
`commondir` where there is one.
The person's other sandbox settings (network, their own paths) are left as they are;
uninstall puts back each key install set, exactly as the backup held it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from reviewer import paths

SHARED_FOLDER = ".mem-review"
# The keys install sets under "sandbox", and the value it sets.
SWITCHES = {"enabled": True, "allowUnsandboxedCommands": False, "failIfUnavailable": True}
PROBE_TIMEOUT = 5.0


def memory_dir(project: str | os.PathLike[str]) -> Path:
    """Claude Code's auto memory folder for `project` (GUIDE §6c)."""
    name = re.sub(r"[^A-Za-z0-9]", "-", os.path.realpath(project))
    return Path.home() / ".claude" / "projects" / name / "memory"


def installed_paths() -> list[Path]:
    """mem-review itself: its venv (or prefix), its entry point, and for an editable
    install the source of its packages (what a `.pth` or an edit would change)."""
    import reviewer

    out = [Path(sys.prefix)]
    exe = Path(sys.executable).parent / "mem-review"
    found = shutil.which("mem-review")
    out += [p for p in (exe, Path(found) if found else None) if p is not None and p.exists()]
    source = Path(reviewer.__file__).resolve().parent
    if not any(part in ("site-packages", "dist-packages") for part in source.parts):
        out += [source, source.parent / "capture", source.parent / "pyproject.toml"]
    return out


def git_code_paths(project: str | os.PathLike[str]) -> list[Path]:
    """Where git finds code to run for the person later, outside the sandbox (hooks;
    `core.hooksPath`, `core.fsmonitor`, `!` aliases, the editor in its config): the
    repository's `hooks/` and `config`, for a worktree its own and the common ones."""
    dot = Path(project) / ".git"
    dirs = [dot] if dot.is_dir() else []
    if dot.is_file():
        try:
            line = dot.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            line = ""
        if line.startswith("gitdir:"):
            gitdir = (Path(project) / line[7:].strip()).resolve()
            dirs.append(gitdir)
            try:
                common = (gitdir / "commondir").read_text(encoding="utf-8").strip()
                dirs.append((gitdir / common).resolve())
            except OSError:
                pass
    # Only what exists: the sandbox masks a missing path with an unreadable file, and a
    # masked `commondir` stops git from working at all.
    return [d / name for d in dirs for name in ("hooks", "config", "commondir")
            if (d / name).exists()]


# Instruction files Claude Code loads into every session of the project (CLAUDE.md and
# kin): memory as much as MEMORY.md is, so the agent must not write them unseen. Bash
# cannot write the project's own (exact paths: globs may be ignored, and a missing one is
# masked, which leaves the person's git alone); the file tools ask the person (ASK_RULES).
MEMORY_FILES = ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md", ".claude/rules")
# The file tools, anywhere (`//` is the root; permission rules do take globs): an edit of
# any of them is put to the person, who sees it; in `-p` or with permissions bypassed,
# nobody can say yes, so it is refused (measured with the pinned CLI).
ASK_RULES = ("Edit(//**/CLAUDE.md)", "Edit(//**/CLAUDE.local.md)",
             "Edit(//**/.claude/rules/**)")


def memory_files(project: str | os.PathLike[str]) -> list[Path]:
    """The project's own instruction files, whether they exist yet or not."""
    return [Path(project) / name for name in MEMORY_FILES]


def ask_rules() -> list[str]:
    """`permissions.ask` rules install adds with the guard (and uninstall takes out)."""
    return list(ASK_RULES)


def protected_paths(project: str | os.PathLike[str]) -> list[str]:
    """Exact paths (each also as its real path) no sandboxed command may write."""
    return _spellings([*_store_and_gate(project), *memory_files(project)])


def _spellings(wanted: list[Path | str]) -> list[str]:
    out: list[str] = []
    for path in wanted:
        for spelling in (os.path.abspath(path), os.path.realpath(path)):
            if spelling not in out:
                out.append(spelling)
    return out


def _store_and_gate(project: str | os.PathLike[str]) -> list[Path | str]:
    """What the gate itself stands on: the store, mem-review, settings, auto memory, the
    shared folder and git's code paths."""
    base = Path(project)
    home = Path.home()
    wanted = [
        paths.home(), paths.db_path(),
        *installed_paths(),
        home / ".claude" / "settings.json",
        home / ".claude.json",
        base / ".claude" / "settings.json",
        base / ".claude" / "settings.local.json",
        memory_dir(project),
        base / SHARED_FOLDER,
        *git_code_paths(project),
    ]
    return wanted


# Files in HOME that run code for the person later, unconfined (shell start-up, git's
# global config, ssh, user site-packages, PATH shims, user services) and the user-wide
# CLAUDE.md. Bash cannot write HOME in the sandbox anyway; the file tools (Write, Edit)
# are not sandboxed, so with permissions bypassed only a deny rule keeps them out.
HOME_CODE = (
    ".gitconfig", ".config/git", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout",
    ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".config/fish", ".ssh",
    ".local/bin", ".local/lib", ".config/systemd", ".config/autostart", ".pam_environment",
    ".claude/CLAUDE.md", ".claude/hooks", ".claude/agents", ".claude/commands",
)


# Claude Code's managed settings (they can switch every hook off): writable only by an
# administrator, which a person running Claude Code as root is (found by the red team's
# held-out half, after it was measured).
MANAGED = ("/etc/claude-code", "/Library/Application Support/ClaudeCode")


def edit_rules(project: str | os.PathLike[str]) -> list[str]:
    """`permissions.deny` rules for the file tools: `//` marks an absolute path; each path
    and everything under it (the same rules whether it exists yet or is a file or a
    folder, so uninstall removes exactly what install added)."""
    home = Path.home()
    rules = []
    gate = _spellings(_store_and_gate(project))  # instruction files: asked, not denied
    for path in [*gate, *(str(home / rel) for rel in HOME_CODE),
                 *MANAGED]:
        rules += [f"Edit(/{path})", f"Edit(/{path.rstrip('/')}/**)"]
    return list(dict.fromkeys(rules))


# ---- settings: in and out exactly ------------------------------------------------------


def merge_into(settings: dict[str, Any], project: str | os.PathLike[str]) -> None:
    """Turn the sandbox on in `settings` (in place), keeping the person's own keys."""
    box = settings.get("sandbox")
    if box is None:
        box = settings["sandbox"] = {}
    if not isinstance(box, dict):
        raise ValueError('"sandbox" is not an object; fix it by hand first')
    box.update(SWITCHES)
    fs = box.get("filesystem")
    if fs is None:
        fs = box["filesystem"] = {}
    if not isinstance(fs, dict):
        raise ValueError('"sandbox.filesystem" is not an object; fix it by hand first')
    deny = fs.get("denyWrite")
    if deny is None:
        deny = fs["denyWrite"] = []
    if not isinstance(deny, list):
        raise ValueError('"sandbox.filesystem.denyWrite" is not a list; fix it by hand first')
    deny.extend(p for p in protected_paths(project) if p not in deny)


def remove_from(
    settings: dict[str, Any], project: str | os.PathLike[str], before: dict[str, Any],
) -> None:
    """Undo `merge_into` (in place): each switch back to what `before` (the pre-install
    settings) held, or gone; our denyWrite paths out but the person's own; containers that
    only held ours go."""
    box = settings.get("sandbox")
    if not isinstance(box, dict):
        return
    old = before.get("sandbox") if isinstance(before.get("sandbox"), dict) else {}
    for key, value in SWITCHES.items():
        if box.get(key) != value:
            continue  # changed since install: the person's now
        if key in old:
            box[key] = old[key]
        else:
            box.pop(key, None)
    fs = box.get("filesystem")
    if isinstance(fs, dict) and isinstance(fs.get("denyWrite"), list):
        old_fs = old.get("filesystem") if isinstance(old.get("filesystem"), dict) else {}
        keep = old_fs.get("denyWrite") if isinstance(old_fs.get("denyWrite"), list) else []
        ours = set(protected_paths(project)) - set(keep)
        fs["denyWrite"] = [p for p in fs["denyWrite"] if p not in ours]
        if not fs["denyWrite"] and "denyWrite" not in old_fs:
            del fs["denyWrite"]
        if not fs and "filesystem" not in old:
            del box["filesystem"]
    if not box and "sandbox" not in before:
        del settings["sandbox"]


def parse_before(raw: bytes | None) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


# ---- does it run here ------------------------------------------------------------------


def probe() -> tuple[bool, str]:
    """(whether Claude Code's sandbox can start on this machine, why not / how)."""
    if sys.platform == "darwin":
        if shutil.which("sandbox-exec"):
            return True, "Seatbelt (sandbox-exec) is available"
        return False, "sandbox-exec is missing"
    if not sys.platform.startswith("linux"):
        return False, f"Claude Code has no command sandbox on {sys.platform}"
    bwrap, socat = shutil.which("bwrap"), shutil.which("socat")
    missing = [name for name, found in (("bubblewrap", bwrap), ("socat", socat)) if not found]
    if missing:
        return False, (f"{' and '.join(missing)} not installed (e.g. apt install "
                       f"{' '.join(missing)})")
    assert bwrap is not None
    try:
        proc = subprocess.run(
            [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
             "--unshare-net", "--unshare-pid", "--die-with-parent", "true"],
            capture_output=True, text=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"bubblewrap cannot run: {exc}"
    if proc.returncode != 0:
        why = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        return False, f"bubblewrap cannot create a sandbox here: {why[:160]}"
    return True, "bubblewrap and socat work"


def settings_state(settings: dict[str, Any], project: str | os.PathLike[str]) -> str | None:
    """None when `settings` turn the sandbox on as install does; else what is missing."""
    box = settings.get("sandbox")
    if not isinstance(box, dict) or box.get("enabled") is not True:
        return "sandbox.enabled is not set"
    if box.get("allowUnsandboxedCommands") is not False:
        return "allowUnsandboxedCommands is not false (commands may run unconfined)"
    fs = box.get("filesystem")
    deny = fs.get("denyWrite") if isinstance(fs, dict) else None
    missing = [p for p in protected_paths(project) if not isinstance(deny, list) or p not in deny]
    if missing:
        return f"denyWrite lacks {missing[0]}" + (f" and {len(missing) - 1} more"
                                                 if len(missing) > 1 else "")
    return None


CHANGES = (
    "Claude Code's sandbox is on for this scope: every Bash command Claude runs is confined "
    "(bubblewrap on Linux, Seatbelt on macOS). Commands can write only inside the project "
    "and a temp dir, never to mem-review's store, its install, Claude Code's settings and "
    "memory folders or .mem-review/; network access goes through Claude Code's proxy and "
    "its allowed domains; commands that cannot run sandboxed (docker, anything needing "
    "other write access) fail instead of running unconfined, and Claude Code will not "
    "start where the sandbox cannot (sandbox.failIfUnavailable). Your own terminal is not "
    "affected. `mem-review uninstall` puts the settings back as they were."
)


def check(
    scopes: dict[str, dict[str, Any]], project: str | os.PathLike[str],
) -> tuple[bool, str]:
    """`doctor`'s line for the settings files (by scope) that hold the guard or a sandbox:
    (ok, detail). Where the sandbox cannot start, the gate is a tripwire."""
    works, why = probe()
    if not works:
        return False, (f"cannot run here ({why}): the approval gate is then a tripwire "
                       "(the hook guard), not a boundary the OS enforces")
    problems = {scope: settings_state(data, project) for scope, data in scopes.items()}
    good = [scope for scope, problem in problems.items() if problem is None]
    if good:
        return True, (f"on ({why}; {', '.join(good)} settings): the OS keeps Claude's "
                      "commands off the store, mem-review, settings, memory and .mem-review/")
    scope, problem = next(iter(problems.items()))
    return False, (f"{problem} in the {scope} settings: the gate is a tripwire; run "
                   f"`mem-review install --scope {scope} --guard`")
