"""`make eval`'s probe of the verifier on any text (issue 21): a true candidate's fact
changed one way at a time, the quote kept; counted per half, missed items shown only for
the tune half."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/ beside the package

from bench.eval.sections import mutations


def _line(role: str, content: str) -> str:
    return json.dumps({"type": role, "message": {"role": role, "content": content}}) + "\n"


def test_each_change_is_made_only_where_it_applies() -> None:
    quote = "The cache holds 40 MB in `cache_dir` and is flushed every 30s"
    got = dict(mutations.mutations("The cache holds 40 MB in `cache_dir`.", quote, "assistant",
                                   lambda x: ["spool_dir"]))
    assert got["number"] == "The cache holds 47 MB in `cache_dir`."
    assert got["unit"] == "The cache holds 40 GB in `cache_dir`."
    assert got["name"] == "The cache holds 40 MB in `cache_dix`."
    assert got["swap"] == "The cache holds 40 MB in `spool_dir`."
    assert "negation" not in got  # no verb "not" can go after
    assert got["speaker"].startswith("The user decided that the cache holds")


def test_the_held_out_half_shows_counts_only(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_REVIEW_HELDOUT_DIR", str(tmp_path))
    monkeypatch.delenv("MEM_REVIEW_HELDOUT_SHOW", raising=False)
    for half in ("tune", "heldout"):
        d = tmp_path / half
        d.mkdir()
        (d / "s.jsonl").write_text(
            _line("user", "How big is the build cache?")
            + _line("assistant", "The build cache is 512 MB on the runner."))
        (d / "s.jsonl.labels.json").write_text(json.dumps({
            "half": half, "facts": [], "candidates": [
                {"fact": "The build cache is 512 MB.", "label": "true",
                 "evidence": "The build cache is 512 MB on the runner"}]}))
    rows = {r.label: r for r in mutations.run()}
    for half in ("tune", "heldout"):
        v = rows[f"{half} half"].values
        assert v["number"] == "1/1" and v["unit"] == "1/1" and v["negation"] == "1/1"
    assert rows["heldout half"].note == ""


def test_absent_dir_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_REVIEW_HELDOUT_DIR", str(tmp_path / "nowhere"))
    (row,) = mutations.run()
    assert row.label == "skipped"


def test_the_quotes_context_is_changed_around_it() -> None:
    from records import convo

    turns = convo(("user", "How big is the cache?"),
                  ("assistant", "Measured: the build cache holds 512 MB on the runner."))
    got = dict(mutations.contexts(turns, 1, "the build cache holds 512 MB"))
    assert got["hedge"][1].text.endswith("I think the build cache holds 512 MB on the runner.")
    assert "It is not true that the build" in got["denied"][1].text
    reply = got["answered"][2]
    assert (reply.kind, reply.text) == ("prompt", "No, that's wrong: check build and cache "
                                                  "again.")
    assert len(got["answered"]) == 3 and got["answered"][1] is turns[1]


def test_a_misquote_puts_a_session_word_for_a_word_of_the_quote() -> None:
    quote = "the runner restores the dependency cache before building"
    changed = mutations.misquote(quote, ["artifact", "dependence", "depends"])
    assert changed != quote and changed.count(" ") == quote.count(" ")
    assert "artifact" in changed and "dependency" not in changed  # not a form of it
    assert mutations.misquote("no long words here", ["artifact"]) == ""
