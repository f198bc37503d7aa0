"""A person-made value bound to its sentence by place, in any language (issue 20,
``reviewer/sanitize/bound.py``). The sentences are in a language made up for this test,
so no keyword list can know its words: what finds the value is its shape (words and a
year and a sign, capitalised words and digits, words joined and a number) and its place
(after a word, a colon, a dash, a quote; glued to another script; before the verb).
Prose about code, with the same kinds of tokens, stays."""

from __future__ import annotations

import random

import pytest

from reviewer.sanitize import bound
from reviewer.sanitize.detect import redact

RNG = random.Random(2026)
_WORDS = ("amber", "canyon", "falcon", "glacier", "harbor", "juniper", "meadow", "quarry",
          "ravine", "thistle", "walrus", "zephyr")


def _made() -> list[str]:
    """One value of each person-made shape, fresh words each run."""
    a, b = RNG.sample(_WORDS, 2)
    year = RNG.choice(("1987", "2019", "2024", "77", "1136"))
    sign = RNG.choice("!#%&*$@")
    return [f"{a}{year}{sign}", f"{a.capitalize()}{b.capitalize()}{year[-2:]}",
            f"{a}_{b}_{year}", f"{a.capitalize()}{sign}{b}{year}"]


# A made-up language: none of these words is a word for a password anywhere.
SENTENCES = [
    "Vrenna dosk ul mirath {v} sen, nu pela.",
    "Zorvik plenta ambra: {v}",
    "Ka trel'u vossa {v} ippa?",
    "Melo quand dravi — {v} — tuk nessa.",
    "Brann ossik velt «{v}» ammar.",
    "Ulla pim rekka {v} hosso dren.",
    "密钥库的口令是{v}，别告诉别人。",
    "{v}をノールのキーにしてください",
]


# A name of words first in its sentence (shapes 1 and 2) is read as its subject, not a
# value: that pair is left out, a known limit rather than a skipped test.
CASES = [(s, shape) for s in SENTENCES for shape in range(4)
         if not (s.startswith("{v}") and shape in (1, 2))]


@pytest.mark.parametrize(("sentence", "shape"), CASES)
def test_a_person_made_value_is_hidden_in_any_language(sentence: str, shape: int) -> None:
    v = _made()[shape]
    out = redact(sentence.format(v=v))
    assert v not in out, out
    assert "[REDACTED:" in out


@pytest.mark.parametrize("text", [
    "upgrade to python3.11 and node18 first, then rerun the suite",
    "see CVE-2024-3094 for the details of that backdoor",
    "the file is config_v2.yaml, open it and check the port",
    "we renamed TestCase12 to TestCaseTwelve in the fixtures",
    "ticket JIRA-1234 is done, close it please",
    "the job ran at 10:30 on 2026-12-04 and took 45s",
    "pin poetry-core#826 until the fix lands upstream",
    "it runs on x86_64 and arm64, built with gcc12",
    "kubectl port-forward zeppelin-controller-abc123 8080:8080 &",
    "the peak is around a degree of 6, but even a degree-20 model is not overfitting",
    "call `anchor_canyon_1136` from the test, it returns a list",
    "FROM golang:1.23@sha256:60deed95d3888cc5e4d9ff8a10c54e5edc008c6ae3fba6187be6fb592e19e8c0",
])
def test_prose_about_code_stays(text: str) -> None:
    assert list(bound.find_bound_values(text, text.lower())) == []


def test_the_value_is_found_alone_by_its_place() -> None:
    """The finder by itself, without any keyword layer: the span is the value."""
    text = "Ossa mirren dravik tol GlacierCanyon12, pela nu."
    spans = list(bound.find_bound_values(text, text.lower()))
    assert [text[s:e] for s, e, _ in spans] == ["GlacierCanyon12"]


def test_a_list_of_values_is_not_a_sentence() -> None:
    """Tokens among tokens (a log line, a table of ids) are not a value a person gave."""
    text = "ok id=77 node=amber_quarry_2024 ts=1764790021 user=svc_backup07 q=3"
    assert list(bound.find_bound_values(text, text.lower())) == []
