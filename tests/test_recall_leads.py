"""Recall's re-score at scale: how much of the question a fact holds leads over BM25
(which favours a short sentence repeating one of its words), it reads past the first
hundred matches, and an identifier of the question is held only by a fact that writes
it, not by one sharing its first letters."""

from __future__ import annotations

import sqlite3

import pytest
from helpers import insert_fact

from reviewer.claude_code import recall

PROJECT = "/proj/leads"

pytestmark = pytest.mark.usefixtures("home")


def add(conn: sqlite3.Connection, text: str) -> int:
    return insert_fact(conn, PROJECT, text)


def ids(conn: sqlite3.Connection, question: str, limit: int = 5) -> list[int]:
    return [h.id for h in recall.recall(conn, PROJECT, question, limit=limit).results]


def test_a_fact_past_the_first_hundred_matches_is_re_scored(conn) -> None:
    # a long fact holding every word of the question, and 150 two-word sentences that
    # each repeat one of them: BM25's length norm puts all 150 first
    answer = add(conn, "The router firmware update stripped the vendor cloud agent; "
                       + "the rest of this note is an unrelated long account " * 8 + ".")
    for i in range(150):
        word = ("router", "firmware", "stripped", "cloud")[i % 4]
        add(conn, f"{word.title()} {word} {i}.")
    question = "router firmware stripped cloud"
    first = [r[0] for r in conn.execute(
        "SELECT rowid FROM fact_fts WHERE fact_fts MATCH ? ORDER BY bm25(fact_fts)",
        (recall.parse(question).match,))]
    assert first.index(answer) >= 150  # the premise: last by BM25
    assert ids(conn, question)[0] == answer


def test_holding_more_of_the_question_outweighs_a_better_bm25(conn) -> None:
    # the answer holds three of the four words in a long sentence; the short one holds
    # two, one of them twice: BM25 and the first stage prefer it
    answer = add(conn, "Deploys wait for the staging database migration to finish before "
                       "the release job promotes the build to production servers, as agreed "
                       "with the platform team after the outage review in the spring, when "
                       "the old job had promoted a half-migrated build twice in one week and "
                       "nobody noticed until customers wrote in.")
    short = add(conn, "Canary canary migration.")
    for i in range(30):  # each word about as common as the others
        add(conn, f"Note {i}: the deploys and the release went out as planned today.")
        add(conn, f"Note {i}: a migration ran on the staging database overnight.")
        add(conn, f"Note {i}: the canary host took a tenth of the traffic this week.")
    question = "canary deploys migration release"
    first = [r[0] for r in conn.execute(
        "SELECT rowid FROM fact_fts WHERE fact_fts MATCH ? ORDER BY bm25(fact_fts)",
        (recall.parse(question).match,))]
    assert first.index(short) < first.index(answer)  # the premise
    assert ids(conn, question)[:1] == [answer]
    assert short in ids(conn, question, 10)


def test_an_identifier_is_held_whole_not_by_its_first_letters(conn) -> None:
    answer = add(conn, "A SessionStart hook appends SESSION_SHARE_TRANSCRIPT_PATH to the "
                       "env file, and publish_session.py reads it before uploading the "
                       "transcript to a gist for the user.")
    for i in range(20):  # hold `sessi`, the identifier's first five letters, and `set`
        add(conn, f"Finding {i}: already set during an earlier session.")
    assert ids(conn, "SESSION_SHARE_TRANSCRIPT_PATH not set")[0] == answer
    # its other spellings hold it too: CamelCase, joined, snake_case
    q = "FactStore opens"
    camel = add(conn, "fact_store opens the database once per process and keeps it.")
    for i in range(10):
        add(conn, f"Facts {i} are listed and the store opens on demand.")
    assert ids(conn, q)[0] == camel


def test_identifier_credits_whole_parts_and_quotes() -> None:
    idents = recall._identifiers("Why is SESSION_SHARE_PATH unset in FactStore and v2 here?")
    assert idents == {"session_share_path": ("session", "share", "path"),
                      "factstore": ("fact", "store"), "v2": ("v", "2")}
    terms = ["session_share_path", "unset"]
    seen = [recall._seen(t) for t in (
        "It reads SessionSharePath.", "The session was shared.", "Session and path unset.")]
    credits = [[0.0, 0.0] for _ in seen]
    recall._credit_identifiers(idents, terms, seen, credits)
    assert [c[0] for c in credits] == [
        1.0, recall.IDENT_PART_HELD * 2 / 3, recall.IDENT_PART_HELD * 2 / 3]
    # a quote holds an identifier only whole, not as a word sharing its first letters
    quotes = ["the session ended", "export SESSION_SHARE_PATH=/tmp/x"]
    credits = [[0.0, 0.0], [0.0, 0.0]]
    recall._credit_evidence(terms, quotes, credits, idents)
    assert credits == [[0.0, 0.0], [recall.EVIDENCE_HELD, 0.0]]


def test_an_identifier_of_the_question_weighs_more_than_a_word(conn) -> None:
    answer = add(conn, "The user's settings turn toggleMode on and keep thirty recordings, "
                       "with spoken punctuation and the small English model, which the user "
                       "picked after trying the larger ones for a week on long dictations "
                       "and finding them too slow to start on this older laptop.")
    for i in range(3):  # a few facts holding its three other words
        add(conn, f"Step {i}: the config option was read from the documented file.")
    add(conn, "A config option is documented in the project's configuration page.")
    assert ids(conn, "toggleMode undocumented config option")[0] == answer
