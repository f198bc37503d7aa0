"""`mem-review log [ID]`: a fact's whole story, from capture to the commits of its shared file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sharing_helpers import publish, share, team

from reviewer.freshness import anchors
from reviewer.store import db, queue
from reviewer.store.dedupe import fact_key
from reviewer.store.facts import NewFact, Store


@pytest.fixture
def alice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEM_REVIEW_NO_SPAWN", "1")
    _, alice, _ = team(tmp_path, {"src/api.py": "x = 1\n"})
    return alice


def _log(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reviewer.cli", "log", *args], cwd=root,
                          capture_output=True, text=True, check=False)


def _captured(root: Path, *texts: str) -> list[int]:
    conn = db.connect()
    job = queue.enqueue(conn, session_id="s1", transcript_path="/t.jsonl", project=str(root),
                        cwd=str(root), event="SessionEnd")
    conn.close()
    commit, branch, anchor_map = anchors.anchor_files(root, ["src/api.py"])
    store = Store()
    ids = store.record_extraction(job, [
        NewFact(project=str(root), text=t, norm=fact_key(t), category="decision",
                files=["src/api.py"], commit_sha=commit, branch=branch, anchors=anchor_map,
                job_id=job, session_id="s1")
        for t in texts
    ], end_cursor=10)
    store.close()
    return ids


def test_log_tells_a_shared_facts_whole_story(alice: Path) -> None:
    keep, drop = _captured(alice, "The API keeps x at 1", "The API is written in Rust")
    store = Store()
    store.edit(keep, "The API module keeps x equal to 1", "convention")
    store.reject([drop], "wrong: it is Python")
    commit, _, anchor_map = anchors.anchor_files(alice, ["src/api.py"])
    store.verify(keep, commit, anchor_map)
    store.close()
    share(alice)
    publish(alice, "share the API fact")
    done = _log(alice, str(keep))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"fact #{keep} · approved · convention" in out
    order = [out.index(word) for word in ("captured", "edited", "re-verified", "shared")]
    assert order == sorted(order)
    assert "before: The API keeps x at 1" in out
    assert "after:  The API module keeps x equal to 1" in out
    assert "category: decision → convention" in out
    assert "anchored to src/api.py @ " in out
    assert ".mem-review/facts/" in out
    assert "commits of its shared file:" in out and "Alice Example: share the API fact" in out
    rejected = _log(alice, str(drop)).stdout
    assert "rejected" in rejected and "reason: wrong: it is Python" in rejected
    assert ".mem-review/rejections/" in rejected  # its rejection travels too
    assert "Alice Example: share the API fact" in rejected
    project = _log(alice).stdout
    assert f"#{keep}" in project and f"#{drop}" in project
    assert "reason: wrong: it is Python" in project


def test_log_of_an_unknown_fact_is_one_line(alice: Path) -> None:
    _captured(alice, "Something")
    done = _log(alice, "999")
    assert done.returncode == 1 and done.stderr == "mem-review: no fact 999\n"


HOSTILE = "\x1b]0;owned\x07\x1b[8mhidden\x1b[0m\x9b31m"  # OSC title, hidden text, C1 CSI


def test_log_prints_no_raw_escape_sequence_from_facts_or_commit_subjects(alice: Path) -> None:
    (fact_id,) = _captured(alice, "The API keeps x at 1")
    store = Store()
    store.edit(fact_id, "The API module keeps x equal to 1", "convention")
    commit, _, anchor_map = anchors.anchor_files(alice, ["src/api.py"])
    store.verify(fact_id, commit, anchor_map)
    store.close()
    share(alice)
    publish(alice, "share " + HOSTILE)  # a commit subject anyone on the team can write
    conn = db.connect()  # a row written by hand (an old store, a direct edit)
    conn.execute("UPDATE fact SET text = ? WHERE id = ?", ("x " + HOSTILE, fact_id))
    conn.commit()
    conn.close()
    for args in ((str(fact_id),), ()):
        out = _log(alice, *args)
        assert out.returncode == 0, out.stderr
        assert not any(c in out.stdout for c in "\x1b\x07\x9b"), repr(out.stdout)
        assert "␛]0;owned␇" in out.stdout
    assert "\\u{9b}31m" in _log(alice, str(fact_id)).stdout


def test_list_json_has_no_raw_control_characters_and_keeps_the_value(alice: Path) -> None:
    import json

    (fact_id,) = _captured(alice, "The API keeps x at 1")
    conn = db.connect()
    conn.execute("UPDATE fact SET text = ? WHERE id = ?", ("x " + HOSTILE + "\u202e", fact_id))
    conn.commit()
    conn.close()
    done = subprocess.run([sys.executable, "-m", "reviewer.cli", "list", "--json",
                           "--status", "all"], cwd=alice, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert not any(0x80 <= ord(c) <= 0x9f or (ord(c) < 0x20 and c != "\n") or c == "\u202e"
                   for c in done.stdout), repr(done.stdout)
    assert json.loads(done.stdout)[0]["fact"] == "x " + HOSTILE + "\u202e"
