"""The store: atomic extraction writes, a person's decisions, exact undo, the approval gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewer.store import db, queue
from reviewer.store.facts import NewFact, Store


def _job(conn: object) -> int:
    return queue.enqueue(
        conn,
        session_id="s",
        transcript_path="/t.jsonl",
        project="/p",  # type: ignore[arg-type]
        cwd="/p",
        event="session-end",
    )


def _nf(text: str, job_id: int | None = None, **kw: object) -> NewFact:
    return NewFact(
        project="/p", text=text, norm=text.lower(), category="convention", job_id=job_id, **kw
    )  # type: ignore[arg-type]


def test_record_extraction_is_idempotent_per_job(home: Path) -> None:
    conn = db.connect()
    job = _job(conn)
    store = Store()
    first = store.record_extraction(job, [_nf("Use uv", job), _nf("Use ruff", job)], end_cursor=99)
    again = store.record_extraction(job, [_nf("Use uv", job)], end_cursor=99)
    assert len(first) == 2 and again == []
    assert conn.execute("SELECT COUNT(*) FROM fact").fetchone()[0] == 2
    row = conn.execute("SELECT state, end_cursor FROM job WHERE id = ?", (job,)).fetchone()
    assert tuple(row) == ("done", 99)
    assert (
        conn.execute("SELECT COUNT(*) FROM fact_history WHERE action='created'").fetchone()[0] == 2
    )


def test_seen_again_counts(home: Path) -> None:
    conn = db.connect()
    store = Store()
    [fid] = store.record_extraction(_job(conn), [_nf("Use uv")], end_cursor=1)
    job2 = queue.enqueue(
        conn,
        session_id="s2",
        transcript_path="/u.jsonl",
        project="/p",
        cwd="/p",
        event="session-end",
    )
    store.record_extraction(job2, [], [fid], end_cursor=5)
    fact = store.get(fid)
    assert fact is not None and fact.times_seen == 2


def test_decisions_and_exact_undo(home: Path) -> None:
    conn = db.connect()
    store = Store()
    [fid] = store.record_extraction(_job(conn), [_nf("Use uv", files=["a.py"])], end_cursor=1)
    before = store.get(fid)
    undo_edit = store.edit(fid, "Use uv for every install", "decision")
    edited = store.get(fid)
    assert edited is not None
    assert (edited.status, edited.text, edited.category) == (
        "approved",
        "Use uv for every install",
        "decision",
    )
    store.restore(undo_edit)
    restored = store.get(fid)
    assert restored is not None and before is not None
    for name in ("text", "norm", "category", "status", "reject_reason", "files", "anchors"):
        assert getattr(restored, name) == getattr(before, name), name
    undo_reject = store.reject([fid], "too vague")
    rejected = store.get(fid)
    assert rejected is not None and (rejected.status, rejected.reject_reason) == (
        "rejected",
        "too vague",
    )
    store.restore(undo_reject)
    back = store.get(fid)
    assert back is not None and back.status == "pending" and back.reject_reason is None
    actions = [h.action for h in store.history(fid)]
    assert actions == ["created", "edited", "undo", "rejected", "undo"]
    last = json.loads(store.history(fid)[-1].after or "{}")
    assert last["status"] == "pending"


def test_only_a_person_approves(home: Path) -> None:
    conn = db.connect()
    store = Store()
    [fid] = store.record_extraction(_job(conn), [_nf("Use uv")], end_cursor=1)
    for actor in ("worker", "hook", "model", "cli"):
        with pytest.raises(PermissionError):
            store.approve([fid], actor=actor)
        with pytest.raises(PermissionError):
            store.edit(fid, "x", "decision", actor=actor)
    fact = store.get(fid)
    assert fact is not None and fact.status == "pending"


def test_import_pending_unless_keep_status(home: Path) -> None:
    store = Store()
    added, skipped = store.import_facts(
        [_nf("A", status="approved"), _nf("B", status="rejected", reject_reason="too vague")],
        keep_status=False,
    )
    assert (added, skipped) == (2, 0)
    assert {f.status for f in store.facts("/p")} == {"pending"}
    added, skipped = store.import_facts(
        [_nf("A", status="approved"), _nf("C", status="approved")], keep_status=True
    )
    assert (added, skipped) == (1, 1)
    statuses = {f.text: f.status for f in store.facts("/p")}
    assert statuses == {"A": "pending", "B": "pending", "C": "approved"}


def test_what_a_person_types_is_redacted_too(home: Path) -> None:
    conn = db.connect()
    store = Store()
    a, b = store.record_extraction(_job(conn), [_nf("Use uv"), _nf("Use ruff")], end_cursor=1)
    token = "ghp_" + "Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    store.edit(a, f"Deploy with token {token}", "environment")
    store.reject([b], f"other: leaked {token}")
    raw = (home / "store.db").read_bytes() + (home / "store.db-wal").read_bytes()
    assert token.encode() not in raw
    edited, rejected = store.get(a), store.get(b)
    assert edited is not None and "[REDACTED:github-token]" in edited.text
    assert rejected is not None and "[REDACTED:github-token]" in (rejected.reject_reason or "")


def test_imported_facts_are_redacted_before_they_land(home: Path) -> None:
    store = Store()
    key = "sk-ant-api03-" + "Q" * 90 + "AA"
    store.import_facts([_nf(f"Deploy uses key {key}", evidence=f"ANTHROPIC_API_KEY={key}",
                            status="approved")], keep_status=True)
    raw = (home / "store.db").read_bytes() + (home / "store.db-wal").read_bytes()
    assert key.encode() not in raw
    [fact] = store.facts("/p")
    assert "[REDACTED:" in fact.text and "[REDACTED:" in fact.evidence
