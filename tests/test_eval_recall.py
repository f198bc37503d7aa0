"""The recall section's closing lines judge the held-out half against issue 23's goal."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/ beside the package

from bench.eval.sections import recall as section


def part(n: int, r5: int, rr: float, ms: float) -> dict[str, object]:
    return {"questions": n, "_r5": r5, "_rr": rr, "_times": [ms / 1000] * n}


def test_the_goal_is_judged_on_the_held_out_half_only() -> None:
    rows = section._closing({
        ("mem-review", "tune"): [part(10, 10, 10.0, 1.0)],
        ("mem-review", "heldout"): [part(10, 7, 6.0, 5.0)],
        ("with the semantic extra", "tune"): [part(10, 5, 3.0, 50.0)],
        ("with the semantic extra", "heldout"): [part(50, 49, 47.0, 9.0)],
    }, 10_106)
    lexical, semantic = rows
    assert lexical.label == "goal at 10,106 facts, lexical (default install)"
    assert "heldout r@5 70% MRR 0.60 p95 5.0 ms" in lexical.note
    assert lexical.note.endswith("not met")
    assert semantic.note.endswith(" met") and "not met" not in semantic.note


def test_without_a_held_out_half_nothing_is_claimed() -> None:
    [row] = section._closing({("mem-review", "tune"): [part(4, 4, 4.0, 1.0)]}, 1_034)
    assert row.note.endswith("not measured: no held-out half here")


def test_the_missed_questions_are_listed_per_variant_and_half() -> None:
    rows = section._misses({
        ("mem-review", "heldout"): [{**part(3, 1, 1.0, 1.0), "_misses": ["q2", "q3"]},
                                    {**part(2, 2, 2.0, 1.0), "_misses": []}],
        ("with the semantic extra", "tune"): [{**part(2, 2, 2.0, 1.0), "_misses": []}],
    }, 10_106)
    assert [(r.label, r.note) for r in rows] == [
        ("misses at 10,106 facts, heldout", "q2, q3"),
        ("misses at 10,106 facts, tune (with the semantic extra)", "none"),
    ]


def test_a_question_set_is_split_by_id_parity_on_request(monkeypatch) -> None:
    """MEM_REVIEW_RECALL_SPLIT=parity: a fixed rule decided before reading any question
    (even ids tune, odd ids held out), in place of the halves the set's author wrote."""
    qs = [{"id": "r4q002", "half": "heldout"}, {"id": "r4q007", "half": "tune"},
          {"id": "x", "half": "tune"}]
    monkeypatch.delenv("MEM_REVIEW_RECALL_SPLIT", raising=False)
    assert [section.half_of(q) for q in qs] == ["heldout", "tune", "tune"]
    monkeypatch.setenv("MEM_REVIEW_RECALL_SPLIT", "parity")
    assert [section.half_of(q) for q in qs] == ["tune", "heldout", "tune"]
