"""Recall finds a word written inside a fact's CamelCase identifier (schema V13's trigram
index), and only there: a capitalised word standing alone is not an identifier part."""

from __future__ import annotations

import sqlite3

import pytest
from helpers import insert_fact

from reviewer.claude_code import recall

PROJECT = "/proj/parts"


# A private data dir (conftest) for every test of the file.
pytestmark = pytest.mark.usefixtures("home")


def add(conn: sqlite3.Connection, text: str, status: str = "approved",
        project: str = PROJECT) -> int:
    return insert_fact(conn, project, text, status)


def test_a_word_inside_an_identifier_is_found(conn) -> None:
    merged = add(conn, "The TranscriptSelection module was merged into the highlighter.")
    add(conn, "Deploys happen on Fridays.")
    answer = recall.recall(conn, PROJECT, "where did the selection code go")
    assert [h.id for h in answer.results] == [merged]


def test_only_parts_of_longer_identifiers_count(conn) -> None:
    later = add(conn, "The TranscriptSelection hook was merged.")
    first = add(conn, "SelectionBox draws the rubber band.")
    add(conn, "Selection of the deploy target happens in CI.")  # a word, not a part
    add(conn, "The Selection class is tiny.")  # the whole identifier: the word index's
    add(conn, "MultiSelectionBox lives in another project.", project="/elsewhere")
    add(conn, "PendingSelectionFix is not reviewed yet.", status="pending")
    cur = conn.cursor()
    assert recall._inside_identifiers(cur, PROJECT, ["selection"]) == {later: 1, first: 1}
    assert recall._inside_identifiers(cur, PROJECT, ["sel"]) == {}  # too short to mean much


def test_the_parts_index_follows_edits(conn) -> None:
    fid = add(conn, "The FactStore class owns writes.")
    conn.execute("UPDATE fact SET text = 'The Repository class owns writes.' WHERE id = ?",
                 (fid,))
    assert recall._inside_identifiers(conn.cursor(), PROJECT, ["store"]) == {}
    conn.execute("UPDATE fact SET text = 'The FactStore class owns writes.' WHERE id = ?",
                 (fid,))
    assert recall._inside_identifiers(conn.cursor(), PROJECT, ["store"]) == {fid: 1}
    conn.execute("DELETE FROM fact WHERE id = ?", (fid,))
    assert recall._inside_identifiers(conn.cursor(), PROJECT, ["store"]) == {}


def test_a_store_without_the_parts_index_still_answers(conn) -> None:
    fid = add(conn, "The TranscriptSelection hook was merged into the highlighter.")
    for name in ("fact_tri_insert", "fact_tri_delete", "fact_tri_update"):
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("DROP TABLE fact_tri")
    assert [h.id for h in recall.recall(conn, PROJECT, "selection hook merged").results] == [fid]


def test_a_four_letter_word_is_not_looked_for_inside_identifiers(conn) -> None:
    """"task", "list", "time" are parts of too many identifiers (`TaskList`, `ToolUse`) to
    say which fact is meant; each search cost a trigram query and hundreds of rows."""
    fid = add(conn, "The TaskList widget and the ReviewQueue screen share one model.")
    cur = conn.cursor()
    assert recall._inside_identifiers(cur, PROJECT, ["task"]) == {}
    assert recall._inside_identifiers(cur, PROJECT, ["queue"]) == {fid: 1}
    # the coverage re-score still counts the part, once the fact is a candidate
    assert recall._coverage(recall.parse("task list model"), "The TaskList model.") == 1.0


def test_a_word_capitalised_in_too_many_facts_marks_none(conn, monkeypatch) -> None:
    """"Session" written in more facts than PART_CANDIDATES is as common as a filler word
    in that store: not searched inside identifiers (each one's row was read)."""
    monkeypatch.setattr(recall, "PART_CANDIDATES", 3)
    hook = add(conn, "The SessionStart hook prints the notes.")
    cur = conn.cursor()
    assert recall._inside_identifiers(cur, PROJECT, ["session"]) == {hook: 1}
    for i in range(3):
        add(conn, f"Session {i} ended early.")
    assert recall._inside_identifiers(cur, PROJECT, ["session"]) == {}


def test_the_word_search_reads_project_and_status_from_the_covering_index(conn) -> None:
    """Schema V15: each match's project and status come from a small index, not the wide
    fact row; a store without the index (opened read-only before V15) still answers."""
    mine = add(conn, "The exporter retries three times.")
    add(conn, "The exporter retries forever.", project="/elsewhere")
    add(conn, "The exporter retries once.", status="pending")
    plan = " ".join(r[3] for r in conn.execute(
        f"EXPLAIN QUERY PLAN SELECT f.id FROM fact_fts JOIN {recall._BY_ID} "
        "ON f.id = fact_fts.rowid WHERE fact_fts MATCH 'x' AND f.project = 'p' "
        "AND f.status = 'approved'"))
    assert "COVERING INDEX fact_id_project_status" in plan
    assert [i for i, _ in recall._search(conn.cursor(), '"exporter"', PROJECT)] == [mine]
    conn.execute("DROP INDEX fact_id_project_status")
    assert [i for i, _ in recall._search(conn.cursor(), '"exporter"', PROJECT)] == [mine]
    assert [h.id for h in recall.recall(conn, PROJECT, "exporter retries").results] == [mine]
