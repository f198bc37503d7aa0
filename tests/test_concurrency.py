"""Many sessions end at once while the worker writes and a person has the review open.

50 SessionEnd hooks (real subprocesses, as Claude Code runs them, distinct transcripts)
are fired at the same moment while a worker drains a long queue against the fake API
and a TUI-like reader (`reviewer.tui.rows.load_rows`, the review list's query) polls the
store from a thread. Every hook must exit 0 with nothing on stdout and record its job;
no process may see "database is locked"; the reader never errors.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fakeapi import Facts, FakeMessagesAPI, Hang
from helpers import fact, make_repo, worker_env

from reviewer.store import db, queue
from reviewer.tui.rows import count_facts, load_rows, queue_counts

ROOT = Path(__file__).resolve().parent.parent
WAIT = 240.0  # a guard against hanging, never a speed assertion
HOOKS = 50
BACKLOG = 40


def transcript(d: Path, name: str) -> Path:
    path = d / f"{name}.jsonl"
    path.write_text(
        json.dumps({"type": "user", "message": {"role": "user",
                                                "content": f"Session {name}: note the port."}})
        + "\n"
    )
    return path


class Reader(threading.Thread):
    """What the review screen does while open: reload the list, the counts, the queue."""

    def __init__(self, project: str) -> None:
        super().__init__(name="tui-like-reader", daemon=True)
        self.project = project
        self.stop = threading.Event()
        self.errors: list[str] = []
        self.reads = 0
        self.max_rows = 0

    def run(self) -> None:
        try:
            conn = db.connect()
        except Exception as exc:
            self.errors.append(repr(exc))
            return
        try:
            while not self.stop.is_set():
                try:
                    rows = load_rows(conn, self.project)
                    count_facts(conn, self.project, 0.0)
                    queue_counts(conn)
                except Exception as exc:
                    self.errors.append(repr(exc))
                self.reads += 1
                self.max_rows = max(self.max_rows, len(rows))
                time.sleep(0.01)
        finally:
            conn.close()


def test_fifty_hooks_at_once_while_the_worker_writes_and_the_tui_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(home))
    repo = make_repo(tmp_path / "repo", {"README.md": "x\n"})
    d = tmp_path / "sessions"
    d.mkdir()

    conn = db.connect()
    try:  # a long queue already waiting
        for i in range(BACKLOG):
            path = transcript(d, f"backlog-{i}")
            queue.enqueue(conn, session_id=path.stem, transcript_path=str(path),
                          project=str(repo), cwd=str(repo), event="SessionEnd")
    finally:
        conn.close()

    counter = iter(range(10_000))

    def answer() -> Any:
        n = next(counter)
        return Hang(0.05, Facts([fact(f"Service {n} listens on port {8000 + n}.", "port")]))

    with FakeMessagesAPI(extract=[answer() for _ in range(BACKLOG + HOOKS)]) as api:
        env = worker_env(home, api.url, MEM_REVIEW_DAILY_SPEND_CAP="0")
        reader = Reader(str(repo))
        reader.start()
        work = subprocess.Popen([sys.executable, "-m", "reviewer.cli", "worker", "--once"],
                                env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        deadline = time.monotonic() + WAIT
        while len(api.messages("extract")) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)  # the worker is busy writing facts

        payloads = []
        for i in range(HOOKS):
            path = transcript(d, f"ended-{i}")
            stdin = tmp_path / f"payload-{i}.json"
            stdin.write_text(json.dumps({
                "session_id": path.stem, "transcript_path": str(path), "cwd": str(repo),
                "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}))
            payloads.append(stdin)
        handles = [p.open("rb") for p in payloads]
        try:
            hooks = [subprocess.Popen([sys.executable, "-m", "reviewer.cli", "hook",
                                       "session-end"], stdin=h, env=env, cwd=ROOT,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                     for h in handles]
            results = [(h.returncode, *h.communicate(timeout=WAIT)) for h in hooks]
            results = [(h.returncode, out, err) for h, (_, out, err) in zip(hooks, results,
                                                                             strict=True)]
        finally:
            for h in handles:
                h.close()
        worker_out, worker_err = work.communicate(timeout=WAIT)
        reader.stop.set()
        reader.join(timeout=WAIT)
        asked = len(api.messages("extract"))

    conn = db.connect()
    try:
        jobs = [dict(r) for r in conn.execute("SELECT * FROM job")]
    finally:
        conn.close()
    recorded = {j["session_id"] for j in jobs if j["session_id"].startswith("ended-")}
    log = (home / "mem-review.log").read_text() if (home / "mem-review.log").exists() else ""
    locked = [err for _, _, err in results if b"locked" in err] + (
        [worker_err] if b"locked" in worker_err else [])
    print(f"\nconcurrency: {len(recorded)}/{HOOKS} hook jobs recorded while the worker did "
          f"{asked} extractions and the reader made {reader.reads} reads "
          f"({reader.errors[:1] or 'no error'})")

    assert [rc for rc, _, _ in results] == [0] * HOOKS
    assert [out for _, out, _ in results] == [b""] * HOOKS
    assert [err for _, _, err in results] == [b""] * HOOKS
    assert len(recorded) == HOOKS
    assert locked == [] and "locked" not in log, log[-2000:]
    assert work.returncode == 0 and b"Traceback" not in worker_out, worker_err.decode()[-2000:]
    assert reader.errors == [] and reader.reads > 0
    assert reader.max_rows > 0  # it saw facts arrive while it read
    assert sorted(j["state"] for j in jobs) == ["done"] * (BACKLOG + HOOKS)
    assert asked == BACKLOG + HOOKS  # each job extracted once
