"""Read `.git/index` directly: which paths git tracks, with which blob SHAs.

Stdlib only. Staleness asks "does this missing file's content live on at another path?"
A `git ls-files -s` subprocess answers in a few milliseconds, most of it starting the
process; walking the index here costs about one for 2,000 entries, and only the entries
whose blob is wanted have their path sliced out.

Versions 2, 3 (extended flags: intent-to-add, skip-worktree) and 4 (path prefix
compression) are read, for SHA-1 and SHA-256 repositories, and worktrees and submodules
find their own index through their gitdir file. Anything else (a split index, an
unknown version, extension flag or required extension such as a sparse index's, a bad
checksum, a truncated file, no index at all, or GIT_INDEX_FILE pointing elsewhere)
returns None: callers then ask git itself, so a format this module does not know costs
speed, never correctness.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from reviewer.freshness import anchors

SIGNATURE = b"DIRC"
VERSIONS = (2, 3, 4)
EXTENDED = 0x4000  # flags: two more flag bytes follow (version 3 and later)
STAGE_MASK = 0x3000
NAME_MASK = 0x0FFF
ASSUME_VALID = 0x8000  # flags: `update-index --assume-unchanged` (git stops looking)
SKIP_WORKTREE = 0x4000  # extended flags
INTENT_TO_ADD = 0x2000  # extended flags
KNOWN_EXTENDED = SKIP_WORKTREE | INTENT_TO_ADD
DIR_MODE = 0o040000  # a sparse-index directory entry, not a file
TYPE_MASK, REGULAR = 0o170000, 0o100000  # mode bits: a regular file (not a link, gitlink)
STAT_BYTES = 40  # ctime, mtime (s, ns), dev, ino, mode, uid, gid, size: ten 32-bit fields
_OBJECT_FORMAT = re.compile(rb"^\s*objectformat\s*=\s*sha256\s*$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Entry:
    """One index entry, as `git ls-files -s` shows it (plus its extended flags)."""

    mode: int
    sha: str
    stage: int
    path: str
    skip_worktree: bool = False
    intent_to_add: bool = False


def index_file(root: str | os.PathLike[str]) -> Path | None:
    """The index of the work tree at `root` (a worktree's or submodule's own); None outside git."""
    if os.environ.get("GIT_INDEX_FILE"):  # git would read another file: let git answer
        return None
    git_dir = anchors._git_dir(Path(root))
    return None if git_dir is None else git_dir / "index"


def signature(root: str | os.PathLike[str]) -> tuple[int, int, int, str] | None:
    """(size, mtime_ns, inode, checksum) of the index. The first three move on almost every
    rewrite, but git alternates two inodes through its lock file and a coarse clock can
    repeat an mtime; the trailing checksum git writes over the whole file cannot repeat.
    With `index.skipHash` that trailer is zeros: the file is hashed here instead."""
    path = index_file(root)
    if path is None:
        return None
    try:
        with open(path, "rb") as fh:
            info = os.fstat(fh.fileno())
            fh.seek(max(0, info.st_size - 32))
            tail = fh.read(32)
            if not tail[-20:].strip(b"\0"):
                fh.seek(0)
                tail = hashlib.blake2b(fh.read(), digest_size=16).digest()
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns, info.st_ino, tail.hex()


def read_entries(root: str | os.PathLike[str]) -> list[Entry] | None:
    """Every entry, in index order; None when the index is absent or not understood."""
    walk = _read(root)
    if walk is None:
        return None
    return [
        Entry(mode, sha.hex(), (flags & STAGE_MASK) >> 12, path.decode("utf-8", "surrogateescape"),
              bool(xflags & SKIP_WORKTREE), bool(xflags & INTENT_TO_ADD))
        for mode, sha, flags, xflags, path in walk
    ]


def paths_by_sha(root: str | os.PathLike[str], shas: Iterable[str]) -> dict[str, list[str]] | None:
    """{sha: [paths]} for the given blob SHAs among the files the work tree should hold.

    Only stage-0 entries of regular files and symlinks count; intent-to-add entries (no
    content yet) and skip-worktree ones (not checked out) are left out. None when the
    index cannot be read here: ask git instead.
    """
    wanted: dict[bytes, str] = {}
    for sha in shas:
        try:
            wanted[bytes.fromhex(sha)] = sha
        except (ValueError, TypeError):
            continue
    walk = _read(root, wanted)
    if walk is None:
        return None
    found: dict[str, list[str]] = {}
    for mode, sha, flags, xflags, path in walk:
        if flags & STAGE_MASK or xflags & (SKIP_WORKTREE | INTENT_TO_ADD) or mode == DIR_MODE:
            continue
        found.setdefault(wanted[sha], []).append(path.decode("utf-8", "surrogateescape"))
    return found


def vouched_paths(root: str | os.PathLike[str]) -> set[str] | None:
    """The paths whose work-tree content `git diff-files` vouches for: stage-0 entries of
    regular files git still checks (not assume-unchanged, skip-worktree or intent-to-add;
    not symlinks, which git checks as links while staleness hashes what they point to).
    A file among them that `git diff-files` does not list holds its index blob. None when
    the index cannot be read here."""
    walk = _read(root)
    if walk is None:
        return None
    return {
        path.decode("utf-8", "surrogateescape")
        for mode, _sha, flags, xflags, path in walk
        if not (flags & (STAGE_MASK | ASSUME_VALID) or xflags & KNOWN_EXTENDED)
        and mode & TYPE_MASK == REGULAR
    }


# ---- the format --------------------------------------------------------------------------


def _read(
    root: str | os.PathLike[str], wanted: dict[bytes, str] | None = None
) -> list[_Raw] | None:
    """The index's entries (only those whose SHA is `wanted`, if given); None when unread."""
    data, hash_len = _load(root)
    return None if data is None else _walk(data, hash_len, wanted)


def _load(root: str | os.PathLike[str]) -> tuple[bytes | None, int]:
    """The index bytes, checksum verified, and the repository's hash length."""
    path = index_file(root)
    if path is None:
        return None, 0
    try:
        data = path.read_bytes()
    except OSError:
        return None, 0
    hash_len = 32 if _is_sha256(path.parent) else 20
    if len(data) < 12 + hash_len or data[:4] != SIGNATURE:
        return None, 0
    if int.from_bytes(data[4:8], "big") not in VERSIONS:
        return None, 0
    trailer = data[-hash_len:]
    if any(trailer):  # all zeros: written with index.skipHash
        algo = hashlib.sha256 if hash_len == 32 else hashlib.sha1
        if algo(data[:-hash_len], usedforsecurity=False).digest() != trailer:
            return None, 0
    return data, hash_len


def _is_sha256(git_dir: Path) -> bool:
    """Whether the repository's objects are SHA-256 (`extensions.objectFormat`)."""
    try:
        config = (anchors._common_dir(git_dir) / "config").read_bytes()
    except OSError:
        return False
    return _OBJECT_FORMAT.search(config) is not None


_Raw = tuple[int, bytes, int, int, bytes]


def _walk(data: bytes, hash_len: int, wanted: dict[bytes, str] | None = None) -> list[_Raw] | None:
    """(mode, sha bytes, flags, extended flags, path bytes) per entry, or only for those
    whose SHA is in `wanted`; None as soon as anything does not add up.

    A v2/v3 walk needs only each entry's flags to find the next one, so paths are sliced
    only for the entries kept.
    """
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    end = len(data) - hash_len
    flags_at = STAT_BYTES + hash_len
    pos = 12
    prev = b""
    out: list[_Raw] = []
    for _ in range(count):
        if pos + flags_at + 2 > end:
            return None
        flags = data[pos + flags_at] << 8 | data[pos + flags_at + 1]
        name_at = flags_at + 2
        xflags = 0
        if flags & EXTENDED:
            if version < 3:
                return None
            xflags = data[pos + name_at] << 8 | data[pos + name_at + 1]
            if xflags & ~KNOWN_EXTENDED & 0xFFFF:
                return None
            name_at += 2
        start = pos + name_at
        if version == 4:
            strip, start = _varint(data, start, end)
            nul = data.find(b"\0", start, end)
            if strip < 0 or nul < 0 or strip > len(prev):
                return None
            path = prev[: len(prev) - strip] + data[start:nul]
            prev = path
            next_pos = nul + 1
        else:
            length = flags & NAME_MASK
            if length == NAME_MASK:  # 0xFFF or longer: find the terminator
                nul = data.find(b"\0", start + NAME_MASK, end)
                if nul < 0:
                    return None
                length = nul - start
            elif data[start + length : start + length + 1] != b"\0":
                return None
            path = b""
            next_pos = pos + ((name_at + length + 8) & ~7)
            if wanted is None or data[pos + STAT_BYTES : pos + flags_at] in wanted:
                path = data[start : start + length]
        if next_pos > end:
            return None
        sha = data[pos + STAT_BYTES : pos + flags_at]
        if wanted is None or sha in wanted:
            mode = int.from_bytes(data[pos + 24 : pos + 28], "big")
            out.append((mode, sha, flags, xflags, path))
        pos = next_pos
    return out if _extensions_ok(data, pos, end) else None


def _varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    """Git's offset varint (v4 path prefix length): (value, position after it); -1 if cut."""
    if pos >= end:
        return -1, pos
    c = data[pos]
    pos += 1
    value = c & 0x7F
    while c & 0x80:
        if pos >= end:
            return -1, pos
        c = data[pos]
        pos += 1
        value = ((value + 1) << 7) | (c & 0x7F)
    return value, pos


def _extensions_ok(data: bytes, pos: int, end: int) -> bool:
    """The extensions must tile the rest exactly; a split index (`link`) is not read here:
    its entries live in another file."""
    while pos < end:
        if pos + 8 > end:
            return False
        sig = data[pos : pos + 4]
        size = int.from_bytes(data[pos + 4 : pos + 8], "big")
        if sig == b"link":
            return False
        if not (b"A"[0] <= sig[0] <= b"Z"[0]):
            return False  # a lower-case extension is required and unknown here
        pos += 8 + size
    return pos == end
