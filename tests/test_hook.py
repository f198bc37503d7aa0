"""The SessionEnd / PreCompact / SessionStart hooks fail open and only queue.

Most cases run the real `mem-review hook` command in a subprocess, as Claude Code does:
exit code, stdout and the log are what Claude Code and the person see.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from capture import enqueue, worker
from reviewer import paths
from reviewer.claude_code import hook_io
from reviewer.commands import hook as hook_cmd
from reviewer.store import db

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("textual", "anthropic", "sqlmodel", "sqlalchemy", "pydantic", "git")


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "proj" / "sess-1.jsonl"
    path.parent.mkdir()
    path.write_text('{"type":"user","message":{"role":"user","content":"hello"}}\n')
    return path


def payload(transcript: Path, **over: object) -> dict[str, object]:
    data: dict[str, object] = {
        "session_id": "sess-1",
        "transcript_path": str(transcript),
        "cwd": str(transcript.parent),
        "hook_event_name": "SessionEnd",
        "reason": "other",
    }
    data.update(over)
    return data


def run_hook(event: str, stdin: bytes, env_home: Path, **kw: object) -> subprocess.CompletedProcess:
    env = dict(os.environ, MEM_REVIEW_HOME=str(env_home), MEM_REVIEW_NO_SPAWN="1")
    return subprocess.run(
        [sys.executable, "-m", "reviewer.cli", "hook", event],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
        **kw,  # type: ignore[arg-type]
    )


def jobs(home: Path) -> list[sqlite3.Row]:
    if not (home / "store.db").exists():
        return []
    conn = db.connect(home / "store.db")
    try:
        return list(conn.execute("SELECT * FROM job ORDER BY id"))
    finally:
        conn.close()


def log_lines(home: Path) -> list[str]:
    path = home / "mem-review.log"
    return path.read_text().splitlines() if path.exists() else []


# --------------------------------------------------------------------------- read_payload


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"   \n",
        b"not json at all",
        b"\xff\xfe\x00garbage",
        b"[1, 2, 3]",
        b'"a string"',
        b"null",
        b"[" * 100_000,
        b'{"session_id": 1, "transcript_path": "/t", "cwd": "/", "hook_event_name": "x"}',
        b'{"session_id": "s", "transcript_path": ["/t"], "cwd": "/", "hook_event_name": "x"}',
        b'{"session_id": "s", "transcript_path": "/t", "hook_event_name": "x"}',
        b'{"session_id": "", "transcript_path": "/t", "cwd": "/", "hook_event_name": "x"}',
    ],
)
def test_read_payload_rejects_unusable_input(raw: bytes) -> None:
    assert hook_io.read_payload(io.BytesIO(raw)) is None


def test_read_payload_accepts_a_valid_payload_and_keeps_extra_fields() -> None:
    raw = json.dumps(payload(Path("/x/s.jsonl"), source="startup")).encode()
    got = hook_io.read_payload(io.BytesIO(raw))
    assert got is not None and got["session_id"] == "sess-1" and got["source"] == "startup"


def test_read_payload_refuses_oversized_input() -> None:
    big = json.dumps(payload(Path("/x/s.jsonl"), filler="a" * 2_000_000)).encode()
    assert hook_io.read_payload(io.BytesIO(big)) is None
    assert hook_io.read_payload(io.BytesIO(big), max_bytes=3_000_000) is not None


def test_read_payload_returns_on_a_pipe_that_never_closes() -> None:
    r, w = os.pipe()
    try:
        with open(r, "rb", buffering=0, closefd=False) as stream:
            assert hook_io.read_payload(stream, timeout=0.2) is None  # nothing ever came
            os.write(w, json.dumps(payload(Path("/x/s.jsonl"))).encode())
            got = hook_io.read_payload(stream, timeout=30)  # complete object: no waiting for EOF
            assert got is not None and got["session_id"] == "sess-1"
    finally:
        os.close(r)
        os.close(w)


# --------------------------------------------------------------------------- the command


@pytest.mark.parametrize("event", ["session-end", "pre-compact", "session-start"])
@pytest.mark.parametrize(
    "raw",
    [b"", b"garbage{", b"[]", b'{"session_id": 5}', b'{"a": "' + b"x" * 1_500_000 + b'"}'],
    ids=["empty", "garbage", "non-object", "wrong-typed", "huge"],
)
def test_bad_stdin_exits_0_silently_with_a_log_line(event: str, raw: bytes, tmp_path: Path) -> None:
    home = tmp_path / "home"
    out = run_hook(event, raw, home)
    assert out.returncode == 0
    assert out.stdout == b""
    assert b"Traceback" not in out.stderr
    assert any("no usable payload" in line for line in log_lines(home))
    assert jobs(home) == []


def test_unknown_event_exits_0_with_a_log_line(tmp_path: Path, transcript: Path) -> None:
    home = tmp_path / "home"
    out = run_hook("stop-the-world", json.dumps(payload(transcript)).encode(), home)
    assert (out.returncode, out.stdout) == (0, b"")
    assert any("unknown hook event" in line for line in log_lines(home))


def test_stdin_that_never_closes_does_not_hang_the_hook(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = dict(os.environ, MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "reviewer.cli", "hook", "session-end"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    try:
        assert proc.stdin is not None
        proc.stdin.write(b'{"session_id": "s", "transcript_pa')  # half a payload, then silence
        proc.stdin.flush()
        proc.wait(timeout=30)  # stdin stays open: communicate() would close it
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the hook hung on a stdin that never closed")
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
    assert proc.stdout is not None and proc.stderr is not None
    stdout = proc.stdout.read()
    proc.stdout.close()
    proc.stderr.close()
    assert proc.returncode == 0 and stdout == b""
    assert any("no usable payload" in line for line in log_lines(home))


def test_valid_payload_queues_one_job_and_twice_is_still_one(
    tmp_path: Path, transcript: Path
) -> None:
    home = tmp_path / "home"
    raw = json.dumps(payload(transcript)).encode()
    for _ in range(2):
        out = run_hook("session-end", raw, home)
        assert (out.returncode, out.stdout) == (0, b"")
    rows = jobs(home)
    assert len(rows) == 1
    job = rows[0]
    assert job["state"] == "queued" and job["session_id"] == "sess-1"
    assert job["transcript_path"] == str(transcript) and job["event"] == "SessionEnd"
    assert job["project"] == str(transcript.parent.resolve())
    out = run_hook(
        "pre-compact", json.dumps(payload(transcript, hook_event_name="PreCompact")).encode(), home
    )
    assert out.returncode == 0 and len(jobs(home)) == 1


def test_project_is_the_git_top_level(home: Path, tmp_path: Path, transcript: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "deep").mkdir(parents=True)
    job_id = enqueue.enqueue_session(
        payload(transcript, cwd=str(repo / "src" / "deep")), "SessionEnd"
    )
    assert job_id is not None
    assert jobs(home)[0]["project"] == str(repo.resolve())


def test_missing_transcript_queues_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    out = run_hook("session-end", json.dumps(payload(tmp_path / "gone.jsonl")).encode(), home)
    assert (out.returncode, out.stdout) == (0, b"")
    assert jobs(home) == []
    assert any("transcript missing" in line for line in log_lines(home))


def test_a_transcript_with_nothing_new_is_not_queued_again(home: Path, transcript: Path) -> None:
    job_id = enqueue.enqueue_session(payload(transcript), "SessionEnd")
    assert job_id is not None
    conn = db.connect()
    size = transcript.stat().st_size
    conn.execute("UPDATE job SET state='done', end_cursor=? WHERE id=?", (size, job_id))
    assert enqueue.enqueue_session(payload(transcript), "SessionEnd") is None  # /clear
    with transcript.open("a") as fh:
        fh.write('{"type":"user","message":{"role":"user","content":"more"}}\n')
    again = enqueue.enqueue_session(payload(transcript), "SessionEnd")
    assert again is not None and again != job_id
    conn.close()


# --------------------------------------------------------------------------- a broken store


def test_data_dir_that_cannot_be_created_exits_0(tmp_path: Path, transcript: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    out = run_hook("session-end", json.dumps(payload(transcript)).encode(), blocker / "home")
    assert (out.returncode, out.stdout) == (0, b"")
    assert b"Traceback" not in out.stderr


def test_store_that_is_not_a_database_exits_0_with_a_log_line(
    tmp_path: Path, transcript: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "store.db").write_bytes(b"this is not sqlite" * 100)
    out = run_hook("session-end", json.dumps(payload(transcript)).encode(), home)
    assert (out.returncode, out.stdout) == (0, b"")
    assert any("cannot open the store" in line or "database" in line for line in log_lines(home))


def test_locked_store_exits_0_without_waiting_out_the_busy_timeout(
    tmp_path: Path, transcript: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    holder = db.connect(home / "store.db")  # e.g. a worker in the middle of a write
    holder.execute("BEGIN EXCLUSIVE")
    try:
        out = run_hook("session-end", json.dumps(payload(transcript)).encode(), home)
        assert (out.returncode, out.stdout) == (0, b"")
        assert any("locked" in line for line in log_lines(home))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert jobs(home) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file modes")
@pytest.mark.parametrize("what", ["dir", "db"])
def test_read_only_store_exits_0(tmp_path: Path, transcript: Path, what: str) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    db.connect(home / "store.db").close()
    target = home if what == "dir" else home / "store.db"
    for side in ("store.db-wal", "store.db-shm"):
        (home / side).unlink(missing_ok=True)
    target.chmod(0o500 if what == "dir" else 0o400)
    try:
        out = run_hook("session-end", json.dumps(payload(transcript)).encode(), home)
    finally:
        target.chmod(0o700 if what == "dir" else 0o600)
    assert (out.returncode, out.stdout) == (0, b"")
    assert jobs(home) == []


# --------------------------------------------------------------------------- session-start


def _in_process(monkeypatch: pytest.MonkeyPatch, event: str, raw: bytes) -> int:
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=io.BytesIO(raw)))
    return hook_cmd.main([event])


def test_session_start_prints_exactly_what_injection_returns(
    home: Path,
    transcript: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    answer = json.dumps(
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "Facts."}}
    )
    seen: list[dict] = []

    def session_start(p: dict) -> str:
        seen.append(p)
        print("stray debugging output")  # must never reach Claude Code
        return answer

    monkeypatch.setitem(
        sys.modules,
        "reviewer.claude_code.inject",
        types.SimpleNamespace(session_start=session_start),
    )
    assert _in_process(monkeypatch, "session-start", json.dumps(payload(transcript)).encode()) == 0
    assert capsys.readouterr().out == answer + "\n"
    assert seen and seen[0]["session_id"] == "sess-1"
    assert any("stray" in line for line in log_lines(home))


@pytest.mark.parametrize("behaviour", ["none", "raises", "missing"])
def test_session_start_prints_nothing_when_injection_has_nothing_or_fails(
    home: Path,
    transcript: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    behaviour: str,
) -> None:
    def session_start(p: dict) -> str | None:
        if behaviour == "raises":
            raise RuntimeError("boom")
        return None

    module = None if behaviour == "missing" else types.SimpleNamespace(session_start=session_start)
    monkeypatch.setitem(sys.modules, "reviewer.claude_code.inject", module)  # None: import fails
    assert _in_process(monkeypatch, "session-start", json.dumps(payload(transcript)).encode()) == 0
    assert capsys.readouterr().out == ""
    if behaviour != "none":
        assert log_lines(home), "a failure must leave a line in the log"


def test_session_end_swallows_a_crash_in_enqueue(
    home: Path,
    transcript: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def explode(p: dict, event: str) -> None:
        print("half a thought")
        raise KeyboardInterrupt

    monkeypatch.setattr(enqueue, "enqueue_session", explode)
    assert _in_process(monkeypatch, "session-end", json.dumps(payload(transcript)).encode()) == 0
    assert capsys.readouterr().out == ""
    assert any("KeyboardInterrupt" in line for line in log_lines(home))


# --------------------------------------------------------------------------- imports, spawn


@pytest.mark.parametrize("event", ["session-end", "pre-compact"])
def test_hook_imports_nothing_heavy(tmp_path: Path, transcript: Path, event: str) -> None:
    home = tmp_path / "home"
    env = dict(os.environ, MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1")
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "reviewer.cli", "hook", event],
        input=json.dumps(payload(transcript)).encode(),
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0 and out.stdout == b""
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in out.stderr.decode().splitlines()
        if line.startswith("import time:")
    }
    # the probe saw the path
    assert "capture.enqueue" in imported and "reviewer.store.queue" in imported
    heavy = sorted({m.split(".")[0] for m in imported} & set(HEAVY))
    assert heavy == [], f"the hook imported {heavy}"
    assert len(jobs(home)) == 1


def test_hook_starts_a_detached_worker_that_processes_the_job(home: Path, transcript: Path) -> None:
    transcript.write_text(
        '{"type":"user","message":{"role":"user","content":"Remember that we use pnpm, '
        'not npm, in this repository."}}\n'
    )
    env = dict(os.environ, MEM_REVIEW_HOME=str(home), MEM_REVIEW_EXTRACTOR="rules")
    env.pop("MEM_REVIEW_NO_SPAWN", None)
    out = subprocess.run(
        [sys.executable, "-m", "reviewer.cli", "hook", "session-end"],
        input=json.dumps(payload(transcript)).encode(),
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert (out.returncode, out.stdout) == (0, b"")
    # Wait for the detached worker's log line, then for it to exit (a guard, not a timing).
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(
        "worker[" in x and "job 1 " in x for x in log_lines(home)
    ):
        time.sleep(0.1)
    while time.monotonic() < deadline and worker.is_running():
        time.sleep(0.05)
    rows = jobs(home)
    assert rows[0]["state"] == "done", rows[0]["last_error"]
    conn = db.connect(home / "store.db")
    facts = list(conn.execute("SELECT text, status FROM fact"))
    conn.close()
    assert facts and all(f["status"] == "pending" for f in facts)
    assert any("pnpm" in f["text"] for f in facts)
    assert any("worker[" in line and "job 1 done" in line for line in log_lines(home))


def test_no_spawn_when_a_worker_holds_the_lock(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEM_REVIEW_NO_SPAWN")
    started: list[list[str]] = []
    import subprocess as sp  # capture.enqueue imports it only when it spawns

    monkeypatch.setattr(sp, "Popen", lambda argv, **kw: started.append(argv))
    paths.ensure_home()
    import fcntl

    with open(paths.worker_lock_path(), "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert worker.is_running()
        assert enqueue.start_worker() is False
    assert not worker.is_running()
    assert enqueue.start_worker() is True
    assert started and started[0][-5:] == ["reviewer.cli", "worker", "--once", "--wait", "0"]


_SHARED_STORE_PROBE = """
import subprocess, sys
from pathlib import Path
from reviewer.store import db
path = Path(sys.argv[1])
holder = db.connect(path)
holder.execute("BEGIN IMMEDIATE")
holder.execute("INSERT INTO hash_cache VALUES ('a', 1, 1, 1, 1, 'x')")
other = "from reviewer.store import db; from pathlib import Path; import sys; " \\
        "db.connect(Path(sys.argv[1])).close()"
opened = subprocess.run([sys.executable, "-c", other, str(path)], check=False).returncode
holder.execute("COMMIT")
assert holder.execute("SELECT COUNT(*) FROM hash_cache").fetchone()[0] == 1
holder.close()
print("ok" if opened == 0 else "the second process could not open the store")
"""


def test_store_is_shared_safely_between_processes(tmp_path: Path) -> None:
    """Two processes with the store open (a worker and a hook) must not crash each other."""
    out = subprocess.run(
        [sys.executable, "-c", _SHARED_STORE_PROBE, str(tmp_path / "store.db")],
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert (out.returncode, out.stdout.strip()) == (0, b"ok"), out.stderr.decode()[-500:]
