"""Offline extractor: explicit statements in the user's prompts, and nothing else."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capture.candidate import CATEGORIES
from capture.extractors.rules import extract_rules, files_in
from capture.transcript import Turn


def prompt(text: str, line: int = 1) -> Turn:
    return Turn(role="user", kind="prompt", text=text, line=line, offset=0)


def one(text: str):
    found = extract_rules([prompt(text)])
    assert len(found) == 1, found
    cand = found[0]
    assert cand.evidence in text  # verbatim
    assert cand.category in CATEGORIES and 0.6 <= cand.confidence <= 0.9
    assert cand.fact.endswith(".") and cand.fact[0].isupper()
    return cand


@pytest.mark.parametrize(
    ("text", "fact", "category"),
    [
        (
            "Remember that the staging DB listens on port 5433.",
            "The staging DB listens on port 5433.",
            "environment",
        ),
        (
            "ok so always run `ruff check` before committing. Thanks!",
            "Always run `ruff check` before committing.",
            "convention",
        ),
        ("Never commit directly to main.", "Never commit directly to main.", "convention"),
        ("We use pnpm, not npm.", "The project uses pnpm, not npm.", "convention"),
        ("We're using Python 3.11 and uv.", "The project uses Python 3.11 and uv.", "environment"),
        (
            "Don't use requests, use httpx2 instead.",
            "Use httpx2 instead of requests.",
            "decision",
        ),
        ("No, use pathlib instead.", "Use pathlib instead.", "decision"),
        (
            "From now on, put fixtures in tests/fixtures/.",
            "Put fixtures in tests/fixtures/.",
            "convention",
        ),
        (
            "The convention is to prefix private helpers with an underscore.",
            "The convention is to prefix private helpers with an underscore.",
            "convention",
        ),
        (
            "The old sync_db.py script is deprecated, see scripts/migrate.py.",
            "The old sync_db.py script is deprecated, see scripts/migrate.py.",
            "gotcha",
        ),
        (
            "TODO: add rate limiting to src/api/server.py",
            "TODO: add rate limiting to src/api/server.py.",
            "todo",
        ),
        (
            "We still need to write the migration for the users table.",
            "Still to do: write the migration for the users table.",
            "todo",
        ),
        (
            "Make sure to update CHANGELOG.md when releasing.",
            "Make sure to update CHANGELOG.md when releasing.",
            "convention",
        ),
        (
            "Also, don't forget to bump the version in pyproject.toml.",
            "Bump the version in pyproject.toml.",
            "convention",
        ),
        (
            "Remember: we always use tabs in the Makefile.",
            "Always use tabs in the Makefile.",
            "convention",
        ),
    ],
)
def test_explicit_statements(text, fact, category):
    cand = one(text)
    assert (cand.fact, cand.category) == (fact, category)


def test_evidence_is_the_sentence_and_files_are_cited():
    text = "Fix the test first.\nAlso: always use `src/config.py` for settings, e.g. via get()."
    cand = one(text)
    assert cand.evidence == "Also: always use `src/config.py` for settings, e.g. via get()."
    assert cand.files == ["src/config.py"]


def test_list_items_are_sentences_of_their_own():
    found = extract_rules(
        [prompt("Rules:\n- always use ./src/config.py\n- never hardcode secrets")]
    )
    assert [c.fact for c in found] == ["Always use ./src/config.py.", "Never hardcode secrets."]
    assert [c.evidence for c in found] == ["always use ./src/config.py", "never hardcode secrets"]
    assert found[0].files == ["src/config.py"]


def test_confidence_follows_pattern_strength():
    explicit = one("Remember that releases are cut from the release branch.")
    weak = one("Make sure to restart the dev server.")
    assert explicit.confidence > weak.confidence


@pytest.mark.parametrize(
    "text",
    [
        "Should we always use pnpm?",
        "should we always use pnpm",
        "Do we never retry on 500?",
        "Why do we use tabs here?",
        "We use pnpm, right?",
        "If we always retry, the worker may loop.",
        "I think we always use tabs.",
        "Maybe we should always rebase.",
        "Never mind, let's do it differently.",
        "Can you remember that?",
        "Remember that.",
        "we use it to parse stuff",
        "Fix the bug in app.py please.",
        "I never said that.",
        "It always fails on CI.",
        "Is node.js deprecated?",
        "```\nalways use tabs\n# TODO: later\n```",
        "~~~\nnever do this\n~~~",
        "> always fail on warnings\n> never use eval",
        "    always indented code",
        "Traceback (most recent call last):\nERROR: never gonna work\nE   always failing",
        "$ echo always use this\nFAILED tests/test_x.py::test_a - always broken",
        "2024-05-01 12:00:01 WARNING never retry",
    ],
)
def test_no_false_positives(text):
    assert extract_rules([prompt(text)]) == []


def test_only_user_prompts_count():
    turns = [
        Turn("assistant", "prose", "Remember that we always use tabs.", 1, 0),
        Turn("user", "tool_error", "Error: never use eval", 2, 10),
        Turn("assistant", "tool_call", "Bash: echo always", 3, 20),
        Turn("user", "prompt", "We use uv for installs.", 4, 30),
    ]
    assert [c.fact for c in extract_rules(turns)] == ["The project uses uv for installs."]


def test_repeats_across_prompts_yield_one_candidate():
    turns = [
        prompt("Always run ruff before committing."),
        prompt("always run ruff before committing!"),
    ]
    assert len(extract_rules(turns)) == 1


def test_code_fence_text_after_the_fence_is_prose_again():
    text = "```\nalways x\n```\nNever push on Fridays."
    assert [c.fact for c in extract_rules([prompt(text)])] == ["Never push on Fridays."]


def test_files_in():
    found = files_in(
        "see node.js and src/app.py, ./tests/x.py, http://a.b/c.py, read/write, pyproject.toml,"
        " .env, Makefile, /etc/hosts and `docs/guide.md`."
    )
    assert found == [
        "src/app.py",
        "tests/x.py",
        "pyproject.toml",
        ".env",
        "Makefile",
        "docs/guide.md",
    ]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "always ",
                "never ",
                "Remember that ",
                "we use ",
                "don't use x, use y",
                "TODO: ",
                "?",
                ". ",
                "\n",
                "```",
                "> ",
                "    ",
                "- ",
                "src/app.py",
                "e.g. ",
                "make sure to ",
                "it",
                "the port is 8080",
                "\u2019",
                "!",
            ]
        ),
        max_size=25,
    ).map("".join)
)
def test_property_evidence_always_verbatim(text):
    for cand in extract_rules([prompt(text)]):
        assert cand.evidence and cand.evidence in text
        assert cand.fact.endswith(".") and cand.category in CATEGORIES
        assert 0.6 <= cand.confidence <= 0.9


def test_the_speaker_given_is_the_person() -> None:
    """The rules read only the person's prompts: a candidate must say the user said it
    (the demo showed "(the model said assistant)" beside a user's quote)."""
    turns = [Turn("user", "prompt", "Remember that we deploy with make ship.", 1, 0)]
    (cand,) = extract_rules(turns)
    assert cand.source == "user"
