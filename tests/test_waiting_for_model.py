"""No session is lost for want of a model (issue 21): with `extractor = "auto"`, no API
key and no `claude`, the rules stage what they can and the job waits for a model; once
one can run (here the real SDK against the loopback fake API), each waiting session is
extracted once, without doubling what the rules staged.

Real store, real git repo, real worker; no key and no `claude` come from the machine
(conftest's autouse fixture points MEM_REVIEW_CLAUDE_BIN at a missing file)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakeapi import Facts, FakeMessagesAPI
from helpers import fact, make_repo
from test_worker import enqueue, job, rows

from capture import worker
from reviewer.commands import doctor, status
from reviewer.config import load, resolve_extractor
from reviewer.store import waiting

REMEMBER = "Remember that we deploy with make ship, never by hand."
MODEL_FACT = "The flaky test is test_sync_timeout; it needs the SYNC_HOST variable."


@pytest.fixture
def home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shared data dir (conftest) with no spend cap."""
    monkeypatch.setenv("MEM_REVIEW_DAILY_SPEND_CAP", "0")
    return home


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"Makefile": "ship:\n\techo ship\n"})


def _line(role: str, content: str) -> str:
    return json.dumps({"type": role, "message": {"role": role, "content": content}}) + "\n"


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text(
        _line("user", REMEMBER)
        + _line("assistant", "Noted. The flaky test is test_sync_timeout; it needs the "
                "SYNC_HOST variable set, or it hangs.")
    )
    return path


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as fake:
        yield fake


def _sign_in(monkeypatch: pytest.MonkeyPatch, fake: FakeMessagesAPI) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")


def test_no_model_keeps_the_session_waiting_then_a_model_reads_it_once(
    home: Path, repo: Path, session: Path, api: FakeMessagesAPI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert resolve_extractor(load()).waiting  # auto, no key, no claude
    job_id = enqueue(session, repo)
    assert worker.run(once=True) == 0

    row = job(job_id)
    assert row["state"] == "queued" and waiting.is_waiting(row["last_error"])
    assert row["attempts"] == 0  # waiting is not a failed attempt
    staged = rows("SELECT * FROM fact")
    assert len(staged) == 1 and "make ship" in staged[0]["text"]
    assert staged[0]["source"] == "rules"
    # The rules read only the person's prompts: the speaker they give is the user's.
    assert staged[0]["evidence_source"] == staged[0]["evidence_speaker"] == "user"

    # status, doctor and the TUI's counts say how many wait and the step that unblocks.
    data = status.gather(str(repo))
    assert data["waiting_for_model"] == 1
    text = status.render(data)
    assert "1 session waits for a model" in text and "ANTHROPIC_API_KEY" in text
    check = doctor.check_extractor(load())
    assert not check.ok and "1 session waits for a model" in check.detail

    # Another worker run before any model: nothing doubles, still waiting.
    enqueue(session, repo)  # the session's hook fires again: the same job is reused
    assert worker.run(once=True) == 0
    assert len(rows("SELECT * FROM fact")) == 1
    assert rows("SELECT times_seen FROM fact")[0]["times_seen"] == 1
    assert waiting.is_waiting(job(job_id)["last_error"])

    # A model can run now: the waiting job is due at once and extracted exactly once.
    _sign_in(monkeypatch, api)
    api.script(Facts([
        fact("We deploy with make ship, never by hand.", REMEMBER),
        fact(MODEL_FACT, "The flaky test is test_sync_timeout; it needs the SYNC_HOST "
             "variable set"),
    ]), lane="extract")
    assert worker.run(once=True) == 0
    assert len(api.messages("extract")) == 1
    sent = json.dumps(api.messages("extract")[0].body)
    assert "make ship" in sent  # the staged fact is among the known ones it is told of
    row = job(job_id)
    assert row["state"] == "done" and row["end_cursor"] == session.stat().st_size
    texts = sorted(r["text"] for r in rows("SELECT text FROM fact"))
    assert texts == sorted([staged[0]["text"], MODEL_FACT])
    assert status.gather(str(repo))["waiting_for_model"] == 0
    assert worker.run(once=True) == 0
    assert len(api.messages("extract")) == 1  # never again


def test_rules_asked_for_by_name_do_not_wait(
    home: Path, repo: Path, session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEM_REVIEW_EXTRACTOR", "rules")
    job_id = enqueue(session, repo)
    assert worker.run(once=True) == 0
    assert job(job_id)["state"] == "done"
    assert status.gather(str(repo))["waiting_for_model"] == 0


def test_many_waiting_sessions_are_all_staged(
    home: Path, repo: Path, tmp_path: Path
) -> None:
    ids = []
    for i in range(3):
        p = tmp_path / f"w{i}.jsonl"
        p.write_text(_line("user", f"Remember that service {i} listens on port 80{i}0."))
        ids.append(enqueue(p, repo))
    assert worker.run(once=True) == 0
    assert all(waiting.is_waiting(job(i)["last_error"]) for i in ids)
    assert len(rows("SELECT * FROM fact")) == 3


def test_a_suspicion_is_stored_and_listed_not_a_verdict(
    home: Path, repo: Path, tmp_path: Path, api: FakeMessagesAPI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 21: "corrected later" is a hint stored beside a supported candidate, quoting
    the later turn; `list --json` shows it."""
    import subprocess
    import sys

    path = tmp_path / "c.jsonl"
    path.write_text(
        _line("assistant", "The staging database listens on port 5433 behind the bastion.")
        + _line("user", "No, the staging database moved to port 6432 with pgbouncer.")
    )
    _sign_in(monkeypatch, api)
    api.script(Facts([fact("The staging database listens on port 5433.",
                           "The staging database listens on port 5433 behind the bastion.")
                      | {"source": "assistant"}]), lane="extract")
    enqueue(path, repo)
    assert worker.run(once=True) == 0
    (row,) = rows("SELECT grounded, verify_check, verify_hint FROM fact")
    assert (row["grounded"], row["verify_check"]) == (1, None)
    assert row["verify_hint"].startswith("corrected_later: turn 1:")
    assert "port 6432" in row["verify_hint"]
    done = subprocess.run([sys.executable, "-m", "reviewer.cli", "list", "--json",
                           "--project", str(repo)], capture_output=True, text=True,
                          timeout=120, check=True)
    (listed,) = json.loads(done.stdout)
    assert listed["hint"] == row["verify_hint"] and listed["check"] is None


def test_the_tui_bar_counts_waiting_sessions_and_names_the_step(
    home: Path, repo: Path, session: Path
) -> None:
    from reviewer.store import db
    from reviewer.tui.rows import queue_counts
    from reviewer.tui.triage import Counts
    from reviewer.tui.widgets.status_bar import counts_variants

    enqueue(session, repo)
    assert worker.run(once=True) == 0
    conn = db.connect()
    try:
        jobs = queue_counts(conn)
    finally:
        conn.close()
    assert jobs["waiting_for_model"] == 1 and jobs["queued"] == 1
    bar = counts_variants(Counts(), queued=jobs["queued"], waiting=jobs["waiting_for_model"])[0]
    assert "1 wait for a model: sign in to Claude Code or set ANTHROPIC_API_KEY" in bar.plain
