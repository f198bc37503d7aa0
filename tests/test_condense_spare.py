"""What a command printed beyond a status line (issue 21: a short session's script
reports and the lines its looks found were dropped while a third of its budget went
unused): sent in a short session's floor, shed first, and never in a long one."""

from __future__ import annotations

from pathlib import Path

from records import assistant, call, result, user, write_jsonl

from capture.condense import render
from capture.fit import MIN_BUDGET, fit
from capture.results import QUOTED_PREFIX
from capture.transcript import SPARE, read_turns

REPORT = "\n".join(["=== NEW vault 3bR3 ===", "total signatures: 149", "deposit ixs: 49",
                    "settle_vault txs:   0", "record_audit txs:   0", "failed txs: 0",
                    "=== TOTAL ===", "deposit calls: 178", "settle_vault txs: 5"])
GREP = ('scripts/demo/common.js:396:  console.log("Set DEMO_CONFIRM=1 to send devnet '
        'transactions.");\nscripts/demo/common.js:71:  loadEnvFile(".env.devnet.local")')


def _records(filler: int) -> list:  # type: ignore[type-arg]
    return [
        user("How many demos ran?"),
        call("Bash", {"command": "node /tmp/count.mjs"}, "a", "m1"), result(REPORT, "a"),
        call("Bash", {"command": "grep -n confirm scripts/demo/common.js"}, "b", "m2"),
        result(GREP, "b"),
        assistant([{"type": "text", "text": "178 deposits. " + "Details follow. " * filler}],
                  "m3"),
    ]


def test_a_short_sessions_outputs_are_sent_in_its_floor(tmp_path: Path) -> None:
    turns, _, _ = read_turns(write_jsonl(tmp_path / "s.jsonl", _records(10)))
    sent = render(fit(turns, MIN_BUDGET))
    assert f"{QUOTED_PREFIX}settle_vault txs: 0\n" in sent  # the script's report
    assert 'console.log("Set DEMO_CONFIRM=1 to send devnet transactions.");' in sent  # a look's


def test_outputs_go_first_and_never_past_the_floor(tmp_path: Path) -> None:
    turns, _, _ = read_turns(write_jsonl(tmp_path / "s.jsonl", _records(10)))
    assert any(t.tool == SPARE for t in turns)
    size = len(render(turns).encode())
    out = fit(turns, size - 40)  # a little over: an output goes, every word stays
    assert [t.text for t in out if t.kind == "prose"] == [
        t.text for t in turns if t.kind == "prose"]
    # A long session (its text over the floor): none of them, whatever its budget.
    long_turns, _, _ = read_turns(write_jsonl(tmp_path / "l.jsonl", _records(2000)))
    assert len(render(long_turns).encode()) > MIN_BUDGET
    assert not any(t.tool == SPARE for t in fit(long_turns, 10 * MIN_BUDGET))


def test_an_output_already_sent_or_a_dump_is_not_repeated(tmp_path: Path) -> None:
    dump = "\n".join(f"row {i}: value {i * 7}" for i in range(2000))
    turns, _, _ = read_turns(write_jsonl(tmp_path / "d.jsonl", [
        user("Dump it."),
        call("Bash", {"command": "python dump.py"}, "a", "m1"), result(dump, "a"),
        call("Bash", {"command": "uptime"}, "b", "m2"), result("up 3 days", "b"),
        call("Bash", {"command": "uptime; uptime"}, "c", "m3"),
        result("up 3 days\n" * 8, "c"),
    ]))
    assert not any(t.tool == SPARE for t in turns)
