"""The data dir is ours alone: created private, refused when another user could swap it.

Seen: under umask 000 the data dir's parents were created 0777, and another local user
could replace the data dir with a symlink (the hooks went silent, or the store landed in
a git repo). Now what we create is 0700, parents too, and a data dir that is a symlink,
not ours, or reached through a directory others can write (as ssh's StrictModes judges
~/.ssh) is refused in one line; hooks fail open without writing anything. Tests run as
root here: the ownership cases chown (root only) and skip otherwise.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reviewer import paths
from reviewer.commands import doctor
from reviewer.store import db

ROOT = Path(__file__).resolve().parent.parent
WAIT = 60.0
OTHER_UID = 54321
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")


@pytest.fixture
def base(tmp_path: Path) -> Path:
    base = tmp_path / "b"
    base.mkdir(mode=0o700)
    os.chmod(base, 0o700)
    return base


def cli(*args: str, home: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_REVIEW_")}
    env.update(MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1", MEM_REVIEW_EXTRACTOR="rules")
    return subprocess.run([sys.executable, "-m", "reviewer.cli", *args], env=env, cwd=ROOT,
                          input=stdin.decode() if stdin else None, capture_output=True,
                          text=True, timeout=WAIT, check=False)


def refused(home: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(home))
    with pytest.raises(paths.HomeError) as info:
        paths.ensure_home()
    return str(info.value)


def test_parents_we_create_are_private_under_umask_000(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = base / "x" / "y" / "mem-review"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(home))
    old = os.umask(0)
    try:
        paths.ensure_home()
        db.connect(base / "p" / "q" / "s.db").close()
    finally:
        os.umask(old)
    for made in (base / "x", base / "x" / "y", home, base / "p", base / "p" / "q"):
        assert made.stat().st_mode & 0o777 == 0o700, made
    assert (base / "p" / "q" / "s.db").stat().st_mode & 0o777 == 0o600


def test_a_symlinked_data_dir_is_refused(base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = base / "real"
    real.mkdir(mode=0o700)
    (base / "link").symlink_to(real)
    assert "is a symlink" in refused(base / "link", monkeypatch)
    (base / "dangling").symlink_to(base / "nowhere")
    assert "is a symlink" in refused(base / "dangling", monkeypatch)
    assert not (base / "nowhere").exists()  # not created through the link


def test_a_data_dir_that_is_a_file_is_not_a_directory(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (base / "file").write_text("x")
    assert "is not a directory" in refused(base / "file", monkeypatch)
    done = cli("status", home=base / "file")
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "is not a directory" in done.stderr and "Traceback" not in done.stderr


def test_a_parent_anyone_can_write_is_refused_unless_sticky(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = base / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    message = refused(shared / "mem-review", monkeypatch)
    assert "is writable by everyone" in message and "chmod go-w" in message
    assert not (shared / "mem-review").exists()  # judged before anything is created
    os.chmod(shared, 0o1777)  # like /tmp: others may add, never swap ours
    monkeypatch.setenv("MEM_REVIEW_HOME", str(shared / "mem-review"))
    assert paths.ensure_home() == shared / "mem-review"


def test_a_parent_reached_through_a_symlink_is_judged_where_it_leads(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_dir = base / "open"
    open_dir.mkdir()
    os.chmod(open_dir, 0o777)
    (base / "alias").symlink_to(open_dir)
    assert "writable by everyone" in refused(base / "alias" / "mem-review", monkeypatch)


@needs_root
def test_a_data_dir_or_parent_owned_by_another_user_is_refused(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = base / "theirs"
    home.mkdir(mode=0o700)
    os.chown(home, OTHER_UID, OTHER_UID)
    assert f"is owned by uid {OTHER_UID}, not by you" in refused(home, monkeypatch)
    parent = base / "their-parent"
    parent.mkdir(mode=0o755)
    os.chown(parent, OTHER_UID, OTHER_UID)
    (parent / "mine").mkdir(mode=0o700)
    assert f"{parent} is owned by uid {OTHER_UID}" in refused(parent / "mine", monkeypatch)


@needs_root
def test_a_parent_writable_by_a_shared_group_is_refused(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = base / "team"
    parent.mkdir()
    os.chown(parent, os.geteuid(), OTHER_UID)
    os.chmod(parent, 0o775)
    assert f"writable by its group (gid {OTHER_UID})" in refused(parent / "m", monkeypatch)


def test_doctor_explains_and_checks_nothing_through_it(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = base / "real"
    real.mkdir(mode=0o700)
    db.connect(real / "store.db").close()
    (base / "link").symlink_to(real)
    monkeypatch.setenv("MEM_REVIEW_HOME", str(base / "link"))
    monkeypatch.setenv("HOME", str(base))
    checks = {c.name: c for c in doctor.checks(str(base))}
    assert not checks["data dir"].ok
    assert "is a symlink" in checks["data dir"].detail
    assert "neither reads nor writes it" in checks["data dir"].detail
    assert "store" not in checks  # nothing opened through the link


def _approved_store(where: Path, text: str) -> None:
    conn = db.connect(where / "store.db")
    now = time.time()
    conn.execute("INSERT INTO fact (project, text, norm, category, status, created_at, "
                 "updated_at, decided_at) VALUES (?, ?, ?, 'convention', 'approved', ?, ?, ?)",
                 (str(ROOT), text, text.lower(), now, now, now))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def test_hooks_fail_open_without_reading_or_writing_a_swapped_data_dir(base: Path) -> None:
    """Someone else's store behind a symlink: SessionStart injects none of it, SessionEnd
    queues nothing there; both exit 0, print nothing on stdout, say why on stderr."""
    theirs = base / "theirs"
    theirs.mkdir(mode=0o700)
    _approved_store(theirs, "Planted fact from another user.")
    (base / "link").symlink_to(theirs)
    before = sorted(p.name for p in theirs.iterdir())
    transcript = base / "s.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {
        "role": "user", "content": "hello"}}) + "\n")
    payload = json.dumps({"session_id": "s", "transcript_path": str(transcript),
                          "cwd": str(ROOT), "hook_event_name": "SessionEnd",
                          "source": "startup"}).encode()
    for event in ("session-start", "session-end", "pre-compact"):
        done = cli("hook", event, home=base / "link", stdin=payload)
        assert (done.returncode, done.stdout) == (0, ""), (event, done)
        assert "is a symlink" in done.stderr and "not logged" in done.stderr, done.stderr
    assert sorted(p.name for p in theirs.iterdir()) == before  # no log, no lock, no job
    conn = sqlite3.connect(theirs / "store.db")
    try:
        assert conn.execute("SELECT COUNT(*) FROM job").fetchone()[0] == 0
    finally:
        conn.close()


@pytest.mark.parametrize("args", [("status",), ("list",), ("capture", "--no-worker", "T"),
                                  ("worker", "--once"), ("retry", "--all")])
def test_every_command_refuses_a_swapped_data_dir_in_one_line(
    base: Path, args: tuple[str, ...]
) -> None:
    theirs = base / "theirs"
    theirs.mkdir(mode=0o700)
    (base / "link").symlink_to(theirs)
    transcript = base / "s.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {
        "role": "user", "content": "hello"}}) + "\n")
    args = tuple(str(transcript) if a == "T" else a for a in args)
    done = cli(*args, home=base / "link")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "is a symlink" in done.stderr
    assert list(theirs.iterdir()) == []


def test_doctor_judges_a_data_dir_not_made_yet_by_the_directories_above_it(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = base / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv("MEM_REVIEW_HOME", str(shared / "later" / "mem-review"))
    monkeypatch.setenv("HOME", str(base))
    check = next(c for c in doctor.checks(str(base)) if c.name == "data dir")
    assert not check.ok and "is writable by everyone" in check.detail
    assert not (shared / "later").exists()
    os.chmod(shared, 0o755)
    check = next(c for c in doctor.checks(str(base)) if c.name == "data dir")
    assert check.ok and "none yet" in check.detail
