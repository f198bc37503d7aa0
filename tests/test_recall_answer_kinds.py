"""Recall gives a small lift to a fact holding the kind of answer a question asks for
("how long" and a duration, "why" and a cause), among what the question's words found."""

from __future__ import annotations

import sqlite3

import pytest
from helpers import insert_fact

from reviewer.claude_code import answer_kinds, recall

PROJECT = "/proj/answer-kinds"

# A private data dir (conftest) for every test of the file.
pytestmark = pytest.mark.usefixtures("home")


def add(conn: sqlite3.Connection, text: str) -> int:
    return insert_fact(conn, PROJECT, text)


@pytest.mark.parametrize(("question", "fact", "expected"), [
    ("How long may the e2e test run?", "The e2e test has a 10-second timeout.", True),
    ("How long may the e2e test run?", "The e2e test runs in CI.", False),
    ("Why did the page hang?", "A reactive loop caused the hang.", True),
    ("Why did the page hang?", "The page hangs.", False),
    ("How many call sites are there?", "There are 45 uses in build.sh.", True),
    ("How big is the RAM disk?", "The build runs in a 16G tmpfs.", True),
    ("How big is the RAM disk?", "The build runs in a tmpfs.", False),
])
def test_a_fact_holds_the_kind_of_answer_asked(question: str, fact: str, expected: bool) -> None:
    assert answer_kinds.answers(answer_kinds.asked(question), fact) is expected


def test_only_the_opening_words_ask() -> None:
    assert answer_kinds.asked("what does the script print") == []
    assert answer_kinds.asked("the hook, and why it exists") == []  # not how it opens
    assert len(answer_kinds.asked("  Why is it slow?")) == 1


def test_the_fact_holding_a_duration_leads_for_a_how_long_question(conn) -> None:
    plain = add(conn, "The round-trip test runs the client.")  # shorter: BM25 prefers it
    timed = add(conn, "The round-trip test runs the client, 10-second timeout.")
    got = [h.id for h in recall.recall(conn, PROJECT, "How long may the round-trip test run?"
                                       ).results]
    assert got.index(timed) < got.index(plain)
