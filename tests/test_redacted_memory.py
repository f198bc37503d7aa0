"""The store remembers what the redactor found (issue 20): a value a job redacted is
kept out of every field, every way in, even when the model repeats it bare.

Real parts: the real worker against the fake Messages API playing a careless model, a
real git repo and SQLite file; then a person's edit and reason, MCP ``remember`` and an
import repeat the value after the job, when only its keyed hash is known.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from fakeapi import Facts, FakeMessagesAPI
from helpers import make_repo
from test_secrets_everywhere import Transcript

from capture.pipeline import capture_now
from reviewer.store import redacted
from reviewer.store.facts import NewFact, Store

# A password only its context words give away: bare, it is a word-like token.
PASSWORD = "Tr0ub4dor-3xq"  # no rule tells it from words without "password" before it
PHRASE = f"I changed the staging password to {PASSWORD} this morning."


def _run_job(repo: Path, tmp: Path, facts: list[dict[str, object]]) -> list[int]:
    t = Transcript(repo)
    t.user(PHRASE)
    t.user("Deploys go through the staging cluster first.")
    path = t.write(tmp / "t.jsonl")
    with FakeMessagesAPI() as api:
        api.script(Facts(facts), lane="extract")
        return capture_now(path, project=str(repo), extractor="api", api_key="k",
                           base_url=api.url)


def _store_bytes(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in home.iterdir() if p.is_file())


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"deploy.sh": "echo deploy\n"})


def test_a_bare_repeat_of_a_redacted_value_is_stored_nowhere(
    home: Path, repo: Path, tmp_path: Path
) -> None:
    """The model repeats the password without "password" before it: no rule could tell
    it from a word, but the job redacted it, so the store's door hides it in the fact,
    its evidence, its cited files, the history and the full-text index."""
    ids = _run_job(repo, tmp_path, [{
        "fact": f"Staging signs in with {PASSWORD} since this morning.",
        "category": "environment", "files": [f"notes/{PASSWORD}.txt"], "confidence": 0.9,
        "evidence": f"changed it to {PASSWORD}",
    }])
    assert len(ids) == 1
    store = Store()
    try:
        fact = store.get(ids[0])
        assert fact is not None
        assert redacted.MARKER in fact.text and redacted.MARKER in fact.evidence
        assert PASSWORD not in fact.files
        history = json.dumps([h.after for h in store.history(ids[0])])
        fts = store.conn.execute(
            "SELECT rowid FROM fact_fts WHERE fact_fts MATCH ?", ('"Tr0ub4dor"',)
        ).fetchall()
    finally:
        store.close()
    assert PASSWORD not in history and fts == []
    assert PASSWORD.encode() not in _store_bytes(home)


def test_later_writes_are_checked_against_the_keyed_hashes(
    home: Path, repo: Path, tmp_path: Path
) -> None:
    """After the job only a keyed hash of the value is kept; a person's edit and reject
    reason, MCP remember and an import that repeat it are redacted all the same."""
    from reviewer.claude_code.remember import remember
    from reviewer.store import db

    ids = _run_job(repo, tmp_path, [
        {"fact": "Staging deploys run on Mondays.", "category": "convention",
         "files": [], "confidence": 0.9, "evidence": "Deploys go through staging"},
        {"fact": "The deploy script lives at the repository root.", "category": "convention",
         "files": ["deploy.sh"], "confidence": 0.9, "evidence": ""},
    ])
    assert len(ids) == 2
    key, hashes = home / redacted.KEY_FILE, home / redacted.HASH_FILE
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(hashes.stat().st_mode) == 0o600
    assert PASSWORD.encode() not in key.read_bytes() + hashes.read_bytes()

    store = Store()
    try:
        store.edit(ids[0], f"Staging signs in with {PASSWORD}.", "environment")
        store.reject([ids[1]], f"no, use '{PASSWORD}', not the old one")
        store.import_facts([NewFact(project=str(repo), text=f"Deploys need admin/{PASSWORD}",
                                    norm="imported one", category="environment",
                                    evidence=PASSWORD)], keep_status=False)
        texts = [(f.text, f.reject_reason, f.evidence) for f in store.facts(str(repo))]
    finally:
        store.close()
    conn = db.connect()
    try:
        proposal = remember(conn, repo, f"The staging cluster takes {PASSWORD} on deploy.",
                            "environment", evidence=f"set to {PASSWORD}")
    finally:
        conn.close()
    assert redacted.MARKER in proposal.text
    assert all(PASSWORD not in str(t) for t in texts), texts
    assert sum(redacted.MARKER in str(t) for t in texts) == 3
    assert PASSWORD.encode() not in _store_bytes(home)


def test_each_store_has_its_own_key(tmp_path: Path) -> None:
    """Hashes are keyed per store: one store's file says nothing about another's, and
    without the key a guess cannot be tested against them."""
    a, b = redacted.Memory(tmp_path / "a"), redacted.Memory(tmp_path / "b")
    for m in (a, b):
        m.dir.mkdir()
        m.remember({PASSWORD})
    assert (a.dir / redacted.KEY_FILE).read_bytes() != (b.dir / redacted.KEY_FILE).read_bytes()
    assert (a.dir / redacted.HASH_FILE).read_bytes() != (b.dir / redacted.HASH_FILE).read_bytes()
    assert redacted.Memory(tmp_path / "c").scrub(PASSWORD) == PASSWORD  # no key: nothing known


@pytest.mark.parametrize("text", [
    f"user:{PASSWORD}@db.internal", f'"{PASSWORD}",', f"it is {PASSWORD}.",
    f"--password={PASSWORD}", f"({PASSWORD})", f"<pw>{PASSWORD}</pw>", f"`{PASSWORD}`",
])
def test_a_remembered_value_is_found_in_any_wrapping(tmp_path: Path, text: str) -> None:
    memory = redacted.Memory(tmp_path)
    memory.remember({PASSWORD})
    out = memory.scrub(text)
    assert PASSWORD not in out and redacted.MARKER in out


def test_ordinary_words_and_short_values_are_not_remembered(tmp_path: Path) -> None:
    memory = redacted.Memory(tmp_path)
    assert memory.remember({"abc", "  ", "[REDACTED:password]"}) == 0
    memory.remember({PASSWORD})
    text = "Staging deploys run on Mondays; see deploy.sh (Tr0ub4dor is a comic)."
    assert memory.scrub(text) == text
    assert not os.path.exists(tmp_path / "nothing")


def test_a_value_redacted_in_an_edit_is_remembered_for_the_next_write(
    home: Path, repo: Path
) -> None:
    """A person types "the password is …" into an edit: it is redacted there, and a later
    MCP proposal that repeats the bare value (no context words) is redacted too."""
    from reviewer.claude_code.remember import remember
    from reviewer.store import db

    other = "lantern.84.quartz"  # no rule tells it from words without "password" before it
    store = Store()
    try:
        store.import_facts([NewFact(project=str(repo), text="Staging deploys on Fridays.",
                                    norm="staging deploys on fridays", category="convention")],
                           keep_status=False)
        (fact,) = store.facts(str(repo))
        assert fact.id is not None
        store.edit(fact.id, f"Staging deploys on Fridays; the password is {other}", "convention")
    finally:
        store.close()
    conn = db.connect()
    try:
        proposal = remember(conn, repo, f"Ops said to use {other} for the staging box.",
                            "environment")
    finally:
        conn.close()
    assert other not in proposal.text and redacted.MARKER in proposal.text
    assert other.encode() not in _store_bytes(home)
