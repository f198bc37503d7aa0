"""`remember` is bounded per session and per minute, and its evidence counts only from the
transcript Claude Code named for the session (issue 19)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reviewer.claude_code import remember as remember_mod
from reviewer.claude_code import sessions
from reviewer.claude_code.remember import Checks, RememberError, remember
from reviewer.commands import hook, mcp
from reviewer.store import db


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


def _propose(conn, project: Path, n: int, session: str | None) -> str:  # type: ignore[no-untyped-def]
    return remember(conn, project, f"Fact number {n} is about module m{n}.", "convention",
                    checks=Checks(session_id=session)).message()


def test_a_flood_is_refused_saying_why(home: Path, project: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    conn = db.connect()
    clock = [1_000_000.0]
    monkeypatch.setattr(db, "now", lambda: clock[0])
    try:
        for n in range(remember_mod.PER_MINUTE):
            assert "Stored as pending" in _propose(conn, project, n, "s1")
        with pytest.raises(RememberError, match=r"5 proposals in the last minute, at most 5"):
            _propose(conn, project, 99, "s1")
        stored = remember_mod.PER_MINUTE
        while stored < remember_mod.PER_SESSION:  # slowly: the rate allows it
            clock[0] += 61
            _propose(conn, project, stored, "s1")
            stored += 1
        clock[0] += 61
        with pytest.raises(RememberError, match=r"this session already proposed 20 facts, "
                                                r"the cap is 20"):
            _propose(conn, project, 500, "s1")
        assert "Stored as pending" in _propose(conn, project, 501, "s2")  # another session
        count = conn.execute("SELECT COUNT(*) FROM fact WHERE source = 'agent'").fetchone()[0]
        assert count == remember_mod.PER_SESSION + 1
    finally:
        conn.close()


def _transcript(path: Path, said: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"type": "user", "uuid": "u1", "sessionId": path.stem,
                                "message": {"role": "user", "content": said}}) + "\n")
    return path


def test_evidence_counts_only_from_the_transcript_a_hook_named(
    home: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_home = tmp_path / "user"
    monkeypatch.setenv("HOME", str(fake_home))
    folder = fake_home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project))
    real = _transcript(folder / "real-session.jsonl", "We deploy on Fridays only.")
    quote = "The release script signs builds with the team key from vault."
    fact = "Builds are signed with the team key from vault."
    # Claude Code runs the hook with the real session's transcript.
    payload = {"session_id": "real-session", "transcript_path": str(real), "cwd": str(project),
               "hook_event_name": "SessionStart"}
    hook._record_session(payload)
    assert sessions.transcript_of(str(project)) == real
    # The agent writes a newer transcript of its own that "says" its evidence.
    _transcript(folder / "forged.jsonl", quote)
    conn = db.connect()
    try:
        answer = remember(conn, project, fact, "convention", evidence=quote,
                          checks=mcp.checks_for(project)).message()
    finally:
        conn.close()
    assert "NOT found in this session's transcript" in answer
    # Said in the real transcript, the same quote is found.
    _transcript(real, quote)
    conn = db.connect()
    try:
        answer = remember(conn, project, fact + " Really.", "convention", evidence=quote,
                          checks=mcp.checks_for(project)).message()
    finally:
        conn.close()
    assert "its evidence was found in this session's transcript" in answer


def test_no_recorded_session_means_no_transcript_to_check(
    home: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_home = tmp_path / "user"
    monkeypatch.setenv("HOME", str(fake_home))
    folder = fake_home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project))
    quote = "The release script signs builds with the team key from vault."
    _transcript(folder / "forged.jsonl", quote)
    conn = db.connect()
    try:
        answer = remember(conn, project, "Builds are signed with the team key.", "convention",
                          evidence=quote, checks=mcp.checks_for(project)).message()
    finally:
        conn.close()
    assert "no transcript was found" in answer
