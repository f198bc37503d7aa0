"""Recall ranks the fact that holds most of the question's words above a short sentence
that repeats one rare word of it (BM25 alone prefers the short one)."""

from __future__ import annotations

import sqlite3

import pytest
from helpers import insert_fact

from reviewer.claude_code import recall

PROJECT = "/proj/coverage"

# A private data dir (conftest) for every test of the file.
pytestmark = pytest.mark.usefixtures("home")


def add(conn: sqlite3.Connection, text: str) -> int:
    return insert_fact(conn, PROJECT, text)


def test_the_fact_holding_most_of_the_question_leads(conn) -> None:
    answer_id = add(conn, "Exports run nightly from the reporting job and are retried by the "
                          "scheduler three times before anyone on the team is paged.")
    short = add(conn, "Warehouse, warehouse.")  # one rarer word of the question, twice
    for word, n in (("exports", 10), ("nightly", 10), ("retried", 10), ("warehouse", 3)):
        for i in range(n):  # each common on its own; not one held by this fact alone
            add(conn, f"Note {i} of the team: something {word} here.")
    question = "warehouse exports nightly retried"
    bm25 = conn.execute(
        "SELECT rowid FROM fact_fts WHERE fact_fts MATCH ? ORDER BY bm25(fact_fts) LIMIT 1",
        (recall.parse(question).match,)).fetchone()[0]
    assert bm25 == short  # the premise: BM25 alone puts the short one first
    got = [h.id for h in recall.recall(conn, PROJECT, question).results]
    assert got[0] == answer_id


def test_coverage_counts_words_and_identifier_parts() -> None:
    q = recall.parse("transcript selection hook event")
    assert recall._coverage(q, "The TranscriptSelection hook uses handle_event.") == 1.0
    assert recall._coverage(q, "Hooks were renamed.") == 0.25  # a word's other form
    assert recall._coverage(q, "Nothing in common.") == 0.0


def test_adjacent_words_of_the_question_adjacent_in_a_fact_count() -> None:
    pairs = recall._pairs(["the", "save", "transcript", "output", "layout"])
    assert pairs == {("save", "trans"), ("trans", "outpu"), ("outpu", "layou")}
    assert recall._pair_share(pairs, "`save-transcript` writes its output here") == 1 / 3
    assert recall._pair_share(pairs, "transcript save output") == 0.0


def test_synonyms_widen_only_a_question_its_own_words_hardly_match(conn) -> None:
    settings = add(conn, "Settings are read once at start.")
    assert [h.id for h in recall.recall(conn, PROJECT, "config").results] == [settings]
    for i in range(recall.SYNONYM_FALLBACK):
        add(conn, f"The config file number {i} is generated.")
    got = [h.id for h in recall.recall(conn, PROJECT, "config").results]
    assert settings not in got  # enough facts hold the word itself


def test_a_word_held_only_as_a_synonym_counts_half() -> None:
    q = recall.parse("stylesheet staged")
    assert recall._coverage(q, "spotter.css is staged with git add -f.") == pytest.approx(
        (recall.SYNONYM_HELD + 1) / 2)
    assert recall._coverage(q, "The page was staged.") == 0.5  # no synonym: no credit


def test_of_two_facts_the_question_found_the_one_holding_a_synonym_leads(conn) -> None:
    plain = add(conn, "The page was staged.")  # shorter: BM25 alone puts it first
    css = add(conn, "The spotter.css was staged.")
    for i in range(recall.SYNONYM_FALLBACK):  # the question's own words match enough facts
        add(conn, f"Change {i} of the long migration series was staged in the end.")
    got = [h.id for h in recall.recall(conn, PROJECT, "how was the stylesheet staged").results]
    assert got.index(css) < got.index(plain)


def test_a_word_few_candidates_hold_counts_for_more_than_one_most_hold() -> None:
    q = recall.parse("resume imported session file name notes")

    def entry(fid: int, score: float, text: str) -> tuple[float, float, int, tuple, str]:
        return (-score, -1.0, fid, (fid, text), "fresh")

    common = entry(1, 1.0, "Notes: the name of a file in a session.")  # 4 of 6 words
    rare = entry(2, 0.9, "A resume of what was imported.")  # 2 of 6, held by no other
    fillers = [entry(10 + i, 0.5, f"Notes {i}: the name of a file in a session.")
               for i in range(12)]
    got = [r[2] for r in recall._by_coverage(q, [common, rare, *fillers])]
    assert got[0] == 2


def test_rarity_is_the_inverse_document_frequency_among_the_candidates() -> None:
    credits = [[1.0, 0.0], [1.0, 0.0], [1.0, 1.0]]
    common, rare = recall._rarity(credits, 2)
    assert rare > common > 0


def test_what_an_apostrophe_leaves_is_no_word() -> None:
    """"file's" and "doesn't" leave `s` and `t`: as words they matched every plural (the
    costliest term of a recall), and "file" + "s" joined searched "files" again."""
    q = recall.parse("do we use the log file's modified time? it doesn't say")
    assert "s" not in q.terms and "t" not in q.terms
    assert "files" not in q.expansions
    assert {"log", "file", "modified", "time", "doesn"} <= set(q.terms)


def test_a_facts_words_are_read_once_and_held_alike() -> None:
    """The re-score's per-fact lookups are cached by text and give the same credit as
    working them out afresh: `hook` in `hooks`, not in `hookless`; `configured` for
    `configuration`; identifier parts."""
    text = "The TranscriptSelection hooks read configured handle_event paths."
    seen = recall._seen(text)
    assert recall._seen(text) is seen
    terms = ["hook", "configuration", "selection", "event", "hookless", "path", "pa"]
    fresh = recall._credits(terms, recall._words(text)[0])
    assert recall._credits(terms, seen.words, seen=seen) == fresh == [1, 1, 1, 1, 0, 1, 1]
    assert recall._credits(["hook"], {"hookless"}) == [0]  # not a form of the word
    assert recall._credits(["hook"], {"hooks"}) == [1]


def test_a_word_held_in_the_evidence_counts(conn) -> None:
    """A question written from the session uses its words ("signing key", "gpg"); the
    fact may restate them ("release key"). The quote the fact was extracted from holds
    them, and counts for part of a word; it is never shown."""
    restated = add(conn, "The Proxmox release key is published on the download host.")
    conn.execute("UPDATE fact SET evidence = ? WHERE id = ?",
                 ("the signing key is the gpg file proxmox-release.gpg", restated))
    other = add(conn, "The Proxmox key file sits in the keyring folder.")
    for i in range(6):
        add(conn, f"Note {i}: the Proxmox host was rebooted.")
    answer = recall.recall(conn, PROJECT, "proxmox signing key gpg")
    assert [h.id for h in answer.results][:2] == [restated, other]
    assert "signing" not in answer.text()  # matched, not shown
    q = recall.parse("proxmox signing key")
    quote = "the signing key is the gpg file proxmox-release.gpg"
    credits = [recall._credits(q.terms, recall._seen(t).words)
               for t in ("The Proxmox release key.", "the signing key")]
    recall._credit_evidence(q.terms, [quote, ""], credits)
    assert credits[0] == [1.0, recall.EVIDENCE_HELD, 1.0]  # the text's own words stay 1
    assert credits[1] == [0.0, 1.0, 1.0]  # no evidence: unchanged
    # held as `_credits` holds a word: its other forms, a short word plus three letters
    q = recall.parse("configuration hook test testing less")
    credits = [[0.0] * 5]
    recall._credit_evidence(
        q.terms, ["a configured_key: the hooks ran; testing hookless, rehook"], credits)
    assert credits == [[recall.EVIDENCE_HELD] * 4 + [0.0]]  # `less` only inside a word


def test_a_fact_found_by_its_evidence_alone(conn) -> None:
    """A question in the session's words the fact restated ("non-blocking" where the
    fact says "must not block") reaches the fact through its evidence's own index
    (schema fact_ev), even when none of its text's words beat the many short sentences
    holding one of the question's words; a stale fact matched only so is not counted."""
    found = add(conn, "Commits are never stopped: each secret is redacted in place.")
    conn.execute("UPDATE fact SET evidence = ? WHERE id = ?",
                 ("make the scanning hook non-blocking, redact instead", found))
    for i in range(20):  # the question's words, each in many short sentences
        add(conn, f"Note {i}: the scanning output.")
        add(conn, f"Note {i}: the hook output.")
    got = [h.id for h in recall.recall(conn, PROJECT, "non-blocking scanning hook").results]
    assert found in got[:3]
    # kept in step by triggers: a new quote replaces the old one in the index
    conn.execute("UPDATE fact SET evidence = 'nothing of it' WHERE id = ?", (found,))
    got = [h.id for h in recall.recall(conn, PROJECT, "non-blocking scanning hook").results]
    assert found not in got


def test_a_store_without_the_evidence_index_still_answers(conn) -> None:
    """A store opened read-only before schema V16 has no fact_ev: the evidence search
    finds nothing there, and the words' search answers as before."""
    mine = add(conn, "The exporter retries three times.")
    conn.execute("UPDATE fact SET evidence = 'the exporter backoff' WHERE id = ?", (mine,))
    assert [i for i, _ in recall._search_evidence(conn.cursor(), '"backoff"', PROJECT)] == [mine]
    for name in ("insert", "delete", "update"):
        conn.execute(f"DROP TRIGGER fact_ev_{name}")
    conn.execute("DROP TABLE fact_ev")
    assert recall._search_evidence(conn.cursor(), '"backoff"', PROJECT) == []
    assert [h.id for h in recall.recall(conn, PROJECT, "exporter retries").results] == [mine]
