"""Open the store with stdlib `sqlite3`: WAL, a busy timeout, private file modes, migrations.

This is the fast path shared by the hooks, the injection and the TUI's list loading. The
sqlmodel engine in `reviewer/store/facts.py` opens the same file through `connect()` too, so
every writer gets the same pragmas.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path

from reviewer import paths
from reviewer.errors import UserError
from reviewer.store import schema

BUSY_TIMEOUT_MS = 10_000
WAL_SWITCH_SECONDS = 1.0


class StoreError(UserError):
    """The store cannot be opened or written; the message says why in one line."""


# What SQLite says of a file that is not (or no longer) a sound database.
DAMAGE_WORDS = ("malformed", "not a database", "file is encrypted", "corrupt")


def is_damage(exc: BaseException | None) -> bool:
    """True when `exc` (or what it wraps: sqlalchemy's `.orig`, a cause) says the file is
    damaged, as opposed to busy, full or read-only."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, sqlite3.DatabaseError) and any(
            word in str(exc).lower() for word in DAMAGE_WORDS
        ):
            return True
        if isinstance(exc, StoreError) and "is damaged" in str(exc):
            return True
        exc = getattr(exc, "orig", None) or exc.__cause__ or exc.__context__
        seen += 1
    return False


def damaged(path: Path, why: object) -> StoreError:
    """The one line every command prints for a damaged store: what to do about it."""
    why = " ".join(str(why).split())[:300]
    return StoreError(
        f"{path} is damaged ({why}); nothing more is written to it. Back it up, then "
        f"recover it: `sqlite3 {path} .recover | sqlite3 {path}.new` and move the .new file "
        "into its place, or move it aside to start afresh (`mem-review doctor` checks it)"
    )


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".damaged")


def mark_damaged(path: Path | None, why: object) -> None:
    """Remember that this file (by device and inode) is damaged, so hooks and workers stop
    writing into it; a recovered or new file in its place is not affected. Never raises."""
    path = paths.db_path() if path is None else path
    try:
        st = path.stat()
        fd = os.open(_marker(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(f"{st.st_dev} {st.st_ino}\n{str(why)[:500]}\n")
    except OSError:
        pass


def clear_damaged(path: Path) -> None:
    """`doctor` found the file sound again."""
    with contextlib.suppress(OSError):
        _marker(path).unlink()


def known_damage(path: Path) -> str | None:
    """Why this very file was found damaged, or None (one failed `open` when it was not)."""
    try:
        first, _, why = _marker(path).read_text().partition("\n")
        dev, ino = (int(x) for x in first.split())
        st = path.stat()
    except (OSError, ValueError):
        return None
    if (st.st_dev, st.st_ino) != (dev, ino):
        return None  # the file was replaced since: a recovered or a new store
    return why.strip() or "damaged"


FULL_CHECK_BYTES = 64 << 20  # integrity_check (indexes too) below this; quick_check above


def integrity(conn: sqlite3.Connection, db_file: Path, *, full: bool = True) -> str | None:
    """SQLite's own check of every page: None when sound, else its first finding.
    `full` adds the indexes' agreement with their tables (integrity_check, about twice
    the time) on a store under FULL_CHECK_BYTES. Raises sqlite3.DatabaseError when the
    damage stops the check itself."""
    size = db_file.stat().st_size
    pragma = "integrity_check" if full and size < FULL_CHECK_BYTES else "quick_check"
    found = [row[0] for row in conn.execute(f"PRAGMA {pragma}(5)")]
    if found == ["ok"]:
        return None
    return f"{pragma}: {found[0]}" + (f" (and {len(found) - 1} more)" if len(found) > 1 else "")


def ensure_sound(conn: sqlite3.Connection, path: Path | None = None) -> None:
    """Check every page before a write a person asked for (capture, retry) or a worker's
    run; a damaged file is marked and refused in one line. `quick_check`: ~80 ms on a
    store of 10,000 facts (21 MB)."""
    path = paths.db_path() if path is None else path
    try:
        problem = integrity(conn, path, full=False)
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
        problem = str(exc)
    if problem is not None:
        mark_damaged(path, problem)
        raise damaged(path, problem)


def connect(path: Path | None = None, *, migrate: bool = True) -> sqlite3.Connection:
    """Open (creating if needed) the database, private to the user, at the current schema.

    A file known to be damaged (`mark_damaged`) is refused before it is opened, and
    damage found while opening marks it: a damaged store is never written into."""
    if path is None:
        try:
            paths.ensure_home()
        except paths.HomeError as exc:
            raise StoreError(str(exc)) from None
        path = paths.db_path()
    why = known_damage(path)
    if why is not None:
        raise damaged(path, why)
    try:
        if not path.exists():
            paths.make_private_dirs(path.parent)
            paths.touch_private(path)
        conn = sqlite3.connect(
            str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
            check_same_thread=False,
        )
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        _use_wal(conn)
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        if migrate:
            upgrade(conn)
        # SQLite gives -wal/-shm the database file's mode; chmod only, as a safety net.
        # Never open them ourselves: closing any fd on -shm drops this process's locks.
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            try:
                if side.stat().st_mode & 0o077:
                    os.chmod(side, 0o600)
            except OSError:
                pass
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            mark_damaged(path, exc)
            raise damaged(path, exc) from None
        raise StoreError(f"{path}: cannot open the store ({exc}){_full(path)}") from None
    except OSError as exc:
        raise StoreError(f"{path}: {exc.strerror or exc}{_full(path)}") from None
    return conn


def _full(path: Path) -> str:
    """A hint when the disk holding the store has no room (SQLite says "disk I/O error")."""
    import shutil

    try:
        return "; the disk holding it is full" if shutil.disk_usage(
            path.parent).free < 64 * 1024 else ""
    except OSError:
        return ""


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch a new store to WAL. The switch can answer "locked" at once, without waiting
    on the busy timeout, when many processes open a brand-new store together (50 hooks at
    the first session end): retry it briefly rather than fail."""
    deadline = time.monotonic() + WAL_SWITCH_SECONDS  # bounded: a hook has 1.5 s in all
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def connect_readonly(path: Path | None = None) -> sqlite3.Connection:
    """Read a store that cannot be written (full disk, read-only mount).

    SQLite cannot open a WAL database read-only without writing its `-shm`; `immutable=1`
    reads the main file as it stands, which may miss transactions not yet checkpointed:
    better a slightly old memory than none.
    """
    if path is None:
        try:  # a store reached through a swapped data dir is not read either
            paths.check_home()
        except paths.HomeError as exc:
            raise StoreError(str(exc)) from None
        path = paths.db_path()
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True,
                               check_same_thread=False)
        conn.row_factory = sqlite3.Row
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path}: cannot read the store ({exc})") from None
    if version != schema.VERSION:
        conn.close()
        raise StoreError(f"{path}: schema version {version}, expected {schema.VERSION}")
    return conn


def connect_for_reading(path: Path | None = None) -> sqlite3.Connection:
    """`connect`, or, when the store cannot be opened for writing (a read-only mount, a
    full disk) but is not damaged, `connect_readonly` with a log line: reading goes on
    (`list`, `recall`, `remember`'s refusal). Its writes then fail as read-only."""
    try:
        return connect(path)
    except StoreError as exc:
        target = path or paths.db_path()
        if known_damage(target) is not None or not target.exists():
            raise
        try:
            conn = connect_readonly(path)
        except StoreError:
            raise exc from None
        from reviewer.log import log

        log("store", f"opened read-only, nothing will be written: {exc}")
        return conn


def is_read_only(exc: BaseException) -> bool:
    """Whether a write failed because the store cannot be written (read-only, full)."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError | StoreError) and any(
        w in text for w in ("readonly", "read-only", "disk is full", "disk i/o", "no space"))


def upgrade(conn: sqlite3.Connection) -> int:
    """Apply pending migrations in one transaction each; safe when two processes race."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > schema.VERSION:
        raise StoreError(
            f"the store is at schema version {version}, newer than this mem-review "
            f"({schema.VERSION}); upgrade mem-review"
        )
    while version < schema.VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version < schema.VERSION:
                for statement in _statements(schema.MIGRATIONS[version]):
                    conn.execute(statement)
                version += 1
                conn.execute(f"PRAGMA user_version={version}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return version


def _statements(script: str) -> list[str]:
    """Split a migration into statements (executescript would commit our transaction)."""
    out, buf = [], []
    for line in script.splitlines():
        buf.append(line)
        candidate = "\n".join(buf)
        if sqlite3.complete_statement(candidate):
            if candidate.strip():
                out.append(candidate.strip())
            buf = []
    if "\n".join(buf).strip():
        out.append("\n".join(buf).strip())
    return out


def now() -> float:
    return time.time()


class transaction:
    """`with transaction(conn):` — BEGIN IMMEDIATE so writers queue on the busy timeout."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.conn.execute("COMMIT" if exc_type is None else "ROLLBACK")
