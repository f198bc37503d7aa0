"""Anchor facts to the code: the commit they were captured at and each cited file's blob SHA.

Stdlib only (hashlib, one `git` subprocess at most): the SessionStart hook recomputes these
to withhold stale facts, within a budget of a few dozen milliseconds. Refs are read from
`.git` directly because a subprocess costs more than the whole rest of the check.

Anchors are hashes of the raw working-tree bytes (what `git hash-object --no-filters`
prints): with clean/smudge filters or `autocrlf` they can differ from the index's SHA, so
staleness always compares raw bytes with raw bytes and never mixes in the index's SHAs.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from reviewer.freshness import cited

ABSENT = "absent"  # an anchor meaning "no file here", set when a person verifies
EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # many files share it: never a rename clue


hash_bytes = cited.hash_bytes


def blob_sha(path: str | os.PathLike[str]) -> str | None:
    """Git's blob SHA-1 of a working-tree file (what `git hash-object` prints); None if
    absent or not a bounded regular file (`reviewer.freshness.cited`)."""
    path = os.path.abspath(os.fspath(path))
    return cited.blob_sha(os.path.dirname(path), os.path.basename(path))[0]


def is_git(root: str | os.PathLike[str]) -> bool:
    """Whether `root` is the top of a git work tree (a `.git` dir or gitdir file)."""
    return _git_dir(Path(root)) is not None


def git_head(root: str | os.PathLike[str]) -> tuple[str | None, str | None]:
    """(HEAD commit SHA, branch) read from `.git` directly; (None, None) outside git."""
    git_dir = _git_dir(Path(root))
    if git_dir is None:
        return None, None
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None, None
    if not head.startswith("ref: "):
        return (head or None), None
    ref = head[5:]
    branch = ref.removeprefix("refs/heads/")
    common = _common_dir(git_dir)
    for base in (git_dir, common):
        try:
            return (base / ref).read_text(encoding="utf-8").strip() or None, branch
        except OSError:
            continue
    try:  # packed refs
        for line in (common / "packed-refs").read_text(encoding="utf-8").splitlines():
            if line.endswith(" " + ref):
                return line.split(" ", 1)[0], branch
    except OSError:
        pass
    return None, branch  # an unborn branch


def anchor_files(
    root: str | os.PathLike[str], files: list[str], *, missing: str | None = None
) -> tuple[str | None, str | None, dict[str, str | None]]:
    """(commit, branch, {relative path: blob SHA, or `missing` when there is no file}).

    At capture a missing file is anchored to None: the model cited a path that does not
    exist, nothing to compare. When a person re-verifies a fact whose file is gone, it is
    anchored to ABSENT: true while the file stays away, stale if it comes back.
    """
    commit, branch = git_head(root)
    return commit, branch, cited.anchor(root, files, missing=missing)[0]


def read_ref(root: str | os.PathLike[str], ref: str) -> str | None:
    """The value of a full ref (`refs/heads/main`): a SHA, or `ref: <target>`; None if absent."""
    git_dir = _git_dir(Path(root))
    if git_dir is None:
        return None
    common = _common_dir(git_dir)
    for base in (git_dir, common):
        try:
            return (base / ref).read_text(encoding="utf-8").strip() or None
        except OSError:
            continue
    try:
        for line in (common / "packed-refs").read_text(encoding="utf-8").splitlines():
            if line.endswith(" " + ref) and not line.startswith(("#", "^")):
                return line.split(" ", 1)[0]
    except OSError:
        pass
    return None


def default_branch(root: str | os.PathLike[str]) -> str | None:
    """The branch work merges into, from `.git` without git: `origin/HEAD`'s target, else a
    local or remote `main`/`master`. Returned as a revision git accepts (`origin/main`)."""
    target = read_ref(root, "refs/remotes/origin/HEAD")
    if target and target.startswith("ref: refs/remotes/"):
        return target.removeprefix("ref: refs/remotes/")
    for name in ("main", "master"):
        if read_ref(root, f"refs/heads/{name}"):
            return name
        if read_ref(root, f"refs/remotes/origin/{name}"):
            return f"origin/{name}"
    return None


def _git_dir(root: Path) -> Path | None:
    dot = root / ".git"
    if dot.is_dir():
        return dot
    if dot.is_file():  # a worktree or submodule: "gitdir: <path>"
        try:
            text = dot.read_text(encoding="utf-8").strip()
        except OSError:
            return None
        if text.startswith("gitdir:"):
            target = Path(text[7:].strip())
            return target if target.is_absolute() else (root / target).resolve()
    return None


def _common_dir(git_dir: Path) -> Path:
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir
    path = Path(common)
    return path if path.is_absolute() else (git_dir / path).resolve()


class GitInBackground:
    """A git command started now and read later: it works on the other core while this
    process reads the store. `output()` waits (bounded by `timeout`); `stop()` always
    leaves no child behind."""

    def __init__(self, root: str | os.PathLike[str], *args: str, timeout: float = 3.0) -> None:
        self._timeout, self._done = timeout, False
        self._out: bytes | None = None
        self._proc: subprocess.Popen[bytes] | None
        try:
            self._proc = subprocess.Popen(
                ["git", "-C", str(root), *args], stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                start_new_session=True,  # its own group: stopping it stops its children too
            )
        except OSError:
            self._proc, self._done = None, True

    def output(self, wait: float | None = None) -> bytes | None:
        """Its stdout; None when it could not start, failed, or did not finish within
        `wait` seconds (default: the timeout), after which it is stopped."""
        if self._done or self._proc is None:
            return self._out
        self._done = True
        try:
            out, _ = self._proc.communicate(timeout=self._timeout if wait is None else wait)
        except subprocess.TimeoutExpired:
            self.stop()
            return None
        self._out = out if self._proc.returncode == 0 else None
        return self._out

    def stop(self) -> None:
        self._done = True
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        if proc.stdout is not None:
            proc.stdout.close()  # never wait on a pipe a grandchild may still hold
        proc.wait()


def run_git(root: str | os.PathLike[str], *args: str, timeout: float = 10) -> str | None:
    """Run one git command; None when git is missing or fails (callers degrade)."""
    git = GitInBackground(root, *args, timeout=timeout)
    try:
        out = git.output()
    finally:
        git.stop()
    return None if out is None else out.decode("utf-8", "replace")
