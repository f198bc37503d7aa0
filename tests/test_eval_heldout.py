"""`make eval`'s held-out section (issue 21): sessions from outside the repository, read
from MEM_REVIEW_HELDOUT_DIR, figures per half; skipped with its reason when absent."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/ beside the package

from bench.eval.sections import heldout


def _line(role: str, content: str) -> str:
    return json.dumps({"type": role, "message": {"role": role, "content": content}}) + "\n"


def test_absent_dir_is_skipped_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEM_REVIEW_HELDOUT_DIR", str(tmp_path / "nowhere"))
    (row,) = heldout.run()
    assert row.label == "skipped" and "nowhere is absent" in row.note
    assert "MEM_REVIEW_HELDOUT_DIR" in row.note


def test_each_half_is_measured_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_REVIEW_HELDOUT_DIR", str(tmp_path))
    for half in ("tune", "heldout"):
        d = tmp_path / f"src-{half}"
        d.mkdir()
        (d / "s.jsonl").write_text(
            _line("user", "Remember that releases are tagged vX.Y.Z from main only.")
            + _line("assistant", "The deploy probably needs the staging key first.")
        )
        (d / "s.labels.json").write_text(json.dumps({
            "session": f"src-{half}/s.jsonl", "half": half,
            "facts": [{"id": "f1", "fact": "Releases are tagged from main.",
                       "carriers": ["releases are tagged vX.Y.Z from main only"],
                       "carrier_roles": ["user"]},
                      {"id": "f2", "fact": "Never said.", "carriers": ["not in it"],
                       "carrier_roles": ["user"]}],
            "candidates": [
                {"fact": "Releases are tagged vX.Y.Z from main only.", "label": "true",
                 "evidence": "releases are tagged vX.Y.Z from main only"},
                {"fact": "The deploy needs the staging key first.", "label": "misleading",
                 "why": "hedge-stated-as-fact",
                 "evidence": "The deploy probably needs the staging key first."},
            ],
        }))
    rows = {r.label: r for r in heldout.run()}
    for half in ("tune", "heldout"):
        r = rows[f"{half} half"]
        assert (r.values["facts"], r.values["carried"]) == (2, 1)
        assert (r.values["misleading"], r.values["flagged"]) == (1, 1)
        assert r.values["for its reason"].startswith("1 ")
        # a hedge is a suspicion: counted apart from what the checks know
        assert (r.values["known"], r.values["by hint"]) == (0, 1)
        assert r.values["wrongly flagged"].startswith("0 ")
        assert r.values["true hinted"] == "0 (0%)"  # a hint on a true one is counted
    assert "lost" in rows["tune half"].note  # which ones: the tune half only
    assert rows["heldout half"].note == ""
    # A held-out label's `why` beside its count names an item: the tune half's only.
    assert "tune by why" in rows and "heldout by why" not in rows
