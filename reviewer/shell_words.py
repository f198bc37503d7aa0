"""Shell words the project reads: here-documents in a command, found where a shell finds
them, and the command a wrapper (`ssh host "…"`, `sh -c`) runs (at the end).

Three readers need them: the guard (a here-document's body is data, not commands; the
command around it is), the condenser (a commit message or a file written with
`cat > CLAUDE.md <<'EOF'`) and the written-file detail. A `<<` starts a here-document
only outside quotes, comments and arithmetic (`"<<EOF"`, `# <<EOF`, `$((1<<EOF))` and
the here-string `<<<` do not), while one inside a command substitution inside double
quotes (`"$(cat <<'EOF'`, how commit messages are written) does; its body starts on the
next line and ends at the first line that is its delimiter. A scanner that took a quoted
`<<EOF` for one would hide the commands after it from the guard, so this one follows
the shell's quoting, in one linear pass, stdlib only (the guard runs in a hook).

A body ends where the shell ends it: at the first line that is exactly its delimiter
(leading tabs stripped after `<<-`), or, inside `$( … )`, the delimiter followed by the
`)` that closes it. Ending a body anywhere else would leave the scanner out of step with
the shell for the rest of the command, and a guard out of step can be led to hide
commands. Unclosed, a body runs to the end, as in the shell.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

# What changes the scanner's state: quotes, escapes, `$(`, `$((`, `((`, parens, backticks,
# comments, newlines and `<<`.
_SPECIAL = re.compile(r"\$\(\(|\(\(|\$\(|\)\)|<<<|<<-?|[\\'\"`()#\n]")
_WORD_END = set(" \t\n;&|<>()")
_BLANKS = " \t"

# The scanner's contexts: a command (top level, `$( )`, `( )`), double quotes, backticks,
# arithmetic.
_CMD, _SUBST, _PAREN, _DQ, _TICK, _ARITH = range(6)


@dataclass(frozen=True)
class HereDoc:
    """One here-document: where its operator stands, its delimiter, and its body."""

    op: int  # offset of `<<`
    word: str  # the delimiter, quotes removed
    body_start: int
    body_end: int
    end: int  # just past the closing line (the command's length when unclosed)
    closed: bool

    def body(self, command: str) -> str:
        return command[self.body_start : self.body_end]

    def opener_line(self, command: str) -> str:
        """The line the operator stands on: where its redirections (`> file`) are."""
        start = command.rfind("\n", 0, self.op) + 1
        stop = command.find("\n", self.op)
        return command[start : stop if stop >= 0 else len(command)]


def heredocs(command: str, most: int | None = None) -> list[HereDoc]:
    """The here-documents a shell would read in `command`, in order (the first `most`)."""
    if "<<" not in command:
        return []
    return _scan(command, most, None)


def command_lines(command: str) -> list[str]:
    """The lines of a script that start a command at its top level: not the lines of a
    here-document body, nor those inside a quoted string or a `$( … )` spanning lines
    (`python3 -c "…"` over ten lines is one command, not ten)."""
    starts = [0]
    if "\n" in command:
        _scan(command, None, starts)
    out = []
    for at in starts:
        stop = command.find("\n", at)
        out.append(command[at : stop if stop >= 0 else len(command)])
    return out


def _scan(command: str, most: int | None, starts: list[int] | None) -> list[HereDoc]:
    """One pass over `command` in the shell's contexts: the here-documents (the first
    `most`), and, into `starts`, where each top-level line begins."""
    found: list[HereDoc] = []
    pending: list[tuple[int, str, bool]] = []  # (op, word, strip tabs) awaiting a newline
    stack = [_CMD]
    pos, n = 0, len(command)
    while pos < n:
        m = _SPECIAL.search(command, pos)
        if m is None:
            break
        tok, at = m.group(), m.start()
        pos = m.end()
        top = stack[-1]
        if tok == "\\":
            pos = at + 2  # the next character is literal wherever we are
            continue
        if top == _DQ:
            if tok == '"':
                stack.pop()
            elif tok in ("$(", "$(("):
                stack.append(_SUBST if tok == "$(" else _ARITH)
            elif tok == "`":
                stack.append(_TICK)
            elif tok == "\n" and pending:
                pos = _read_bodies(command, pos, pending, found, _SUBST in stack)
            continue
        if top == _ARITH:
            if tok == "))":
                stack.pop()
            elif tok in ("(", "$(", "((", "$(("):
                stack.append(_PAREN if tok in ("(", "((") else _SUBST)
                if tok == "((":
                    stack.append(_PAREN)
            continue
        # a command context: top level, `$( )`, `( )` or backticks
        if tok == "'":
            pos = _quote_end(command, pos, ansi_c=at > 0 and command[at - 1] == "$")
        elif tok == '"':
            stack.append(_DQ)
        elif tok == "`":
            if top == _TICK:
                stack.pop()
            else:
                stack.append(_TICK)
        elif tok in ("$(", "("):
            stack.append(_SUBST if tok == "$(" else _PAREN)
        elif tok in ("$((", "(("):
            stack.append(_ARITH)
        elif tok in (")", "))"):
            for _ in range(len(tok)):
                if len(stack) > 1 and stack[-1] in (_SUBST, _PAREN):
                    stack.pop()
        elif tok == "#":
            if at == 0 or command[at - 1] in " \t\n;&|()":
                stop = command.find("\n", pos)
                pos = stop if stop >= 0 else n
        elif tok == "\n":
            if pending:
                pos = _read_bodies(command, pos, pending, found, _SUBST in stack)
            if starts is not None and len(stack) == 1 and pos < n:
                starts.append(pos)
        elif tok.startswith("<<") and tok != "<<<":
            word, pos = _word(command, pos)
            if word:
                pending.append((at, word, tok == "<<-"))
        if most is not None and len(found) >= most:
            break
    if pending:  # the command ends before the body's line: an empty, unclosed body
        found.extend(HereDoc(op, w, n, n, n, False) for op, w, _ in pending)
    return found[:most] if most is not None else found


def without_heredocs(command: str) -> tuple[str, list[str]]:
    """The command with its here-document bodies (and closing lines) taken out, and the
    bodies: what a shell runs, and what it feeds as data."""
    docs = heredocs(command)
    if not docs:
        return command, []
    out: list[str] = []
    pos = 0
    for d in docs:
        if d.body_start < pos:
            continue
        out.append(command[pos : d.body_start])
        pos = d.end
    out.append(command[pos:])
    return "".join(out), [d.body(command) for d in docs]


def _quote_end(command: str, pos: int, *, ansi_c: bool) -> int:
    """Just past the `'` closing a quote opened before `pos`; `$'…'` honours `\\'`."""
    n = len(command)
    while True:
        close = command.find("'", pos)
        if close < 0:
            return n
        if not ansi_c:
            return close + 1
        slashes = 0
        while close - slashes - 1 >= pos and command[close - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2 == 0:
            return close + 1
        pos = close + 1


def _word(command: str, pos: int) -> tuple[str, int]:
    """The delimiter after `<<` (blanks skipped), with its quotes removed as the shell
    does (`'EOF'`, `"EOF"`, `\\EOF`, `E"O"F` are all EOF)."""
    n = len(command)
    while pos < n and command[pos] in _BLANKS:
        pos += 1
    out: list[str] = []
    while pos < n and command[pos] not in _WORD_END:
        ch = command[pos]
        if ch in "'\"":
            close = command.find(ch, pos + 1)
            if close < 0:
                close = n
            out.append(command[pos + 1 : close])
            pos = close + 1
        elif ch == "\\" and pos + 1 < n:
            out.append(command[pos + 1])
            pos += 2
        else:
            out.append(ch)
            pos += 1
    return "".join(out), pos


def _read_bodies(command: str, pos: int, pending: list[tuple[int, str, bool]],
                 found: list[HereDoc], in_subst: bool) -> int:
    """Read the bodies of the pending here-documents, one after another, from `pos` (the
    start of the line after their operators); return where the command goes on (after
    the last closing line, or at the `)` that follows its delimiter inside `$( )`)."""
    n = len(command)
    for op, word, tabs in pending:
        start = line = pos
        while True:
            if line >= n:
                found.append(HereDoc(op, word, start, n, n, False))
                pos = n
                break
            stop = command.find("\n", line)
            stop = n if stop < 0 else stop
            text = command[line:stop]
            lead = len(text) - len(text.lstrip("\t")) if tabs else 0
            text = text[lead:]
            if text == word:
                pos = min(stop + 1, n)
                found.append(HereDoc(op, word, start, line, pos, True))
                break
            if in_subst and text.startswith(word) and text[len(word):].lstrip().startswith(")"):
                pos = line + lead + len(word)
                found.append(HereDoc(op, word, start, line, pos, True))
                break
            line = stop + 1
    pending.clear()
    return pos


# --------------------------------------------------------------------------- wrappers
# The script a wrapper runs (issue 21): `ssh host "cmd"`, `sh -c '…'`, `sudo bash -c …`.
# A session that works on another machine runs every command through `ssh`: what it
# looked at, what it wrote (`ssh r "cat > /root/check.sh << 'EOF' …"`) and what it
# changed are inside one quoted argument, where a reader of the outer command sees only
# `ssh`. Unwrapped, the condenser applies to it the rules it applies to a local command.

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
