"""Grounding: is the quoted evidence really in what was sent? Are cited files real?"""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capture import ground
from capture.ground import is_grounded, missing_files, normalise

SOURCE = (
    "User: Remember that we use **pnpm**, not npm \u2014 it\u2019s faster in CI.\n"
    "Assistant: Running `pnpm install --frozen-lockfile` now.\n"
    "Bash: pytest -x tests/test_api.py\n"
    "User: The   staging database listens on port 5433, not 5432.\n"
)


def test_normalise():
    assert normalise("  It\u2019s  **Bold** `code`\n\t\u201cq\u201d \u2014 x\u2026 ") == (
        'it\'s bold code "q" - x...'
    )
    assert normalise("A\u200bB") == "ab"


@pytest.mark.parametrize(
    "evidence",
    [
        "we use pnpm, not npm",  # exact after markdown is dropped
        "We use PNPM, not npm - it's faster in CI.",  # case, dash, apostrophe
        "the staging database listens on port 5433",  # collapsed whitespace
        '"Running pnpm install --frozen-lockfile now."',  # wrapping quotes
        "...listens on port 5433, not 5432...",  # leading/trailing ellipsis
        "Remember that we use pnpm ... pytest -x tests/test_api.py",  # elided middle, in order
        "Remember that we use pnpn, not npm \u2014 its faster in CI",  # small typos
        "The stagin database listens on port 5433 not 5432",  # typo and dropped comma
    ],
)
def test_grounded(evidence):
    assert is_grounded(evidence, SOURCE)


@pytest.mark.parametrize(
    "evidence",
    [
        "",
        "   ",
        "...",
        "We use yarn because of workspaces.",
        "The production database listens on port 6543.",
        "pytest -x tests/test_api.py ... Remember that we use pnpm",  # pieces out of order
        "Remember that we use pnpm ... deploys go through Heroku",  # one piece invented
        "pnpx",  # too short for a tolerant match and not present
    ],
)
def test_not_grounded(evidence):
    assert not is_grounded(evidence, SOURCE)


def test_empty_source():
    assert not is_grounded("anything at all here", "")


def _big_source(seed: int = 7, size: int = 100_000) -> str:
    rng = random.Random(seed)
    vocab = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(3000)]
    vocab += ["the", "a", "to", "is"] * 200  # frequent words, as in real text
    words: list[str] = []
    total = 0
    while total <= size:
        w = rng.choice(vocab)
        words.append(w)
        total += len(w) + 1
    return " ".join(words)


def test_large_source_exact_typo_and_unrelated():
    big = _big_source()
    assert len(big) >= 100_000
    quote = big[60_000:60_200]
    typo = quote[:100] + ("x" if quote[100] != "x" else "y") + quote[101:]
    assert is_grounded(quote, big)
    assert is_grounded(typo, big)
    rng = random.Random(1)
    words = big.split()
    for _ in range(30):  # plausible-looking but never-said sentences
        fake = " ".join(rng.choice(words) for _ in range(20))
        assert not is_grounded(fake, big)


@settings(max_examples=150, deadline=None)
@given(
    st.text(
        # combining marks are left out: a slice can split what NFKC would compose
        alphabet=st.sampled_from(list(string.printable + "\u2019\u201c\u201d\u2014\u2026\u00e9ß")),
        min_size=1,
        max_size=400,
    ),
    st.data(),
)
def test_property_any_substring_is_grounded(source, data):
    i = data.draw(st.integers(0, len(source) - 1))
    j = data.draw(st.integers(i + 1, len(source)))
    piece = source[i:j]
    norm = normalise(piece)
    if not norm.strip(" \"'.") or "..." in norm:
        return
    if ground._words(norm) >= ground.MIN_WORDS:
        assert is_grounded(piece, source)
    else:  # a word or two supports nothing, wherever it is found
        assert not is_grounded(piece, source)


@pytest.mark.parametrize("evidence", ["User:", "Assistant: ok", "the ... in", "fix ... Fridays",
                                      "we deploy ... to"])
def test_labels_and_scraps_are_not_evidence(evidence: str) -> None:
    source = "User: we deploy to Kubernetes on Fridays\n\nAssistant: ok, the fix is in."
    assert not is_grounded(evidence, source)
    assert is_grounded("we deploy to Kubernetes ... the fix is in", source)


def test_missing_files(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x")
    (tmp_path / "README.md").write_text("x")
    outside = tmp_path.parent / "outside.txt"
    outside.write_text("x")
    cited = [
        "src/app.py",
        "./README.md",
        "src",
        "src/gone.py",
        "../outside.txt",
        "src/../../outside.txt",
        str(outside),
        str(tmp_path / "README.md"),
        "/etc/passwd",
        "",
        "src/gone.py",
    ]
    assert missing_files(cited, tmp_path) == [
        "src/gone.py",
        "../outside.txt",
        "src/../../outside.txt",
        str(outside),
        "/etc/passwd",
        "",
    ]
    assert missing_files([], str(tmp_path)) == []
