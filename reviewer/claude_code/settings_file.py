"""Add mem-review's hooks to Claude Code's settings files, and take them out again exactly.

Claude Code merges the `hooks` of `~/.claude/settings.json` (user), `.claude/settings.json`
(project, committed) and `.claude/settings.local.json` (local, personal). A person's
settings file is theirs: every other key and hook is kept, a file that is not valid JSON
is refused rather than overwritten, each change is written atomically after a backup,
and installing twice changes nothing.

Our entries are recognised by their command: `<…/mem-review> hook <event>`, whatever the
executable's directory (so an install from a moved venv is replaced, not doubled).
Uninstall restores the pre-install bytes from `<file>.mem-review.bak` when what remains
equals that backup, so install + uninstall leaves the file byte-for-byte as it was, and
deletes the file when install created it and nothing else was added since.

With the guard, install also adds Claude Code's own `permissions.deny` rules
(`deny_rules`): Edit (which covers Write, MultiEdit, NotebookEdit) anywhere in the data
dir, and the approving commands. Claude Code enforces them before any hook runs; our
guard looks further (wrappers, code, symlinks). `permissions.ask` rules put every edit of
a CLAUDE.md, CLAUDE.local.md or rules file to the person. Uninstall removes exactly the
rules install added: the ones it would add now, less any the pre-install backup held.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reviewer import paths
from reviewer.claude_code import sandbox
from reviewer.errors import UserError

SCOPES = ("project", "user", "local")
EXE_NAME = "mem-review"
BACKUP_SUFFIX = ".mem-review.bak"


@dataclass(frozen=True)
class HookSpec:
    event: str  # Claude Code's event name
    arg: str  # `mem-review hook <arg>`
    timeout: int  # seconds Claude Code waits
    matcher: str | None = None  # None: no matcher, every source/trigger


HOOKS = (
    # Startup, resume, clear and compact all start a context that needs the facts.
    HookSpec("SessionStart", "session-start", 10),
    # SessionEnd's own budget is 1.5 s; the hook only enqueues.
    HookSpec("SessionEnd", "session-end", 5),
    HookSpec("PreCompact", "pre-compact", 5),
)
GUARD = HookSpec("PreToolUse", "pre-tool-use", 5, "Bash|Edit|MultiEdit|Write|NotebookEdit")
ALL_ARGS = {spec.arg for spec in (*HOOKS, GUARD)}


@dataclass
class Change:
    """What install/uninstall did to one file."""

    path: Path
    changed: bool
    backup: Path | None = None
    removed_file: bool = False
    restored_exactly: bool = False
    entries: list[str] = field(default_factory=list)


def settings_path(scope: str, project_dir: str | os.PathLike[str] | None = None) -> Path:
    if scope == "user":
        return Path.home() / ".claude" / "settings.json"
    base = Path(project_dir or os.getcwd())
    if scope == "project":
        return base / ".claude" / "settings.json"
    if scope == "local":
        return base / ".claude" / "settings.local.json"
    raise UserError(f"unknown scope {scope!r}; expected one of {', '.join(SCOPES)}")


def executable() -> str:
    """The absolute path of the `mem-review` that is running (the console script beside
    this interpreter), else the one on PATH: hooks must not depend on Claude Code's PATH."""
    candidates = [Path(sys.executable).parent / EXE_NAME]
    found = shutil.which(EXE_NAME)
    if found:
        candidates.append(Path(found))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate.absolute())
    raise UserError(
        "cannot find the mem-review executable beside this Python or on PATH; "
        "install the package (pip install mem-review) and retry"
    )


def deny_rules() -> list[str]:
    """Claude Code permission rules that keep the agent off the approval path.

    `Edit(//abs/**)` is an absolute path (a single `/` would be relative to the settings
    file); Edit rules also govern Write, MultiEdit and NotebookEdit.
    """
    homes = dict.fromkeys([str(paths.home()), os.path.realpath(paths.home())])
    rules = [f"Edit(/{h.rstrip('/')}/**)" for h in homes]
    rules += [
        "Bash(*mem-review import *--keep-status*)",
        "Bash(*reviewer.cli import *--keep-status*)",
        "Bash(mem-review review*)",
    ]
    rules += [f"Bash(*sqlite3 *{h}*)" for h in homes]
    return rules


# The form for a settings file a team commits (`install --portable`): no one's absolute
# venv path, `mem-review` found on each person's PATH, and nothing at all (exit 0, no
# output) on a machine without it, as every hook fails open.
PORTABLE_EXE = EXE_NAME
PORTABLE = "command -v mem-review >/dev/null 2>&1 && mem-review hook {arg} || true"
_PORTABLE_RE = re.compile(
    r"command -v mem-review >/dev/null 2>&1 && mem-review hook ([a-z-]+) \|\| true")


def hook_command(exe: str, arg: str) -> str:
    if exe == PORTABLE_EXE:
        return PORTABLE.format(arg=arg)
    return f"{shlex.quote(exe)} hook {arg}"


def is_portable(command: object) -> bool:
    return isinstance(command, str) and _PORTABLE_RE.fullmatch(command) is not None


def is_ours(command: object) -> str | None:
    """The hook argument (`session-start`, …) when `command` is one of our entries."""
    if not isinstance(command, str):
        return None
    portable = _PORTABLE_RE.fullmatch(command)
    if portable is not None:
        return portable.group(1) if portable.group(1) in ALL_ARGS else None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) != 3 or words[1] != "hook" or words[2] not in ALL_ARGS:
        return None
    name = os.path.basename(words[0])
    return words[2] if name in (EXE_NAME, EXE_NAME + ".exe") else None


# ---- pure transformations --------------------------------------------------------------


def merge(
    settings: dict[str, Any], exe: str, guard: bool = False, *, deny: bool = True,
    project: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """A copy of `settings` with our hooks, each exactly once; unchanged when already so."""
    out = json.loads(json.dumps(settings))
    hooks = _hooks_of(out, create=True)
    for spec in (*HOOKS, *((GUARD,) if guard else ())):
        want = {"type": "command", "command": hook_command(exe, spec.arg), "timeout": spec.timeout}
        groups = hooks.get(spec.event)
        if groups is not None and not isinstance(groups, list):
            raise UserError(f'"hooks.{spec.event}" is not a list')
        if groups and _exactly_once(groups, spec, want):
            continue
        groups = _without_ours(groups or [], {spec.arg})
        group: dict[str, Any] = {"hooks": [want]}
        if spec.matcher is not None:
            group = {"matcher": spec.matcher, **group}
        groups.append(group)
        hooks[spec.event] = groups
    if guard and deny:
        rules = _deny_list(out, create=True)
        assert rules is not None
        rules.extend(rule for rule in deny_rules() if rule not in rules)
        if project is not None:  # the OS sandbox (SECURITY.md, "The boundary")
            try:
                sandbox.merge_into(out, project)
            except ValueError as exc:
                raise UserError(str(exc)) from None
            rules.extend(rule for rule in sandbox.edit_rules(project) if rule not in rules)
            ask = _deny_list(out, create=True, key="ask")
            assert ask is not None
            ask.extend(rule for rule in sandbox.ask_rules() if rule not in ask)
    return out


def _deny_list(settings: dict[str, Any], *, create: bool, key: str = "deny") -> list[Any] | None:
    """`permissions.<key>` (deny, or ask), made when `create` and missing."""
    perms = settings.get("permissions")
    if perms is None:
        if not create:
            return None
        perms = settings["permissions"] = {}
    if not isinstance(perms, dict):
        raise UserError('"permissions" is not an object; fix it by hand first')
    deny = perms.get(key)
    if deny is None:
        if not create:
            return None
        deny = perms[key] = []
    if not isinstance(deny, list):
        raise UserError(f'"permissions.{key}" is not a list; fix it by hand first')
    return deny


def remove_rules(
    settings: dict[str, Any], keep: list[str] | tuple[str, ...] = (),
    project: str | os.PathLike[str] | None = None,
) -> None:
    """Take our deny and ask rules out of `settings` (in place), except those in `keep` (a
    person's own, from before install); a list or object left empty by that goes too."""
    perms = settings.get("permissions")
    if not isinstance(perms, dict):
        return
    extra = sandbox.edit_rules(project) if project is not None else []
    ours = {"deny": (set(deny_rules()) | set(extra)) - set(keep),
            "ask": set(sandbox.ask_rules() if project is not None else ()) - set(keep)}
    for key, mine in ours.items():
        rules = perms.get(key)
        if not isinstance(rules, list):
            continue
        kept = [rule for rule in rules if rule not in mine]
        if len(kept) == len(rules):
            continue
        if kept:
            perms[key] = kept
        else:
            del perms[key]
    if not perms:
        del settings["permissions"]


def remove(
    settings: dict[str, Any], args: set[str] | None = None, keep: tuple[str, ...] = (),
    *, project: str | os.PathLike[str] | None = None, before: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A copy of `settings` without our hooks and deny rules (but those in `keep`), and,
    given the `project`, the sandbox settings install made put back as `before` held them;
    groups and keys that only held ours go too."""
    out = json.loads(json.dumps(settings))
    if project is not None and (args is None or GUARD.arg in args):
        sandbox.remove_from(out, project, before or {})
    hooks = _hooks_of(out, create=False)
    if hooks is None:
        if args is None or GUARD.arg in args:
            remove_rules(out, keep, project)
        return out
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = _without_ours(groups, args or ALL_ARGS)
        if kept != groups:
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    if not hooks and "hooks" in out:
        del out["hooks"]
    if args is None or GUARD.arg in args:
        remove_rules(out, keep, project)
    return out


def entries(settings: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Our entries: (event, hook argument, command)."""
    found = []
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    if not isinstance(hooks, dict):
        return []
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            for hook in group.get("hooks", []) if isinstance(group, dict) else []:
                arg = is_ours(hook.get("command")) if isinstance(hook, dict) else None
                if arg:
                    found.append((event, arg, hook["command"]))
    return found


def _hooks_of(settings: dict[str, Any], *, create: bool) -> dict[str, Any] | None:
    hooks = settings.get("hooks")
    if hooks is None:
        if not create:
            return None
        hooks = settings["hooks"] = {}
    if not isinstance(hooks, dict):
        raise UserError('"hooks" is not an object; fix it by hand first')
    return hooks


def _exactly_once(groups: list[Any], spec: HookSpec, want: dict[str, Any]) -> bool:
    found = []
    for group in groups:
        if not isinstance(group, dict):
            continue
        for hook in group.get("hooks", []) if isinstance(group.get("hooks"), list) else []:
            if isinstance(hook, dict) and is_ours(hook.get("command")) == spec.arg:
                found.append((group, hook))
    if len(found) != 1:
        return False
    group, hook = found[0]
    return hook == want and group.get("matcher") == spec.matcher


def _without_ours(groups: list[Any], args: set[str]) -> list[Any]:
    kept = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            kept.append(group)
            continue
        inner = [
            h for h in group["hooks"]
            if not (isinstance(h, dict) and is_ours(h.get("command")) in args)
        ]
        if len(inner) == len(group["hooks"]):
            kept.append(group)
        elif inner:
            kept.append({**group, "hooks": inner})
    return kept


# ---- files -----------------------------------------------------------------------------


def load(path: Path) -> tuple[dict[str, Any], bytes | None]:
    """(settings, the file's bytes or None when absent); UserError when unusable."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not raw.strip():
        return {}, raw
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise UserError(f"{path}: not valid JSON ({exc}); fix it, nothing was changed") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: settings must be a JSON object; nothing was changed")
    if "hooks" in data and not isinstance(data["hooks"], dict):
        raise UserError(f'{path}: "hooks" is not an object; fix it, nothing was changed')
    return data, raw


def dump(settings: dict[str, Any]) -> bytes:
    return (json.dumps(settings, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def write_atomic(path: Path, data: bytes) -> None:
    """Temp file in the same directory, fsync, rename: a crash leaves the old or the new
    file, never half of one. Keeps the file's mode; follows a symlinked settings file."""
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def install(
    scope: str, project_dir: str | os.PathLike[str] | None = None, *, guard: bool = False,
    exe: str | None = None, deny: bool = True,
) -> Change:
    """`deny` False leaves out the native deny rules: they name this machine's data dir,
    which a committed, portable file must not."""
    path = settings_path(scope, project_dir)
    settings, raw = load(path)
    try:
        new = merge(settings, exe or executable(), guard, deny=deny,
                    project=project_dir or os.getcwd())
    except UserError as exc:
        raise UserError(f"{path}: {exc}; nothing was changed") from None
    change = Change(path, changed=new != settings)
    change.entries = [f"{event}: {command}" for event, _, command in entries(new)]
    if guard and deny:
        change.entries += [f"permissions.deny: {rule}" for rule in deny_rules()]
        change.entries += [f"permissions.ask: {rule}" for rule in sandbox.ask_rules()]
        change.entries += [f"sandbox.{k}: {json.dumps(v)}" for k, v in sandbox.SWITCHES.items()]
        change.entries += [f"sandbox.filesystem.denyWrite: {p}"
                           for p in sandbox.protected_paths(project_dir or os.getcwd())]
    if not change.changed:
        return change
    # Back up any file the user had; only one holding nothing but our own hooks (a
    # re-install) has nothing to save. An empty `{}` is the user's too: uninstall restores it.
    if raw is not None and (remove(settings) or not entries(settings)):
        change.backup = _backup(path, raw, settings)
    write_atomic(path, dump(new))
    return change


def uninstall(scope: str, project_dir: str | os.PathLike[str] | None = None) -> Change:
    path = settings_path(scope, project_dir)
    settings, raw = load(path)
    original = backup_path(path)
    before = _read_backup(original)
    new = remove(settings, keep=_rules_in(before), project=project_dir or os.getcwd(),
                 before=sandbox.parse_before(before))
    change = Change(path, changed=new != settings)
    if not change.changed:
        return change
    if before is not None and _same(before, new):
        write_atomic(path, before)
        change.restored_exactly = True
    elif before is None and not new:
        path.unlink()  # install created it and nothing else was added since
        change.removed_file = True
        with contextlib.suppress(OSError):
            path.parent.rmdir()  # only if empty: .claude/ made by install
    else:
        if raw is not None and new:
            change.backup = timestamped_backup(path, raw)
        write_atomic(path, dump(new))
    if before is not None:
        with contextlib.suppress(OSError):
            original.unlink()
    return change


def _backup(path: Path, raw: bytes, settings: dict[str, Any]) -> Path:
    """The pre-install bytes go to `<file>.mem-review.bak` (what uninstall restores); any
    later version (one already holding our hooks) gets a timestamped backup instead (the
    newest one kept), so the pre-install one is never overwritten."""
    original = backup_path(path)
    if not original.exists() and not entries(settings):
        write_copy(original, raw, path)
        return original
    return timestamped_backup(path, raw)


def timestamped_backup(path: Path, raw: bytes) -> Path:
    """A copy of `raw` beside `path` (settings files and Claude Code's own state file
    alike). Only the newest is kept: each install or uninstall made one, and HOME filled
    with stale copies of a file Claude Code rewrites all the time. The pre-install
    `<file>.mem-review.bak` (what uninstall restores) is never touched here."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.mem-review.{stamp}.bak")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.mem-review.{stamp}-{n}.bak")
        n += 1
    write_copy(target, raw, path)
    for old in path.parent.glob(f"{glob_escape(path.name)}.mem-review.*.bak"):
        if old != target and _STAMPED.fullmatch(old.name[len(path.name):]):
            with contextlib.suppress(OSError):
                old.unlink()
    return target


_STAMPED = re.compile(r"\.mem-review\.\d{8}-\d{6}(?:-\d+)?\.bak")


def glob_escape(name: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", name)


def write_copy(target: Path, raw: bytes, like: Path) -> None:
    try:
        mode = like.stat().st_mode & 0o777
    except OSError:
        mode = 0o600
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as fh:
        fh.write(raw)


def _read_backup(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _same(raw: bytes, settings: dict[str, Any]) -> bool:
    """Whether the backup holds these settings, up to an empty `hooks` object or event list
    (which removing our entries may drop), so its exact bytes can be put back."""
    if not raw.strip():
        return _norm({}) == _norm(settings)
    try:
        before = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError):
        return False
    return isinstance(before, dict) and _norm(before) == _norm(settings)


def _rules_in(raw: bytes | None) -> tuple[str, ...]:
    """The deny and ask rules a pre-install backup held: the person's, not ours to remove."""
    if not raw:
        return ()
    try:
        perms = json.loads(raw.decode("utf-8-sig"))["permissions"]
    except (UnicodeDecodeError, ValueError, KeyError, TypeError):
        return ()
    if not isinstance(perms, dict):
        return ()
    return tuple(r for key in ("deny", "ask") if isinstance(perms.get(key), list)
                 for r in perms[key] if isinstance(r, str))


def _norm(settings: dict[str, Any]) -> dict[str, Any]:
    out = dict(settings)
    perms = out.get("permissions")
    if isinstance(perms, dict):
        perms = {k: v for k, v in perms.items() if not (k in ("deny", "ask") and v == [])}
        if perms:
            out["permissions"] = perms
        else:
            del out["permissions"]
    hooks = out.get("hooks")
    if isinstance(hooks, dict):
        hooks = {k: v for k, v in hooks.items() if v != []}
        if hooks:
            out["hooks"] = hooks
        else:
            del out["hooks"]
    return out
