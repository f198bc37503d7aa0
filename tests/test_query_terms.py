"""Query expansion in two kinds: other spellings of the question's identifiers, and
synonyms, which recall weighs lower (at 10,000 facts a synonym mostly finds noise)."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_a_synonym_only_match_scores_at_the_synonym_weight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "home"))
    conn = db.connect()
    conn.execute(
        "INSERT INTO fact (project, text, norm, category, files, confidence, status, anchors, "
        "created_at, updated_at, decided_at) VALUES ('/p', 'Settings are read once at start.', "
        "'x', 'decision', '[]', 0.5, 'approved', '{}', 1, 1, 1)")
    [hit] = recall.recall(conn, "/p", "config").results
    assert hit.score == round(recall.SYNONYM_WEIGHT + recall.CONFIDENCE_WEIGHT * 0.5, 4)
    assert recall.SYNONYM_WEIGHT < recall.EXPANSION_WEIGHT
    conn.close()
