"""The script a wrapper runs (issue 21): `ssh host "cmd"`, `sh -c '…'`, `sudo bash -c …`.

A session that works on another machine runs every command through `ssh`: what it
looked at, what it wrote (`ssh r "cat > /root/check.sh << 'EOF' …"`) and what it changed
are inside one quoted argument, where a reader of the outer command sees only `ssh`.
Unwrapped, the same rules apply to it as to a local command: a look is a look, a
here-document writes a file. Stdlib only (the reader's path).
"""

from __future__ import annotations

import shlex

# ssh's options that take a value (`-o ConnectTimeout=5`, `-p 2222`, `-i key`).
_SSH_VALUED = frozenset("BbcDEeFIiJLlmOopQRSWw")
_SHELLS = frozenset({"sh", "bash", "zsh", "ash", "dash", "ksh"})
_OPERATORS = frozenset({"&&", "||", ";", "|", "&", ">", ">>", "<", "(", ")", ";;", "|&"})
SCAN = 20_000  # of a command, only this much is parsed (a pasted megabyte is not a wrapper)


def inner_command(command: str) -> str | None:
    """The command a wrapper runs, unquoted as the shell would pass it: the remote
    command of `ssh [options] host cmd…`, the script of `sh -c '…'` (`sudo` and `env`
    before either allowed); None when `command` is not one such wrapper alone (a
    pipeline or chain around it, or unbalanced quotes)."""
    cmd = command.strip()
    if not cmd or len(cmd) > SCAN or not cmd.startswith(("ssh ", "sudo ", "sh ", "bash ",
                                                          "zsh ", "ash ", "dash ", "ksh ")):
        return None
    try:
        lex = shlex.shlex(cmd, posix=True, punctuation_chars=True)
        lex.whitespace_split = True
        words = list(lex)
    except ValueError:
        return None
    # An operator outside the quotes: `ssh h "x" && echo ok` is a chain, not a wrapper.
    # (A quoted word never comes back as a bare operator: it holds more than one.)
    if any(w in _OPERATORS for w in words):
        return None
    while words and words[0] == "sudo":
        words = words[1:]
        while words and words[0].startswith("-"):
            words = words[1:]
    if not words:
        return None
    inner = None
    if words[0] == "ssh":
        inner = _ssh(words[1:])
    elif words[0] in _SHELLS and len(words) >= 3 and words[1] in ("-c", "-lc", "-ic"):
        inner = words[2] or None
    if inner and _first_quote(cmd) == '"':
        # In double quotes the shell also drops the backslash before `$` and a backtick
        # (shlex keeps it): `\$(wg show)` is sent as `$(wg show)`.
        inner = inner.replace("\\$", "$").replace("\\`", "`")
    return inner


def _first_quote(cmd: str) -> str:
    at = min((i for i in (cmd.find('"'), cmd.find("'")) if i >= 0), default=-1)
    return cmd[at] if at >= 0 else ""


def _ssh(words: list[str]) -> str | None:
    i = 0
    while i < len(words) and words[i].startswith("-"):
        flag = words[i]
        i += 2 if len(flag) == 2 and flag[1] in _SSH_VALUED else 1
    rest = words[i + 1:]  # after the host
    return " ".join(rest) if rest else None


def unwrapped(command: str) -> str:
    """`command`'s inner command when it is a wrapper (nested wrappers too), else itself."""
    for _ in range(3):
        inner = inner_command(command)
        if inner is None:
            return command
        command = inner
    return command
