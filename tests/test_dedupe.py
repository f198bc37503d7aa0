"""Dedupe: seen again, suppressed or new, fast against a large store."""

from __future__ import annotations

import random
import string
import time

import pytest

from reviewer.store.dedupe import Decision, FactIndex, classify, fact_key, near_duplicate


def test_fact_key():
    assert fact_key("  The project uses `pnpm`!  ") == fact_key("project uses pnpm")
    assert fact_key("Don't use requests \u2014 use httpx2.") == "dont use requests use httpx2"
    assert fact_key("Python 3.11 is required") != fact_key("Python 3.12 is required")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The project uses pnpm.", "the project uses PNPM"),
        ("We use pnpm.", "The project uses pnpm."),
        ("Always run ruff before committing.", "Always run ruff before commits"),
        ("Tests are run with pytest -x.", "Tests run with `pytest -x`"),
        (
            "Set the colour of the header in theme.tcss to match the brand guide on every page",
            "Set the color of the header in theme.tcss to match the brand guide on every page",
        ),
    ],
)
def test_near_duplicates(a, b):
    assert near_duplicate(a, b) and near_duplicate(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Always run ruff before committing.", "Never run ruff before committing."),
        ("Don't use requests.", "Use requests."),
        ("The API listens on port 8080.", "The API listens on port 8081."),
        ("Python 3.11 is required.", "Python 3.12 is required."),
        ("Use httpx for HTTP calls in the worker.", "Use requests for HTTP calls in the worker."),
        ("Run install before the tests.", "Run uninstall before the tests."),
        ("Use pnpm.", "Use pnpm in the worker and the hooks."),
        ("Use sync clients in the worker.", "Use async clients in the worker."),
        (
            "The worker retries transient errors three times with exponential backoff and jitter "
            "before giving up on the job for the day",
            "The worker retries transient errors three times with exponential backoff and logging "
            "before giving up on the job for the day",
        ),
    ],
)
def test_not_duplicates(a, b):
    assert not near_duplicate(a, b) and not near_duplicate(b, a)


EXISTING = [
    (1, "The project uses pnpm.", "approved"),
    (2, "Migrations live in db/migrations.", "pending"),
    (3, "Tabs are used for indentation.", "rejected"),
    (4, "Deploys go through Heroku.", "rejected"),
    (5, "Deploys go through Heroku.", "approved"),
    (6, "The cache directory is .cache/.", "pending"),
    (7, "The cache directory is .cache/.", "approved"),
]


@pytest.mark.parametrize(
    ("text", "decision"),
    [
        ("the project uses PNPM!", Decision("seen_again", 1)),
        ("We use pnpm.", Decision("seen_again", 1)),
        ("Migration lives in db/migrations", Decision("seen_again", 2)),
        ("Tabs are used for indentation", Decision("suppressed", 3)),
        ("Deploys go through Heroku.", Decision("seen_again", 5)),  # approved wins
        ("The cache directory is .cache/", Decision("seen_again", 7)),  # approved over pending
        ("Tabs are always used for indentation.", Decision("new")),  # near a rejected one
        ("Spaces are used for indentation.", Decision("new")),
        ("Completely unrelated statement.", Decision("new")),
    ],
)
def test_classify(text, decision):
    assert classify(text, EXISTING) == decision


def test_classify_empty_store():
    assert classify("Anything.", []) == Decision("new")


def test_index_add_sees_rows_of_the_same_batch():
    index = FactIndex.build([])
    assert index.classify("Use uv for installs.") == Decision("new")
    index.add(10, "Use uv for installs.", "pending")
    assert index.classify("use UV for installs") == Decision("seen_again", 10)


def _store(n: int, seed: int = 3) -> list[tuple[int, str, str]]:
    rng = random.Random(seed)
    vocab = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 9))) for _ in range(4000)]
    common = ["use", "run", "project", "file", "test", "config", "worker", "always"]
    rows = []
    for i in range(n):
        words = rng.choices(common, k=3) + rng.choices(vocab, k=rng.randint(3, 12))
        rows.append((i, " ".join(words).capitalize() + ".", rng.choice(["pending", "approved"])))
    return rows


def test_ten_thousand_existing_facts():
    rows = _store(10_000)
    rows.append((10_000, "The staging database listens on port 5433.", "rejected"))
    start = time.perf_counter()
    assert classify(rows[4321][1].upper(), rows) == Decision("seen_again", 4321)
    assert classify("the staging database listens on port 5433", rows).kind == "suppressed"
    for i in range(200):
        assert classify(f"A brand new statement number {i}.", rows) == Decision("new")
        assert classify(rows[i][1] + "!", rows) == Decision("seen_again", i)
    elapsed = time.perf_counter() - start
    # A sanity bound, far above the ~1 s this takes; a scan with difflib would take minutes.
    assert elapsed < 30


def test_rows_given_as_lists():
    rows = [[1, "The project uses pnpm.", "approved"]]
    assert classify("We use pnpm.", rows) == Decision("seen_again", 1)  # type: ignore[arg-type]
