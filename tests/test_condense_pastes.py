"""A scanner's report pasted into a prompt (issue 21: 40 gitleaks findings, 13 kB, took
half a session's budget whole): it is program output, so it shrinks when prompts take
over half the budget, keeping its opening, each rule, file and fingerprint once, and its
end. And a script read without an extension (a git hook) says what it is for."""

from __future__ import annotations

from pathlib import Path

from records import call, result, t, user, write_jsonl

from capture.condense import render
from capture.fit import _machine_text, fit
from capture.transcript import read_turns


def _finding(i: int, rule: str, path: str) -> str:
    return (f"Finding:     ...{i:08X}C137AD0DFFFB54CE{i:04d}...\nSecret:      REDACTED\n"
            f"RuleID:      {rule}\nEntropy:     3.{i:06d}\nFile:        {path}\n"
            f"Line:        {i}\nFingerprint: {path}:{rule}:{i}\n")


def test_a_pasted_scanner_report_shrinks_to_each_kind_once() -> None:
    paste = ("GitHub Desktop commit error:\n\n"
             + "\n".join(_finding(i, "twilio-account-sid", "Docs/Scan.json") for i in range(40))
             + _finding(654, "hardcoded-ip", "Docs/SEC.md")
             + "\n❌ Secrets detected! Commit blocked.\n"
             + "What to do: review the findings. " * 20)
    assert _machine_text(paste)
    turns = [t("prompt", paste), t("prose", "The ignore file takes fingerprints, not paths. " * 30)]
    out = render(fit(turns, 6000))
    assert "GitHub Desktop commit error:" in out
    for said in ("RuleID:      twilio-account-sid", "RuleID:      hardcoded-ip",
                 "Fingerprint: Docs/SEC.md:hardcoded-ip:654",
                 "❌ Secrets detected! Commit blocked."):
        assert said in out
    assert out.count("Entropy:") <= 6  # of 41: the opening's, the middle's first 3, the end's
    assert "fingerprints, not paths" in out  # the answer keeps room to be heard


def test_a_hook_without_an_extension_is_read_as_a_script(tmp_path: Path) -> None:
    hook = ("#!/bin/sh\n# Pre-commit hook\n# Syncs the CLI conversations into journals before "
            "each commit\n\npython3 sync.py\n")
    path = write_jsonl(tmp_path / "h.jsonl", [
        user("What does the hook do?"),
        call("Read", {"file_path": "/r/hooks/pre-commit"}, "a", "m1"), result(hook, "a"),
    ])
    sent = render(read_turns(path)[0])
    assert "pre-commit opens with:" in sent
    assert "# Syncs the CLI conversations into journals before each commit" in sent
