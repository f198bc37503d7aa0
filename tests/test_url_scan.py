"""shapes._urls: the URL finder's matches found from each `://` are exactly the regex's own
(`_URL_RE.finditer`), on texts made to stress where a scheme starts and where matches meet."""

from __future__ import annotations

import random

import pytest

from reviewer.sanitize.shapes import _URL_RE, _urls

CASES = [
    "see https://example.com/a and ftp://x.org/b",
    "ab://cd://ef",  # one match runs over the next `://`
    "x://ab",  # a one-letter scheme is no scheme
    "9http://host/path",  # a scheme starts with a letter
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa://host/p",  # a run longer than a scheme may be
    "HTTP://HOST/upper and http://lower/",
    "git+ssh://git@host:repo.git://x",
    "://nothing before",
    "a://b c://dd http://",
    "http://a\"b https://ok.example/x`y",
]


@pytest.mark.parametrize("text", CASES)
def test_the_same_matches_as_the_regex(text: str) -> None:
    want = [(m.start(), m.end()) for m in _URL_RE.finditer(text)]
    assert [(m.start(), m.end()) for m in _urls(text)] == want


def test_the_same_matches_on_random_texts_of_url_characters() -> None:
    rnd = random.Random(20261204)
    alphabet = "ab:/ .-+9Zhtps\"x@\n"
    for _ in range(5000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 80)))
        want = [(m.start(), m.end()) for m in _URL_RE.finditer(text)]
        assert [(m.start(), m.end()) for m in _urls(text)] == want, text
