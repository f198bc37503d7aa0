"""What a failure carries past its key lines (issue 21): the lines of it the next answer
draws on (a word the answer stresses counting once more), without a banner every call
prints; and lines an answer drew on stay while their call stays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from records import assistant, call, result, t, user, write_jsonl

from capture.condense import render
from capture.fit import fit
from capture.results import QUOTED_PREFIX, quoted_lines
from capture.transcript import read_turns

BANNER = ("** WARNING: connection is not using a post-quantum key exchange algorithm.\n"
          "** This session may be vulnerable to \"store now, decrypt later\" attacks.\n")
OPKG = BANNER + """Collected errors:
 * print_dependents_warning: Package gl-sdk4-modem is depended upon by packages:
 * print_dependents_warning: \tgl-sdk4-ui-sms
 * print_dependents_warning: These might cease to work if package gl-sdk4-modem is removed.
 * print_dependents_warning: Force removal of this package with --force-depends.
 * print_dependents_warning: Package kmod-gl-sdk4-kmwan is depended upon by packages:
 * print_dependents_warning: \tgl-sdk4-system
 * print_dependents_warning: These might cease to work if package kmod-gl-sdk4-kmwan is removed.
Removing package gl-sdk4-carrier-monitor from root...
Command failed: ubus call service delete { "name": "carrier-monitor" } (Not found)
Command failed: ubus call service delete { "name": "smstools3" } (Not found)
Removing package gl-sdk4-sms-forward from root...
Removing package gl-sdk4-tethering from root...
Removing package smstools3 from root..."""
ANSWER = """Removed: gl-sdk4-carrier-monitor, gl-sdk4-modem, gl-sdk4-sms-forward,
gl-sdk4-tethering, smstools3.

Remaining: **kmod-gl-sdk4-kmwan**, a kernel module gl-sdk4-system depends on."""


def say(text: str, msg: str) -> dict[str, Any]:
    return assistant([{"type": "text", "text": text}], msg)


def _sent(tmp_path: Path, records: list[dict[str, Any]]) -> str:
    return render(read_turns(write_jsonl(tmp_path / "s.jsonl", records))[0])


def test_the_lines_of_a_failure_the_answer_draws_on_are_sent(tmp_path: Path) -> None:
    sent = _sent(tmp_path, [
        user("Uninstall the cellular packages."),
        call("Bash", {"command": 'ssh root@r "opkg remove gl-sdk4-modem kmod-gl-sdk4-kmwan"'},
             "a", "m1"),
        result("Exit code 255\n" + OPKG, "a", error=True),
        call("Bash", {"command": 'ssh root@r "opkg list-installed | grep kmwan"'}, "b", "m2"),
        result("kmod-gl-sdk4-kmwan - 5.4.213", "b"),
        say(ANSWER, "m3"),
    ])
    assert f"{QUOTED_PREFIX}* print_dependents_warning: Package kmod-gl-sdk4-kmwan is " \
        "depended upon by packages:" in sent
    # A line the failure's key lines already show is not quoted again.
    assert sent.count("Package gl-sdk4-modem is depended upon") == 1


def test_a_word_the_answer_stresses_weighs_more() -> None:
    body = "alpha-service-one failed: port_in_use 8080\nbeta-service-two failed: port_in_use 9090"
    plain = "Both alpha-service-one and beta-service-two hit port_in_use."
    assert quoted_lines(body, plain, most=1) == ["alpha-service-one failed: port_in_use 8080"]
    stressed = "Both alpha-service-one and **beta-service-two** hit port_in_use."
    assert quoted_lines(body, stressed, most=1) == ["beta-service-two failed: port_in_use 9090"]


def test_a_banner_every_call_prints_is_not_a_failures_headline(tmp_path: Path) -> None:
    sent = _sent(tmp_path, [
        user("Check the router."),
        call("Bash", {"command": 'ssh root@r "uname -a"'}, "a", "m1"),
        result("Linux GL-BE3600 5.4.213 aarch64\n" + BANNER, "a"),
        call("Bash", {"command": 'ssh root@r "opkg list-installed | grep good"'}, "b", "m2"),
        result("Exit code 1\n" + BANNER, "b", error=True),
        call("Bash", {"command": 'ssh root@r "ls /etc/init.d/gl-cloud"'}, "c", "m3"),
        result("Exit code 1\n" + BANNER + "ls: /etc/init.d/gl-cloud: No such file or directory",
               "c", error=True),
    ])
    assert sent.count("post-quantum") == 1  # under the first call that printed it
    assert "! Bash failed: Exit code 1\n" in sent
    assert "! Bash failed: Exit code 1 · ls: /etc/init.d/gl-cloud: No such file or directory" \
        in sent


def test_a_failure_naming_an_error_again_is_sent_again(tmp_path: Path) -> None:
    fail = "Exit code 1\nFAILED tests/test_x.py::test_y - AssertionError: 2 != 3"
    sent = _sent(tmp_path, [
        user("Fix the test."),
        call("Bash", {"command": "pytest -x"}, "a", "m1"), result(fail, "a", error=True),
        call("Bash", {"command": "pytest -x -q"}, "b", "m2"), result(fail, "b", error=True),
    ])
    assert sent.count("AssertionError: 2 != 3") == 2


def test_lines_an_answer_drew_on_stay_while_calls_stay() -> None:
    """Under pressure the bodies written go first; a result's quoted lines are evidence,
    cut with the calls and the prose, not before them."""
    quoted = QUOTED_PREFIX + "Not deleting modified conffile /etc/config/openvpn."
    turns = [t("prompt", "Remove openvpn."),
             t("tool_call", 'Bash: ssh r "opkg remove openvpn-openssl"', "Bash"),
             t("detail", quoted, "Bash"),
             t("tool_call", "Write notes.md", "Write"), t("detail", "note line\n" * 60, "Write"),
             t("prose", "The conffile stays behind: removing it by hand. " * 8)]
    out = fit(turns, len(render(turns).encode()) - 1000)  # more than the body written
    assert quoted in [x.text for x in out]
    assert "note line\nnote line" not in render(out)
    assert 'Bash: ssh r "opkg remove openvpn-openssl"' in render(out)
