"""The worker: the real SDK against a real loopback fake API, real transcripts, real git.

Outcomes are read from the store as `status` would: done with facts, queued with a later
attempt time and the reason, or failed with the reason. Subprocess workers are killed
mid-request to prove a job is neither lost nor stored twice.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakeapi import Error, Facts, FakeMessagesAPI, Hang
from helpers import fact, make_repo, wait_for, worker_cmd
from test_pipeline import PY_ERROR, git

from capture import pipeline, worker
from capture.extractors import api as api_extractor
from reviewer import paths
from reviewer.store import db, queue

ROOT = Path(__file__).resolve().parent.parent
WAIT = 60.0  # a guard against hanging, never a speed assertion


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(home))
    monkeypatch.setenv("MEM_REVIEW_NO_SPAWN", "1")
    monkeypatch.setenv("MEM_REVIEW_MAX_RETRIES", "0")
    monkeypatch.setenv("MEM_REVIEW_DAILY_SPEND_CAP", "0")
    monkeypatch.setenv("MEM_REVIEW_EXTRACTOR", "api")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    return home


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"number_generator.py": "print(4)\n"})


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        yield fake


@pytest.fixture
def sample(transcripts: Path) -> Path:
    return transcripts / "fasthooks" / "sample_main_transcript.jsonl"


PY_FACT = fact(
    "`python` is not on PATH here; scripts run with python3.",
    PY_ERROR,
    files=["number_generator.py"],
)


def enqueue(transcript: Path, repo: Path) -> int:
    conn = db.connect()
    try:
        return queue.enqueue(
            conn,
            session_id=transcript.stem,
            transcript_path=str(transcript),
            project=str(repo),
            cwd=str(repo),
            event="SessionEnd",
        )
    finally:
        conn.close()


def rows(sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
    conn = db.connect()
    try:
        return list(conn.execute(sql, params))
    finally:
        conn.close()


def job(job_id: int) -> sqlite3.Row:
    return rows("SELECT * FROM job WHERE id = ?", (job_id,))[0]


# --------------------------------------------------------------------------- outcomes


def test_end_to_end_into_pending_facts(
    home: Path, api: FakeMessagesAPI, repo: Path, sample: Path
) -> None:
    api.script(
        Facts([PY_FACT, fact("Releases are cut on Mondays.", "release monday")]), lane="extract"
    )
    job_id = enqueue(sample, repo)
    assert worker.run(once=True) == 0
    assert api.pending() == 0 and len(api.messages("extract")) == 1
    row = job(job_id)
    assert row["state"] == "done" and row["end_cursor"] == sample.stat().st_size
    assert row["input_tokens"] > 0 and row["cost_usd"] > 0
    facts = {f["text"]: f for f in rows("SELECT * FROM fact")}
    py, monday = facts[PY_FACT["fact"]], facts["Releases are cut on Mondays."]
    assert py["status"] == monday["status"] == "pending"
    assert (py["grounded"], monday["grounded"]) == (1, 0)
    assert json.loads(py["anchors"]) == {
        "number_generator.py": git(repo, "hash-object", "number_generator.py")
    }
    assert py["commit_sha"] == git(repo, "rev-parse", "HEAD")
    assert "python: command not found" in py["context"]
    assert not worker.is_running()  # the lock is released on the way out


def test_recapture_after_appending_extracts_only_the_new_part(
    home: Path, api: FakeMessagesAPI, repo: Path, sample: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "live.jsonl"
    copy.write_bytes(sample.read_bytes())
    enqueue(copy, repo)
    worker.run(once=True)
    with copy.open("a") as fh:
        fh.write(
            json.dumps(
                {
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": "From now on the CI image is python:3.12-slim.",
                    },
                }
            )
            + "\n"
        )
    api.script(
        Facts(
            [
                fact(
                    "The CI image is python:3.12-slim.",
                    "CI image is python:3.12-slim",
                    category="environment",
                )
            ]
        ),
        lane="extract",
    )
    second = enqueue(copy, repo)
    worker.run(once=True)
    first_req, second_req = api.messages("extract")
    assert "hello_world.py" in json.dumps(first_req.body)
    body = json.dumps(second_req.body)
    assert "python:3.12-slim" in body and "hello_world.py" not in body
    assert job(second)["state"] == "done"
    assert [f["text"] for f in rows("SELECT text FROM fact")] == [
        "The CI image is python:3.12-slim."
    ]


def test_without_a_key_the_job_waits_with_the_reason(
    home: Path, repo: Path, sample: Path, transcripts: Path
) -> None:
    first = enqueue(sample, repo)
    second = enqueue(transcripts / "spotter" / "short.jsonl", repo)
    assert worker.run(once=True) == 0
    a, b = job(first), job(second)
    assert a["state"] == "queued" and a["last_error"] == api_extractor.NO_KEY
    assert a["attempts"] == 0  # waiting for a key is not a failed attempt
    assert b["state"] == "queued" and b["last_error"] is None  # the worker stopped taking jobs
    assert rows("SELECT * FROM fact") == []


def test_rules_extractor_needs_no_key(
    home: Path, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEM_REVIEW_EXTRACTOR", "rules")
    transcript = tmp_path / "r.jsonl"
    transcript.write_text(
        json.dumps(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": "Remember that the staging host is staging.internal.",
                },
            }
        )
        + "\n"
    )
    job_id = enqueue(transcript, repo)
    worker.run(once=True)
    assert job(job_id)["state"] == "done"
    assert len(rows("SELECT * FROM fact WHERE source = 'rules'")) == 1


@pytest.mark.parametrize("status", [429, 529, 500])
def test_transient_errors_requeue_with_a_later_attempt(
    home: Path, api: FakeMessagesAPI, repo: Path, sample: Path, status: int
) -> None:
    api.script(Error(status), lane="extract")
    job_id = enqueue(sample, repo)
    before = db.now()
    worker.run(once=True)
    row = job(job_id)
    assert row["state"] == "queued" and row["permanent_error"] == 0
    assert f"HTTP {status}" in row["last_error"]
    assert row["not_before"] >= before + 30  # default backoff: retry_base_seconds (60)
    assert row["attempts"] == 1


def test_retry_after_from_the_server_is_honoured(
    home: Path, api: FakeMessagesAPI, repo: Path, sample: Path
) -> None:
    api.script(Error(429, retry_after=900), lane="extract")
    job_id = enqueue(sample, repo)
    before = db.now()
    worker.run(once=True)
    assert job(job_id)["not_before"] >= before + 850


def test_backoff_grows_with_attempts(home: Path) -> None:
    from reviewer.config import Config

    cfg = Config(retry_base_seconds=10)
    assert [pipeline.backoff(cfg, n) for n in (1, 2, 3)] == [10, 20, 40]
    assert pipeline.backoff(cfg, 50) == queue.MAX_BACKOFF


def test_auth_error_fails_the_job_with_the_reason(
    home: Path, api: FakeMessagesAPI, repo: Path, sample: Path
) -> None:
    api.script(Error(401, message="invalid x-api-key"), lane="extract")
    job_id = enqueue(sample, repo)
    worker.run(once=True)
    row = job(job_id)
    assert row["state"] == "failed" and row["permanent_error"] == 1
    assert "auth" in row["last_error"] and "invalid x-api-key" in row["last_error"]


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_unreadable_transcript_fails_the_job(
    home: Path, api: FakeMessagesAPI, repo: Path, tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "gone.jsonl"
    if kind == "directory":
        path.mkdir()
    job_id = enqueue(path, repo)
    worker.run(once=True)
    row = job(job_id)
    assert row["state"] == "failed" and "transcript unreadable" in row["last_error"]
    assert str(path) in row["last_error"]
    assert api.messages() == []


def test_daily_spend_cap_defers_to_midnight(
    home: Path, api: FakeMessagesAPI, repo: Path, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEM_REVIEW_DAILY_SPEND_CAP", "0.05")
    spent = enqueue(sample, repo)
    conn = db.connect()
    conn.execute(
        "UPDATE job SET state='done', end_cursor=0, cost_usd=0.06, updated_at=? WHERE id=?",
        (db.now(), spent),
    )
    conn.close()
    job_id = enqueue(sample, repo)
    worker.run(once=True)
    row = job(job_id)
    assert row["state"] == "queued" and row["last_error"] == pipeline.SPEND_CAP
    assert row["not_before"] >= pipeline.next_midnight() - 1
    assert api.messages() == []


def test_a_job_that_would_overshoot_the_cap_waits_and_one_over_it_fails(
    home: Path, api: FakeMessagesAPI, repo: Path, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cap holds for the job about to run, not only for what was already spent."""
    from reviewer.config import Config

    windows = pipeline.sent_windows(sample, Config())
    estimate = api_extractor.estimate_cost("claude-haiku-4-5", windows)
    assert estimate > 0
    # Spent a little today; this job's estimate would push the day over the cap: it waits.
    monkeypatch.setenv("MEM_REVIEW_DAILY_SPEND_CAP", f"{estimate * 1.5:.6f}")
    spent = enqueue(sample, repo)
    conn = db.connect()
    conn.execute(
        "UPDATE job SET state='done', end_cursor=0, cost_usd=?, updated_at=? WHERE id=?",
        (estimate, db.now(), spent),
    )
    conn.close()
    waiting = enqueue(sample, repo)
    worker.run(once=True)
    assert job(waiting)["state"] == "queued" and job(waiting)["last_error"] == pipeline.SPEND_CAP
    # A cap below what one job alone would cost can never be met: a clear failure, no loop.
    monkeypatch.setenv("MEM_REVIEW_DAILY_SPEND_CAP", "0.000001")
    conn = db.connect()
    conn.execute("UPDATE job SET not_before=0 WHERE id=?", (waiting,))
    conn.close()
    worker.run(once=True)
    row = job(waiting)
    assert row["state"] == "failed" and "over the daily spend cap" in row["last_error"]
    assert api.messages() == []


def test_a_crash_in_one_job_requeues_it_and_the_next_job_runs(
    home: Path,
    api: FakeMessagesAPI,
    repo: Path,
    sample: Path,
    transcripts: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = enqueue(transcripts / "spotter" / "short.jsonl", repo)
    second = enqueue(sample, repo)
    real = pipeline.process

    def flaky(store: Any, conn: Any, claimed: queue.Claimed, *a: Any, **kw: Any) -> Any:
        if claimed.id == first:
            raise RuntimeError("disk on fire")
        return real(store, conn, claimed, *a, **kw)

    monkeypatch.setattr(pipeline, "process", flaky)
    worker.run(once=True)
    a, b = job(first), job(second)
    assert a["state"] == "queued" and "RuntimeError: disk on fire" in a["last_error"]
    assert a["not_before"] > db.now()
    assert b["state"] == "done"
    log = (home / "mem-review.log").read_text()
    assert "Traceback" in log and "disk on fire" in log


def test_a_job_queued_while_the_worker_finishes_is_not_stranded(
    home: Path,
    api: FakeMessagesAPI,
    repo: Path,
    sample: Path,
    transcripts: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hook saw the lock held and started no worker: this one must look again."""
    enqueue(sample, repo)
    late: list[int] = []
    real_claim = queue.claim

    def claim(conn: sqlite3.Connection, pid: int, now: float | None = None) -> Any:
        got = real_claim(conn, pid, now)
        if got is None and not late:  # the queue looked empty: now a hook adds one
            late.append(enqueue(transcripts / "spotter" / "short.jsonl", repo))
        return got

    monkeypatch.setattr(queue, "claim", claim)
    worker.run(once=True)
    assert late and job(late[0])["state"] == "done"


def test_heartbeat_is_touched_while_a_job_runs(home: Path, repo: Path, sample: Path) -> None:
    job_id = enqueue(sample, repo)
    conn = db.connect()
    conn.execute("UPDATE job SET heartbeat = 0 WHERE id = ?", (job_id,))
    conn.close()
    with worker._Heartbeat(job_id, every=0.01):
        wait_for("a heartbeat", lambda: (job(job_id)["heartbeat"] or 0) > 0)


# --------------------------------------------------------------------------- processes


def _env(api: FakeMessagesAPI, home: Path) -> dict[str, str]:
    return dict(
        os.environ,
        MEM_REVIEW_HOME=str(home),
        ANTHROPIC_BASE_URL=api.url,
        ANTHROPIC_API_KEY="test-key",
        MEM_REVIEW_API_TIMEOUT="120",
    )


def test_a_killed_worker_loses_nothing_and_stores_nothing_twice(
    home: Path, repo: Path, sample: Path
) -> None:
    job_id = enqueue(sample, repo)
    with FakeMessagesAPI(extract=[Hang(120)]) as hanging:
        proc = subprocess.Popen(
            worker_cmd(),
            env=_env(hanging, home),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for("the extraction request", lambda: hanging.messages("extract"))
            assert job(job_id)["state"] == "running"
            assert job(job_id)["claimed_by"] == proc.pid
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=WAIT)
    assert proc.returncode == -signal.SIGKILL
    assert job(job_id)["state"] == "running"  # dead owner: left for the next worker

    with FakeMessagesAPI(extract=[Facts([PY_FACT])]) as fake:
        env = _env(fake, home)
        for _ in range(2):  # the second run finds nothing to do
            out = subprocess.run(
                worker_cmd(), env=env, cwd=ROOT, timeout=WAIT, check=False, capture_output=True
            )
            assert out.returncode == 0, out.stderr.decode()[-1000:]
        assert len(fake.messages("extract")) == 1
    row = job(job_id)
    assert row["state"] == "done" and row["attempts"] == 2
    facts = rows("SELECT text, job_id FROM fact")
    assert [(f["text"], f["job_id"]) for f in facts] == [(PY_FACT["fact"], job_id)]
    assert len(rows("SELECT * FROM fact_history WHERE action = 'created'")) == 1
    assert "put back 1 job" in (home / "mem-review.log").read_text()


def test_a_hook_started_worker_exits_at_once_while_the_first_holds_the_lock(
    home: Path, repo: Path, sample: Path
) -> None:
    job_id = enqueue(sample, repo)
    with FakeMessagesAPI(extract=[Hang(120)]) as hanging:
        env = _env(hanging, home)
        first = subprocess.Popen(
            worker_cmd(), env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            wait_for("the first worker's request", lambda: hanging.messages("extract"))
            second = subprocess.run(
                [*worker_cmd(), "--wait", "0"], env=env, cwd=ROOT, timeout=WAIT,
                capture_output=True, check=False
            )
            assert (second.returncode, second.stdout, second.stderr) == (0, b"", b"")
            assert len(hanging.messages("extract")) == 1  # the second one asked nothing
            row = job(job_id)
            assert row["state"] == "running" and row["claimed_by"] == first.pid
            assert "another worker holds the lock" in (home / "mem-review.log").read_text()

            # Asked by hand to wait a little: it says plainly why it could not drain.
            third = subprocess.run(
                [*worker_cmd(), "--wait", "1.5"], env=env, cwd=ROOT, timeout=WAIT,
                capture_output=True, text=True, check=False
            )
            assert third.returncode == 1 and third.stdout == ""
            assert third.stderr.splitlines() == [
                f"mem-review: another worker (pid {first.pid}) still holds the worker lock "
                "after 1.5 s; 0 job(s) queued, 1 running; the queue is not drained yet: wait "
                "longer with --wait SECONDS, or see `mem-review status`"]
            bad = subprocess.run([*worker_cmd(), "--wait", "-1"], env=env, cwd=ROOT,
                                 timeout=WAIT, capture_output=True, text=True, check=False)
            assert bad.returncode == 1 and "--wait -1: give a number" in bad.stderr
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=WAIT)


def test_worker_once_by_hand_waits_for_the_other_worker_and_the_queue_drains(
    home: Path, repo: Path, sample: Path, tmp_path: Path
) -> None:
    """Seen: `worker --once` returned at once, silently, while another worker held the
    lock, so a "capture, then drain" script read an unfinished queue."""
    first_job = enqueue(sample, repo)
    copy = tmp_path / "later.jsonl"
    copy.write_bytes(sample.read_bytes())
    with FakeMessagesAPI(extract=[Hang(3, Facts([]))], default_extract=Facts([])) as api:
        env = _env(api, home)
        first = subprocess.Popen(
            [*worker_cmd(), "--wait", "0"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for("the first worker's request", lambda: api.messages("extract"))
            later = enqueue(copy, repo)  # queued while the first worker is busy
            drained = subprocess.run(worker_cmd(), env=env, cwd=ROOT, timeout=WAIT,
                                     capture_output=True, text=True, check=False)
            assert (drained.returncode, drained.stderr) == (0, "")
            assert job(first_job)["state"] == "done" and job(later)["state"] == "done"
        finally:
            first.wait(timeout=WAIT)


def test_a_dead_workers_lock_is_taken_over(home: Path, repo: Path, tmp_path: Path) -> None:
    paths.ensure_home()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time\n"
            "f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX)\n"
            "print('locked', flush=True); time.sleep(600)",
            str(paths.worker_lock_path()),
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
        assert worker.is_running()
        with open(paths.worker_lock_path(), "a") as probe, pytest.raises(BlockingIOError):
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        holder.kill()
        holder.wait(timeout=WAIT)
        if holder.stdout is not None:
            holder.stdout.close()
    assert not worker.is_running()
    assert worker.run(once=True) == 0


# --------------------------------------------------------------------------- rescan


def test_rescan_queues_sessions_that_ended_without_a_hook(
    home: Path, repo: Path, tmp_path: Path
) -> None:
    from capture import rescan

    projects = tmp_path / "claude-projects" / "-repo"
    projects.mkdir(parents=True)
    line = json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}}) + "\n"

    def transcript(name: str, age: float) -> Path:
        path = projects / f"{name}.jsonl"
        path.write_text(line)
        os.utime(path, (db.now() - age, db.now() - age))
        return path

    hooked = transcript("hooked", 5000)
    conn = db.connect()
    first = queue.enqueue(
        conn,
        session_id="hooked",
        transcript_path=str(hooked),
        project=str(repo),
        cwd=str(repo / "src"),
        event="SessionEnd",
    )
    conn.execute(
        "UPDATE job SET state='done', end_cursor=?, created_at=? WHERE id=?",
        (hooked.stat().st_size, db.now() - 3000, first),
    )
    before_install = transcript("ancient", 4000)
    killed = transcript("killed", 2000)  # appeared after capture started, went quiet
    transcript("agent-a1b2c3", 2000)  # a subagent's own file: reaches us via its Task result
    live = transcript("live", 10)  # still being written: its own hook will come
    broken = transcript("broken", 2500)
    failed = queue.enqueue(
        conn,
        session_id="broken",
        transcript_path=str(broken),
        project=str(repo),
        cwd=str(repo / "src"),
        event="SessionEnd",
    )
    queue.fail(conn, failed, "transcript unreadable")
    assert rescan.find_missed(conn) == [
        rescan.Missed(str(killed), str(repo), str(repo / "src"), "killed")
    ]

    with hooked.open("a") as fh:  # the hooked session went on after its capture
        fh.write(line)
    os.utime(hooked, (db.now() - 1000, db.now() - 1000))
    ids = rescan.enqueue_missed(conn)
    queued = {
        r["transcript_path"]: r for r in conn.execute("SELECT * FROM job WHERE state = 'queued'")
    }
    conn.close()
    assert len(ids) == 2 and set(queued) == {str(killed), str(hooked)}
    assert {r["event"] for r in queued.values()} == {"rescan"}
    assert str(before_install) not in queued and str(live) not in queued


def test_the_worker_rescans_and_captures_a_missed_session(
    home: Path, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEM_REVIEW_EXTRACTOR", "rules")
    projects = tmp_path / "claude-projects"
    projects.mkdir()
    hooked = projects / "a.jsonl"
    hooked.write_text(
        json.dumps({"type": "user", "message": {"role": "user", "content": "hello"}}) + "\n"
    )
    conn = db.connect()
    queue.enqueue(
        conn,
        session_id="a",
        transcript_path=str(hooked),
        project=str(repo),
        cwd=str(repo),
        event="SessionEnd",
    )
    conn.execute("UPDATE job SET created_at = ?", (db.now() - 3600,))
    conn.close()
    missed = projects / "b.jsonl"
    missed.write_text(
        json.dumps(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": "Remember that the cache lives in /var/cache/shop.",
                },
            }
        )
        + "\n"
    )
    os.utime(missed, (db.now() - 1800, db.now() - 1800))
    worker.run(once=True)
    done = rows("SELECT session_id, event, state FROM job ORDER BY id")
    assert [tuple(r) for r in done] == [("a", "SessionEnd", "done"), ("b", "rescan", "done")]
    assert any("/var/cache/shop" in r["text"] for r in rows("SELECT text FROM fact"))


def test_a_starting_worker_does_not_mistake_a_probe_for_a_worker(
    home: Path, repo: Path, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`status` or a hook probing the lock at the very moment a worker starts."""
    monkeypatch.setenv("MEM_REVIEW_EXTRACTOR", "rules")
    job_id = enqueue(sample, repo)
    real_flock = fcntl.flock
    probed: list[int] = []

    def flock(fd: int, op: int) -> None:
        if op == fcntl.LOCK_EX | fcntl.LOCK_NB and not probed:
            probed.append(fd)  # the first try finds the lock held by a probe
            raise BlockingIOError("held by a probe")
        real_flock(fd, op)

    monkeypatch.setattr(fcntl, "flock", flock)
    assert worker.run(once=True) == 0
    assert probed and job(job_id)["state"] == "done"
