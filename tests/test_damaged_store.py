"""A damaged store is said, in one line, by every command, and never written into again.

Seen: `doctor` said "readable and writable" on a file with mid-file damage, the TUI died
with a traceback, and capture and the hooks kept writing into the malformed file. The
damage here is real: pages in the middle of a real store overwritten with garbage.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reviewer.commands import doctor
from reviewer.store import db

ROOT = Path(__file__).resolve().parent.parent
WAIT = 60.0


@pytest.fixture
def home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shared data dir (conftest), extracting with the offline rules."""
    monkeypatch.setenv("MEM_REVIEW_EXTRACTOR", "rules")
    return home


def build_store(home: Path, project: Path, n: int = 3000) -> Path:
    """A real store with many pages of facts and jobs, checkpointed into the main file."""
    path = home / "store.db"
    conn = db.connect(path)
    now = time.time()
    with db.transaction(conn):
        for i in range(n):
            conn.execute(
                "INSERT INTO fact (project, text, norm, category, status, created_at, "
                "updated_at) VALUES (?, ?, ?, 'convention', ?, ?, ?)",
                (str(project), f"Fact number {i} says something long enough. " * 3,
                 f"fact {i}", "approved" if i % 2 else "pending", now, now))
            conn.execute(
                "INSERT INTO job (session_id, transcript_path, project, event, state, "
                "created_at, updated_at) VALUES (?, ?, ?, 'SessionEnd', 'done', ?, ?)",
                (f"s{i}", f"/t/{i}.jsonl", str(project), now, now))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path


def damage(path: Path, pages: int = 40) -> None:
    """Overwrite pages in the middle of the file (not the header: it still opens)."""
    size = path.stat().st_size
    page = 4096
    total = size // page
    with open(path, "r+b") as f:
        f.seek((total // 2 - pages // 2) * page)
        f.write(b"\xa5" * page * pages)


def cli(*args: str, home: Path, cwd: Path, stdin: bytes | None = None
        ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_REVIEW_")}
    env.update(MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1", MEM_REVIEW_EXTRACTOR="rules")
    return subprocess.run([sys.executable, "-m", "reviewer.cli", *args], env=env, cwd=cwd,
                          input=stdin.decode() if stdin else None, capture_output=True,
                          text=True, timeout=WAIT, check=False)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_doctor_finds_mid_file_damage_and_says_what_to_do(home: Path, tmp_path: Path) -> None:
    path = build_store(home, tmp_path)
    damage(path)
    store = next(c for c in doctor.checks(str(tmp_path)) if c.name == "store")
    assert not store.ok, store
    assert "readable and writable" not in store.detail
    assert "is damaged" in store.detail and f"sqlite3 {path} .recover" in store.detail
    assert "move it aside" in store.detail and "Back it up" in store.detail
    assert db.known_damage(path) is not None  # so hooks and workers stop writing there


def test_a_sound_store_passes_the_integrity_check(home: Path, tmp_path: Path) -> None:
    build_store(home, tmp_path, n=50)
    store = next(c for c in doctor.checks(str(tmp_path)) if c.name == "store")
    assert store.ok and "sound" in store.detail


@pytest.mark.parametrize(
    "args",
    [("list",), ("list", "--json"), ("status",), ("review",), ("inject",), ("doctor",),
     ("worker", "--once"), ("retry", "--all"), ("capture", "--no-worker", "T")],
)
def test_every_command_says_it_in_one_line(
    home: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {
        "role": "user", "content": "Remember that we use pnpm."}}) + "\n")
    path = build_store(home, project)
    damage(path)
    args = tuple(str(transcript) if a == "T" else a for a in args)
    done = cli(*args, home=home, cwd=project)
    out = done.stdout + done.stderr
    assert "Traceback" not in out, out
    if args[0] == "inject":  # SessionStart fails open: whatever it can read, or nothing
        assert done.returncode in (0, 1)
        return
    if args[0] == "worker":  # a background command: its line is in the log
        assert done.returncode == 1
        assert "is damaged" in (home / "mem-review.log").read_text() or db.known_damage(path)
        return
    assert done.returncode == 1, out
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    if args[0] == "doctor":
        lines = [ln for ln in done.stdout.splitlines() if "store" in ln]
    assert len(lines) == 1 and "is damaged" in lines[0] and ".recover" in lines[0], out
    assert db.known_damage(path) is not None


def test_once_found_damaged_no_hook_or_capture_writes_into_it_until_replaced(
    home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    transcript = project / "sess-9.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {
        "role": "user", "content": "hello"}}) + "\n")
    path = build_store(home, project)
    damage(path)
    assert cli("list", home=home, cwd=project).returncode == 1  # finds it, marks it
    before = digest(path)
    payload = json.dumps({"session_id": "sess-9", "transcript_path": str(transcript),
                          "cwd": str(project), "hook_event_name": "SessionEnd"}).encode()
    hook = cli("hook", "session-end", home=home, cwd=project, stdin=payload)
    assert (hook.returncode, hook.stdout) == (0, "")  # fails open, silent
    assert "is damaged" in (home / "mem-review.log").read_text()
    capture = cli("capture", "--no-worker", str(transcript), home=home, cwd=project)
    assert capture.returncode == 1 and "is damaged" in capture.stderr
    assert digest(path) == before  # nothing written into the damaged file
    assert not (home / "store.db-wal").exists() or (home / "store.db-wal").stat().st_size == 0

    # The person moves it aside (or recovers into a new file): a new store works at once,
    # and the session the hook could not queue is found again by the worker's rescan.
    shutil.move(path, tmp_path / "store.db.bad")
    for side in ("store.db-wal", "store.db-shm"):
        (home / side).unlink(missing_ok=True)
    again = cli("capture", "--no-worker", str(transcript), home=home, cwd=project)
    assert again.returncode == 0, again.stderr
    conn = sqlite3.connect(home / "store.db")
    try:
        assert conn.execute("SELECT COUNT(*) FROM job").fetchone()[0] == 1
    finally:
        conn.close()


def test_a_hook_that_finds_the_damage_itself_stops_there(home: Path, tmp_path: Path) -> None:
    """Damage in the job table: the hook's own write fails, it marks the file and logs."""
    project = tmp_path / "proj"
    project.mkdir()
    transcript = project / "sess-1.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {
        "role": "user", "content": "hello"}}) + "\n")
    path = build_store(home, project)
    conn = sqlite3.connect(path)
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'job_transcript'"
                        ).fetchone()[0]
    conn.close()
    with open(path, "r+b") as f:  # the index the hook's first query reads
        f.seek((root - 1) * 4096)
        f.write(b"\xa5" * 4096)
    payload = json.dumps({"session_id": "sess-1", "transcript_path": str(transcript),
                          "cwd": str(project), "hook_event_name": "SessionEnd"}).encode()
    hook = cli("hook", "session-end", home=home, cwd=project, stdin=payload)
    assert (hook.returncode, hook.stdout) == (0, "")
    assert "is damaged" in (home / "mem-review.log").read_text()
    assert db.known_damage(path) is not None
