"""What `worker --once`, `doctor` and `preview` tell a newcomer: what was done, a job left
by Ctrl-C, a read-only data dir (not a permissions problem), and no "nothing queued" from
a command that never queues."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import test_worker
from fakeapi import Facts, FakeMessagesAPI, Hang
from helpers import wait_for, worker_cmd
from test_worker import PY_FACT, _env, enqueue, job

ROOT = Path(__file__).resolve().parent.parent
WAIT = 60.0
home, repo, sample = test_worker.home, test_worker.repo, test_worker.sample  # its fixtures


def test_worker_once_says_what_it_did(home: Path, repo: Path, sample: Path) -> None:
    job_id = enqueue(sample, repo)
    with FakeMessagesAPI(extract=[Facts([PY_FACT])]) as api:
        done = subprocess.run(worker_cmd(), env=_env(api, home), cwd=ROOT, timeout=WAIT,
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        again = subprocess.run(worker_cmd(), env=_env(api, home), cwd=ROOT, timeout=WAIT,
                               capture_output=True, text=True, check=False)
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"job {job_id} done: 1 new"), lines
    assert lines[-1] == ("worker: processed 1 job; the queue is empty; review them with "
                         "`mem-review`")
    assert again.stdout == "worker: nothing was due; the queue is empty\n"


def test_ctrl_c_in_worker_once_puts_the_job_back_and_doctor_agrees(
    home: Path, repo: Path, sample: Path
) -> None:
    job_id = enqueue(sample, repo)
    with FakeMessagesAPI(extract=[Hang(120)]) as api:
        env = _env(api, home)
        proc = subprocess.Popen(worker_cmd(), env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            wait_for("the extraction request", lambda: api.messages("extract"))
            assert job(job_id)["state"] == "running"
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=WAIT)
    assert job(job_id)["state"] == "queued"  # not left "running" with no worker
    doctor = subprocess.run([sys.executable, "-m", "reviewer.cli", "doctor"], env=env,
                            cwd=ROOT, capture_output=True, text=True, timeout=WAIT,
                            check=False).stdout
    assert "0 queued" not in doctor and "1 running" not in doctor, doctor


def _bwrap() -> str:
    exe = shutil.which("bwrap")
    if exe is None:
        pytest.skip("bubblewrap is not installed (it makes the read-only mount)")
    probe = subprocess.run([exe, "--bind", "/", "/", "--ro-bind", "/tmp", "/tmp", "true"],
                           capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"bubblewrap cannot mount here: {probe.stderr.decode()[:200]}")
    return exe


def test_a_read_only_data_dir_is_named_as_such(tmp_path: Path) -> None:
    bwrap = _bwrap()
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_REVIEW_")}
    env.update(MEM_REVIEW_HOME=str(data), MEM_REVIEW_NO_SPAWN="1")
    first = [sys.executable, "-m", "reviewer.cli", "worker", "--once"]
    assert subprocess.run(first, env=env, cwd=ROOT, capture_output=True, timeout=WAIT,
                          check=False).returncode == 0  # a store, a log, a lock: all there
    ro = [bwrap, "--bind", "/", "/", "--ro-bind", str(data), str(data), "--dev", "/dev",
          "--proc", "/proc"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*ro, sys.executable, "-m", "reviewer.cli", *args], env=env,
                              cwd=ROOT, capture_output=True, text=True, timeout=WAIT,
                              check=False)

    doctor = run("doctor").stdout
    line = next(x for x in doctor.splitlines() if "data dir" in x)
    assert "read-only filesystem" in line and line.startswith("✗"), doctor
    assert "permissions" not in line.replace("permissions are fine", ""), line
    assert "store" not in doctor.split("data dir", 1)[1], doctor  # no misleading store line
    worker = run("worker", "--once")
    assert worker.returncode == 1
    assert worker.stderr.count("\n") == 1, worker.stderr
    assert "read-only filesystem" in worker.stderr and "log" not in worker.stderr, worker.stderr
    assert "Traceback" not in worker.stderr and "unexpected error" not in worker.stderr


def test_preview_never_says_nothing_queued(tmp_path: Path) -> None:
    path = tmp_path / "not.jsonl"
    path.write_text("id,name\n1,alice\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_REVIEW_")}
    env.update(MEM_REVIEW_HOME=str(tmp_path / "data"))
    done = subprocess.run([sys.executable, "-m", "reviewer.cli", "preview", str(path)], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=WAIT, check=False)
    assert done.returncode == 1 and "not a Claude Code transcript" in done.stderr
    assert "queued" not in done.stderr and "nothing to preview" in done.stderr
