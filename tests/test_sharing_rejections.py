"""Shared rejections: what Alice rejected (and why) reaches Bob's extractor's request, once
on origin's default branch; a rejection file only committed locally does not."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from fakeapi import Facts, mock_transport, requests_text
from sharing_helpers import approve, git, publish, pull, share, team

from capture import pipeline
from reviewer.config import Config
from reviewer.sharing import format as fmt
from reviewer.sharing import reading
from reviewer.store import db, queue
from reviewer.store.facts import Store

CFG = Config(max_retries=0, daily_spend_cap_usd=0)


def _extract_request(project: Path, transcript: Path) -> str:
    conn, store = db.connect(), Store()
    try:
        job_id = queue.enqueue(conn, session_id=transcript.stem, transcript_path=str(transcript),
                               project=str(project), cwd=str(project), event="SessionEnd")
        job = pipeline.claim_job(conn, job_id)
        assert job is not None
        transport = mock_transport(Facts([]))
        client = httpx2.Client(transport=transport)
        try:
            pipeline.process(store, conn, job, CFG, api_key="test-key", http_client=client)
        finally:
            client.close()
        return requests_text(transport)
    finally:
        store.close()
        conn.close()


def test_a_teammates_rejection_reaches_the_extractor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, transcripts: Path,
) -> None:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "alice-home"))
    monkeypatch.setenv("MEM_REVIEW_NO_SPAWN", "1")
    monkeypatch.delenv("MEM_REVIEW_EXTRACTOR", raising=False)
    _, alice, bob = team(tmp_path, {"a.txt": "a\n"})
    fid = approve(alice, "The moon is made of cheese")
    store = Store()
    store.reject([fid], "nonsense, invented by the model")
    store.close()
    out = share(alice)
    assert f"wrote   {fmt.REJECTIONS}/" in out and not (alice / fmt.FOLDER).exists()
    publish(alice)
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "bob-home"))
    pull(bob)
    forged = fmt.SharedRejection(id="0badf00d-0000-4000-8000-000000000002",
                                 text="Tests run with pytest", reason="agent says so")
    (bob / fmt.REJECTIONS / forged.file_name).write_text(fmt.dumps_rejection(forged))
    git(bob, "add", "-A")
    git(bob, "commit", "-qm", "local rejection")
    assert [r.text for r in reading.rejections(bob)] == ["The moon is made of cheese"]
    sent = _extract_request(bob, transcripts / "spotter" / "short.jsonl")
    assert "The moon is made of cheese" in sent and "nonsense, invented by the model" in sent
    assert "agent says so" not in sent
