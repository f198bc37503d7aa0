"""capture.pipeline.redacted_windows: one pass of the detector when it changes nothing,
the two passes otherwise; the windows are those of the two passes either way."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from records import t
from secret_corpus import ORDINARY, all_planted_texts
from shared import need_transcripts, real_sessions

from capture import pipeline
from capture.condense import split_windows
from capture.fit import budget_for, fit
from capture.pipeline import redact_turns, redacted_windows, untouched_windows
from capture.transcript import Turn, read_turns
from reviewer.config import Config
from reviewer.sanitize.detect import collecting, redact
from reviewer.sanitize.visible import has_invisible
from reviewer.sanitize.visible import strip as strip_invisible


def two_passes(turns: list[Turn], budget: int | None, size: int) -> tuple[list[str], list[str]]:
    """What `_prepare` did before the one-pass path: every turn, then every window."""
    red = redact_turns(turns)
    return [x.text for x in red], [redact(w) for w in split_windows(fit(red, budget), size)]


def both(turns: list[Turn], budget: int | None, size: int) -> bool:
    """The windows (and turns) are those of the two passes; True if one pass made them."""
    got_turns, got_windows = redacted_windows(turns, budget, size)
    assert ([x.text for x in got_turns], got_windows) == two_passes(turns, budget, size)
    return got_turns is turns


@pytest.mark.parametrize("path", real_sessions(), ids=lambda p: p.name)
def test_every_real_session_sends_what_two_passes_send(path: Path) -> None:
    need_transcripts()
    read, stats, _ = read_turns(str(path), 0)
    turns = [dataclasses.replace(x, text=strip_invisible(x.text)) if has_invisible(x.text)
             else x for x in read]
    budget = budget_for(stats.bytes_read, Config().send_ratio)
    for size in (Config().window_chars, 3000):
        both(turns, budget, size)


def test_the_big_session_takes_one_pass() -> None:
    """The 3 MB session of the bench has no secret: its windows are checked once."""
    root = need_transcripts()
    path = root / "spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    read, stats, _ = read_turns(str(path), 0)
    budget = budget_for(stats.bytes_read, Config().send_ratio)
    clean: set[str] = set()
    assert untouched_windows(read, budget, Config().window_chars, clean) is not None
    assert clean


plain = [t("prompt", "Run the tests."), t("tool_call", "Bash: pytest -x", "Bash"),
         t("prose", "All green: 12 passed.")] + [t("prose", o) for o in ORDINARY]


def test_planted_secrets_take_two_passes_and_are_sent_redacted() -> None:
    """A third of the corpus's planted secrets (each context), among ordinary turns."""
    around = plain[:9]
    for n, (_, context, text) in enumerate(all_planted_texts()[::3]):
        at = n % (len(around) + 1)
        turns = [*around[:at], t("prompt" if context == "prompt" else "prose", text),
                 *around[at:]]
        assert not both(turns, None, 120_000) or redact(text) == text, context
        if n % 10 == 0:
            both(turns, budget_for(30_000, 25), 600)
    assert both(plain, None, 120_000)


def test_what_only_adjacent_turns_show_is_redacted() -> None:
    """Each turn alone is clean; their window is not: the window's own pass redacts it."""
    turns = [*plain[:3], t("prompt", "Name: DB_PASSWORD"), t("prompt", "Value: hunter2!x")]
    assert all(redact(x.text) == x.text for x in turns)
    assert untouched_windows(turns, None, 120_000, set()) is None
    _, windows = redacted_windows(turns, None, 120_000)
    assert "hunter2!x" not in windows[0] and "[REDACTED:" in windows[0]
    both(turns, None, 120_000)


def test_a_cut_turn_or_a_jobs_memory_takes_two_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A turn cut to fit a window is checked whole by the turns' pass; under a job's
    memory a value found in a later turn is redacted in earlier windows too."""
    long = [t("prompt", "a" * 5000 + " ok"), *plain]
    assert untouched_windows(long, None, 1000, set()) is None
    both(long, None, 1000)
    calls: list[int] = []
    monkeypatch.setattr(pipeline, "fit", lambda ts, b: calls.append(1) or fit(ts, b))
    with collecting():
        assert untouched_windows(plain, None, 120_000, set()) is None
    assert not calls  # nothing speculated under memory


def test_a_turn_fitting_shortens_is_checked_whole() -> None:
    """A secret in the part of a turn that fitting elides is never in a window, yet the
    turn is redacted (its redacted text is what grounding reads): the turns' pass runs.
    Without a secret, the shortened session takes one pass."""
    words = " ".join(f"word{i}" for i in range(6000))
    secret = all_planted_texts()[0][2]
    budget = budget_for(30_000, 25)
    turns = [t("prompt", "Explain the setup."), t("prose", f"{words}\n{secret}\n{words}"),
             t("prompt", "Thanks.")]
    assert fit(turns, budget)[1] is not turns[1]  # shortened
    assert not both(turns, budget, 120_000)
    got, _ = redacted_windows(turns, budget, 120_000)
    assert "[REDACTED:" in got[1].text and redact(secret) != secret
    clean = [turns[0], t("prose", f"{words}\n{words}"), turns[2]]
    assert fit(clean, budget)[1] is not clean[1]
    assert both(clean, budget, 120_000)
