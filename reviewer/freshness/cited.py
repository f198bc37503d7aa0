"""The one door through which a cited file is read: a regular file inside the project,
bounded in size and time, or a reason why not.

A fact names files; the model (or an agent calling `remember`) chooses the names. Without
this door a name could be a FIFO (the reader blocks for ever), a symlink to `/dev/zero`
(it never ends: MemoryError), a 2 GB file (2 GB of memory at SessionStart), a device, a
directory, or a path out of the project through `../`, an absolute name or a symlink
(hashing the person's other files). So every reader of a cited file (the worker's
anchors, MCP `remember`, SessionStart's staleness hashing, the TUI's re-verify and diff)
comes through `read`:

- the name must be relative with no `..` part (lexical, free) and, resolved, stay under
  the resolved project root (one `realpath`; a symlink inside the project to a file inside
  it is fine);
- `lstat` of the resolved path must say "regular file" before anything is opened, so a
  FIFO or device is never opened; the open is `O_NONBLOCK | O_NOFOLLOW`, and `fstat` of
  the open file must be the same regular file (a swap in between is refused);
- at most `MAX_BYTES` are read (`fstat` first, then a read of `MAX_BYTES + 1` so a file
  that grew is caught), within `MAX_SECONDS`.

Stdlib only: SessionStart hashes through it.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time

MAX_BYTES = 8 * 1024 * 1024  # 8 MiB: larger than any source file worth citing
MAX_SECONDS = 2.0
_CHUNK = 1024 * 1024
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(
    os, "O_CLOEXEC", 0)

OUTSIDE = "outside the project"
MISSING = "no such file"


def hash_bytes(data: bytes) -> str:
    """Git's blob SHA-1 of some content."""
    h = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    h.update(data)
    return h.hexdigest()


def inside(rel: str) -> bool:
    """Whether a cited name is lexically inside the project: relative, no `..` part, no NUL."""
    if not rel or "\0" in rel or os.path.isabs(rel) or rel.startswith(("/", "\\", "~")):
        return False
    parts = rel.replace("\\", "/").split("/")
    return ".." not in parts


def kind(mode: int) -> str | None:
    """None for a regular file, else what it is, in words."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory, not a file"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe), not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    if stat.S_ISLNK(mode):
        return "a symlink that changed while read"
    return "not a regular file"


def too_large(size: int, limit: int = MAX_BYTES) -> str:
    return f"larger than the {limit // (1024 * 1024)} MiB read limit ({_size(size)})"


def _size(n: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def resolve(root: str | os.PathLike[str], rel: str) -> tuple[str | None, str | None]:
    """(the resolved absolute path, None) when `rel` stays in the project, else (None, why)."""
    if not inside(rel):
        return None, OUTSIDE
    base = os.path.realpath(os.fspath(root))
    real = os.path.realpath(os.path.join(base, rel))
    if real == base or not real.startswith(base.rstrip(os.sep) + os.sep):
        return None, OUTSIDE + " (through a symlink)" if real != base else OUTSIDE
    return real, None


def problem(root: str | os.PathLike[str], rel: str, *, limit: int = MAX_BYTES) -> str | None:
    """Why `rel` would not be read (cheap: no open), or None when it would."""
    real, why = resolve(root, rel)
    if real is None:
        return why
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return MISSING
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    return kind(info.st_mode) or (too_large(info.st_size, limit)
                                  if info.st_size > limit else None)


def read(
    root: str | os.PathLike[str], rel: str, *, limit: int = MAX_BYTES,
    seconds: float = MAX_SECONDS,
) -> tuple[bytes | None, str | None]:
    """(content, None), or (None, why it was not read)."""
    data, why, _ = read_stat(root, rel, limit=limit, seconds=seconds)
    return data, why


def read_stat(
    root: str | os.PathLike[str], rel: str, *, limit: int = MAX_BYTES,
    seconds: float = MAX_SECONDS,
) -> tuple[bytes | None, str | None, os.stat_result | None]:
    """`read`, plus the open file's `fstat` after reading (to tell whether it moved)."""
    real, why = resolve(root, rel)
    if real is None:
        return None, why, None
    try:
        info = os.lstat(real)
        why = kind(info.st_mode)
        if why is None and info.st_size > limit:
            why = too_large(info.st_size, limit)
        if why is not None:
            return None, why, None
        fd = os.open(real, _FLAGS)
    except FileNotFoundError:
        return None, MISSING, None
    except OSError as exc:
        return None, f"unreadable ({exc.strerror or exc})", None
    try:
        now = os.fstat(fd)
        why = kind(now.st_mode)
        if why is None and (now.st_ino, now.st_dev) != (info.st_ino, info.st_dev):
            why = "replaced while read"
        if why is not None:
            return None, why, None
        chunks: list[bytes] = []
        got = 0
        deadline = time.monotonic() + seconds
        while got <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
            if time.monotonic() > deadline:
                return None, f"too slow to read (over {seconds:g} s)", None
        if got > limit:
            return None, too_large(got, limit), None
        after = os.fstat(fd)
    except BlockingIOError:
        return None, "would block: not a regular file", None
    except OSError as exc:
        return None, f"unreadable ({exc.strerror or exc})", None
    finally:
        os.close(fd)
    return b"".join(chunks), None, after


def blob_sha(root: str | os.PathLike[str], rel: str) -> tuple[str | None, str | None]:
    """(git blob SHA of the cited file, None), or (None, why it was not read)."""
    data, why = read(root, rel)
    return (None, why) if data is None else (hash_bytes(data), None)


def anchor(
    root: str | os.PathLike[str], files: list[str], *, missing: str | None = None
) -> tuple[dict[str, str | None], dict[str, str]]:
    """({file: blob SHA, or `missing`}, {file: why it was not read}) for cited files."""
    shas: dict[str, str | None] = {}
    why: dict[str, str] = {}
    for rel in files:
        sha, reason = blob_sha(root, rel)
        shas[rel] = sha if sha is not None else missing
        if reason is not None:
            why[rel] = reason
    return shas, why
