"""The detector's cheaper scans find exactly what the scans they replace found (texts made
here from a seeded generator, dense in the characters each scan turns on)."""

from __future__ import annotations

import random
import re

import pytest

from reviewer.sanitize import (
    detect,  # noqa: F401  (the full detector, as the worker runs it)
    gitleaks,
    layers,
    shapes,
)

_SOUP = "abcXYZ019 \t\n_-./:=+~!@#$%^&*?\"'`<>()[]{},;|\\é→\u200b"


def _texts(n: int, length: int, alphabet: str = _SOUP, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, length)))
            for _ in range(n)]


@pytest.mark.parametrize("seed", range(4))
def test_sign_pairs_are_the_alternations_matches(seed: int) -> None:
    for text in _texts(300, 120, seed=seed):
        want = [m.start() for m in shapes._SIGN_NEAR_RE.finditer(text)]
        assert shapes._sign_pairs(text) == want, text


@pytest.mark.parametrize("seed", range(4))
def test_near_hits_are_the_alternations_matches(seed: int) -> None:
    """Words that overlap and nest (``pass``/``password``/``passwort``, ``key``/``keys``),
    found left to right, the longest at each place, as an alternation finds them."""
    words = ["pass", "password", "passwort", "key", "keys", "token", "pw", "wor", "ss"]
    alphabet = "passwordkeytn _-:\n"
    for text in _texts(300, 80, alphabet, seed=seed):
        rx = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)))
        want = [m.span() for m in rx.finditer(text)]
        assert [(h.s, h.e) for h in layers._near_hits(text, words)] == want, text


@pytest.mark.parametrize("seed", range(4))
def test_words_are_the_regexes_words(seed: int) -> None:
    """ASCII letters and digits between anything else, a non-ASCII letter and a lone
    surrogate included."""
    for text in _texts(300, 100, _SOUP + "\udc80ÄŁ", seed=seed):
        low = text.lower()
        want = tuple(sorted(set(re.findall(r"[a-z0-9]+", low))))
        assert gitleaks.words.__wrapped__(low) == want, text


def test_rule_windows_find_every_match_of_the_whole_text() -> None:
    """A match holding a keyword lies within the rule's widest match of it: the windows
    find what one pass over the whole (long) text finds, at its edges too."""
    rng = random.Random(7)
    checked = 0
    for rule in gitleaks.rules()[0]:
        if not rule.widest or not rule.keywords:
            continue
        for k in rule.keywords[:2]:
            pieces = []
            for _ in range(40):
                filler = "".join(rng.choice("abc xyz019_-.\n=:'\"")
                                 for _ in range(rng.randint(0, 90)))
                tail = "".join(rng.choice("ABCDEFabcdef0123456789_-")
                               for _ in range(rng.randint(8, 140)))
                pieces.append(filler + k + tail)
            text = "".join(pieces)
            assert len(text) >= gitleaks._WINDOW_MIN_TEXT
            low = text.lower()
            want = [m.span() for m in rule.regex.finditer(text)]
            got = [m.span() for m in gitleaks._matches(rule, text, low)]
            assert got == want, rule.id
            checked += 1
    assert checked > 150


@pytest.mark.parametrize("seed", range(4))
def test_holds_is_in_the_ascii_view(seed: int) -> None:
    """A word is found among the text's distinct tokens exactly when it is in the text
    (long texts, with other scripts, tabs and the separators ``split`` knows)."""
    rng = random.Random(seed)
    words = ["live_", "sk", "s.", "q~", "-----begin", "pass word", "ab", "a\tb", "é", "x_y",
             "token", "\x1c", ""]
    for text in _texts(40, 9000, _SOUP + "\x1c\x0b", seed=seed):
        low = text.lower()
        for w in words + ["".join(rng.choice("abc_.~-") for _ in range(3)) for _ in range(20)]:
            assert gitleaks.holds(low, w) == (w in gitleaks.ascii_view(low)), (w, seed)


def test_literal_gates_keep_every_match() -> None:
    """A finder skips a regex when the text lacks every word the regex needs: on texts
    made to hold those words (and only sometimes the rest), the gated finders find what
    the regexes find."""
    from reviewer.sanitize import named

    rng = random.Random(11)
    parts = ["--name ", "--key=", "--secret-name ", "secrets set ", "secret add ", "API_KEY ",
             "--value ", "--body=", "-b ", "s3cr3tValue9", " ", "\n", "<k name=\"db_password\" ",
             "value=\"", "content='", "\">", "</k>", "Zx9!pQ2#wL", "\"", "'"]
    for _ in range(400):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(1, 30)))
        want = [m.span("v") for m in named._CLI_PAIR_RE.finditer(text)
                if named._named_value(m.group("name"), m.group("v"))]
        got = [(s, e) for s, e, k in named.find_named_pairs(text, text.lower())
               if k == "cli-password"]
        assert all(sp in got for sp in want), text
        want = {m.span("v") for rx in (layers._XML_NAMED_RE, layers._XML_NAMED_TEXT_RE)
                for m in rx.finditer(text)
                if layers._value_ok(m.group("k"), m.group("v").strip()) is not None}
        got = {(s, e) for s, e, _ in layers.find_xml_values(text, text.lower())}
        assert want <= got, text


@pytest.mark.parametrize("seed", range(3))
def test_distinct_token_prechecks_change_nothing(seed: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The random-token and labelled-token finders first ask each distinct token of a long
    text whether it could be a value; what they find is what the full scan finds."""
    from reviewer.sanitize import named

    rng = random.Random(seed)
    alnum = "ABCDEFGHJKabcdefghjk0123456789"
    words = ["the", "build", "Ably:", "key:", "token =", "cacheKey", "x-request", "id", "\n",
             "path/to/file.py", "v1.2.3", "Stripe", "sk_test_", "#", "ok", "=", "=="]
    texts = []
    for i in range(30):
        pieces = []
        for _ in range(rng.randint(700, 1400)):
            r = rng.random()
            if r < 0.02 and i % 2:  # every other text holds no generated value
                pieces.append("".join(rng.choice(alnum) for _ in range(rng.randint(12, 40))))
            elif r < 0.03:
                pieces.append("".join(rng.choice("0123456789abcdef") for _ in range(40)))
            else:
                pieces.append(rng.choice(words))
        texts.append(" ".join(pieces))
    found = 0
    for text in texts:
        low = text.lower()
        got = (list(shapes.find_random_tokens(text, low)), list(named.find_named_tokens(text, low)))
        with monkeypatch.context() as m:
            m.setattr(gitleaks, "_TOKENS_MIN_TEXT", 10**9)  # the full scan alone
            want = (list(shapes.find_random_tokens(text, low)),
                    list(named.find_named_tokens(text, low)))
        assert got == want
        found += len(want[0]) + len(want[1])
    assert found  # the texts hold values the finders report, so the comparison says something


_PAIR_PARTS = ("name: db_password", 'key="api_token"', " value: ", "Value=", '"SecretString": ',
               "x" * 90, "\n", "hunter2xyz", "Zq7vXm2Pk9", " ", " " * 30, "\t" * 25,
               "ParameterKey=DbPassword,ParameterValue=", "secret_key_name=s1 ", "VALUE ",
               "y" * 300)


@pytest.mark.parametrize("seed", range(4))
def test_named_pairs_around_value_words_are_the_whole_texts_matches(seed: int) -> None:
    """`named._pairs` tries the pair pattern only around the words a value follows: the
    same matches as the pattern over the whole text, long gaps and blank runs included."""
    from reviewer.sanitize import named

    rng = random.Random(seed)
    for _ in range(400):
        text = "".join(rng.choice(_PAIR_PARTS) for _ in range(rng.randint(1, 40)))
        want = [(m.span(), m.groupdict()) for m in named._PAIR_RE.finditer(text)]
        assert [(m.span(), m.groupdict()) for m in named._pairs(text)] == want, text
