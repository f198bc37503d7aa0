"""The anchored word gates (reviewer/sanitize/anchored.py) answer exactly as the scans they
replace: a word found from its rarest character is found where ``in`` finds it, and only
there; the prefix finder's gate passes exactly when its hit regex matches."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewer.sanitize import anchored, prefixed, reveal

_ALPHABET = "secrtokpawhmivulydgnfqjx -_(\n0→"
_SEGS = ("sk", "secret", "secretkey", "token", "tok", "pat", "apikey", "priv", "private",
         "sak", "sek", "ssk")


def _texts() -> st.SearchStrategy[str]:
    words = st.sampled_from(reveal._GATE + _SEGS + ("sk_a", "pat-1", "tok_"))
    return st.lists(st.one_of(st.text(_ALPHABET, max_size=12), words), max_size=8).map("".join)


@settings(max_examples=400, deadline=None)
@given(_texts())
def test_reveal_gate_is_the_words_scan(text: str) -> None:
    assert anchored.holds_any(text, reveal._GATE_RES) == any(w in text for w in reveal._GATE)


@settings(max_examples=400, deadline=None)
@given(_texts())
def test_prefix_gate_passes_exactly_where_a_hit_is(text: str) -> None:
    hit = prefixed._SEG_HIT_RE.search(text) is not None
    assert anchored.holds_any(text, prefixed._SEG_GATE) == hit


def test_a_word_at_either_end_and_a_word_cut_short() -> None:
    res = anchored.words_res(("jsonpath", "value(", "ecr"))
    assert anchored.holds_any("jsonpath", res)
    assert anchored.holds_any("x value(", res)
    assert anchored.holds_any("ecr", res)
    assert not anchored.holds_any("jsonpat value ec r", res)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(["→", "→ ", "\n", " ", "\t", "1", "23", "a", "٣", "\r"]),
                max_size=30).map("".join))
def test_line_marks_blanked_as_the_multiline_sub_did(text: str) -> None:
    from reviewer.sanitize import detect

    want = detect._LINE_MARK_RE.sub(lambda m: " " * len(m.group()), text)
    assert detect._unmarked(text) == want


def test_a_long_line_of_arrows_is_unmarked_in_linear_time() -> None:
    """Not timed: each "→" of one line once looked back to the line's start (minutes at
    this size); a slow regression shows in the suite."""
    from reviewer.sanitize import detect

    text = "x→" * 3_000_000
    assert detect._unmarked(text) is text
    text = "→ " + text
    assert detect._unmarked(text) == "  " + text[2:]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.text("acdeiklnoprstuvwy _-", max_size=8),
                          st.sampled_from(["accounts", "fromkeypair", " pk", "privkey",
                                           "signer", "deployer", "owner", "from_key"])),
                max_size=8).map("".join))
def test_each_wallet_word_group_is_found_exactly_where_one_of_its_words_is(text: str) -> None:
    """A group stands for several words (the finder then looks for each): it must be found
    where the text holds one of them, and only there; and the groups share out the words,
    each word in one group."""
    from reviewer.sanitize import wallets

    grouped = [w for _, ws in wallets._CONTEXT_GROUPS for w in ws]
    assert sorted(grouped) == sorted(wallets._CONTEXT_WORDS)
    for group, words in wallets._CONTEXT_GROUPS:
        assert (group.search(text) is not None) == any(w in text for w in words), words
