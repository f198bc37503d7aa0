"""Query expansion in two kinds: other spellings of the question's identifiers, and
synonyms, which recall weighs lower (at 10,000 facts a synonym mostly finds noise)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import insert_fact

from reviewer.claude_code import query_terms, recall
from reviewer.store import db


def test_identifier_forms_and_synonyms_come_apart() -> None:
    raw = query_terms.raw_words("FactStore config for fact_store")
    forms, synonyms = query_terms.expand_split(raw, ["factstore", "config", "fact_store"],
                                               frozenset({"for"}))
    assert {"fact", "store"} <= set(forms)
    assert "settings" in synonyms and "settings" not in forms
    assert not set(forms) & set(synonyms)
    assert query_terms.expand(raw, ["factstore", "config", "fact_store"],
                              frozenset({"for"})) == forms + synonyms


def test_a_synonym_only_match_scores_below_the_question_s_own_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fact holding only a synonym of the question's word ("settings" for "config") is
    found, and ranks below the same sentence holding the word itself: a synonym is a
    guess (it scores SYNONYM_WEIGHT in the index, half a word in the coverage share)."""
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "home"))
    conn = db.connect()
    own = insert_fact(conn, "/p", "The config is read once at start.")
    synonym = insert_fact(conn, "/p", "Settings are read once at start.")
    hits = recall.recall(conn, "/p", "config").results
    assert [h.id for h in hits] == [own, synonym]
    assert 0 < hits[1].score < hits[0].score
    assert recall.SYNONYM_WEIGHT < recall.EXPANSION_WEIGHT
    conn.close()
