"""The shared folder of a working tree, read as it is: no import step, nothing stored.

Stdlib only (the SessionStart hook). `begin` lists and reads the folder; `finish` judges
each file by `trust` against what the remote's default branch held when last verified
(`remote_trust`: a record in the store, no git call, no network). With no folder,
nothing is read and `begin` returns None.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

from reviewer.freshness import anchors
from reviewer.log import log
from reviewer.sharing import format as fmt
from reviewer.sharing import remote_trust, trust

# Bounds on what the folder can cost (issue 19: 20,000 junk files dropped the team's real
# fact and took SessionStart 9.8 s). Files git tracks are read first: only a committed
# file can ever count (trust.judge), so junk the agent drops in the folder never pushes a
# real fact out. Untracked ones are read only to count them as pending, a few.
MAX_SCAN = 50_000  # directory entries looked at
MAX_FILES = 2_000  # files read
MAX_UNTRACKED = 100  # of which not tracked by git
MAX_TOTAL_BYTES = 16 * 1024 * 1024
READ_SECONDS = 1.0


@dataclass
class Entry:
    """One file of the folder, and what it counts for."""

    path: str  # relative to the project root
    sha: str  # git blob sha of its bytes
    fact: Any  # a SharedFact (or SharedRejection); None: not one (`reason` says why)
    state: str  # "approved", "pending" or "invalid"
    reason: str = ""


@dataclass
class Reading:
    base: str | None = None  # the remote ref judged against, short ("origin/main")
    entries: list[Entry] = field(default_factory=list)

    @property
    def approved(self) -> list[fmt.SharedFact]:
        return [e.fact for e in self.entries if e.state == trust.APPROVED and e.fact]

    @property
    def pending(self) -> list[Entry]:
        return [e for e in self.entries if e.state != trust.APPROVED]


class Reader:
    """The folder read now; judged in `finish` against the verified record."""

    def __init__(self, root: str, files: list[tuple[str, bytes]], folder: str = fmt.FOLDER,
                 parse: Any = fmt.loads) -> None:
        self.root, self.files, self.folder, self.parse = root, files, folder, parse
        self.ref: str | None = None

    def finish(self) -> Reading:
        remote: dict[str, str] | None = None
        verified = remote_trust.load(self.root) if self.files else None
        if verified is not None:
            remote, self.ref = verified
        hashed = [(path, data, anchors.hash_bytes(data)) for path, data in self.files]
        shas = {sha for _, _, sha in hashed}
        index = trust.index_blobs(self.root, shas, self.folder) if hashed else None
        reading = Reading(base=trust.short(self.ref) if self.ref else None)
        for path, data, sha in hashed:
            reading.entries.append(_entry(path, data, sha, index, remote, self.ref, self.parse))
        return reading

    def stop(self) -> None:
        """Nothing runs in the background any more; kept for the callers' try/finally."""


def begin(root: str | os.PathLike[str], kind: str = fmt.FOLDER) -> Reader | None:
    """Start reading `kind` (the facts folder, or `fmt.REJECTIONS`) of the tree at `root`."""
    root = os.fspath(root)
    folder = os.path.join(root, kind)
    names, scanned_all = _names(folder)
    if names is None:  # no folder (the usual case), or unreadable
        return None
    tracked = _tracked(root, kind)
    if tracked is None:  # no index here: every name is as good as another
        first, rest = sorted(names), []
    else:
        first = sorted(n for n in names if n in tracked)
        rest = sorted(n for n in names if n not in tracked)
    order = first + rest[:MAX_UNTRACKED]
    files: list[tuple[str, bytes]] = []
    total, deadline, read_n = 0, time.monotonic() + READ_SECONDS, 0
    for name in order:
        if read_n >= MAX_FILES or total >= MAX_TOTAL_BYTES or time.monotonic() > deadline:
            break
        read_n += 1
        data = _read(os.path.join(folder, name))
        if data is not None:
            files.append((f"{kind}/{name}", data))
            total += len(data)
    skipped = len(names) - read_n
    if skipped or not scanned_all:
        log("sharing", f"{kind}: {skipped} of {len(names)}{'' if scanned_all else '+'} files "
            f"not read ({len(rest)} untracked by git, read at most {MAX_UNTRACKED}; at most "
            f"{MAX_FILES} files, {MAX_TOTAL_BYTES // (1024 * 1024)} MiB, {READ_SECONDS:g} s)")
    parse = fmt.loads_rejection if kind == fmt.REJECTIONS else fmt.loads
    return Reader(root, files, kind, parse)


def read(root: str | os.PathLike[str], kind: str = fmt.FOLDER) -> Reading:
    """Everything in the folder, judged (an empty Reading without one)."""
    reader = begin(root, kind)
    return Reading() if reader is None else reader.finish()


def rejections(root: str | os.PathLike[str]) -> list[fmt.SharedRejection]:
    """The team's rejections that count (same trust rule as facts): for the extractor."""
    return [e.fact for e in read(root, fmt.REJECTIONS).entries  # type: ignore[misc]
            if e.state == trust.APPROVED and e.fact is not None]


def verified_approver(root: str | os.PathLike[str], path: str, timeout: float = 3.0) -> str:
    """Who put the file's current content on the remote's default branch: the author of
    the last commit there that changed `path` ("Name <email>"), "" when unknown.

    A fact file's `approved_by` is only a claim (anyone who can write the file writes
    it); this is the name to show. It is read from the private copy of the remote that
    verification fetched (reviewer/sharing/remote_trust.py: in the data dir, which the
    sandbox protects), never from a ref of the clone. One bounded git call: for the review
    screen, never SessionStart."""
    import subprocess

    repo = remote_trust.private_repo(root)
    try:
        out = remote_trust.git("log", "-1", "--format=%an <%ae>", remote_trust.TRUST_REF,
                               "--", path, git_dir=repo, timeout=timeout)
    except (remote_trust.VerifyError, OSError, subprocess.SubprocessError):
        return ""
    return " ".join((out or "").split())[:200]


def _names(folder: str) -> tuple[list[str] | None, bool]:
    """(fact file names in `folder`, whether all its entries were looked at): at most
    MAX_SCAN entries, symlinks and non-files left out."""
    names: list[str] = []
    try:
        with os.scandir(folder) as it:
            for n, e in enumerate(it):
                if n >= MAX_SCAN:
                    return names, False
                if e.name.endswith(fmt.SUFFIX) and e.is_file(follow_symlinks=False):
                    names.append(e.name)
    except OSError:
        return None, True
    return names, True


def _tracked(root: str, kind: str) -> set[str] | None:
    """Names in the folder the git index holds (committed or staged), None without one."""
    from reviewer.freshness import git_index

    entries = git_index.read_entries(root)
    if entries is None:
        return None
    prefix = kind + "/"
    return {e.path[len(prefix):] for e in entries
            if e.path.startswith(prefix) and "/" not in e.path[len(prefix):]}


def _read(path: str) -> bytes | None:
    """A regular file's bytes, never through a symlink, at most MAX_BYTES (+1 to tell).
    (Trust never rests on this: what is read counts only if its hash is origin's blob.)"""
    try:
        fd = os.open(path, _FLAGS)
    except OSError:
        return None
    try:
        return os.read(fd, fmt.MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)


def _entry(
    path: str, data: bytes, sha: str, index: dict[str, str] | None,
    remote: dict[str, str] | None, ref: str | None, parse: Any = fmt.loads,
) -> Entry:
    if len(data) > fmt.MAX_BYTES:
        return Entry(path, sha, None, "invalid", f"larger than {fmt.MAX_BYTES} bytes")
    try:
        fact = parse(data, path.rsplit("/", 1)[-1])  # json decodes UTF-8 bytes itself
    except (ValueError, UnicodeDecodeError) as exc:
        return Entry(path, sha, None, "invalid", f"not a fact file: {str(exc)[:120]}")
    verdict = trust.judge(path, sha, index, remote, ref)
    if verdict == trust.APPROVED:
        return Entry(path, sha, fact, trust.APPROVED)
    return Entry(path, sha, fact, "pending", verdict)
