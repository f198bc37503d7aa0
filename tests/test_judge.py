"""A model's judgment of the verifier's suspicions (issue 21): one batched request a job
through the extractor channel, the real SDK against the fake Messages API. A judgment
settles a suspicion (supported: the hint goes; not: the model's reason joins it), never
marks a candidate ungrounded; a failed or absent judgment settles nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fakeapi import Error, Facts, Text, ToolUse, mock_transport
from helpers import fact, make_repo
from records import assistant, user, write_jsonl
from test_pipeline import claim

from capture import judge, pipeline
from capture.extractors.api import ApiExtractor
from capture.judge import Judgment, Suspect
from reviewer.config import Config
from reviewer.store.facts import Store

CFG = Config(max_retries=0, daily_spend_cap_usd=0)
GUESS = "The flaky upload test probably fails because the CDN mock times out"
LATER = "No, the CDN mock is fine: the upload test fails on the shared temp directory"


@pytest.fixture
def session(tmp_path: Path) -> tuple[Path, Path]:
    repo = make_repo(tmp_path / "repo", {"app.py": "print(1)\n"})
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("Why is the upload test flaky?"),
        assistant([{"type": "text", "text": GUESS + "."}], "m1"),
        user(LATER + "."),
        assistant([{"type": "text", "text": "Uploads are retried three times with backoff "
                    "in the client, so one slow response is not a failure."}], "m2"),
    ])
    return path, repo


ANSWER = Facts([
    fact("The flaky upload test fails because the CDN mock times out.", GUESS),
    fact("Uploads are retried three times with backoff in the client.",
         "Uploads are retried three times with backoff in the client"),
])


def _run(store: Store, conn: sqlite3.Connection, path: Path, repo: Path,
         *answers: Any, **lanes: Any) -> tuple[pipeline.Outcome, Any, list[Any]]:
    transport = mock_transport(*answers, **lanes)
    client = httpx2.Client(transport=transport)
    try:
        out = pipeline.process(store, conn, claim(conn, path, repo), CFG, api_key="test-key",
                               http_client=client)
    finally:
        client.close()
    return out, transport, [store.get(i) for i in out.new_ids]


def test_unit_reading_and_settling() -> None:
    asked = [Suspect(0, "f", "q", "hedged", "d"), Suspect(3, "g", "r", "speaker", "e")]
    got, dropped = judge.read_answer({"judgments": [
        {"id": 0, "supported": True, "reason": "the quote says so"},
        {"id": 3, "supported": False, "reason": "the user said it"},
        {"id": 9, "supported": True, "reason": "not asked"},
        {"id": 3, "supported": "no"},
    ]}, asked)
    assert got == {0: Judgment(True, "the quote says so"), 3: Judgment(False, "the user said it")}
    assert len(dropped) == 2
    assert judge.read_answer("nonsense", asked) == ({}, ["judge answer has no judgments list"])
    assert judge.settle("hedged: a guess", Judgment(True, "fine")) is None
    assert judge.settle("hedged: a guess", Judgment(False, "a guess")) == (
        "hedged: a guess · the model agrees: a guess")
    assert judge.settle("hedged: a guess", None) == "hedged: a guess"
    msg = judge.build_message(asked)
    assert "<candidate id=3>" in msg and "suspicion (speaker): e" in msg


def test_one_request_settles_every_suspicion_of_a_job(
        store: Store, conn: sqlite3.Connection, session: tuple[Path, Path]) -> None:
    path, repo = session
    verdicts = ToolUse("record_judgments", {"judgments": [
        {"id": 0, "supported": False, "reason": "the person corrected the guess"}]})
    out, transport, rows = _run(store, conn, path, repo, ANSWER, verdicts)
    assert out.state == "done" and len(rows) == 2
    guess, found = rows
    assert guess is not None and found is not None
    assert guess.grounded == 1  # a suspicion, settled or not, never marks ungrounded
    assert (guess.verify_hint or "").startswith("corrected_later")
    assert guess.verify_hint.endswith("the model agrees: the person corrected the guess")
    assert found.verify_hint is None  # no suspicion: not asked about
    judged = transport.requests[-1].body
    assert judged["tool_choice"] == {"type": "tool", "name": "record_judgments"}
    text = judged["messages"][0]["content"]
    assert text.count("<candidate id=") == 1 and "probably fails" in text
    assert len([r for r in transport.requests if r.is_messages]) == 2  # one extract, one judge
    assert out.input_tokens > 0 and out.cost_usd > 0  # the judgment's tokens are counted


def test_a_suspicion_the_model_judges_supported_loses_its_hint(
        store: Store, conn: sqlite3.Connection, session: tuple[Path, Path]) -> None:
    path, repo = session
    verdicts = ToolUse("record_judgments", {"judgments": [
        {"id": 0, "supported": True, "reason": "stated as found"}]})
    _, _, rows = _run(store, conn, path, repo, ANSWER, verdicts)
    assert rows[0] is not None and rows[0].verify_hint is None


@pytest.mark.parametrize("judged", [Text("I cannot help with that."), Error(500)],
                         ids=["no-tool-call", "server-error"])
def test_a_failed_judgment_settles_nothing(
        store: Store, conn: sqlite3.Connection, session: tuple[Path, Path], judged: Any) -> None:
    path, repo = session
    out, transport, rows = _run(store, conn, path, repo, ANSWER, judge=[judged])
    assert out.state == "done" and transport.requests[-1].lane == "judge"
    assert rows[0] is not None and (rows[0].verify_hint or "").startswith("corrected_later")
    assert "the model agrees" not in (rows[0].verify_hint or "")


def test_judging_can_be_turned_off(
        store: Store, conn: sqlite3.Connection, session: tuple[Path, Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pipeline.JUDGE_ENV, "0")
    path, repo = session
    _, transport, rows = _run(store, conn, path, repo, ANSWER)
    assert len([r for r in transport.requests if r.is_messages]) == 1
    assert rows[0] is not None and (rows[0].verify_hint or "").startswith("corrected_later")


def test_the_spend_cap_leaves_suspicions_unjudged(
        store: Store, conn: sqlite3.Connection, session: tuple[Path, Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Extraction fits under the cap, the judgment (its estimate) would not: not asked."""
    path, repo = session
    cfg = Config(max_retries=0, daily_spend_cap_usd=0.5)
    assert ApiExtractor(cfg, api_key="k").estimate_cost(pipeline.sent_windows(path, cfg)) < 0.5
    monkeypatch.setattr(ApiExtractor, "estimate_judge_cost", lambda self, n: 0.6)
    transport = mock_transport(ANSWER)
    client = httpx2.Client(transport=transport)
    try:
        out = pipeline.process(store, conn, claim(conn, path, repo), cfg, api_key="test-key",
                               http_client=client)
    finally:
        client.close()
    assert out.state == "done"
    assert len([r for r in transport.requests if r.is_messages]) == 1
    row = store.get(out.new_ids[0])
    assert row is not None and (row.verify_hint or "").startswith("corrected_later")


def test_only_suspicions_are_asked_not_what_the_checks_already_know(
        store: Store, conn: sqlite3.Connection, session: tuple[Path, Path]) -> None:
    """A candidate known ungrounded (a number its quote never gives) keeps its verdict
    whatever the hint beside it: the model is asked about the supported, suspected one
    only, so its judgment costs nothing for what is already settled."""
    path, repo = session
    answer = Facts([
        fact("The flaky upload test fails because the CDN mock times out.", GUESS),
        fact("The flaky upload test fails 7 times because the CDN mock times out.", GUESS),
        fact("Uploads are retried three times with backoff in the client.",
             "Uploads are retried three times with backoff in the client"),
    ])
    verdicts = ToolUse("record_judgments", {"judgments": [
        {"id": 0, "supported": False, "reason": "the person corrected the guess"}]})
    out, transport, rows = _run(store, conn, path, repo, answer, verdicts)
    assert out.state == "done" and len(rows) == 3
    known = rows[1]
    assert known is not None and known.grounded == 0 and known.verify_hint
    text = transport.requests[-1].body["messages"][0]["content"]
    assert text.count("<candidate id=") == 1 and "<candidate id=0>" in text
    assert "7 times" not in text


def test_suspicions_beyond_one_request_are_left_unjudged_and_logged(
        store: Store, conn: sqlite3.Connection, session: tuple[Path, Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from capture import judge as judge_mod

    monkeypatch.setattr(judge_mod, "MAX_SUSPECTS", 1)
    path, repo = session
    answer = Facts([
        fact("The flaky upload test fails because the CDN mock times out.", GUESS),
        fact("The CDN mock times out, which makes the upload test flaky.", GUESS),
    ])
    verdicts = ToolUse("record_judgments", {"judgments": [
        {"id": 0, "supported": True, "reason": "stated as found"}]})
    logged: list[str] = []
    monkeypatch.setattr("reviewer.log.log", lambda where, msg: logged.append(msg))
    _, transport, rows = _run(store, conn, path, repo, answer, verdicts)
    text = transport.requests[-1].body["messages"][0]["content"]
    assert text.count("<candidate id=") == 1
    assert rows[0] is not None and rows[0].verify_hint is None  # judged supported
    assert rows[1] is not None and (rows[1].verify_hint or "").startswith("corrected_later")
    assert any("1 suspicion(s) left unjudged" in m for m in logged)
