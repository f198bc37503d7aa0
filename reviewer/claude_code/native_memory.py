"""Where Claude Code keeps its own memory for a project, whether it is on, and why.

Read from the pinned CLI (2.1.332) and measured against it (GUIDE §6c):

- The folder is `<config dir>/projects/<key>/memory/`, the config dir being
  `CLAUDE_CONFIG_DIR` or `~/.claude`; the key is the project's git root (the main
  checkout's, for a linked worktree) with every non-alphanumeric character as `-`, cut
  at 200 characters plus a hash when longer. `autoMemoryDirectory` in the local or user
  settings moves it (a committed project settings file cannot), and so does the
  environment variable `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`.
- Team memory, where the account has it, is synced into `<folder>/team/`.
- On or off: `CLAUDE_CODE_DISABLE_AUTO_MEMORY` decides first (truthy turns it off; a
  falsy value such as `0` forces it ON whatever the settings say), then
  `CLAUDE_CODE_SIMPLE`, then `autoMemoryEnabled` in the settings (local over project over
  user), and it is on when nothing says otherwise.

Stdlib only: the hooks call `unchanged` (the last sweep's record, then a stat of the folder
and of each note in it).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

MEMORY_DIR = "memory"
TEAM_DIR = "team"
INDEX = "MEMORY.md"
SETTING = "autoMemoryEnabled"
DIR_SETTING = "autoMemoryDirectory"
DISABLE_ENV = "CLAUDE_CODE_DISABLE_AUTO_MEMORY"
OVERRIDE_ENV = "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"
MAX_KEY = 200
MAX_NOTES = 500  # notes read from one folder; Claude Code loads far fewer
MAX_NOTE_BYTES = 256 * 1024
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class AutoMemory:
    """Claude Code's auto memory for one project, as the CLI would see it. (A plain class:
    `dataclasses` would cost the hooks ~7 ms of imports.)"""

    def __init__(self, enabled: bool, why: str, folder: Path, folder_why: str = "default",
                 decided_by: str = "default", ignored: list[str] | None = None) -> None:
        self.enabled = enabled
        self.why = why  # which setting file or variable decided it
        self.folder = folder
        self.folder_why = folder_why
        self.decided_by = decided_by  # env | setting:<scope> | default
        self.ignored = ignored or []  # settings files Claude Code rejects

    @property
    def team(self) -> Path:
        return self.folder / TEAM_DIR


def config_dir(env: dict[str, str] | os._Environ[str] | None = None) -> Path:
    env = os.environ if env is None else env
    found = env.get("CLAUDE_CONFIG_DIR")
    return Path(found).expanduser() if found else Path.home() / ".claude"


def _java_hash(text: str) -> int:
    """Claude Code's key hash (a 32-bit Java string hash over UTF-16 units)."""
    h = 0
    data = text.encode("utf-16-le")
    for i in range(0, len(data), 2):
        h = (h * 31 + int.from_bytes(data[i:i + 2], "little")) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def project_key(path: str) -> str:
    # JavaScript replaces each UTF-16 unit: a character beyond the BMP becomes two dashes.
    key = "".join(c if c.isascii() and c.isalnum() else "--" if ord(c) > 0xFFFF else "-"
                  for c in path)
    if len(key) <= MAX_KEY:
        return key
    return f"{key[:MAX_KEY]}-{_base36(abs(_java_hash(path)))}"


def canonical_root(cwd: str) -> str:
    """The git root Claude Code keys memory by: the main checkout's for a linked worktree,
    the directory itself outside git. No git call: the hooks read `.git` directly."""
    here = Path(os.path.abspath(cwd))
    for folder in (here, *here.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return str(folder)
        if dot_git.is_file():
            try:
                line = dot_git.read_text(encoding="utf-8", errors="replace")[:4096].strip()
            except OSError:
                return str(folder)
            if not line.startswith("gitdir:"):
                return str(folder)
            gitdir = Path(folder, line[7:].strip())
            try:
                common = (gitdir / "commondir").read_text(encoding="utf-8").strip()
            except OSError:
                return str(folder)
            main = Path(os.path.normpath(gitdir / common))
            return str(main.parent) if main.name == ".git" else str(folder)
    return str(here)


def settings_files(project: str, env: dict[str, str] | os._Environ[str] | None = None
                   ) -> dict[str, Path]:
    """Claude Code's settings files by scope, lowest precedence first (the user's file is
    in CLAUDE_CONFIG_DIR when that is set)."""
    base = Path(project)
    return {
        "user": config_dir(env) / "settings.json",
        "project": base / ".claude" / "settings.json",
        "local": base / ".claude" / "settings.local.json",
    }


def _read(path: Path) -> dict[str, object]:
    try:
        with open(path, "rb") as fh:
            raw = fh.read(4 * 1024 * 1024)
        data = json.loads(raw.decode("utf-8-sig")) if raw.strip() else {}
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def state(project: str, env: dict[str, str] | os._Environ[str] | None = None) -> AutoMemory:
    """Whether auto memory is on for `project`, why, and where its folder is."""
    env = os.environ if env is None else env
    files = settings_files(project, env)
    values = {scope: _read(path) for scope, path in files.items()}
    folder, folder_why = _folder(project, values, env)
    flag = (env.get(DISABLE_ENV) or "").strip().lower()
    if flag in _TRUE:
        return AutoMemory(False, f"{DISABLE_ENV}={env.get(DISABLE_ENV)} in the environment",
                          folder, folder_why, "env")
    if flag in _FALSE:
        return AutoMemory(True, f"{DISABLE_ENV}={env.get(DISABLE_ENV)} in the environment "
                          "forces it on, whatever the settings say", folder, folder_why, "env")
    if env.get("CLAUDE_CODE_SIMPLE"):
        return AutoMemory(False, "CLAUDE_CODE_SIMPLE is set", folder, folder_why, "env")
    ignored = []
    for scope in ("local", "project", "user"):
        problem = invalid(values[scope])
        if problem:
            ignored.append(f"{files[scope]} is ignored by Claude Code ({problem})")
            continue
        value = values[scope].get(SETTING)
        if isinstance(value, bool):
            return AutoMemory(value, f'"{SETTING}": {str(value).lower()} in {files[scope]}'
                              + "".join(f"; {i}" for i in ignored),
                              folder, folder_why, f"setting:{scope}", ignored)
    return AutoMemory(True, f"on by default (no {SETTING} in any settings file Claude Code "
                      f"reads, no {DISABLE_ENV})" + "".join(f"; {i}" for i in ignored),
                      folder, folder_why, "default", ignored)


def invalid(settings: dict[str, object]) -> str | None:
    """Why Claude Code would reject a settings file's memory keys, else None. Measured
    with 2.1.332: `"autoMemoryDirectory": null` beside `"autoMemoryEnabled": false` left
    MEMORY.md in the request (the file's values were not applied)."""
    if SETTING in settings and not isinstance(settings[SETTING], bool):
        return f'"{SETTING}" is not true or false'
    if DIR_SETTING in settings and not isinstance(settings[DIR_SETTING], str):
        return f'"{DIR_SETTING}" is not a string'
    return None


def _folder(project: str, values: dict[str, dict[str, object]],
            env: dict[str, str] | os._Environ[str]) -> tuple[Path, str]:
    override = env.get(OVERRIDE_ENV)
    if override:
        return Path(override).expanduser(), f"{OVERRIDE_ENV} in the environment"
    for scope in ("local", "user"):  # a committed project file cannot move it
        moved = None if invalid(values[scope]) else values[scope].get(DIR_SETTING)
        if isinstance(moved, str) and moved.strip():
            return Path(moved).expanduser(), f'"{DIR_SETTING}" in the {scope} settings'
    root = canonical_root(project)
    return config_dir(env) / "projects" / project_key(root) / MEMORY_DIR, "default"


def memory_folders(project: str, env: dict[str, str] | None = None) -> list[Path]:
    """The folders Claude Code reads memory from for `project` (auto, then team): what a
    sandbox's denyWrite or a permissions.deny rule must name. Exact paths, no globs."""
    found = state(project, env)
    return [found.folder, found.team]


def notes(folder: Path) -> list[Path]:
    """The note files in a memory folder: MEMORY.md first, then topic files, then the team
    folder's; bounded, no symlink followed out of it."""
    out: list[Path] = []
    for base in (folder, folder / TEAM_DIR):
        try:
            entries = sorted(os.scandir(base), key=lambda e: (e.name != INDEX, e.name))
        except OSError:
            continue
        for entry in entries:
            if len(out) >= MAX_NOTES:
                return out
            try:
                if entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
                    out.append(Path(entry.path))
            except OSError:
                continue
    return out


def signature(folder: Path) -> str:
    """A cheap fingerprint of the folder: the folder's own stat and each note's name, size
    and mtime. "" when the folder does not exist. What the hooks compare, nothing more."""
    parts: list[str] = []
    for base in (folder, folder / TEAM_DIR):
        try:
            st = os.stat(base)
        except OSError:
            continue
        parts.append(f"{base.name}:{st.st_mtime_ns}")
        try:
            with os.scandir(base) as it:
                for entry in it:
                    if entry.name.endswith(".md"):
                        s = entry.stat(follow_symlinks=False)
                        parts.append(f"{entry.name}:{s.st_size}:{s.st_mtime_ns}")
        except OSError:
            continue
    return "|".join(sorted(parts))


def read_note(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read(MAX_NOTE_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""


_LINK_TO_NOTE = r"\]\([^)\s]+\.md\)"  # compiled on use (re caches): not at hook import
_BULLET = r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?"


def statements(text: str) -> list[tuple[int, str, dict[str, str]]]:
    """(line number, statement, the note's frontmatter) for each distinct statement in a
    note: one per bullet or paragraph line; headings, frontmatter and index lines (links
    to other notes, which are imported from their own file) are not statements."""
    lines = text.splitlines()
    front: dict[str, str] = {}
    start = 0
    if lines and lines[0].strip() == "---":
        for i in range(1, min(len(lines), 60)):
            if lines[i].strip() == "---":
                for row in lines[1:i]:
                    key, sep, value = row.partition(":")
                    if sep:
                        front[key.strip()] = value.strip()
                start = i + 1
                break
    out: list[tuple[int, str, dict[str, str]]] = []
    seen: set[str] = set()
    fence = False
    for number, line in enumerate(lines[start:], start + 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = not fence
            continue
        if fence or not stripped or stripped.startswith(("#", "<!--", "|", ">")):
            continue
        if re.search(_LINK_TO_NOTE, stripped):
            continue
        body = " ".join(re.sub(_BULLET, "", stripped).split())
        if len(body) < 8 or body.lower() in seen:
            continue
        seen.add(body.lower())
        out.append((number, body, front))
    return out


def note_hash(statement: str) -> str:
    """What `native_note` remembers a statement by: its visible words, hashed."""
    import hashlib

    from reviewer.sanitize.visible import strip

    return hashlib.sha256(" ".join(strip(statement).split()).encode()).hexdigest()


def unimported(conn: object, project: str, folder: Path) -> tuple[int, int, int]:
    """(notes, lines, statements not imported yet) of the folder, for `project`."""
    try:
        known = {r[0] for r in conn.execute(  # type: ignore[attr-defined]
            "SELECT hash FROM native_note WHERE project = ?", (project,))}
    except Exception:
        known = set()
    files = notes(folder)
    lines = waiting = 0
    for note in files:
        text = read_note(note)
        lines += len(text.splitlines())
        waiting += sum(1 for _, s, _ in statements(text) if note_hash(s) not in known)
    return len(files), lines, waiting


def default_folder(project: str) -> Path:
    """The folder without reading any settings file (what the hooks can afford)."""
    override = os.environ.get(OVERRIDE_ENV)
    if override:
        return Path(override).expanduser()
    return config_dir() / "projects" / project_key(canonical_root(project)) / MEMORY_DIR


MARKERS = "native-memory"  # in the data dir: the last sweep's signatures, per project


def marker_path(project: str) -> Path:
    """Named as Claude Code names the project (no hashlib: its import costs a hook ~4 ms);
    two projects with one name share a file, and the `project` inside tells them apart."""
    from reviewer import paths

    return paths.home() / MARKERS / (project_key(project) + ".json")


def write_marker(project: str, signatures: dict[str, str]) -> None:
    """What the hooks compare against without opening the store (the worker and install
    write it after each sweep; the store's native_folder rows remain the record)."""
    from reviewer import paths

    target = marker_path(project)
    paths.make_private_dirs(target.parent)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump({"project": project, "folders": signatures}, fh)
    os.replace(tmp, target)


def unchanged(project: str) -> bool | None:
    """True when every folder the last sweep recorded for `project` is as it was (a read
    of one small file and a stat of each folder and note); None without a record."""
    try:
        with open(marker_path(project), "rb") as fh:
            data = json.loads(fh.read(64 * 1024))
        folders = data["folders"]
        if data.get("project") != project or not isinstance(folders, dict) or not folders:
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return all(isinstance(sig, str) and sig and signature(Path(folder)) == sig
               for folder, sig in folders.items())


def needs_sweep(conn: object, project: str, register: object = None) -> bool:
    """Whether a memory folder of `project` changed since the worker last swept it: a
    stat of each recorded folder and its notes, nothing read. A folder never seen is
    registered (a row with no signature, written by `register(sql, args)` when given, else
    on `conn`), so the worker sweeps it. `conn` is a sqlite3 connection."""
    rows = conn.execute(  # type: ignore[attr-defined]
        "SELECT folder, signature FROM native_folder WHERE project = ?", (project,)
    ).fetchall()
    if not rows:
        folder = default_folder(project)
        if not notes(folder):
            return False
        shared = conn.execute(  # type: ignore[attr-defined]
            "SELECT signature FROM native_folder WHERE folder = ?", (str(folder),)).fetchone()
        if shared is not None:  # another checkout of the same repository swept it
            return bool(signature(folder) != shared[0])
        sql = "INSERT OR IGNORE INTO native_folder (folder, project, signature) VALUES (?, ?, '')"
        write = register if callable(register) else conn.execute  # type: ignore[attr-defined]
        write(sql, (str(folder), project))
        return True
    return any(signature(Path(folder)) != sig for folder, sig in rows)
