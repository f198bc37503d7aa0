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


def test_a_line_that_may_hold_a_credential_is_never_spared(tmp_path: Path) -> None:
    """What is spared must not be a new way out for a secret no rule knows (the secrets
    battery: a Wi-Fi psk, a wallet key in a config, a token in a URL, a plist's value
    whose name is on the line before) nor feed the redactor a word to remember
    ("password" in a form's echo): an output that names a credential spares nothing, a
    line with a random-looking token or setting a key is left out."""
    output = "\n".join([
        "deploy finished in 12.5s", "psk=Wu9YU4fOlWYaF*01",
        'accounts: ["0x13beb72a626d7c08c8f14b3d0d58afef5402006a3388a5ee21c8eecfdf613fa3"]',
        "PUSHOVER_URL=pover://uqaaa8sp5nf4vmzde9fyx51nnhq6m8@agkiqyvnxw2lmkymw9hcsrj23e2",
        '{"user"=>{"email"=>"a@b.c", \\"password\\"=>\\"hunter2hunter2\\"}}',
        "request id ad8f42dc-e66c-4ac7-9883-6dd29214bdc0", "-----BEGIN OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
        "-----END OPENSSH PRIVATE KEY-----", "3 hosts updated"])
    turns, _, _ = read_turns(write_jsonl(tmp_path / "k.jsonl", [
        user("Deploy."), call("Bash", {"command": "./deploy.sh"}, "a", "m1"),
        result(output, "a"),
        call("Bash", {"command": "./report.sh"}, "b", "m2"),
        result("\n".join(["deploy finished in 12.5s", "psk=Wu9YU4fOlWYaF*01",
                          "token: abcd1234", "3 hosts updated", "12 files synced",
                          "cache warmed", "2 services restarted", "done"]), "b"),
        call("Bash", {"command": "./sync.sh"}, "c", "m3"),
        result("\n".join(["3 hosts updated", "12 files synced",
                          "request id ad8f42dc-e66c-4ac7-9883-6dd29214bdc0",
                          "session_key=Zx81Aq", "cache warmed", "2 services restarted",
                          "queue drained", "all green"]), "c"),
    ]))
    spared = "\n".join(t.text for t in turns if t.tool == SPARE)
    assert "-----BEGIN" not in spared and "b3BlbnNzaC1rZXkt" not in spared  # a key: none
    assert "3 hosts updated" in spared and "12 files synced" in spared
    for secret in ("Wu9YU4fOlWYaF", "0x13beb72a", "uqaaa8sp5nf4", "hunter2", "ad8f42dc",
                   "abcd1234", "Zx81Aq"):
        assert secret not in spared
