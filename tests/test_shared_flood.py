"""Junk in the shared folder is bounded and never pushes the team's real facts out
(issue 19: 20,000 junk files dropped the real fact and took SessionStart 9.8 s)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from sharing_helpers import approve, publish, pull, share, team

from reviewer.claude_code.inject import render_context
from reviewer.sharing import format as fmt
from reviewer.sharing import reading

JUNK = 20_000


@pytest.fixture
def bob(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "alice-home"))
    monkeypatch.setenv("MEM_REVIEW_NO_SPAWN", "1")
    monkeypatch.delenv("MEM_REVIEW_BUDGET", raising=False)
    _, alice, bob = team(tmp_path, {"src/api.py": "x = 1\n"})
    approve(alice, "Handlers return 1 on success", ("src/api.py",))
    share(alice)
    publish(alice)
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "bob-home"))
    pull(bob)  # a person pulls and verifies against the remote (reviewer/sharing/remote_trust)
    return bob


def _junk(root: Path, n: int) -> None:
    """Valid-looking fact files whose names sort before the real one, each claiming an
    approver, as an agent with a shell could drop them."""
    folder = root / fmt.FOLDER
    for i in range(n):
        fid = f"00000000-0000-4000-8000-{i:012d}"
        fact = fmt.SharedFact(id=fid, text=f"Junk fact {i}", category="gotcha",
                              approved_by="CTO <cto@example.com>")
        (folder / fact.file_name).write_text(fmt.dumps(fact))


def test_twenty_thousand_junk_files_do_not_drop_the_real_fact(bob: Path) -> None:
    _junk(bob, JUNK)
    t0 = time.perf_counter()
    text, stats = render_context(bob)
    took = time.perf_counter() - t0
    print(f"\nSessionStart with {JUNK:,} junk files beside 1 real one: {took:.2f} s")
    assert text is not None and "Handlers return 1 on success" in text
    assert "Junk fact" not in text and "CTO" not in text
    assert stats.shared == 1
    found = reading.read(bob)
    assert len(found.entries) <= reading.MAX_FILES
    assert [e.fact.text for e in found.entries if e.state == "approved"] == [
        "Handlers return 1 on success"]
    log = (bob.parent / "bob-home" / "mem-review.log").read_text()
    assert f"files not read ({JUNK} untracked by git" in log
