"""Commands run through a wrapper (`ssh host "…"`, `sh -c '…'`) are read as what they run
(issue 21: a session that administers a router ran every command through ssh; the file
its here-document wrote, and which calls only looked, were invisible)."""

from __future__ import annotations

from pathlib import Path

from records import assistant, call, result, user, write_jsonl

from capture.condense import render
from capture.fit import fit
from capture.noise import only_looks, read_only
from capture.transcript import read_turns
from reviewer.shell_words import inner_command, unwrapped


def test_inner_command_of_ssh_and_shells() -> None:
    assert inner_command('ssh -o ConnectTimeout=5 -p 22 root@r "opkg list-installed | grep vpn"') \
        == "opkg list-installed | grep vpn"
    assert inner_command("ssh r ls -la /tmp") == "ls -la /tmp"
    assert inner_command("sudo bash -c 'cat > /etc/x.conf <<EOF\nA=1\nEOF'") \
        == "cat > /etc/x.conf <<EOF\nA=1\nEOF"
    # Not a wrapper alone: a chain around it, no command, unbalanced quotes, another program.
    assert inner_command('ssh r "uptime" && echo ok') is None
    assert inner_command("sleep 3 && ssh r uptime") is None
    assert inner_command("ssh slate") is None
    assert inner_command('ssh r "unclosed') is None
    assert inner_command("python3 -c 'print(1)'") is None
    assert unwrapped("sudo sh -c \"ssh r 'free -m'\"") == "free -m"


def test_a_look_through_ssh_is_a_look_a_change_is_not() -> None:
    assert only_looks('ssh root@r "opkg list-installed | grep -i ovpn"')
    assert only_looks('ssh r "dmesg | tail -300"')
    assert only_looks('ssh r "free -m && echo --- && df -h && top -bn1 | head -20"')
    assert only_looks("ip -4 addr show dev eth0")
    assert not only_looks('ssh r "dmesg -n 7 && echo set"')  # sets the console level
    assert not only_looks('ssh r "uci set system.log_size=512 && uci commit"')
    assert not only_looks('ssh r "opkg remove gl-sdk4-modem"')
    assert not only_looks("ip route add 10.0.0.0/8 dev wg0")
    assert not only_looks('ssh r "cat > /root/x.sh"')
    # What the verifier calls a look is unchanged: only local reads.
    assert not read_only('ssh root@r "opkg list-installed"')


def test_a_remote_look_goes_but_what_it_printed_keeps_its_call(tmp_path: Path) -> None:
    """The call lines of remote looks are shed like local ones; one whose output is sent
    stays above it (else that output would read as the previous call's)."""
    records = [user("Why is the router slow?")]
    for i in range(12):
        records += [call("Bash", {"command": f'ssh root@r "logread | grep daemon{i} | tail -5"'},
                         f"l{i}", f"m{i}"), result("", f"l{i}")]
    records += [
        call("Bash", {"command": 'ssh root@r "opkg remove gl-sdk4-cloud"'}, "x", "mx"),
        result("Removing package gl-sdk4-cloud from root...", "x"),
        call("Bash", {"command": 'ssh root@r "cat /proc/16402/status | grep VmRSS"'}, "s", "ms"),
        result("VmRSS:   79580 kB", "s"),
        assistant([{"type": "text", "text": "RSS is 77.7 MB: the 145% in top is virtual."}], "mz"),
    ]
    turns, _, _ = read_turns(write_jsonl(tmp_path / "r.jsonl", records))
    out = render(fit(turns, len(render(turns).encode()) - 1))
    assert "logread | grep daemon3" not in out  # a look that printed nothing: gone
    assert 'opkg remove gl-sdk4-cloud"' in out  # a change stays
    # The status it printed stays, under its own call.
    assert 'grep VmRSS"\n    ┆ → VmRSS: 79580 kB' in out


def test_a_file_written_through_ssh_is_sent(tmp_path: Path) -> None:
    script = (
        'ssh root@r "cat > /root/check-vpn.sh << \'EOF\'\n#!/bin/sh\n'
        '# VPN health monitor: reloads the network when the handshake is stale\n'
        'INTERFACE=\\"wgclient1\\"\nMAX_HANDSHAKE_AGE=180  # 3 minutes\n'
        'HANDSHAKE=\\$(wg show \\$INTERFACE latest-handshakes | awk \'{print \\$2}\')\n'
        'EOF\nchmod +x /root/check-vpn.sh\n'
        "echo '*/5 * * * * /root/check-vpn.sh' >> /etc/crontabs/root\""
    )
    path = write_jsonl(tmp_path / "w.jsonl", [
        user("Add a VPN watchdog."),
        call("Bash", {"command": script}, "a", "m1"), result("", "a"),
    ])
    turns, _, _ = read_turns(path)
    sent = render(turns)
    assert "/root/check-vpn.sh:" in sent
    assert "MAX_HANDSHAKE_AGE=180  # 3 minutes" in sent  # the setting it wrote
    assert "HANDSHAKE=$(wg show $INTERFACE" in sent  # unquoted as the shell passes it
    assert "VPN health monitor" in sent  # what the script is for
    # The script's later commands are call lines of their own.
    assert "echo '*/5 * * * * /root/check-vpn.sh' >> /etc/crontabs/root" in sent
