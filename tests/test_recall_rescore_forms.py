"""The re-score's per-fact lookups, made cheaper (issue 23, speed), hold exactly what the
word-by-word rule holds: a question's word of five letters or more by its first five,
a shorter one as itself plus at most three letters, each of its derivational roots
alike, and a fact's identifiers split into their parts. Each test compares the fast
form with that rule written out plainly, over words and texts of every shape."""

from __future__ import annotations

import itertools

from reviewer.claude_code import query_terms, recall, word_roots

TEXTS = [
    "The TranscriptSelection hooks read configured handle_event paths.",
    "HTTPServer2 and the _private flag; x_ y__z __init__ a1b2 URLs OK",
    "scanner unlisted nonblocking publicly Loggers handled by the scheduler",
    "Straße café naïve ÉCOLE İstanbul ﬁle Ǆemal résumé",  # casefold and titlecase oddities
    "ssh api db log hook test json file path css yml pa a ab abc abcd abcde abcdefgh",
    "plain lowercase words only here",
    "MixedCase mixedCase Mixedcase MIXEDCASE mIXED m2M Ab aB ABc",
    "2024-05-01 v1.2.3 10ms 16G tmpfs --dry-run src/db.py reviewer.store",
    "handle_scanner unlisted_flag x__publicly Scanner2 a1loggers _nonblocking_",
]
TERMS = ["hook", "hooks", "configuration", "selection", "event", "hookless", "path",
         "pa", "scan", "scanning", "listed", "blocking", "public", "logger", "log",
         "server", "http", "init", "private", "strasse", "cafe", "file", "ecole", "abcd",
         "abc", "ab", "a", "mixed", "case", "2024", "tmpfs", "store", "stylesheet", "css"]


def plain_words(text: str) -> set[str]:
    """A fact's words as the rule reads them: every word, each identifier's parts."""
    words = set(recall._TERM.findall(text.casefold()))
    for raw in recall._TERM.findall(text):
        if "_" in raw or (len(raw) > 2 and not raw[1:].islower() and not raw[1:].isupper()):
            for part in raw.split("_"):
                words.add(part.casefold())
                words.update(query_terms.parts(part))
    # and the roots of every plain word, and of each part of a snake_case one, in ASCII
    # (not the fast scan's regex: the rule it stands for)
    for word in recall._TERM.findall(text.casefold()):
        for piece in word.split("_"):
            if piece.isascii():
                words.update(word_roots.roots(piece))
    return words


def plain_held(term: str, words: set[str]) -> bool:
    def one(t: str) -> bool:
        if len(t) >= 5:
            return any(w[:5] == t[:5] for w in words)
        return any(w.startswith(t) and len(w) - len(t) <= 3 for w in words)
    return one(term) or any(one(r) for r in word_roots.roots(term))


def test_a_facts_words_are_those_of_the_plain_rule() -> None:
    for text in TEXTS:
        assert recall._seen(text).words == plain_words(text), text


def test_every_identifier_is_among_those_the_fast_scan_finds() -> None:
    """`_MAY_SPLIT` may find more words than the rule splits, never fewer."""
    for text in [*TEXTS, "_a _ab Abc aBc abC A_ a_B Ǆemal", "ab1 a1 ÀBc àbC"]:
        found = set(recall._MAY_SPLIT.findall(text))
        for raw in recall._TERM.findall(text):
            if "_" in raw or (len(raw) > 2 and not raw[1:].islower()
                              and not raw[1:].isupper()):
                assert raw in found, (raw, text)


def test_credits_are_those_of_the_plain_rule() -> None:
    for text in TEXTS:
        seen = recall._seen(text)
        words = plain_words(text)
        for size in (1, 3):
            for terms in itertools.islice(itertools.combinations(TERMS, size), 400):
                got = recall._credits(list(terms), seen.words, seen=seen)
                fresh = recall._credits(list(terms), seen.words)
                want = [1.0 if plain_held(t, words)
                        else recall.SYNONYM_HELD if set(query_terms.SYNONYMS.get(t, ()))
                        & words else 0.0 for t in terms]
                assert got == fresh == want, (text, terms)


def test_a_facts_keys_are_its_heads_and_short_forms() -> None:
    """Written out by hand: a word's first five letters, and (a word of up to seven
    letters) the forms a question's shorter word may take in it, itself plus at most
    three letters (`hook` is held by `hooks`, `hooked`, `hookups`, not `hookless`)."""
    cases = {
        "hook": {"h", "ho", "hoo", "hook"},
        "hooks": {"hooks", "ho", "hoo", "hook"},
        "hooked": {"hooke", "hoo", "hook"},
        "hookups": {"hooku", "hook"},
        "hookless": {"hookl"},
        "a": {"a"},
        "db": {"d", "db"},
        "abc": {"a", "ab", "abc"},
        "configuration": {"confi"},
    }
    for word, want in cases.items():
        assert recall._keys({word}) == want, word
    assert recall._keys(set(cases)) == set().union(*cases.values())
    assert recall._seen("Hooked db, hookless").keys == {
        "hooke", "hoo", "hook", "d", "db", "hookl"}
