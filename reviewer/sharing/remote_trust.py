"""Trust from the remote, not from local refs (SECURITY.md, "Shared facts").

Every local ref, config file and object of a working clone can be written by the agent:
`refs/remotes/origin/main` (pushed or fetched into, written as a file or a `packed-refs`
line), `url.<x>.insteadOf` in `.git/config` or `~/.gitconfig`, `git replace`, alternates,
`commondir`. So a shared file counts only when the remote itself holds its blob on its
default branch, asked at the URL recorded when sharing was set up here, by a git that
reads none of that:

- no user, global or system config (`GIT_CONFIG_GLOBAL=/dev/null`, `GIT_CONFIG_NOSYSTEM`),
  no inherited `GIT_*` variable (`GIT_CONFIG_PARAMETERS`, `GIT_DIR`, alternates…), replace
  objects off (`--no-replace-objects`, `GIT_NO_REPLACE_OBJECTS`), hooks and fsmonitor off,
  the `ext::` transport refused, no lazy fetches;
- a private bare repository in the data dir (which the sandbox protects) fetches the
  default branch (`ls-remote --symref HEAD`) and lists `.mem-review/` at that commit.

The result, {path: blob}, is kept in the store (`share_remote`, `share_trust`).
SessionStart reads only that record: offline, no git call for trust. Verification runs
when a person runs `mem-review share` or `mem-review doctor`, and in the worker (at most
every `STALE_SECONDS`), all outside Claude Code's sandbox.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import subprocess
import time
from dataclasses import dataclass

from reviewer import paths
from reviewer.sharing import trust
from reviewer.sharing.format import FOLDER, REJECTIONS

REMOTE = "origin"
NET_TIMEOUT = 60.0
STALE_SECONDS = 600.0  # the worker verifies again after this long
TRUST_REF = "refs/mem-review/default"
# Credential helpers passed through from the person's global config by name alone (no
# `!command`, no options): a private https remote needs one, and none of these runs code
# named by a file the agent could write.
HELPERS = frozenset({"cache", "store", "osxkeychain", "manager", "manager-core",
                     "libsecret", "wincred"})
_OVERRIDES = (
    "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
    "-c", "protocol.ext.allow=never", "-c", "core.sshCommand=ssh",
    "-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "fetch.recurseSubmodules=false",
)


class VerifyError(Exception):
    """Why the remote could not be asked (one line)."""


@dataclass
class Verified:
    url: str
    branch: str
    commit: str
    blobs: dict[str, str]


def key(root: str | os.PathLike[str]) -> str:
    return os.path.realpath(root)


def env() -> dict[str, str]:
    """The environment of every git this module runs: nothing of the caller's git setup."""
    out = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    out.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
               GIT_NO_REPLACE_OBJECTS="1", GIT_TERMINAL_PROMPT="0", GIT_NO_LAZY_FETCH="1",
               LC_ALL="C")
    return out


def git(*args: str, git_dir: str | None = None, timeout: float = NET_TIMEOUT,
        extra: tuple[str, ...] = ()) -> str:
    cmd = ["git", "--no-replace-objects", *_OVERRIDES, *extra]
    if git_dir is not None:
        cmd.append(f"--git-dir={git_dir}")
    try:
        done = subprocess.run([*cmd, *args], env=env(), capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL, check=False,
                              cwd=git_dir or "/")
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise VerifyError(f"git {args[0]}: {exc}") from None
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        raise VerifyError(f"git {args[0]}: {why[:200]}")
    return done.stdout


def origin_url(root: str | os.PathLike[str]) -> str | None:
    """`remote.origin.url` as the repository's own config file spells it: no insteadOf
    rewriting, no global config, no includes."""
    try:
        out = git("config", "--local", "--no-includes", "--get", f"remote.{REMOTE}.url",
                  extra=("-C", os.fspath(root)), timeout=10)
    except VerifyError:
        return None
    return out.strip() or None


def _helpers() -> tuple[str, ...]:
    """`-c credential.helper=NAME` for the person's global helpers that are plain names."""
    try:
        done = subprocess.run(["git", "config", "--global", "--get-all", "credential.helper"],
                              capture_output=True, text=True, timeout=5, check=False,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    names = [h.strip() for h in done.stdout.splitlines() if h.strip() in HELPERS]
    return tuple(x for name in names for x in ("-c", f"credential.helper={name}"))


def private_repo(root: str | os.PathLike[str]) -> str:
    """The bare repository in the data dir that holds what the remote sent, created once
    with no template (no hooks)."""
    digest = hashlib.sha256(key(root).encode()).hexdigest()[:16]
    path = paths.home() / "trust" / f"{digest}.git"
    if not (path / "HEAD").exists():
        paths.make_private_dirs(path.parent)
        git("init", "--bare", "--quiet", "--template=", str(path), timeout=30)
    return str(path)


def ask(root: str | os.PathLike[str], url: str) -> Verified:
    """What the remote at `url` holds under the shared folder on its default branch."""
    repo = private_repo(root)
    creds = _helpers()
    heads = git("ls-remote", "--symref", url, "HEAD", git_dir=repo, extra=creds)
    branch, commit = "", ""
    for line in heads.splitlines():
        left, _, right = line.partition("\t")
        if left.startswith("ref: refs/heads/") and right == "HEAD":
            branch = left.removeprefix("ref: refs/heads/")
        elif right == "HEAD":
            commit = left.strip()
    if not branch or not commit:
        raise VerifyError(f"{url} names no default branch (an empty repository?)")
    git("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--filter=blob:none", url,
        f"+refs/heads/{branch}:{TRUST_REF}", git_dir=repo, extra=creds)
    fetched = git("rev-parse", "--verify", "--end-of-options", f"{TRUST_REF}^{{commit}}",
                  git_dir=repo, timeout=10).strip()
    listing = git("ls-tree", "-r", "-z", "--full-tree", fetched, "--", FOLDER + "/",
                  REJECTIONS + "/", git_dir=repo, timeout=30)
    return Verified(url, branch, fetched, trust.parse_listing(listing.encode(
        "utf-8", "surrogateescape")))


# ---- the record in the store -----------------------------------------------------------


def recorded_url(conn: sqlite3.Connection, root: str | os.PathLike[str]) -> str | None:
    row = conn.execute("SELECT url FROM share_remote WHERE project = ?", (key(root),)).fetchone()
    return row[0] if row else None


def record_url(conn: sqlite3.Connection, root: str | os.PathLike[str], url: str) -> None:
    """The remote this project's shared facts are checked against (a person's act:
    `share` the first time, or `share --trust-remote URL`); the old verdicts go."""
    with conn:
        conn.execute("DELETE FROM share_trust WHERE project = ?", (key(root),))
        conn.execute(
            "INSERT INTO share_remote (project, url, recorded_at) VALUES (?, ?, ?) "
            "ON CONFLICT (project) DO UPDATE SET url = excluded.url, recorded_at = "
            "excluded.recorded_at, branch = NULL, commit_sha = NULL, verified_at = NULL, "
            "last_error = NULL", (key(root), url, time.time()))


def refresh(conn: sqlite3.Connection, root: str | os.PathLike[str], *,
           setup: bool = False) -> Verified:
    """Ask the recorded remote and keep what it holds; `setup` records origin's URL (as
    the repository's own config spells it) when none is recorded yet. Raises VerifyError
    (also recorded as the project's last error)."""
    url = recorded_url(conn, root)
    if url is None:
        found = origin_url(root) if setup else None
        if found is None:
            raise VerifyError(f"no remote recorded for {key(root)}: `mem-review share` "
                              f"records {REMOTE}'s URL")
        record_url(conn, root, found)
        url = found
    try:
        got = ask(root, url)
    except VerifyError as exc:
        with conn:
            conn.execute("UPDATE share_remote SET last_error = ? WHERE project = ?",
                         (str(exc), key(root)))
        raise
    with conn:
        conn.execute("DELETE FROM share_trust WHERE project = ?", (key(root),))
        conn.executemany("INSERT INTO share_trust (project, path, blob) VALUES (?, ?, ?)",
                         [(key(root), p, b) for p, b in got.blobs.items()])
        conn.execute("UPDATE share_remote SET branch = ?, commit_sha = ?, verified_at = ?, "
                     "last_error = NULL WHERE project = ?",
                     (got.branch, got.commit, time.time(), key(root)))
    return got


def due(conn: sqlite3.Connection, now: float | None = None) -> list[str]:
    """Projects whose record is older than STALE_SECONDS (for the worker)."""
    now = time.time() if now is None else now
    return [r[0] for r in conn.execute(
        "SELECT project FROM share_remote WHERE verified_at IS NULL OR verified_at < ?",
        (now - STALE_SECONDS,))]


def load(root: str | os.PathLike[str]) -> tuple[dict[str, str], str] | None:
    """({path: blob}, "origin/<branch>") as last verified, read from the store without
    writing it and without git; None when nothing was verified for this project."""
    db = paths.db_path()
    if not db.exists():
        return None
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=2)
    except sqlite3.Error:
        return None
    try:
        row = conn.execute("SELECT branch FROM share_remote WHERE project = ? AND "
                           "verified_at IS NOT NULL", (key(root),)).fetchone()
        if row is None:
            return None
        blobs = dict(conn.execute("SELECT path, blob FROM share_trust WHERE project = ?",
                                  (key(root),)).fetchall())
        return blobs, f"{REMOTE}/{row[0]}"
    except sqlite3.Error:  # an older store (no table yet) or a damaged one: nothing counts
        return None
    finally:
        with contextlib.suppress(sqlite3.Error):
            conn.close()
