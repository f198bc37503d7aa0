"""Grounding: is the quoted evidence really in what was sent? Are cited files real?

The verifier (capture/verify/) decides; these cases are the substring check's old ones,
kept to show what a plain quote still passes and what it no longer does.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capture import verify as v
from capture.ground import missing_files, normalise
from capture.transcript import Turn


def _turns(*specs: tuple[str, str]) -> list[Turn]:
    kinds = {"user": ("user", "prompt"), "assistant": ("assistant", "prose"),
             "call": ("assistant", "tool_call")}
    return [Turn(kinds[w][0], kinds[w][1], t, i + 1, i, tool="Bash" if w == "call" else None)
            for i, (w, t) in enumerate(specs)]  # type: ignore[arg-type]


SOURCE = _turns(
    ("user", "Remember that we use **pnpm**, not npm \u2014 it\u2019s faster in CI."),
    ("assistant", "Running `pnpm install --frozen-lockfile` now."),
    ("call", "Bash: pytest -x tests/test_api.py"),
    ("user", "The   staging database listens on port 5433, not 5432."),
)


def found(evidence: str, turns: list[Turn] = SOURCE) -> bool:
    """Located whole (the fact's own checks aside)."""
    quote = v.clean_quote(evidence)
    return bool(quote) and not v.too_short(quote) and v.locate(quote, turns)[1] is None


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
        "Remember that we use pnpn, not npm \u2014 its faster in CI",  # small typos
        "The stagin database listens on port 5433 not 5432",  # typo and dropped comma
    ],
)
def test_grounded(evidence):
    assert found(evidence)


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
        # The substring check passed these; an elision that drops words no longer does.
        "Remember that we use pnpm ... pytest -x tests/test_api.py",
        "The staging database listens on port 5433 ... 5432",
    ],
)
def test_not_grounded(evidence):
    assert not found(evidence)


def test_empty_source():
    assert not found("anything at all here", [])


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
    turns = _turns(("assistant", big))
    quote = big[60_000:60_200]
    typo = quote[:100] + ("x" if quote[100] != "x" else "y") + quote[101:]
    assert found(quote, turns)
    assert found(typo, turns)
    rng = random.Random(1)
    words = big.split()
    for _ in range(30):  # plausible-looking but never-said sentences
        fake = " ".join(rng.choice(words) for _ in range(20))
        assert not found(fake, turns)


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
def test_property_any_substring_is_found(source, data):
    i = data.draw(st.integers(0, len(source) - 1))
    j = data.draw(st.integers(i + 1, len(source)))
    piece = source[i:j]
    norm = normalise(piece)
    if not norm.strip(" \"'.") or "..." in norm:
        return
    turns = _turns(("user", source))
    if len(v.words(v.clean_quote(piece))) >= v.MIN_WORDS:
        assert found(piece, turns)
    else:  # a word or three supports nothing, wherever it is found
        assert not found(piece, turns)


@pytest.mark.parametrize("evidence", [
    "User:", "Assistant: ok", "the ... in", "fix ... Fridays", "we deploy ... to",
    "we deploy to Kubernetes ... the fix is in",
])
def test_labels_scraps_and_elisions_are_not_evidence(evidence: str) -> None:
    turns = _turns(("user", "we deploy to Kubernetes on Fridays"),
                   ("assistant", "ok, the fix is in."))
    assert not found(evidence, turns)
    assert found("User: we deploy to Kubernetes on Fridays", turns)


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
