"""The benchmark harness works: `bench/run.py --quick` prints the table and writes the JSON.

Not a timing test: budgets are judged by `make bench` on a quiet machine, not here. This
only proves the harness runs end to end (fixtures through the real `mem-review import`,
hooks as subprocesses, the TUI in a pty) and reports every row in both forms.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import FAIL, PASS, Result, Stat, interleave  # noqa: E402

ROWS = {
    "hook-end",
    "hook-start",
    "hook-start-shared",
    "tui-start",
    "tui-keys-j",
    "tui-keys-filter",
    "tui-memory",
    "staleness",
    "condense",
    "preview",
    "bytes",
    "cost",
    "mcp-recall",
    "mcp-start",
    "mcp-memory",
}
STATUSES = {"PASS", "FAIL", "MISSING", "ERROR", "INFO"}


def test_interleave_rotates_the_order_and_keeps_samples_apart() -> None:
    calls: list[str] = []

    def arm(name: str, value: float):
        def f() -> float:
            calls.append(name)
            return value

        return f

    a, b = interleave([arm("a", 1.0), arm("b", 2.0)], reps=4, warmup=1)
    assert a == [1.0] * 4 and b == [2.0] * 4
    assert calls[:2] == ["a", "b"]  # the warm-up
    pairs = [tuple(calls[i : i + 2]) for i in range(2, 10, 2)]
    assert ("a", "b") in pairs and ("b", "a") in pairs  # neither always goes first


def test_judge_applies_ratio_delta_and_max_budgets() -> None:
    fast = Result("x", "x", "", value=Stat([10, 12, 11]), baseline=Stat([5, 5, 6]), limit=2.5)
    assert fast.judge().status == PASS and fast.ratio == pytest.approx(2.2)
    slow = Result("x", "x", "", value=Stat([30, 31, 29]), baseline=Stat([10, 10, 10]), limit=2.5)
    assert slow.judge().status == FAIL
    mem = Result(
        "m", "m", "", kind="delta", value=Stat([100], "MB"), baseline=Stat([33], "MB"), limit=60
    )
    assert mem.judge().status == FAIL and mem.ratio == pytest.approx(67)
    cost = Result("c", "c", "", kind="max", value=Stat([0.013], "$"), limit=0.02)
    assert cost.judge().status == PASS


@pytest.mark.slow
def test_quick_run_prints_the_table_and_writes_the_json(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "home"))
    out = tmp_path / "latest.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=280,
        env=os.environ.copy(),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]

    doc = json.loads(out.read_text())
    meta = doc["meta"]
    assert meta["quick"] is True and meta["reps"] == 1
    assert meta["python"] == ".".join(map(str, sys.version_info[:3]))
    assert "commit" in meta and meta["date"]
    results = {r["key"]: r for r in doc["results"]}
    assert set(results) >= ROWS, sorted(ROWS - set(results))
    for key, r in results.items():
        assert r["status"] in STATUSES, (key, r["status"])
        assert not r["crashed"], (key, r["notes"])
        if r["status"] in (PASS, FAIL):
            assert r["value"] is not None and len(r["value"]["samples"]) >= 1, key
            assert r["ratio"] is not None, key

    # The table names every row with its verdict; the notes follow it.
    lines = proc.stdout.splitlines()
    assert "verdict" in lines[0] and "budget" in lines[0]
    for r in results.values():
        row = next((line for line in lines if line.startswith(r["title"] + "  ")), None)
        assert row is not None, r["title"]
        assert row.rstrip().endswith(r["status"]), row

    # --compare of a file with itself: every comparable row unchanged.
    cmp = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "run.py"),
            "--compare",
            str(out),
            "--against",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert cmp.returncode == 0, cmp.stderr
    compared = [line for line in cmp.stdout.splitlines() if "→" in line]
    judged = [r for r in results.values() if r["ratio"] is not None]
    assert len(compared) == len(judged)
    assert all("+0%" in line or "—" in line for line in compared), compared
