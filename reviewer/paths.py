"""Where mem-review keeps its files, and with which permissions.

Stdlib only: the hooks import this on Claude Code's critical path.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

APP = "mem-review"


def home() -> Path:
    """The data dir: `MEM_REVIEW_HOME`, else the platform's user data dir."""
    env = os.environ.get("MEM_REVIEW_HOME")
    if env:  # absolute: the worker runs with the data dir as its cwd
        return Path(os.path.abspath(Path(env).expanduser()))
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / APP
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / APP


class HomeError(Exception):
    """The data dir cannot be trusted or used; the message says why in one line.

    Not a `reviewer.errors.UserError` (this leaf may not import that one): the CLI and
    `db.connect` turn it into one."""


def ensure_home() -> Path:
    """The data dir, created 0700 (missing parents too) and checked before any use: the
    store holds what a team decided, and transcripts' words. Raises HomeError."""
    path = home()
    if not path.is_absolute():
        path = Path(os.path.abspath(path))
    if not os.path.lexists(path):
        check_creatable(path)  # before creating anything below them
        make_private_dirs(path)
    check_home(path)
    if os.name == "posix" and (path.stat().st_mode & 0o777) != 0o700:
        os.chmod(path, 0o700)
    return path


def check_creatable(path: Path) -> None:
    """For a data dir not made yet: the directories that exist above it must be safe."""
    at = Path(os.path.abspath(path)).parent
    while not os.path.lexists(at) and at != at.parent:
        at = at.parent
    _check_parents(path, [at, *at.parents])
    real = Path(os.path.realpath(at))
    _check_parents(path, [real, *real.parents])


def make_private_dirs(path: Path) -> None:
    """mkdir -p where every directory we create is 0700 whatever the umask (Path.mkdir
    gives missing parents the umask's default, 0777 under umask 000)."""
    missing = []
    at = Path(os.path.abspath(path))
    while not os.path.lexists(at) and at != at.parent:
        missing.append(at)
        at = at.parent
    for created in reversed(missing):
        try:
            os.mkdir(created, 0o700)
        except FileExistsError:
            continue  # another process made it first: check_home judges it
        except OSError as exc:
            raise HomeError(f"{created}: cannot create the data dir ({exc.strerror or exc})"
                            ) from None
        if os.name == "posix":
            os.chmod(created, 0o700)


def check_home(path: Path | None = None) -> None:
    """Refuse a data dir that another local user could read, swap or redirect, as ssh's
    StrictModes does: it must be a real directory (not a symlink) that we own, and every
    directory above it (as written and as resolved) must be owned by us or root and not
    writable by others, unless sticky (/tmp). Raises HomeError; a few `stat` calls."""
    path = Path(os.path.abspath(home() if path is None else path))
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise HomeError(f"{path}: the data dir does not exist") from None
    except OSError as exc:
        raise HomeError(f"{path}: {exc.strerror or exc}") from None
    import stat

    if stat.S_ISLNK(st.st_mode):
        raise HomeError(f"{path} is a symlink; mem-review keeps its data only in a real "
                        "directory (another user could point it elsewhere): remove the link, "
                        "or set MEM_REVIEW_HOME to a directory of your own")
    if not stat.S_ISDIR(st.st_mode):
        raise HomeError(f"{path} is not a directory; set MEM_REVIEW_HOME to a directory "
                        "(or remove that file)")
    if os.name != "posix":
        return
    me = os.geteuid()
    if st.st_uid != me:
        raise HomeError(f"{path} is owned by uid {st.st_uid}, not by you (uid {me}); "
                        "another user could read or change your memory: use a data dir "
                        "of your own (MEM_REVIEW_HOME)")
    _check_parents(path, path.parents)
    _check_parents(path, Path(os.path.realpath(path.parent)).joinpath("x").parents)


def _check_parents(path: Path, parents: Iterable[Path]) -> None:
    """Each directory above the data dir: owned by us or root, not writable by others."""
    if os.name != "posix":
        return
    me = os.geteuid()
    for parent in parents:
        try:
            pst = os.stat(parent)
        except OSError as exc:
            raise HomeError(f"{parent}: {exc.strerror or exc}") from None
        problem = _unsafe_parent(pst, me)
        if problem:
            raise HomeError(f"{parent} {problem}, so another user could swap the data "
                            f"dir {path}; fix that directory (e.g. chmod go-w {parent}) "
                            "or set MEM_REVIEW_HOME to a directory only you can reach")


def _unsafe_parent(st: os.stat_result, me: int) -> str | None:
    """Why a directory above the data dir is unsafe, or None."""
    if st.st_uid not in (me, 0):
        return f"is owned by uid {st.st_uid}"
    if st.st_mode & 0o1000:  # sticky: others may add, never rename or remove ours
        return None
    if st.st_mode & 0o002:
        return "is writable by everyone"
    if st.st_mode & 0o020 and not _own_group(st.st_gid):
        return f"is writable by its group (gid {st.st_gid})"
    return None


def _own_group(gid: int) -> bool:
    """A user-private group (named as us, no other members): group-writable is fine."""
    try:
        import grp
        import pwd

        group = grp.getgrgid(gid)
        user = pwd.getpwuid(os.geteuid())
    except (ImportError, KeyError):
        return False
    return gid == user.pw_gid and group.gr_name == user.pw_name and not group.gr_mem


def db_path() -> Path:
    return home() / "store.db"


def log_path() -> Path:
    return home() / "mem-review.log"


def worker_lock_path() -> Path:
    return home() / "worker.lock"


def config_path() -> Path:
    return home() / "config.toml"


def touch_private(path: Path) -> None:
    """Create `path` 0600 if missing (a umask of 022 would otherwise leave it world-readable)."""
    fd = os.open(path, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o600)
    os.close(fd)
    if os.name == "posix" and (path.stat().st_mode & 0o777) != 0o600:
        os.chmod(path, 0o600)
