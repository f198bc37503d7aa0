"""Recall matches a question's word to its derivational root (`scanner` to the fact's
`scan`, `unlisted` to `listed`), which the index's Porter stemmer keeps apart."""

from __future__ import annotations

import sqlite3

import pytest
from helpers import insert_fact

from reviewer.claude_code import recall, word_roots

PROJECT = "/proj/roots"

pytestmark = pytest.mark.usefixtures("home")


def add(conn: sqlite3.Connection, text: str) -> int:
    return insert_fact(conn, PROJECT, text)


@pytest.mark.parametrize(("word", "expected"), [
    ("scanner", ("scan",)), ("publicly", ("public",)), ("unlisted", ("listed",)),
    ("nonblocking", ("blocking",)), ("logger", ("log",)), ("worker", ("work",)),
    # too short a root to mean anything, or not a derivation at all
    ("user", ()), ("unix", ()), ("until", ()), ("unique", ()), ("only", ()), ("really", ()),
    ("error", ()), ("v2_scanner", ()),
])
def test_roots(word: str, expected: tuple[str, ...]) -> None:
    assert word_roots.roots(word) == expected


def test_the_scanner_question_finds_the_scan_fact(conn) -> None:
    answer = add(conn, "The nightly scan of staged files must never block a commit.")
    for i in range(12):  # the question's other words, in shorter sentences
        add(conn, f"Note {i}: a commit may block.")
    got = [h.id for h in recall.recall(conn, PROJECT, "can the scanner block a commit").results]
    assert got[0] == answer


def test_a_negated_word_holds_its_root(conn) -> None:
    answer = add(conn, "Gists made by the plugin are always unlisted for its first release.")
    for i in range(12):
        add(conn, f"Note {i}: gists.")
    got = [h.id for h in recall.recall(conn, PROJECT, "are the gists listed").results]
    assert got[0] == answer


def test_every_word_with_a_root_is_looked_up() -> None:
    """MAY_HAVE_ROOT, the one-pass filter of a fact's words, keeps every word `roots`
    has a root for (and a fact holds the roots of those words)."""
    text = ("the scanner ran publicly on unlisted nonblocking workers, logger v2_scanner "
            "and a user of unix until an error in the filters")
    kept = set(word_roots.MAY_HAVE_ROOT.findall(text))
    assert {w for w in text.replace(",", "").split() if word_roots.roots(w)} <= kept
    assert {"scan", "public", "listed", "blocking", "work", "log"} <= recall._seen(text).words
