"""The capture loop survives faults: killed workers, racing workers, a failing API, the
spend cap, a full disk and a read-only store.

Each case ends with the job in a state a person can read (done, queued with a later
attempt time and the reason, failed with the reason) and, once the fault is gone, every
fact stored exactly once. Workers are the real command (`python -m reviewer.cli worker
--once`) or `capture.worker.run`, against a real loopback fake Messages API.

Killing at an exact stage uses the documented test hook `MEM_REVIEW_TEST_PAUSE=<stage>`
(capture/pipeline.py `pause_for_tests`): the worker writes `paused-<stage>` in the data
dir and sleeps there. The API stage uses the fake API's `Hang` (the worker really is
blocked in the HTTP request).

A full disk and a read-only store are real: the data dir is a tiny tmpfs mounted for the
test (we run as root, where file modes are not enforced). Where `mount` is not allowed,
those tests skip.
"""

from __future__ import annotations

import contextlib
import functools
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
from fakeapi import (
    Error,
    Facts,
    FakeMessagesAPI,
    Hang,
    MaxTokens,
    Raw,
    Refusal,
)
from helpers import fact, make_repo, wait_for, worker_cmd, worker_env

from capture import pipeline, worker
from reviewer.config import Config
from reviewer.store import db, queue

ROOT = Path(__file__).resolve().parent.parent
WAIT = 60.0  # a guard against hanging, never a speed assertion

F1 = fact("Releases are cut on Mondays.", "releases are cut on Mondays", category="convention")
F2 = fact("The CI image is python:3.12-slim.", "python:3.12-slim", category="environment")
GOOD = [F1, F2]


# --------------------------------------------------------------------------- helpers


@pytest.fixture
def home(worker_home: Path) -> Path:
    """The worker's data dir (conftest), no key: each test brings its fake API."""
    return worker_home


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"ci.yml": "image: python:3.12-slim\n"})


def session(tmp_path: Path, name: str = "s1", words: str = "") -> Path:
    """A small current-format transcript with a conversation worth extracting."""
    path = tmp_path / "sessions" / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        {"type": "user", "message": {"role": "user",
                                     "content": f"Remember: releases are cut on Mondays. {words}"}},
        {"type": "assistant", "message": {"id": f"msg_{name}", "role": "assistant", "content": [
            {"type": "text", "text": "Noted. The CI image is python:3.12-slim."}]}},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def enqueue(transcript: Path, repo: Path) -> int:
    conn = db.connect()
    try:
        return queue.enqueue(conn, session_id=transcript.stem, transcript_path=str(transcript),
                             project=str(repo), cwd=str(repo), event="SessionEnd")
    finally:
        conn.close()


def rows(sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    conn = db.connect()
    try:
        return [dict(r) for r in conn.execute(sql, params)]
    finally:
        conn.close()


def job(job_id: int) -> dict[str, Any]:
    return rows("SELECT * FROM job WHERE id = ?", (job_id,))[0]


def fact_texts() -> list[str]:
    return sorted(r["text"] for r in rows("SELECT text FROM fact"))


def make_due(job_id: int) -> None:
    """Time passes: the job's backoff is over."""
    conn = db.connect()
    try:
        conn.execute("UPDATE job SET not_before = 0 WHERE id = ?", (job_id,))
    finally:
        conn.close()


# A request may hang longer than a test waits: the worker is killed mid-request, not timed out.
faults_env = functools.partial(worker_env, MEM_REVIEW_API_TIMEOUT="120")


def run_worker(env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(worker_cmd(), env=env, cwd=ROOT, capture_output=True, timeout=WAIT,
                          check=False)


def log_text(home: Path) -> str:
    path = home / "mem-review.log"
    return path.read_text() if path.exists() else ""


# --------------------------------------------------------------------------- SIGKILL


@pytest.mark.parametrize("stage", ["read", "api", "store"])
def test_a_worker_killed_at_any_stage_loses_nothing_and_doubles_nothing(
    home: Path, repo: Path, tmp_path: Path, stage: str
) -> None:
    """read: transcript read, nothing written; api: blocked in the HTTP request; store:
    facts inserted in the open transaction, just before COMMIT."""
    job_id = enqueue(session(tmp_path), repo)
    other = enqueue(session(tmp_path, "s2", "Second session."), repo)
    behaviours = [Hang(300)] if stage == "api" else []
    with FakeMessagesAPI(extract=behaviours, default_extract=Facts(GOOD)) as api:
        pause = {} if stage == "api" else {"MEM_REVIEW_TEST_PAUSE": stage}
        proc = subprocess.Popen(worker_cmd(), env=faults_env(home, api.url, **pause), cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            if stage == "api":
                wait_for("the extraction request", lambda: api.messages("extract"))
            else:
                marker = home / f"paused-{stage}"
                wait_for(f"the {stage} pause", marker.exists)
                assert marker.read_text() == str(proc.pid)
            assert job(job_id)["state"] == "running" and job(job_id)["claimed_by"] == proc.pid
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=WAIT)
        assert proc.returncode == -signal.SIGKILL
        assert job(job_id)["state"] == "running"  # the dead owner's job waits for the next one
        assert fact_texts() == []  # nothing half-written is visible
        assert not worker.is_running()  # the dead worker's lock went with it

        again = run_worker(faults_env(home, api.url))
        assert again.returncode == 0, again.stderr.decode()[-2000:]

    first, second = job(job_id), job(other)
    assert first["state"] == second["state"] == "done"
    assert first["attempts"] == 2 and second["attempts"] == 1
    # The killed job's facts exactly once; the second session only saw them again.
    facts = rows("SELECT text, job_id, times_seen FROM fact ORDER BY text")
    assert [(f["text"], f["job_id"], f["times_seen"]) for f in facts] == sorted(
        (f["fact"], job_id, 2) for f in GOOD
    )
    created = rows("SELECT fact_id FROM fact_history WHERE action = 'created'")
    assert sorted(c["fact_id"] for c in created) == sorted(
        r["id"] for r in rows("SELECT id FROM fact")
    )
    assert "put back 1 job" in log_text(home)
    conn = sqlite3.connect(home / "store.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


# --------------------------------------------------------------------------- two workers


@pytest.mark.parametrize("wait", ["0", None])
def test_two_workers_started_at_once_one_works_the_other_exits_or_waits(
    home: Path, repo: Path, tmp_path: Path, wait: str | None
) -> None:
    """Hook-started (`--wait 0`): the second exits at once. By hand (the default wait):
    the second waits for the first, finds the queue drained, and exits 0 too."""
    ids = [enqueue(session(tmp_path, f"s{i}", f"Session {i}."), repo) for i in range(3)]
    slow = [Hang(1.0, Facts([fact(f"Fact number {i} of the race.", "Session")])) for i in range(3)]
    cmd = worker_cmd() + (["--wait", wait] if wait is not None else [])
    with FakeMessagesAPI(extract=slow) as api:
        env = faults_env(home, api.url)
        procs = [subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE) for _ in range(2)]
        outs = [p.communicate(timeout=WAIT) for p in procs]
        assert [p.returncode for p in procs] == [0, 0]
        # `--once` by hand reports what it did, one line a job; never a traceback
        assert all(b"Traceback" not in o[0] for o in outs)
        assert sum(o[0].count(b" done: ") for o in outs) == (3 if wait is None else 0)
        assert len(api.messages("extract")) == 3  # each job asked once
    exits = log_text(home).count("another worker holds the lock; exiting")
    assert exits == (1 if wait == "0" else 0)
    jobs = [job(i) for i in ids]
    assert [(j["state"], j["attempts"]) for j in jobs] == [("done", 1)] * 3
    assert len(fact_texts()) == 3


# --------------------------------------------------------------------------- the API


CASES: dict[str, dict[str, Any]] = {
    # name: behaviours, expected state, last_error start, min delay, env
    "429 with retry-after": dict(
        script=[Error(429, retry_after=120)], state="queued", error="rate_limit: HTTP 429",
        delay=115),
    "529 repeatedly (SDK retries too)": dict(
        script=[Error(529)] * 3, state="queued", error="overloaded: HTTP 529", delay=30,
        env={"MEM_REVIEW_MAX_RETRIES": "2"}, requests=3),
    "500s": dict(script=[Error(500), Error(502)], state="queued", error="server: HTTP 502",
                 delay=30, env={"MEM_REVIEW_MAX_RETRIES": "1"}, requests=2),
    "timeout": dict(script=[Hang(5)], state="queued", error="timeout: request timed out",
                    delay=30, env={"MEM_REVIEW_API_TIMEOUT": "0.5"}),
    "connection refused": dict(script=[], state="queued", error="connection: connection failed",
                               delay=30, refused=True, requests=0),
    "invalid key": dict(script=[Error(401, message="invalid x-api-key")], state="failed",
                        error="auth: HTTP 401: invalid x-api-key"),
    "answer not JSON": dict(
        script=[Raw(200, b"<html>502 Bad Gateway</html>", content_type="application/json")],
        state="queued", error="bad_answer: response is not JSON", delay=30),
    "answer of the wrong shape": dict(script=[Facts("not a list")],  # type: ignore[arg-type]
                                      state="queued", error="bad_answer: record_facts input has"
                                      " the wrong shape", delay=30),
    "max_tokens stop": dict(script=[MaxTokens(GOOD)], state="queued",
                            error="bad_answer: answer cut off at max_tokens", delay=30),
    "refusal": dict(script=[Refusal()], state="queued", error="bad_answer: model refused",
                    delay=30),
}


def _closed_port() -> str:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"  # nothing listens there any more


@pytest.mark.parametrize("name", list(CASES))
def test_api_faults_leave_a_readable_job_and_lose_nothing(
    home: Path, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    case = CASES[name]
    for var, value in case.get("env", {}).items():
        monkeypatch.setenv(var, value)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    job_id = enqueue(session(tmp_path), repo)
    before = db.now()
    with FakeMessagesAPI(extract=case["script"]) as api:
        url = _closed_port() if case.get("refused") else api.url
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        assert worker.run(once=True) == 0
        assert len(api.messages("extract")) == case.get("requests", 1)
    row = job(job_id)
    assert row["state"] == case["state"], row
    assert row["last_error"].startswith(case["error"]), row["last_error"]
    assert fact_texts() == []
    if case["state"] == "failed":  # permanent: retrying cannot help, a person must see it
        assert row["permanent_error"] == 1
        assert worker.run(once=True) == 0 and job(job_id)["state"] == "failed"
        return
    assert row["permanent_error"] == 0 and row["attempts"] == 1
    assert row["not_before"] >= before + case["delay"]

    # The fault is gone and the backoff over: the same job finishes, nothing lost or doubled.
    monkeypatch.setenv("MEM_REVIEW_API_TIMEOUT", "60")
    make_due(job_id)
    with FakeMessagesAPI(extract=[Facts(GOOD)]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        assert worker.run(once=True) == 0
        assert worker.run(once=True) == 0  # nothing left to do: asks nothing
        assert len(api.messages("extract")) == 1
    row = job(job_id)
    assert (row["state"], row["attempts"], row["last_error"]) == ("done", 2, None)
    assert fact_texts() == sorted(f["fact"] for f in GOOD)


def test_confidence_out_of_range_drops_only_that_fact(
    home: Path, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = [dict(F1, confidence=1.7), dict(F2, confidence=-0.2),
           dict(F1, fact="NaN confidence.", confidence=float("nan"))]
    good = fact("Deploys need the VPN.", "VPN", confidence=0.6)
    job_id = enqueue(session(tmp_path), repo)
    with FakeMessagesAPI(extract=[Facts([*bad, good])]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        worker.run(once=True)
    assert job(job_id)["state"] == "done"
    assert fact_texts() == ["Deploys need the VPN."]
    assert "3 dropped" in log_text(home)


def _age_streak(job_id: int, seconds: float) -> None:
    """Time passes: the job's failure streak began `seconds` ago, and its backoff is over."""
    conn = db.connect()
    try:
        conn.execute("UPDATE job SET first_failed_at = ?, not_before = 0 WHERE id = ?",
                     (db.now() - seconds, job_id))
    finally:
        conn.close()


def test_a_sustained_outage_with_retry_after_0_does_not_fail_the_job_in_seconds(
    home: Path, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen: 529 with `retry-after: 0`, 10 tries in 12 s, then failed. The backoff grows
    from a floor whatever the server says; the job fails only after a day of errors."""
    job_id = enqueue(session(tmp_path), repo)
    tries = 15
    with FakeMessagesAPI(default_extract=Error(529, retry_after=0)) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        delays = []
        for _ in range(tries):
            t0 = db.now()
            assert worker.run(once=True) == 0
            assert worker.run(once=True) == 0  # not due: the second run asks nothing
            row = job(job_id)
            assert row["state"] == "queued", row
            delays.append(row["not_before"] - t0)
            make_due(job_id)
        assert len(api.messages("extract")) == tries
        first = job(job_id)["first_failed_at"]
        assert first is not None and db.now() - first < 600  # the streak is this test's
        # Nearly a day later it still waits; a day after the first failure, it is failed.
        _age_streak(job_id, pipeline.GIVE_UP_SECONDS - 60)
        worker.run(once=True)
        assert job(job_id)["state"] == "queued"
        _age_streak(job_id, pipeline.GIVE_UP_SECONDS + 1)
        worker.run(once=True)
    row = job(job_id)
    assert row["state"] == "failed", row
    assert row["last_error"].startswith("gave up after 24 h of transient errors (17 attempts); "
                                        "last error overloaded: HTTP 529"), row["last_error"]
    base = Config().retry_base_seconds
    assert min(delays) >= base - 1  # never under the floor, though the server said 0
    steps = [round(d) for d in delays]
    assert steps == sorted(steps) and steps[0] < steps[-1] == queue.MAX_BACKOFF  # it grows
    assert fact_texts() == []


def test_retry_after_lengthens_the_wait_but_never_shortens_it(home: Path) -> None:
    cfg = Config(retry_base_seconds=60)
    assert pipeline.delay_for(cfg, 1, 0) == 60  # `retry-after: 0`
    assert pipeline.delay_for(cfg, 1, 0.5) == 60
    assert pipeline.delay_for(cfg, 4, 5) == 480  # the exponential wins over a short hint
    assert pipeline.delay_for(cfg, 1, 900) == 900  # a longer hint wins
    assert pipeline.delay_for(cfg, 1, 1e12) == pipeline.MAX_RETRY_AFTER  # not believed
    assert pipeline.delay_for(cfg, 1, -5) == 60
    assert pipeline.delay_for(Config(retry_base_seconds=0), 1, 0) >= 1  # a floor of 1 s
    assert pipeline.backoff(cfg, 10**6) == queue.MAX_BACKOFF  # no overflow


def test_a_permanent_error_still_fails_at_once(
    home: Path, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    job_id = enqueue(session(tmp_path), repo)
    with FakeMessagesAPI(default_extract=Error(400, message="bad request")) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        worker.run(once=True)
    row = job(job_id)
    assert row["state"] == "failed" and row["permanent_error"] == 1
    assert row["first_failed_at"] is None


def test_retry_puts_failed_jobs_back_and_they_finish(
    home: Path, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = enqueue(session(tmp_path, "bad"), repo)
    other = enqueue(session(tmp_path, "other", "Other."), repo)
    with FakeMessagesAPI(extract=[Error(401, message="invalid x-api-key sk-ant-api03-"
                                        + "A" * 40), Facts([F1])]) as api:
        env = faults_env(home, api.url)
        assert run_worker(env).returncode == 0
        assert job(bad)["state"] == "failed" and job(other)["state"] == "done"
        cli = [sys.executable, "-m", "reviewer.cli", "retry"]
        none = subprocess.run(cli, env=env, cwd=ROOT, capture_output=True, text=True,
                              timeout=WAIT, check=False)
        assert none.returncode == 1 and "say which failed jobs" in none.stderr
        done = subprocess.run([*cli, str(bad), str(other), "999"], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=WAIT, check=False)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines == [f"put 1 failed job(s) back in the queue ({bad}); skipped {other} "
                         "(it is done), 999 (no such job); a worker is running or spawning "
                         "is off; see `mem-review status`"], lines
        row = job(bad)
        assert (row["state"], row["attempts"], row["permanent_error"]) == ("queued", 0, 0)
        assert row["last_error"].startswith("retried by hand; had failed: auth: HTTP 401")
        assert "sk-ant-api03-AAAA" not in log_text(home) + row["last_error"]
        assert "had failed: auth: HTTP 401" in log_text(home)
        api.script(Facts([F2]), lane="extract")
        assert run_worker(env).returncode == 0
    row = job(bad)
    assert (row["state"], row["last_error"]) == ("done", None)
    assert fact_texts() == sorted([F1["fact"], F2["fact"]])
    again = subprocess.run([*cli, "--all"], env=env, cwd=ROOT, capture_output=True, text=True,
                           timeout=WAIT, check=False)
    assert (again.returncode, again.stdout.strip()) == (0, "no failed job to put back")


# --------------------------------------------------------------------------- spend cap


def test_the_daily_spend_cap_is_on_by_default_and_defers_to_midnight(
    home: Path, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cap = Config().daily_spend_cap_usd
    assert cap > 0
    yesterday = pipeline.today_start() - 3600
    old = enqueue(session(tmp_path, "old"), repo)
    spent = enqueue(session(tmp_path, "spent"), repo)
    conn = db.connect()
    try:  # yesterday's spend does not count; today's reaches the cap exactly
        conn.execute("UPDATE job SET state='done', end_cursor=0, cost_usd=?, updated_at=? "
                     "WHERE id=?", (cap * 5, yesterday, old))
        conn.execute("UPDATE job SET state='done', end_cursor=0, cost_usd=?, updated_at=? "
                     "WHERE id=?", (cap / 2, db.now(), spent))
    finally:
        conn.close()
    first = enqueue(session(tmp_path, "first"), repo)
    with FakeMessagesAPI(extract=[Facts([F1])]) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        worker.run(once=True)  # under the cap: runs
        assert job(first)["state"] == "done"
        conn = db.connect()
        try:
            conn.execute("UPDATE job SET cost_usd = ? WHERE id = ?", (cap, spent))
        finally:
            conn.close()
        waiting = [enqueue(session(tmp_path, f"w{i}"), repo) for i in range(2)]
        worker.run(once=True)
        assert len(api.messages("extract")) == 1  # nothing asked once the cap was reached
    midnight = pipeline.next_midnight()
    row = job(waiting[0])
    assert row["state"] == "queued" and row["last_error"] == pipeline.SPEND_CAP
    assert row["not_before"] >= midnight - 1 and row["attempts"] == 0
    assert job(waiting[1])["state"] == "queued"  # the worker stopped taking jobs
    assert fact_texts() == [F1["fact"]]


# --------------------------------------------------------------------------- disk full, read-only


@contextlib.contextmanager
def tiny_fs(where: Path, size_kb: int) -> Iterator[Path]:
    """A real tmpfs of `size_kb` mounted at `where` (root only): a disk that fills up and
    can be remounted read-only."""
    where.mkdir(parents=True, exist_ok=True)
    out = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0700", "tmpfs",
                          str(where)], capture_output=True, check=False)
    if out.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {out.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def remount(where: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(where)], check=True)


def fill(where: Path) -> Path:
    """Write until the disk is full; returns the filler to delete."""
    filler = where / "filler"
    with contextlib.suppress(OSError), open(filler, "wb") as fh:
        while True:
            fh.write(b"\0" * 4096)
            fh.flush()
    with contextlib.suppress(OSError), open(filler, "ab") as fh:  # the last partial block
        while True:
            fh.write(b"\0")
            fh.flush()
    return filler


def hook(home: Path, event: str, payload: dict[str, Any]) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_REVIEW_")}
    env.update(MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1")
    return subprocess.run([sys.executable, "-m", "reviewer.cli", "hook", event],
                          input=json.dumps(payload).encode(), env=env, cwd=ROOT,
                          capture_output=True, timeout=WAIT, check=False)


def end_payload(transcript: Path, repo: Path) -> dict[str, Any]:
    return {"session_id": transcript.stem, "transcript_path": str(transcript), "cwd": str(repo),
            "hook_event_name": "SessionEnd", "reason": "other"}


def start_payload(repo: Path) -> dict[str, Any]:
    return {"session_id": "new", "transcript_path": "/nonexistent.jsonl", "cwd": str(repo),
            "hook_event_name": "SessionStart", "source": "startup"}


def approve_one(repo: Path) -> None:
    from reviewer.store.facts import NewFact, Store

    store = Store()
    try:
        store.import_facts([NewFact(project=str(repo), text="Releases are cut on Mondays.",
                                    norm="releases are cut on mondays", category="convention")],
                           keep_status=False)
        (f,) = store.facts(str(repo))
        assert f.id is not None
        store.approve([f.id])
    finally:
        store.close()


def assert_hook_failed_open(out: subprocess.CompletedProcess[bytes], event: str) -> None:
    assert out.returncode == 0
    assert b"Traceback" not in out.stderr
    if event == "session-start" and out.stdout:  # an answer, if any, is the exact JSON shape
        answer = json.loads(out.stdout)
        assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    else:
        assert out.stdout == b""


def test_a_full_disk_fails_hooks_open_and_the_job_is_caught_up_later(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 1 MiB, as the other full-disk tests: a new store and its write-ahead log take ~300 kB
    # while its migrations run (512 kB ran out once the schema grew), and the disk is filled
    # only after that.
    with tiny_fs(tmp_path / "disk", 1024) as disk:
        home = disk / "home"
        monkeypatch.setenv("MEM_REVIEW_HOME", str(home))
        monkeypatch.setenv("MEM_REVIEW_NO_SPAWN", "1")
        db.connect().close()
        approve_one(repo)
        transcript = session(tmp_path)
        filler = fill(disk)
        for event, payload in (("session-end", end_payload(transcript, repo)),
                               ("pre-compact", end_payload(transcript, repo)),
                               ("session-start", start_payload(repo))):
            assert_hook_failed_open(hook(home, event, payload), event)
        filler.unlink()
        assert rows("SELECT * FROM job") == []  # the full disk took nothing half-written
        out = hook(home, "session-end", end_payload(transcript, repo))
        assert (out.returncode, out.stdout) == (0, b"")
        (queued,) = rows("SELECT * FROM job")
        assert queued["state"] == "queued"
        conn = db.connect()
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        finally:
            conn.close()


def test_a_disk_that_fills_while_the_worker_waits_on_the_api_loses_nothing(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # room for an empty store (170 kB with its indexes) and its WAL, then it fills
    with tiny_fs(tmp_path / "disk", 1024) as disk:
        home = disk / "home"
        monkeypatch.setenv("MEM_REVIEW_HOME", str(home))
        job_id = enqueue(session(tmp_path), repo)
        with FakeMessagesAPI(extract=[Hang(1.5, Facts(GOOD))],
                             default_extract=Facts(GOOD)) as api:
            env = faults_env(home, api.url)
            proc = subprocess.Popen(worker_cmd(), env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE)
            wait_for("the extraction request", lambda: api.messages("extract"))
            filler = fill(disk)
            stdout, _ = proc.communicate(timeout=WAIT)
            assert b"Traceback" not in stdout and b"done" not in stdout
            assert job(job_id)["state"] in ("running", "queued")  # not done, not failed
            assert fact_texts() == []
            filler.unlink()
            make_due(job_id)
            out = run_worker(env)
            assert out.returncode == 0, out.stderr.decode()[-2000:]
        row = job(job_id)
        assert row["state"] == "done"
        assert fact_texts() == sorted(f["fact"] for f in GOOD)
        assert len(rows("SELECT * FROM fact_history WHERE action = 'created'")) == 2


def test_a_read_only_store_fails_hooks_and_worker_open_and_nothing_is_lost(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with tiny_fs(tmp_path / "disk", 2048) as disk:
        home = disk / "home"
        monkeypatch.setenv("MEM_REVIEW_HOME", str(home))
        monkeypatch.setenv("MEM_REVIEW_NO_SPAWN", "1")
        approve_one(repo)
        transcript = session(tmp_path)
        job_id = enqueue(transcript, repo)
        remount(disk, "ro")
        try:
            for event, payload in (("session-end", end_payload(session(tmp_path, "s2"), repo)),
                                   ("session-start", start_payload(repo))):
                assert_hook_failed_open(hook(home, event, payload), event)
            # Memory stays on: the approved fact is still injected from the read-only store.
            started = hook(home, "session-start", start_payload(repo))
            context = json.loads(started.stdout)["hookSpecificOutput"]["additionalContext"]
            assert F1["fact"] in context
            with FakeMessagesAPI(default_extract=Facts(GOOD)) as api:
                out = run_worker(faults_env(home, api.url))
                assert out.returncode in (0, 1) and out.stdout == b""
                assert b"Traceback" not in out.stderr
                assert api.messages("extract") == []
        finally:
            remount(disk, "rw")
        assert job(job_id)["state"] == "queued"
        with FakeMessagesAPI(default_extract=Facts(GOOD)) as api:
            assert run_worker(faults_env(home, api.url)).returncode == 0
        assert job(job_id)["state"] == "done"
        assert fact_texts() == sorted([F1["fact"], F2["fact"]])  # F1 was approved: seen again


async def test_a_decision_on_a_full_disk_is_reported_in_the_review_and_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person's key press cannot be saved: the review says so, keeps running, and the
    store still holds the truth (the fact stays pending, to be decided again)."""
    from test_tui_seed import make_app, make_env, seed

    with tiny_fs(tmp_path / "disk", 1024) as disk:
        env = next(make_env(disk, monkeypatch))
        ids = seed(env)
        before = {i: env.fact(i)["status"] for i in ids}
        app = make_app(env)
        async with app.run_test() as pilot:
            await app.settle()
            selected = app.main.facts.selected
            assert selected is not None and before[selected.id] == "pending"
            filler = fill(disk)
            try:
                await pilot.press("a")
                await app.settle()
                await pilot.pause()
                assert app.is_running
                messages = [n.message for n in app._notifications]
                assert any("Could not save a decision" in m for m in messages), messages
            finally:
                filler.unlink()
        assert env.fact(selected.id)["status"] == "pending"
        assert {i: env.fact(i)["status"] for i in ids} == before
