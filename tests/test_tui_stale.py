"""Folding staleness verdicts into the list, without a terminal."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from reviewer.tui import stale
from reviewer.tui.rows import FactRow


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "home"))


@dataclass
class V:  # the shape of reviewer.freshness.staleness.Verdict
    state: str
    stale: bool
    files: dict[str, str] = field(default_factory=dict)
    renamed_to: dict[str, str] = field(default_factory=dict)


def row(fid: int, **kw: object) -> FactRow:
    return FactRow(fid, str(kw.pop("status", "approved")), "convention", 0.8, f"fact {fid}",
                   files=["a.py"], anchors={"a.py": "s1"}, **kw)  # type: ignore[arg-type]


def test_verdicts_flag_rows_and_bump_their_version() -> None:
    a, b = row(1), row(2)
    probes = {1: stale.Probe(a), 2: stale.Probe(b)}
    verdicts = {1: V("changed", True, {"a.py": "changed"}), 2: V("fresh", False, {"a.py": "fresh"})}
    changed = stale.apply({1: a, 2: b}, (verdicts, probes))
    assert changed == [a, b]
    assert (a.stale, a.verdict, a.file_states, a.version) == (True, "changed",
                                                              {"a.py": "changed"}, 1)
    assert (b.stale, b.verdict) == (False, "fresh")
    assert stale.apply({1: a, 2: b}, (verdicts, probes)) == []  # same again: no repaint


def test_a_row_reanchored_during_the_scan_keeps_its_new_state() -> None:
    a = row(1)
    probes = {1: stale.Probe(a)}
    a.anchors = {"a.py": "s2"}  # re-verified while the scan ran
    a.verdict = "fresh"
    assert stale.apply({1: a}, ({1: V("changed", True)}, probes)) == []
    assert (a.stale, a.verdict) == (False, "fresh")


def test_renames_are_kept_for_the_follow_offer() -> None:
    a = row(1)
    found = ({1: V("moved", True, {"a.py": "moved"}, {"a.py": "b.py"})}, {1: stale.Probe(a)})
    stale.apply({1: a}, found)
    assert a.renamed == {"a.py": "b.py"}


def test_scan_skips_rejected_rows_and_reads_real_files(tmp_path: Path) -> None:
    pytest.importorskip("reviewer.freshness.staleness")
    from reviewer.freshness.anchors import blob_sha

    (tmp_path / "a.py").write_text("x = 1\n")
    fresh = FactRow(1, "approved", "c", 0.8, "t", files=["a.py"],
                    anchors={"a.py": blob_sha(tmp_path / "a.py")})
    gone = FactRow(2, "pending", "c", 0.8, "t", files=["a.py"], anchors={"a.py": "0" * 40})
    retired = FactRow(3, "rejected", "c", 0.8, "t", files=["a.py"], anchors={"a.py": "0" * 40})
    found = stale.scan(tmp_path / "home" / "store.db", str(tmp_path), [fresh, gone, retired])
    assert found is not None
    verdicts, probes = found
    assert set(probes) == {1, 2}
    assert (verdicts[1].stale, verdicts[2].stale) == (False, True)


def test_scan_without_the_module_is_none(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "reviewer.freshness.staleness", None)
    assert stale.scan(None, str(tmp_path), [row(1)]) is None


def test_scan_store_reads_anchors_from_the_store(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("reviewer.freshness.staleness")
    from test_tui_seed import F, make_env, seed

    from reviewer.store import db
    from reviewer.tui.rows import load_rows

    env = next(make_env(tmp_path, monkeypatch))
    ids = seed(env, [F("fresh", files=["pyproject.toml"]), F("edited", files=["src/api.py"]),
                     F("retired", status="rejected", files=["src/api.py"])])
    (env.project / "src" / "api.py").write_text("changed\n")
    conn = db.connect(env.db_path)
    found = stale.scan_store(conn, str(env.project))
    assert found is not None
    assert set(found[1]) == set(ids[:2])  # a rejected fact is not checked
    rows = {r.id: r for r in load_rows(conn, str(env.project))}
    stale.apply(rows, found)
    assert [i for i, r in rows.items() if r.stale] == [ids[1]]
    assert rows[ids[1]].stale and rows[ids[1]].file_states == {"src/api.py": "changed"}
    assert rows[ids[0]].verdict == "fresh" and not rows[ids[0]].file_states
