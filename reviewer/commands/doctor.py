"""`mem-review doctor`: one line per check, ✓ or ✗, and for each ✗ what to do.

Each check is a plain function returning a `Check`, so tests build broken setups and
read the verdicts without parsing output. Exit status 0 only when every check passes.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reviewer.project import resolve as project_dir

if TYPE_CHECKING:
    from reviewer.config import Config

STUCK_SECONDS = 300.0  # the worker beats every 10 s; five minutes of silence is a hang
WAITING_SECONDS = 3600.0  # a due job nobody picked up in an hour: no worker is starting
REQUIRED_HOOKS = ("session-start", "session-end", "pre-compact")


@dataclass
class Check:
    ok: bool
    name: str
    detail: str


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", metavar="DIR",
                        help="the project whose settings to check (default: the current one)")


def run(args: argparse.Namespace) -> int:
    results = checks(project_dir(args.project))
    good, bad = _marks()
    for check in results:
        print(f"{good if check.ok else bad} {check.name}: {check.detail}")
    return 0 if all(c.ok for c in results) else 1


def checks(project: str) -> list[Check]:
    from reviewer.config import ConfigError, load

    out: list[Check] = []
    try:
        cfg = load()
    except ConfigError as exc:
        cfg = None
        out.append(Check(False, "config", f"{exc}; fix or delete that setting"))
    else:
        out.append(check_config(cfg))
    out.extend(check_hooks(project))
    out.extend(check_sandbox(project))
    out.append(check_clients(project))
    out.append(check_extractor(cfg))
    home = check_data_dir()
    out.append(home)
    if home.ok:
        store, conn = check_store()
        out.append(store)
        if conn is not None:
            try:
                out.extend(check_queue(conn))
                out.extend(check_remote_trust(conn, project))
                out.append(check_semantic(conn, project))
            finally:
                conn.close()
        elif store.ok and _shares(project):  # a teammate's clone: the record needs a store
            from reviewer.store import db

            conn = db.connect()
            try:
                out.extend(check_remote_trust(conn, project))
            finally:
                conn.close()
    out.extend(check_doors(project, store=home.ok))
    return out


def check_semantic(conn: sqlite3.Connection, project: str) -> Check:
    from reviewer.store import vectors

    try:
        return Check(*vectors.doctor_line(conn, project))
    except sqlite3.Error as exc:  # a store of an older schema, read-only
        return Check(True, "semantic recall", f"not checked: {exc}")


def _shares(project: str) -> bool:
    from reviewer.sharing.format import FOLDER

    return os.path.isdir(os.path.join(project, os.path.dirname(FOLDER)))


def check_clients(project: str) -> Check:
    from reviewer.commands.client_setup import doctor_line

    return Check(*doctor_line(project))


def check_config(cfg: object) -> Check:
    from reviewer import paths
    from reviewer.config import EXTRACTORS

    extractor = getattr(cfg, "extractor", "auto")
    if extractor not in EXTRACTORS:
        return Check(False, "config", f'extractor = "{extractor}" is not one of '
                     f"{', '.join(EXTRACTORS)}; fix it in {paths.config_path()} or "
                     "MEM_REVIEW_EXTRACTOR")
    budget = getattr(cfg, "inject_budget_chars", 0)
    if budget <= 0:
        return Check(False, "config", f"inject_budget_chars = {budget} must be positive")
    return Check(True, "config", f"extractor {extractor}, model {getattr(cfg, 'model', '?')}, "
                 f"injection budget {budget:,} characters")


def check_hooks(project: str) -> list[Check]:
    """Which settings files hold our hooks, and whether each executable they name runs."""
    from reviewer.claude_code import settings_file
    from reviewer.errors import UserError

    found: dict[str, list[tuple[str, str]]] = {}  # scope -> [(arg, command)]
    out: list[Check] = []
    unreadable: dict[str, Path] = {}  # scope -> its settings file, which install refuses
    for scope in ("user", "project", "local"):
        path = settings_file.settings_path(scope, project)
        try:
            data, _ = settings_file.load(path)
        except UserError as exc:
            unreadable[scope] = path
            out.append(Check(False, f"settings ({scope})", f"{exc}; Claude Code cannot read "
                             "its hooks either"))
            continue
        mine = [(arg, command) for _, arg, command in settings_file.entries(data)]
        if mine:
            found[scope] = mine
    present = {arg for entries in found.values() for arg, _ in entries}
    missing = [arg for arg in REQUIRED_HOOKS if arg not in present]
    where = ", ".join(f"{scope} ({settings_file.settings_path(scope, project)})" for scope in found)
    if missing:
        out.append(Check(False, "hooks", f"missing {', '.join(missing)}"
                         + (f" (found some in {where})" if found else "")
                         + "; " + _install_advice(unreadable)))
    else:
        guard = " with the PreToolUse guard" if "pre-tool-use" in present else ""
        out.append(Check(True, "hooks", f"installed in {where}{guard}"))
    commands = {command for entries in found.values() for _, command in entries}
    exes = {_exe_of(command) for command in commands}
    if len(found) > 1 and len(exes) > 1:
        out.append(Check(False, "hooks", "installed in several scopes with different "
                         "executables, so each session runs them twice; keep one with "
                         "`mem-review uninstall --scope <scope>`"))
    for exe in sorted(e for e in exes if e):
        out.append(check_executable(exe))
    return out


def check_doors(project: str, *, store: bool = True) -> list[Check]:
    """Each door memory reaches a session through (reviewer/claude_code/doors.py); the
    store is read only when the data dir is sound."""
    from reviewer import paths
    from reviewer.claude_code.doors import doors

    conn = None
    try:
        if store and paths.db_path().exists():
            conn = sqlite3.connect(f"file:{paths.db_path()}?mode=ro", uri=True, timeout=5)
    except (sqlite3.Error, OSError):
        conn = None
    try:
        return [Check(d.ok, f"memory door: {d.name}", d.line()) for d in doors(project, conn)]
    finally:
        if conn is not None:
            conn.close()


def check_sandbox(project: str) -> list[Check]:
    """Whether Claude Code's OS sandbox really runs here (only when the guard is set up)."""
    from reviewer.claude_code import sandbox, settings_file
    from reviewer.errors import UserError

    scopes = {}
    for scope in settings_file.SCOPES:
        try:
            data, _ = settings_file.load(settings_file.settings_path(scope, project))
        except UserError:  # check_hooks reports an unreadable file
            continue
        if isinstance(data.get("sandbox"), dict) or any(
                arg == settings_file.GUARD.arg for _, arg, _ in settings_file.entries(data)):
            scopes[scope] = data
    if not scopes:
        return []
    ok, detail = sandbox.check(scopes, project)
    return [Check(ok, "sandbox", detail)]


def check_remote_trust(conn: sqlite3.Connection, project: str) -> list[Check]:
    """Verify the project's shared facts against the recorded remote (a person's run, so
    outside Claude Code's sandbox); nothing to say for a project that shares nothing."""
    from reviewer.sharing import remote_trust

    try:
        url = remote_trust.recorded_url(conn, project)
    except sqlite3.Error:
        return []
    setup = url is None and _shares(project)
    if url is None and not setup:
        return []
    try:
        got = remote_trust.refresh(conn, project, setup=setup)
    except remote_trust.VerifyError as exc:
        return [Check(False, "shared facts", f"cannot verify against {url}: {exc}; shared "
                      "facts count as last verified")]
    return [Check(True, "shared facts", f"verified: {got.url} {got.branch} at "
                  f"{got.commit[:12]} holds {len(got.blobs)} shared file(s)")]


def _install_advice(unreadable: dict[str, Path]) -> str:
    """What to run to add the hooks, never a command that would refuse: install will not
    edit a settings file it cannot read."""
    scope = _install_scope()
    if scope not in unreadable:
        return "run `mem-review install`" + (
            "" if "user" in unreadable or scope == "user"
            else " (or `--scope user` for every project)")
    fix = f"fix {unreadable[scope]} first (`mem-review install` will not edit a file it "
    fix += "cannot read)"
    return fix + ("" if "user" in unreadable else ", or run `mem-review install --scope user`")


def _install_scope() -> str:
    """The scope a bare `mem-review install` writes (its parser's default)."""
    from reviewer.commands import install

    parser = argparse.ArgumentParser()
    install.configure(parser)
    return str(parser.get_default("scope"))


def check_executable(exe: str) -> Check:
    if not Path(exe).is_file():
        return Check(False, "executable", f"{exe} does not exist; run `mem-review install` "
                     "again from the environment mem-review is installed in")
    try:
        done = subprocess.run([exe, "--version"], capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check(False, "executable", f"{exe} does not run ({exc}); reinstall mem-review")
    version = done.stdout.decode("utf-8", "replace").strip()
    if done.returncode != 0 or not version:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        return Check(False, "executable", f"{exe} --version failed ({err[0]}); reinstall "
                     "mem-review")
    return Check(True, "executable", f"{exe} runs ({version})")


def check_extractor(cfg: Config | None) -> Check:
    """Which extractor runs and why, and whether it can: a key, a signed-in Claude Code.
    The rules chosen by default (no key, no `claude`) are a ✗: they find next to nothing."""
    from capture.extractors import resolve
    from reviewer.config import RULES_FIND_LITTLE, Config

    cfg = cfg or Config()
    choice = resolve(cfg)
    if choice.name == "rules":
        ok = cfg.extractor == "rules"  # asked for: fine, but say what it means
        fix = "" if ok else ("; set ANTHROPIC_API_KEY, or install Claude Code and sign in, "
                             "so a model reads the sessions")
        if choice.waiting:
            fix += _waiting_line()
        return Check(ok, "extractor", f"rules ({choice.reason}): {RULES_FIND_LITTLE}{fix}")
    if choice.name == "api":
        if os.environ.get("ANTHROPIC_API_KEY"):
            return Check(True, "extractor", f"api, {cfg.model} ({choice.reason})")
        return Check(False, "extractor", f"api ({choice.reason}) but ANTHROPIC_API_KEY is not "
                     'set; export it where Claude Code runs, or set extractor = "auto" to use '
                     "your signed-in Claude Code")
    from capture.extractors.claude_code import ClaudeCodeExtractor

    why_not = ClaudeCodeExtractor(cfg, binary=choice.claude).unavailable()
    if why_not:
        return Check(False, "extractor", f"claude-code ({choice.reason}): {why_not}")
    return Check(True, "extractor", f"claude-code, {cfg.model} ({choice.reason}), signed in")


def _waiting_line() -> str:
    """How many sessions wait for a model (issue 21); "" when none or unreadable."""
    from reviewer import paths
    from reviewer.store import db, waiting

    try:
        if not paths.db_path().is_file():  # doctor creates no store
            return ""
        conn = db.connect()
        try:
            n = waiting.count(conn)
        finally:
            conn.close()
    except Exception:  # the store has its own check; this line is advisory
        return ""
    return f"; {waiting.summary(n)}" if n else ""


def check_data_dir() -> Check:
    """The data dir must be ours alone, as ssh's StrictModes wants of ~/.ssh: otherwise
    nothing reads or writes it (the hooks log to stderr and do nothing)."""
    from reviewer import paths

    where = paths.home()
    try:
        if not os.path.lexists(where):
            paths.check_creatable(where)
            return Check(True, "data dir", f"none yet at {where}; the first capture creates "
                         "it (0700)")
        paths.check_home(where)
    except paths.HomeError as exc:
        return Check(False, "data dir", f"{exc}. Until then mem-review neither reads nor "
                     "writes it, and the hooks do nothing")
    if _read_only_fs(where):  # not a permissions problem: "check its permissions" misled
        return Check(False, "data dir", f"{where} is on a read-only filesystem (its "
                     "permissions are fine): nothing can be captured, logged or reviewed "
                     "there; remount it read-write, or point MEM_REVIEW_HOME at a writable "
                     "directory")
    return Check(True, "data dir", f"{where}: a directory of yours that only you can reach")


def _read_only_fs(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs (Windows): the store check speaks
        return False


def check_store() -> tuple[Check, sqlite3.Connection | None]:
    from reviewer import paths
    from reviewer.store import schema

    db_file = paths.db_path()
    if not db_file.exists():
        return Check(True, "store", f"none yet at {db_file}; the first capture creates it"), None
    problems = []
    if os.name == "posix":
        for path, want in ((paths.home(), 0o700), (db_file, 0o600)):
            mode = path.stat().st_mode & 0o777
            if mode & 0o077:
                problems.append(f"{path} is {oct(mode)[2:]}, readable by others: "
                                f"chmod {oct(want)[2:]} {path}")
    from reviewer.store import db

    try:
        conn = sqlite3.connect(f"file:{db_file}?mode=rw", uri=True, timeout=5,
                               isolation_level=None)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        problem = db.integrity(conn, db_file)
    except sqlite3.Error as exc:
        if db.is_damage(exc):
            db.mark_damaged(db_file, exc)
            return Check(False, "store", str(db.damaged(db_file, exc))), None
        return Check(False, "store", f"{db_file} cannot be opened ({exc}); check its "
                     "permissions, or move it aside to start afresh"), None
    if problem is not None:
        conn.close()
        db.mark_damaged(db_file, problem)
        return Check(False, "store", str(db.damaged(db_file, problem))), None
    if db.known_damage(db_file) is not None:
        db.clear_damaged(db_file)  # found damaged once, sound now: writing may resume
    if version > schema.VERSION:
        conn.close()
        return Check(False, "store", f"schema version {version} is newer than this "
                     f"mem-review ({schema.VERSION}); upgrade mem-review"), None
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
    except sqlite3.Error as exc:
        problems.append(f"not writable ({exc}): check the permissions of {db_file} and its dir")
    if problems:
        return Check(False, "store", "; ".join(problems)), conn
    note = "" if version == schema.VERSION else f" (upgraded to {schema.VERSION} on next use)"
    return Check(True, "store", f"{db_file} sound, readable and writable, schema version "
                 f"{version}{note}"), conn



def check_queue(conn: sqlite3.Connection) -> list[Check]:
    from capture.worker_lock import is_running

    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'job'").fetchone():
        return [Check(True, "queue", "empty (no schema yet)")]
    now = time.time()
    alive = is_running()
    out: list[Check] = []
    # With the lock free, any `running` job is stale however fresh its heartbeat (a worker
    # stopped by Ctrl-C a second ago): "idle" beside "1 running" contradicted itself.
    stuck = conn.execute(
        "SELECT id, heartbeat, claimed_by FROM job WHERE state = 'running' "
        "AND COALESCE(heartbeat, 0) < ? ORDER BY id LIMIT 1",
        (now - STUCK_SECONDS if alive else now + 1,),
    ).fetchone()
    if stuck is None:
        out.append(Check(True, "worker", "running" if alive else "idle (started by the hooks)"))
    elif alive:
        out.append(Check(False, "worker", f"job {stuck[0]} has had no heartbeat for "
                         f"{_ago(now - (stuck[1] or 0))} yet a worker holds the lock; stop "
                         f"that worker (pid {stuck[2]}) and run `mem-review worker`"))
    else:
        out.append(Check(False, "worker", f"idle; job {stuck[0]} was left running by a worker "
                         "that stopped (interrupted or killed): the next worker puts it back "
                         "in the queue and retries it; run `mem-review worker --once` now"))
    counts = dict(conn.execute("SELECT state, COUNT(*) FROM job GROUP BY state").fetchall())
    running = f"{counts.get('running', 0)} " + ("running" if alive or not counts.get(
        "running") else "left running, to be retried")
    depth = (f"{counts.get('queued', 0)} queued, {running}, "
             f"{counts.get('done', 0)} done, {counts.get('failed', 0)} failed")
    waiting = conn.execute(
        "SELECT MIN(not_before) FROM job WHERE state = 'queued' AND not_before < ?",
        (now - WAITING_SECONDS,),
    ).fetchone()[0]
    if waiting is not None and not alive:
        out.append(Check(False, "queue", f"{depth}; a job has waited {_ago(now - waiting)} "
                         "with no worker: run `mem-review worker`"))
    else:
        out.append(Check(True, "queue", depth))
    last = conn.execute(
        "SELECT id, state, last_error, updated_at FROM job WHERE last_error IS NOT NULL "
        "AND state IN ('queued', 'failed') ORDER BY updated_at DESC LIMIT 1"
    ).fetchone()
    if last is None:
        out.append(Check(True, "last error", "none"))
    else:
        what = "failed" if last[1] == "failed" else "will be retried"
        todo = (f"once the cause is fixed, `mem-review retry {last[0]}` (or `--all`) puts it "
                "back" if last[1] == "failed" else "see `mem-review status` and the log")
        out.append(Check(False, "last error", f"job {last[0]} {what} ({_ago(now - last[3])} "
                         f"ago): {last[2][:200]}; {todo}"))
    return out


def _exe_of(command: str) -> str:
    import shlex
    import shutil

    from reviewer.claude_code import settings_file

    if settings_file.is_portable(command):  # `install --portable`: whatever PATH finds
        return shutil.which(settings_file.EXE_NAME) or "mem-review (not on PATH)"
    try:
        return shlex.split(command)[0]
    except (ValueError, IndexError):
        return ""


def _ago(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


def _marks() -> tuple[str, str]:
    encoding = getattr(sys.stdout, "encoding", None) or "ascii"
    try:
        "✓✗".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return "OK ", "BAD"
    return "✓", "✗"
