"""One job through the pipeline, in-process: the real SDK against a MockTransport fake API,
real transcripts, a real git repository, a real store."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import helpers
import httpx2
import pytest
from fakeapi import Facts, MaxTokens, mock_transport, requests_text
from helpers import fact, make_repo

from capture import pipeline
from capture.condense import CONTINUED
from reviewer.config import Config
from reviewer.store import db, queue
from reviewer.store.facts import NewFact, Store

GITHUB_TOKEN = "ghp_" + "Zq7Xw2Lp9Rt4Vb6Nm1Kc8Hj3Gf5Ds0Ae2Yu4"
PY_ERROR = "/bin/bash: line 1: python: command not found"


def git(repo: Path, *args: str) -> str:
    return helpers.git(repo, *args).strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        {"number_generator.py": "print(4)\n", "hello_world.py": "print('Hello, World!')\n"},
    )


CFG = Config(max_retries=0, daily_spend_cap_usd=0)


def claim(conn: sqlite3.Connection, transcript: Path, repo: Path) -> queue.Claimed:
    job_id = queue.enqueue(
        conn,
        session_id=transcript.stem,
        transcript_path=str(transcript),
        project=str(repo),
        cwd=str(repo),
        event="SessionEnd",
    )
    job = pipeline.claim_job(conn, job_id)
    assert job is not None
    return job


def run(
    store: Store, conn: sqlite3.Connection, job: queue.Claimed, *answers: Any, cfg: Config = CFG
) -> tuple[pipeline.Outcome, Any]:
    transport = mock_transport(*answers)
    client = httpx2.Client(transport=transport)
    try:
        out = pipeline.process(store, conn, job, cfg, api_key="test-key", http_client=client)
    finally:
        client.close()
    return out, transport


def job_row(conn: sqlite3.Connection, job_id: int) -> sqlite3.Row:
    return conn.execute("SELECT * FROM job WHERE id = ?", (job_id,)).fetchone()


# --------------------------------------------------------------------------- preview


def test_preview_is_the_condensed_conversation_with_a_separator(transcripts: Path) -> None:
    text = pipeline.preview_text(transcripts / "spotter" / "short.jsonl", window_chars=120_000)
    assert text.startswith("───── window 1 of 1 ·")
    assert "User: mix phx.server doesnt seem to start" in text
    assert "! Bash rejected by the user" in text
    assert '"type"' not in text and "parentUuid" not in text  # no raw JSONL


def test_preview_splits_windows_and_redacts(tmp_path: Path, transcripts: Path) -> None:
    copy = tmp_path / "t.jsonl"
    shutil.copy(transcripts / "fasthooks" / "sample_main_transcript.jsonl", copy)
    with copy.open("a") as fh:
        fh.write(
            json.dumps(
                {
                    "type": "user",
                    "message": {"role": "user", "content": f"my token is {GITHUB_TOKEN} for CI"},
                }
            )
            + "\n"
        )
    text = pipeline.preview_text(copy, window_chars=1_000)
    assert "window 1 of " in text and "window 2 of " in text and CONTINUED in text
    assert GITHUB_TOKEN not in text and "[REDACTED:github-token]" in text


def test_preview_of_an_empty_transcript_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "e.jsonl"
    empty.write_text('{"type":"summary","summary":"x"}\n')
    assert "nothing to send" in pipeline.preview_text(empty, window_chars=10_000)


# --------------------------------------------------------------------------- process


def test_a_job_becomes_grounded_anchored_pending_facts(
    store: Store, conn: sqlite3.Connection, repo: Path, transcripts: Path
) -> None:
    transcript = transcripts / "fasthooks" / "sample_main_transcript.jsonl"
    job = claim(conn, transcript, repo)
    answer = Facts(
        [
            fact(
                "`python` is not on PATH here; scripts run with python3.",
                PY_ERROR,
                files=["number_generator.py"],
            ),
            fact(
                "Deploys go to Kubernetes on Fridays.",
                "we deploy to Kubernetes on Fridays",
                files=["deploy/k8s.yaml", str(repo / "hello_world.py")],
                category="decision",
                confidence=0.4,
            ),
        ]
    )
    out, transport = run(store, conn, job, answer)
    assert out.state == "done" and len(out.new_ids) == 2
    assert len(transport.requests) == 1
    sent = requests_text(transport)
    assert PY_ERROR in sent and '"parentUuid"' not in sent  # the condensed text, not JSONL

    row = job_row(conn, job.id)
    assert row["state"] == "done" and row["end_cursor"] == transcript.stat().st_size
    assert row["input_tokens"] > 0 and row["output_tokens"] > 0 and row["cost_usd"] > 0
    assert row["facts_new"] == 2 and row["model"]

    py, deploy = (store.get(i) for i in out.new_ids)
    assert py is not None and deploy is not None
    assert (py.status, py.grounded, py.category, py.source) == (
        "pending",
        1,
        "environment",
        "model",
    )
    assert py.project == str(repo) and py.session_id == transcript.stem and py.job_id == job.id
    assert py.anchor_map() == {
        "number_generator.py": git(repo, "hash-object", "number_generator.py")
    }
    assert (py.commit_sha, py.branch) == (git(repo, "rev-parse", "HEAD"), "main")
    assert py.missing_list() == []
    assert (
        "python: command not found" in py.context
        and "Bash: python number_generator.py" in py.context
    )
    assert deploy.grounded == 0 and deploy.context == ""
    assert deploy.file_list() == ["deploy/k8s.yaml", "hello_world.py"]  # absolute made relative
    assert deploy.missing_list() == ["deploy/k8s.yaml"]
    assert deploy.anchor_map() == {
        "deploy/k8s.yaml": None,
        "hello_world.py": git(repo, "hash-object", "hello_world.py"),
    }


def test_secrets_never_reach_the_api_nor_the_store(
    store: Store, conn: sqlite3.Connection, repo: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "s.jsonl"
    transcript.write_text(
        json.dumps(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": f"The CI uses GITHUB_TOKEN={GITHUB_TOKEN} to publish.",
                },
            }
        )
        + "\n"
    )
    job = claim(conn, transcript, repo)
    echoed = fact(
        f"CI publishes with the token {GITHUB_TOKEN}.",
        f"GITHUB_TOKEN={GITHUB_TOKEN}",
        files=[f"{GITHUB_TOKEN}.txt"],
    )
    out, transport = run(store, conn, job, Facts([echoed]))
    assert GITHUB_TOKEN not in requests_text(transport)
    assert "[REDACTED:github-token]" in requests_text(transport)
    (fid,) = out.new_ids
    stored = store.get(fid)
    assert stored is not None
    everything = json.dumps(stored.model_dump())
    assert GITHUB_TOKEN not in everything and "[REDACTED:" in stored.text
    assert stored.grounded == 1  # the redacted evidence is what was sent


def test_dedupe_seen_again_suppressed_and_repeats_within_the_job(
    store: Store, conn: sqlite3.Connection, repo: Path, transcripts: Path
) -> None:
    project = str(repo)
    store.import_facts(
        [
            NewFact(
                project=project,
                text="The project installs packages with uv, never pip.",
                norm="uv",
                category="convention",
                status="approved",
            ),
            NewFact(
                project=project,
                text="Deploys go to Kubernetes on Fridays.",
                norm="k8s",
                category="decision",
                status="rejected",
                reject_reason="invented",
            ),
        ],
        keep_status=True,
    )
    approved, rejected = (f.id for f in store.facts(project))
    job = claim(conn, transcripts / "fasthooks" / "sample_main_transcript.jsonl", repo)
    out, _ = run(
        store,
        conn,
        job,
        Facts(
            [
                fact("The project installs packages with uv, never pip.", "uv"),  # injected, back
                fact("Deploys go to Kubernetes on Fridays.", "Fridays"),
                fact("Scripts must be run with python3, not python.", PY_ERROR),
                fact("Scripts must be run with python3 and not python!", PY_ERROR),
            ]
        ),
    )
    assert out.seen_again == [approved]
    assert out.suppressed == 1
    assert len(out.new_ids) == 1
    assert any("repeats a fact of this session" in d for d in out.dropped)
    texts = [f.text for f in store.facts(project)]
    assert texts.count("The project installs packages with uv, never pip.") == 1
    again = store.get(approved)
    assert again is not None and again.times_seen == 2 and again.status == "approved"
    gone = store.get(rejected)
    assert gone is not None and gone.times_seen == 1 and gone.status == "rejected"


def test_known_and_rejected_facts_are_sent_to_the_model(
    store: Store, conn: sqlite3.Connection, repo: Path, transcripts: Path
) -> None:
    project = str(repo)
    store.import_facts(
        [
            NewFact(
                project=project,
                text="Tests run with pytest -x.",
                norm="a",
                category="convention",
                status="pending",
            ),
            NewFact(
                project=project,
                text="The moon is made of cheese.",
                norm="b",
                category="gotcha",
                status="rejected",
                reject_reason="nonsense",
            ),
            NewFact(
                project="/elsewhere",
                text="Other projects stay out.",
                norm="c",
                category="gotcha",
                status="pending",
            ),
        ],
        keep_status=True,
    )
    job = claim(conn, transcripts / "spotter" / "short.jsonl", repo)
    _, transport = run(store, conn, job, Facts([]))
    sent = requests_text(transport)
    assert "Tests run with pytest -x." in sent
    assert "The moon is made of cheese." in sent and "nonsense" in sent
    assert "Other projects stay out." not in sent


def test_recapture_reads_only_what_was_appended(
    store: Store, conn: sqlite3.Connection, repo: Path, tmp_path: Path, transcripts: Path
) -> None:
    copy = tmp_path / "grow.jsonl"
    shutil.copy(transcripts / "spotter" / "short.jsonl", copy)
    first = claim(conn, copy, repo)
    out1, t1 = run(store, conn, first, Facts([]))
    assert out1.state == "done"
    assert "mix phx.server doesnt seem to start" in requests_text(t1)
    size = copy.stat().st_size
    with copy.open("a") as fh:
        fh.write(
            json.dumps(
                {
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": "We switched the dev server to port 4001.",
                    },
                }
            )
            + "\n"
        )
    second = claim(conn, copy, repo)
    assert second.start_cursor == size
    out2, t2 = run(
        store,
        conn,
        second,
        Facts(
            [fact("The dev server listens on port 4001.", "switched the dev server to port 4001")]
        ),
    )
    sent = requests_text(t2)
    assert "port 4001" in sent and "mix phx.server doesnt seem to start" not in sent
    assert len(out2.new_ids) == 1 and job_row(conn, second.id)["end_cursor"] == copy.stat().st_size

    third = claim(conn, copy, repo)  # nothing new: done without asking the model
    out3, t3 = run(store, conn, third, Facts([fact("never asked", "x")]))
    assert out3.state == "done" and t3.requests == [] and out3.new_ids == []


def test_an_unusable_answer_requeues_and_keeps_its_spend(
    store: Store, conn: sqlite3.Connection, repo: Path, transcripts: Path
) -> None:
    job = claim(conn, transcripts / "spotter" / "short.jsonl", repo)
    out, _ = run(store, conn, job, MaxTokens([fact("cut", "off")]))
    row = job_row(conn, job.id)
    assert out.state == "queued" and row["state"] == "queued"
    assert "max_tokens" in row["last_error"] and row["not_before"] > db.now()
    assert row["input_tokens"] > 0 and row["cost_usd"] > 0
    assert store.facts(str(repo)) == []


def test_a_job_that_kept_failing_is_failed_for_a_person_to_see(
    store: Store, conn: sqlite3.Connection, repo: Path, transcripts: Path
) -> None:
    job = claim(conn, transcripts / "spotter" / "short.jsonl", repo)
    tired = job._replace(first_failed_at=db.now() - pipeline.GIVE_UP_SECONDS - 1)
    out, _ = run(store, conn, tired, MaxTokens([]))
    assert out.state == "failed" and "gave up after" in (out.error or "")
    assert job_row(conn, job.id)["state"] == "failed"


def test_rules_extractor_runs_offline(
    store: Store, conn: sqlite3.Connection, repo: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "rules.jsonl"
    transcript.write_text(
        json.dumps(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": "Remember that we use pnpm, not npm, in this repo.",
                },
            }
        )
        + "\n"
    )
    job = claim(conn, transcript, repo)
    out = pipeline.process(store, conn, job, CFG, extractor="rules")
    assert out.state == "done" and len(out.new_ids) == 1
    stored = store.get(out.new_ids[0])
    assert stored is not None and stored.source == "rules" and stored.grounded == 1
    assert "pnpm" in stored.text and stored.status == "pending"
    assert job_row(conn, job.id)["cost_usd"] == 0


def test_capture_now_processes_synchronously(home: Path, repo: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "demo-session.jsonl"
    transcript.write_text(
        json.dumps(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": "Always run the linter with ruff check before pushing.",
                },
            }
        )
        + "\n"
    )
    ids = pipeline.capture_now(transcript, project=str(repo))
    assert len(ids) == 1
    s = Store()
    got = s.get(ids[0])
    s.close()
    assert got is not None and got.session_id == "demo-session" and got.project == str(repo)
    assert pipeline.capture_now(transcript, project=str(repo)) == []  # nothing new


def test_capture_now_reports_an_unreadable_transcript(home: Path, repo: Path) -> None:
    from reviewer.errors import UserError

    with pytest.raises(UserError, match="transcript unreadable"):
        pipeline.capture_now(repo / "missing.jsonl", project=str(repo))


def test_next_midnight_is_after_today_start() -> None:
    now = db.now()
    assert pipeline.today_start(now) <= now < pipeline.next_midnight(now)
    assert 23 * 3600 <= pipeline.next_midnight(now) - pipeline.today_start(now) <= 25 * 3600


def test_quotes_of_what_fitting_sent_are_grounded_with_context(
    store: Store, conn: sqlite3.Connection, repo: Path, transcripts: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The model sees fitted text: a look-up call dropped between two lines, a narration
    cut with `[…]`. A quote of either is grounded and shown in its transcript context."""
    import capture.fit

    monkeypatch.setattr(capture.fit, "MIN_BUDGET", 0)  # this short session fitted to 1/40
    cfg = dataclasses.replace(CFG, send_ratio=40)
    transcript = transcripts / "fasthooks" / "sample_main_transcript.jsonl"
    sent = "\n\n".join(pipeline.sent_windows(transcript, cfg))
    across = "can you read it back with Read tool?\n\nAssistant: Perfect! Here's the content"
    cut = ("**Write (parallel)**: Created two files - `number_generator.py` and `data.txt` at "
           "the same time […]")
    assert across in sent and cut in sent  # what the model saw
    job = claim(conn, transcript, repo)
    out, _ = run(store, conn, job, Facts([
        fact("hello_world.py was read back with the Read tool.", across),
        fact("number_generator.py and data.txt were written in parallel.", cut),
    ]), cfg=cfg)
    assert out.state == "done" and len(out.new_ids) == 2
    for fid in out.new_ids:
        row = store.get(fid)
        assert row is not None and row.grounded == 1 and row.context, row


# --------------------------------------------------------------------------- verifier


def test_the_verifier_decides_grounded_and_says_which_check_failed(
    store: Store, conn: sqlite3.Connection, repo: Path, transcripts: Path
) -> None:
    """Quotes a substring match passed (all four are in the transcript) are flagged."""
    transcript = transcripts / "fasthooks" / "sample_main_transcript.jsonl"
    job = claim(conn, transcript, repo)
    true = fact("`python` is not on PATH here; scripts run with python3.", PY_ERROR)
    true["source"] = "tool"
    short = fact("Claude said running commands needs confirmation.", "run a command",
                 confidence=0.5)
    short["source"] = "user"
    answer = Facts([
        true,
        fact("A file named nonexistent.txt exists in the workspace.",
             "cat: nonexistent.txt: No such file or directory", category="gotcha"),
        short,
        fact("number_generator.py is run with python.", "Bash: python number_generator.py"),
    ])
    out, _ = run(store, conn, job, answer)
    assert out.state == "done" and len(out.new_ids) == 4
    rows = [store.get(i) for i in out.new_ids]
    got = [(r.grounded, r.verify_check, r.evidence_speaker) for r in rows if r is not None]
    # Issue 21: a quote that is there is not known wrong; the fact names another speaker:
    # a hint beside it.
    assert got == [
        (1, None, "tool"),
        (0, "negation_flip", "tool"),
        (1, None, "user"),
        (0, "tool_line", "tool"),
    ]
    assert rows[2] is not None and (rows[2].verify_hint or "").startswith(
        "speaker: the quote is the user's")
    assert rows[0] is not None and rows[0].evidence_source == "tool"
    assert rows[1] is not None and rows[1].evidence_source == "assistant"  # old answer shape

    from reviewer.store.facts_json import to_json

    listed = [to_json(r) for r in conn.execute("SELECT * FROM fact ORDER BY id")]
    assert [(f["grounded"], f["check"]) for f in listed] == [
        (True, None), (False, "negation_flip"), (True, None), (False, "tool_line")]
    assert listed[2]["hint"].startswith("speaker")
    assert (listed[0]["evidence_source"], listed[0]["evidence_speaker"]) == ("tool", "tool")


def test_existing_facts_go_with_ids_and_a_supersedes_link_must_name_one(
    store: Store, conn: sqlite3.Connection, repo: Path, transcripts: Path
) -> None:
    project = str(repo)
    store.import_facts(
        [NewFact(project=project, text="Scripts run with python.", norm="py",
                 category="environment", status="approved"),
         NewFact(project=project, text="Rejected long ago.", norm="rej",
                 category="gotcha", status="rejected", reject_reason="wrong")],
        keep_status=True,
    )
    (old_id, _), (rej_id, _) = [(i, t) for i, t, _ in store.known(project)]
    job = claim(conn, transcripts / "fasthooks" / "sample_main_transcript.jsonl", repo)
    good = fact("`python` is not on PATH here; scripts run with python3.", PY_ERROR)
    good["supersedes"] = old_id
    invented = fact("cat exits with code 1 when the file is missing.",
                    "cat: nonexistent.txt: No such file or directory", category="gotcha")
    invented["supersedes"] = 9999
    rejected = fact("hello_world.py prints Hello, World!.",
                    "The file contains just one line of code that prints \"Hello, World!\" "
                    "to the console.", category="convention")
    rejected["supersedes"] = rej_id
    out, transport = run(store, conn, job, Facts([good, invented, rejected]))
    assert f"#{old_id}: Scripts run with python." in requests_text(transport)
    rows = [store.get(i) for i in out.new_ids]
    assert [r.supersedes for r in rows if r is not None] == [old_id, None, None]
    dropped = [d for d in out.dropped if "supersedes" in d]
    assert len(dropped) == 2 and "#9999" in dropped[0] and f"#{rej_id}" in dropped[1]


def test_list_json_round_trips_the_verdict_but_not_a_store_local_supersedes_id() -> None:
    from reviewer.errors import UserError
    from reviewer.store.facts_json import to_json, validate_item

    row = {
        "id": 5, "text": "A fact.", "category": "gotcha", "files": "[]", "confidence": 0.5,
        "status": "pending", "reject_reason": None, "grounded": 0, "evidence": "e",
        "context": "", "session_id": None, "created_at": 1.0, "decided_at": None,
        "verified_at": None, "missing_files": "[]", "times_seen": 1, "commit_sha": None,
        "branch": None, "anchors": "{}", "source": "model", "model": None, "project": "/p",
        "verify_check": "elision", "evidence_source": "user", "evidence_speaker": "assistant",
        "evidence_turn": 4, "supersedes": 2,
    }
    out = to_json(row)
    assert (out["grounded"], out["check"], out["evidence_source"], out["evidence_speaker"],
            out["evidence_turn"], out["supersedes"]) == (
        False, "elision", "user", "assistant", 4, 2)
    back = validate_item(out, 0, "x.json")
    assert (back["check"], back["evidence_source"], back["evidence_speaker"],
            back["evidence_turn"]) == ("elision", "user", "assistant", 4)
    assert "supersedes" not in back
    old = {k: v for k, v in row.items() if k not in ("verify_check", "evidence_source",
                                                      "evidence_speaker", "evidence_turn",
                                                      "supersedes")}
    assert to_json(old)["check"] is None  # a row read before the migration
    with pytest.raises(UserError, match="evidence_source"):
        validate_item({**out, "evidence_source": "martian"}, 0, "x.json")
