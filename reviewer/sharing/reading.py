"""The shared folder of a working tree, read as it is: no import step, nothing stored.

Stdlib only (the SessionStart hook). `begin` lists and reads the folder; `finish` judges
each file by `trust` against what the remote's default branch held when last verified
(`remote_trust`: a record in the store, no git call, no network). With no folder,
nothing is read and `begin` returns None.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from reviewer.freshness import anchors
from reviewer.log import log
from reviewer.sharing import format as fmt
from reviewer.sharing import remote_trust, trust

MAX_FILES = 20_000


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
    try:
        names = sorted(e.name for e in os.scandir(folder)
                       if e.name.endswith(fmt.SUFFIX) and e.is_file(follow_symlinks=False))
    except OSError:  # no folder (the usual case), or unreadable
        return None
    files: list[tuple[str, bytes]] = []
    for name in names[:MAX_FILES]:
        data = _read(os.path.join(folder, name))
        if data is not None:
            files.append((f"{kind}/{name}", data))
    if len(names) > MAX_FILES:
        log("sharing", f"{len(names) - MAX_FILES} shared fact files beyond {MAX_FILES} ignored")
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
