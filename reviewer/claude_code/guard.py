"""The opt-in PreToolUse guard: the agent may not approve its own memories.

Only a person, in the review screen, turns a candidate into an approved fact. An agent
with a shell could side-step that by writing to the store directly, running the approving
import (`mem-review import --keep-status`), opening the review screen itself, or calling
the store's approving functions from code. `check` denies those tool calls; everything
else passes untouched (None). Stdlib only: it runs before every matching tool call.

How it looks through a shell command (`bash_reason`): the command is tokenised the way
a shell would (quotes removed, operators split), variables assigned earlier in the same
command are expanded, `$(which mem-review)` and backticks resolve to what they name, and
wrappers are peeled off (`env`, `exec`, `command`, `nohup`, `timeout`, `sudo`, ...).
Strings run by a shell (`bash -c`, `sh -c`, `eval`, `su -c`), literal base64 and hex
blobs, and the scripts a command runs (`python x.py`, `bash x.sh`, `./x`, `source x`) are
looked through the same way, a few levels deep. Paths are resolved as the shell would
find them: relative to the directory a preceding `cd` moved to, through symlinks on disk
and the ones `ln -s` makes earlier in the command, and by inode (a hard link to the
store is the store). Denied: the approving flag (`--keep-status`, any abbreviation of it
or `keep_status` in code) anywhere but in a search; the review screen; code (Python,
Perl, Ruby, Node) that names mem-review with an approving call or the CLI; SQL writing
the fact tables, or the sqlite3 CLI on the data dir; pseudo-terminal wrappers (`script`,
`expect`, `unbuffer`, `tmux`, `screen`, Python's `pty`) around mem-review, which could
type a person's confirmation; and anything but reading inside the data dir.

It is defence in depth, not a sandbox: the agent runs arbitrary code as the user, and a
shell can always obfuscate further (SECURITY.md). The approval path itself also demands a
confirmation typed on a real terminal (reviewer/commands/importing.py). File contents
written by Edit/Write are not scanned (editing mem-review's own source must keep
working); only where they write is.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import os
import re
import shlex
import stat as stat_mod
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from reviewer import paths
from reviewer.shell_words import without_heredocs

WRITE_TOOLS = {"Edit": "file_path", "MultiEdit": "file_path", "Write": "file_path",
               "NotebookEdit": "notebook_path"}
MAX_DEPTH = 4  # nested shells / scripts looked through
MAX_SCRIPT_BYTES = 256 * 1024
# Tokenising is quadratic in a token's length (shlex): a longer command is not parsed (a
# hook that times out lets the call through), only searched for what could matter.
MAX_COMMAND_CHARS = 64 * 1024
LONG_MARKERS = ("reviewer", "mem-review", "mem_review", "keep-status", "keep_status",
                "sqlite", "store.db", ".claude", "base64", "xxd", "fromhex", "unhexlify",
                "eval", "exec", "$(", "`", "ln ", "tar ", "cp ", "mv ", "rsync")
# Programs that only read: fine on the data dir (the log, `ls`), and a search that
# mentions `--keep-status` (grep in mem-review's own source) is not running it.
READ_ONLY = {"cat", "less", "more", "head", "tail", "ls", "wc", "stat", "file", "grep",
             "egrep", "fgrep", "rg", "ag", "ack", "du", "tree", "realpath", "readlink",
             "test", "[", "cd", "pushd", "popd", "pwd", "true", "false", "basename",
             "dirname", "md5sum", "sha256sum", "sha1sum", "diff", "cmp", "find", "fd",
             "jq", "bat", "view", "zcat", "zless", "echo", "printf", ":"}
SEARCHERS = {"grep", "egrep", "fgrep", "rg", "ag", "ack", "git", "man", "less", "more",
             "cat", "head", "tail", "wc", "bat", "diff"}
FIND_WRITES = {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf", "-fls"}
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox", "tcsh",
          "csh", "yash"}
INTERPRETERS = re.compile(r"^(python[\d.]*|pypy[\d.]*|py|perl|ruby|node|nodejs|deno|bun|"
                          r"php|lua|tclsh|osascript|ipython[\d.]*)$")
PTY_WRAPPERS = {"script", "expect", "unbuffer", "tmux", "screen", "socat", "faketty",
                "ptyrun", "zpty", "empty", "dtach", "abduco", "conspy"}
SQL_CLIS = {"sqlite3", "sqlite", "litecli", "sqlite-utils", "datasette", "duckdb", "usql",
            "sqlitebrowser", "sqldiff", "sqlite3_analyzer"}
# Wrappers that run their arguments as a command (options they take are skipped).
WRAPPERS = {"env", "sudo", "doas", "nohup", "exec", "command", "builtin", "time", "nice",
            "ionice", "uvx", "pipx", "run", "uv", "xargs", "stdbuf", "timeout", "setsid",
            "chronic", "caffeinate", "nocorrect", "noglob", "unshare", "chrt", "taskset",
            "flock", "watch", "strace", "ltrace", "gdb", "valgrind", "firejail", "bwrap",
            "proot", "fakeroot", "then", "do", "else", "elif", "if", "while", "until", "!",
            "{", "}", "coproc", "poetry", "pdm", "hatch", "rye", "pixi", "conda", "mamba",
            "micromamba", "npx", "pnpm", "yarn"}
WRAPPER_VALUE_OPTS = {"-u", "-n", "-c", "-s", "-k", "-p", "-g", "-C", "-S", "-E", "-I",
                      "--unset", "--chdir", "--signal", "--kill-after", "-P", "-L", "-d",
                      "--with", "--from", "-w", "-e", "--env"}
CLI_NAMES = {"mem-review", "mem-review.exe", "mem_review"}
KEEP_STATUS = re.compile(r"(?i)--keep[-_]status|keep_status")
APPROVING_CALL = re.compile(
    r"(?i)\b(approve|edit|verify|restore|import_facts|_change|_write|_log|keep_status|"
    r"main|run_module|run_path|cli|commands|subprocess|system|popen|exec[lv]?p?e?|spawn|"
    r"pty|store)\b"
)
NAMES_US = re.compile(r"(?i)\breviewer\b|mem[-_]review|\bcapture\.pipeline\b")
APPROVING_SQL = re.compile(
    r"(?is)\b(update\s+(or\s+\w+\s+)?[\"'`\[]?fact[\"'`\]]?(\s|$)|"
    r"(insert|replace)\s+(or\s+\w+\s+)?into\s+[\"'`\[]?fact[\"'`\]]?[\s(]|"
    r"delete\s+from\s+[\"'`\[]?fact[\"'`\]]?(\s|$|;)|"
    r"(update|delete\s+from|insert\s+into)\s+[\"'`\[]?fact_history\b|"
    r"drop\s+(table|trigger)\s+(if\s+exists\s+)?[\"'`\[]?(fact|fact_history|fact_rev)\b|"
    r"attach\s+database)"
)
SQL_RUNNERS = re.compile(r"(?i)\b(sqlite3?|sqlalchemy|sqlmodel|apsw|peewee|duckdb|"
                         r"python[\d.]*|perl|ruby|node|php|litecli|sqlite-utils|usql)\b|"
                         r"store\.db")
PTY_CODE = re.compile(r"(?i)\bpty\b|openpty|forkpty|pexpect|node-pty|IO::Pty|\bPTY\.spawn")
SUBST = re.compile(r"\$\((.*?)\)|`([^`]*)`", re.S)
WHICH = re.compile(r"^\s*(?:which|command\s+-v|command\s+-V|type\s+-p|type\s+-P|whereis|"
                   r"readlink\s+-f\s+\$\(\s*which)\s+([\w./-]+)")
VAR = re.compile(r"\$\{([A-Za-z_]\w*)(?:[:#%/^,@][^}]*)?\}|\$([A-Za-z_]\w*)")
ANSI_C = re.compile(r"\$'((?:[^'\\]|\\.)*)'")
BLOB = re.compile(r"(?<![\w+/=.-])([A-Za-z0-9+/]{16,}={0,2}|[0-9a-fA-F]{24,})(?![\w+/=.-])")
# Programs that write whole trees: into an ancestor of the data dir they can recreate it.
EXTRACTORS = {"tar", "bsdtar", "gtar", "unzip", "7z", "7za", "7zz", "cpio", "pax", "unar",
              "ditto", "bunzip2", "gunzip"}
TREE_COPIERS = {"cp", "rsync", "mv", "ln", "install", "scp", "git"}
OPERATORS = {";", "&&", "||", "|", "&", "|&", ";;", "(", ")", "\n", "!"}
REDIRECTS = {">", ">>", ">|", "&>", "&>>", "<>", ">&"}
# Shared facts (reviewer/sharing/): the agent may read the folder, never write it, and may
# not forge the remote-tracking ref the trust rule reads (a fetch stays allowed).
SHARED_DIR = ".mem-review"
SHARED_MENTION = re.compile(r"(?<![\w-])\.mem-review(?![\w-])")
REMOTE_REF_WRITE = re.compile(
    r"(?is)\b(update-ref|symbolic-ref)\b.*\brefs/remotes/"  # point origin/main elsewhere
    r"|\bremote\s+(set-head|set-url|add|rename|remove|rm)\b"  # retarget what origin is
    r"|\bfetch\b[^;&|\n]*:\S*refs/remotes/"  # fetch any branch INTO origin/<default>
    r"|\bconfig\b[^;&|\n]*\bremote\.\S+\.(url|fetch)\b"
)
REF_FILES = re.compile(r"\.git/(refs/remotes|packed-refs|config)\b")
GIT_READS = {"log", "show", "diff", "status", "blame", "ls-files", "ls-tree"}
# A command that only reads: one program from this set, no redirection or substitution.
SHARED_READERS = {"cat", "less", "more", "head", "tail", "ls", "wc", "stat", "file", "grep",
                  "rg", "du", "tree", "realpath", "readlink", "test", "[", "jq", "diff"}
SHELL_WRITES = re.compile(r">|\btee\b|\$\(|`|\bsed\s+-i|\bdd\b")
ONE_COMMAND_SPLIT = re.compile(r"&&|\|\||[;|&\n()]")


def check(payload: object) -> str | None:
    """The deny answer (JSON text) for a tool call that would get around the person; else None."""
    if not isinstance(payload, dict):
        return None
    tool = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if not isinstance(tool, str) or not isinstance(tool_input, dict):
        return None
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else os.getcwd()
    reason = None
    if tool in WRITE_TOOLS:
        target = tool_input.get(WRITE_TOOLS[tool])
        if isinstance(target, str) and _inside_data_dir(target, cwd):
            reason = f"{tool} would write inside mem-review's data directory ({paths.home()})"
        elif isinstance(target, str) and _claude_settings(_absolute_path(target, cwd)):
            reason = f"{tool} would change Claude Code's settings, which hold this guard"
        elif isinstance(target, str) and _in_shared_folder(target, cwd):
            reason = f"{tool} would write a shared fact ({SHARED_DIR}/ holds a person's approvals)"
        elif isinstance(target, str) and REF_FILES.search(target.replace(os.sep, "/")):
            reason = (f"{tool} would rewrite git's record of the remote, which vouches for "
                      "shared facts")
        elif isinstance(target, str) and _in_memory_folder(target, cwd):
            return _deny(MEMORY_DENIED.format(tool=tool))
    elif tool == "Bash":
        command = tool_input.get("command")
        if isinstance(command, str):
            try:
                reason = bash_reason(command, cwd)
            except Exception as exc:  # a command crafted to crash the check is not let by
                if not (_names_us(command) or _mentions_data_dir(command)
                        or SQL_RUNNERS.search(command)):
                    raise
                reason = f"the command could not be checked ({type(exc).__name__})"
    if reason is None:
        return None
    if reason == MEMORY_WRITE:
        return _deny(MEMORY_DENIED.format(tool=tool))
    return _deny(
        f"mem-review guard: {reason}. Facts in mem-review are approved only by a "
        "person in its review screen, so this tool call is not allowed "
        "(reading with `mem-review list` is fine)."
    )


MEMORY_DENIED = (
    "mem-review guard: {tool} would write into Claude Code's auto-memory folder, which "
    "mem-review keeps behind a person's review. To remember something, call the MCP tool "
    "`remember` of the mem-review server (mcp__mem-review__remember) with the fact, its "
    "category and the files it is about: it is stored as a pending candidate for the "
    "person to approve."
)


def _deny(reason: str) -> str:
    return json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    })


MEMORY_WRITE = "the command writes into Claude Code's auto-memory folder"


def _in_memory_folder(target: str, cwd: str) -> bool:
    """Inside Claude Code's auto-memory (or team memory) folder of the session's project."""
    if not target or "\0" in target:
        return False
    path = Path(os.path.expanduser(target))
    if not path.is_absolute():
        path = Path(cwd) / path
    resolved = Path(os.path.realpath(path))
    real = _memory_root(cwd, os.environ.get("HOME", ""), os.environ.get("CLAUDE_CONFIG_DIR", ""))
    return resolved == real or real in resolved.parents


@functools.lru_cache(maxsize=8)
def _memory_root(cwd: str, _home: str, _config: str) -> Path:
    """The session's auto-memory folder (the team folder is inside it), resolved once per
    hook process: the settings that move it are read a single time."""
    from reviewer.claude_code.native_memory import memory_folders
    from reviewer.project import project_root

    return Path(os.path.realpath(memory_folders(project_root(cwd))[0]))


# ---- the shell ----------------------------------------------------------------------


@dataclass
class _Shell:
    """What a command has done so far, as far as paths and names go."""

    cwd: str
    depth: int = 0
    variables: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)  # made by `ln -s` in this command
    feeds: list[str] = field(default_factory=list)  # text piped in: heredocs, echo, <<<
    stdin_shell: bool = False  # a shell reads its commands from stdin
    stdin_code: bool = False  # an interpreter reads its program from stdin

    def child(self) -> _Shell:
        return _Shell(self.cwd, self.depth + 1, dict(self.variables), dict(self.links))


def bash_reason(command: str, cwd: str | None = None) -> str | None:
    """Why a shell command is refused, or None."""
    if len(command) > MAX_COMMAND_CHARS:
        low = command.lower()
        if any(m in low for m in LONG_MARKERS) or _mentions_data_dir(command):
            return (f"the command is over {MAX_COMMAND_CHARS:,} characters and names something "
                    "the guard watches, too long to be checked")
        return None
    try:
        reason = _command_reason(command, _Shell(os.path.realpath(cwd or os.getcwd())))
    except RecursionError:
        return "the command nests too deeply to be checked"
    return reason or _shared_reason(command)


def _shared_reason(command: str) -> str | None:
    """Shared facts count as a person's approval once on the remote's default branch: the
    agent may read them, never write them, nor forge the remote-tracking ref."""
    if SHARED_MENTION.search(command) and not (_one_reader(command) or _git_read(command)):
        return f"the command touches the shared facts ({SHARED_DIR}/ holds a person's approvals)"
    if REMOTE_REF_WRITE.search(command) or (REF_FILES.search(command)
                                            and not _one_reader(command)):
        return "the command rewrites a remote-tracking ref, which vouches for shared facts"
    return None


def _one_command(command: str) -> list[str] | None:
    """The words of a single command with no redirection or substitution, else None."""
    if SHELL_WRITES.search(command):
        return None
    parts = [p for p in ONE_COMMAND_SPLIT.split(command) if p.strip()]
    if len(parts) != 1:
        return None
    try:
        words = shlex.split(parts[0], comments=True)
    except ValueError:
        return None
    while words and "=" in words[0] and not words[0].startswith("="):
        words = words[1:]  # VAR=value prefixes
    return words or None


def _one_reader(command: str) -> bool:
    words = _one_command(command)
    return words is not None and os.path.basename(words[0]) in SHARED_READERS


def _command_reason(command: str, sh: _Shell) -> str | None:
    if sh.depth > MAX_DEPTH:
        return "the command nests shells or scripts too deeply to be checked"
    command = ANSI_C.sub(lambda m: _ansi_c(m.group(1)), command)
    if _sql_write(command) and SQL_RUNNERS.search(command):
        return "the command changes mem-review's facts table with SQL"
    for blob in _decoded_blobs(command):  # `echo <base64> | base64 -d | sh`
        inner = _command_reason(blob, sh.child()) or _code_reason(blob)
        if inner:
            return "the command runs encoded text: " + inner
    for sub in SUBST.finditer(command):  # `$(...)` and backticks run too
        body = sub.group(1) if sub.group(1) is not None else sub.group(2)
        if body and not WHICH.match(body):
            inner = _command_reason(body, sh.child())
            if inner:
                return inner
    command, bodies = without_heredocs(command)
    sh.feeds.extend(bodies)
    for words, writes in _segments(_unquoted_newlines(command), sh):
        reason = _segment_reason(words, writes, sh)
        if reason:
            return reason
    for feed in sh.feeds if (sh.stdin_shell or sh.stdin_code) else ():
        inner = (_nested(feed, sh) if sh.stdin_shell else None) or (
            _code_reason(feed) if sh.stdin_code else None)
        if inner:
            return "what the command feeds to a shell or interpreter: " + inner
    return None


def _unquoted_newlines(command: str) -> str:
    """Newlines outside quotes separate commands, as `;` does."""
    if "\n" not in command:
        return command
    if "'" not in command and '"' not in command and "\\" not in command:
        return command.replace("\n", ";")
    out = []
    quote = ""
    escaped = False
    for ch in command:
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "\n":
            out.append(";")
            continue
        out.append(ch)
    return "".join(out)


def _segment_reason(words: list[str], writes: list[str], sh: _Shell) -> str | None:
    raw_words = words
    words = [_expand(w, sh) for w in words]
    # `X=mem-review` (alone or before a command) is remembered for later words.
    i = 0
    while i < len(words) and _assignment(words[i]):
        name, _, value = words[i].partition("=")
        sh.variables[name] = value
        i += 1
    words = words[i:]
    if words and words[0] in ("export", "declare", "local", "typeset", "readonly", "alias"):
        for w in words[1:]:
            if _assignment(w):
                name, _, value = w.partition("=")
                sh.variables[name] = value
        if words[0] == "alias" and any(_names_us(w) for w in words[1:]):
            return "the command hides mem-review behind an alias"
        return _paths_reason(words, writes, sh, reader=False)
    words = _peel(words)
    if not words:
        return _paths_reason([], writes, sh, reader=False)
    program_word = words[0]
    program = os.path.basename(program_word)
    args = words[1:]

    if program in ("cd", "pushd"):
        target = args[-1] if args and args[-1] != "-" else str(Path.home())
        sh.cwd = _resolve(target, sh)
        return _paths_reason([], writes, sh, reader=True)
    if program == "ln" and any(a.startswith("-") and "s" in a for a in args if a != "--"):
        plain = [a for a in args if not a.startswith("-")]
        if len(plain) >= 2:
            sh.links[os.path.normpath(_absolute(plain[-1], sh))] = _resolve(plain[0], sh)
        if len(plain) == 1:
            sh.links[os.path.normpath(_absolute(os.path.basename(plain[0]), sh))] = (
                _resolve(plain[0], sh))
    if ("$" in program_word or "`" in program_word) and (
        any(_keep_flag(a) for a in args) or not args
    ):
        return "the command hides the program it runs behind a variable or substitution"
    if program in ("echo", "printf", "cat"):
        sh.feeds.append(" ".join(a for a in args if not a.startswith("-")))

    if program in CLI_NAMES:
        reason = _cli_reason(args)
        if reason:
            return reason
    elif program in SHELLS or program in ("eval", "source", ".", "su", "runuser", "xonsh"):
        reason = _shell_reason(program, args, sh)
        if reason:
            return reason
    elif INTERPRETERS.match(program):
        reason = _interpreter_reason(program, args, sh, raw_words)
        if reason:
            return reason
    elif program in SQL_CLIS:
        if any(_touches_data_dir(a, sh) for a in args) or any(
            _sql_write(a) for a in args
        ):
            return "the sqlite3 CLI on mem-review's store"
    elif program in PTY_WRAPPERS:
        if any(_names_us(a) for a in args):
            return ("a pseudo-terminal around mem-review could type the confirmation only a "
                    "person gives")
        inner = _nested(" ".join(shlex.quote(a) for a in args if not a.startswith("-")), sh)
        if inner:
            return inner
    elif program_word.startswith(("./", "../", "/", "~")) and os.path.isfile(
        _absolute(program_word, sh)
    ):
        reason = _script_reason(program_word, sh)
        if reason:
            return reason
    elif (program == "git" and args[:1] == ["config"] and any("alias." in a for a in args)
          and any(_names_us(a) for a in args)):
        return "the command hides mem-review behind a git alias"

    if program not in SEARCHERS and any(KEEP_STATUS.search(a) for a in args):
        return "the command passes mem-review's approving flag `--keep-status`"
    if (program not in SEARCHERS and any(_keep_flag(a) for a in args)
            and _names_us(" ".join(words))):
        return "`mem-review import --keep-status` would approve facts without review"
    if program in EXTRACTORS or program in TREE_COPIERS:
        reason = _tree_reason(program, args, sh)
        if reason:
            return reason
    reader = program in READ_ONLY and not (program == "find" and FIND_WRITES & set(args))
    return _paths_reason(words, writes, sh, reader=reader)


def _tree_reason(program: str, args: list[str], sh: _Shell) -> str | None:
    """An archive unpacked, or a directory copied, into a parent of the data dir could
    put a whole new store in place."""
    home = _data_home()
    targets: list[str] = []
    if program in EXTRACTORS:
        extracting = program not in ("tar", "bsdtar", "gtar") or any(
            a in ("--extract", "--get")
            or (not a.startswith("--") and "x" in a and a.lstrip("-").isalpha())
            for a in args[:3])
        if not extracting:
            return None
        targets.append(sh.cwd)
        for j, a in enumerate(args):
            if a in ("-C", "--directory", "-d") and j + 1 < len(args):
                targets.append(_resolve(args[j + 1], sh))
            elif a.startswith(("--directory=", "-o")) and program != "unzip":
                targets.append(_resolve(a.split("=", 1)[-1] if "=" in a else a[2:], sh))
    else:
        recursive = program in ("mv", "git", "scp") or any(
            a in ("--recursive", "--archive") or (a.startswith("-") and not a.startswith("--")
                                                 and set(a[1:]) & set("rRa"))
            for a in args)
        if program == "git" and args[:1] != ["clone"]:
            return None
        plain = [a for a in args if not a.startswith("-")]
        if not recursive or not plain:
            return None
        if program == "mv" and not any(os.path.isdir(_absolute(a, sh)) for a in plain[:-1]):
            return None
        targets.append(_resolve(plain[-1], sh))
    for target in targets:
        if target != os.sep and (home + os.sep).startswith(target.rstrip(os.sep) + os.sep):
            return (f"`{program}` would write a tree into {target}, which holds mem-review's "
                    "data directory")
    return None


def _keep_flag(arg: str) -> bool:
    """`--keep-status` or any abbreviation argparse once accepted (`--keep`, `--k`)."""
    flag = arg.split("=", 1)[0].lower().replace("_", "-")
    return (flag.startswith("--k") and "--keep-status".startswith(flag)) or bool(
        KEEP_STATUS.search(arg))


def _cli_reason(args: list[str]) -> str | None:
    sub = next((a for a in args if not a.startswith("-")), "review")
    if any(a in ("-h", "--help", "--version") for a in args):
        return None
    if sub == "uninstall":
        return "removing mem-review's hooks (and this guard) is for the person"
    if sub == "import" and any(_keep_flag(a) for a in args):
        return "`mem-review import --keep-status` would approve facts without review"
    if sub in ("review", "demo") or not args or all(a.startswith("-") for a in args):
        if sub == "demo":
            return None  # a scratch store of sample facts, never the real one
        return "the review screen is for the person, not the agent"
    return None


def _shell_reason(program: str, args: list[str], sh: _Shell) -> str | None:
    if program == "eval":
        return _nested(" ".join(args), sh)
    if program in ("source", "."):
        return _script_reason(args[0], sh) if args else None
    if program == "busybox" and args:
        return _segment_reason(args, [], sh)
    for j, a in enumerate(args):
        if a.startswith("-") and "c" in a.lstrip("-") and not a.startswith("--"):
            return _nested(args[j + 1], sh) if j + 1 < len(args) else None
        if a in ("--command", "-c"):
            return _nested(args[j + 1], sh) if j + 1 < len(args) else None
    script = next((a for a in args if not a.startswith("-")), None)
    if script is not None and program not in ("su", "runuser"):
        return _script_reason(script, sh)
    sh.stdin_shell = True
    return None


def _interpreter_reason(
    program: str, args: list[str], sh: _Shell, raw_words: list[str]
) -> str | None:
    for j, a in enumerate(args):
        if a == "-m" and j + 1 < len(args):
            module = args[j + 1]
            if module.split(".")[0] == "reviewer" or module.split(".")[0] == "capture":
                if module in ("reviewer.cli", "reviewer"):
                    return _cli_reason(args[j + 2:])
                return "the command runs mem-review's modules directly"
            if module in ("pty", "pexpect") and _names_us(" ".join(args)):
                return "a pseudo-terminal around mem-review"
            return None
        if a in ("-c", "-e", "-E", "--eval", "-p", "--print", "-r") and j + 1 < len(args):
            return _code_reason(args[j + 1])
        if a.startswith("-c") and len(a) > 2 and program.startswith("py"):
            return _code_reason(a[2:])
        if not a.startswith("-"):
            if a.endswith(("reviewer/cli.py", "reviewer\\cli.py")):
                return _cli_reason(args[j + 1:])
            return _script_reason(a, sh, code=True)
    # `python - <<EOF`, `echo ... | python`: the program comes on stdin.
    sh.stdin_code = True
    return None


def _nested(text: str, sh: _Shell) -> str | None:
    return _command_reason(text, sh.child())


def _script_reason(name: str, sh: _Shell, code: bool = False) -> str | None:
    """A script run by the command is looked through like the command itself."""
    path = _absolute(name, sh)
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_SCRIPT_BYTES:
            return None
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return None
    reason = _code_reason(text) if code or not text.startswith("#!/bin/") else None
    if reason:
        return f"the script {name} {reason}"
    if not code or text.startswith("#!"):
        inner = _nested(text, sh)
        if inner:
            return f"the script {name}: {inner}"
    return None


def _names_us(text: str) -> bool:
    """Whether `text` names mem-review (a substring test first: the regex is slow on
    a long here-document)."""
    low = text.lower()
    return ("reviewer" in low or "mem-review" in low or "mem_review" in low
            or "capture.pipeline" in low) and NAMES_US.search(text) is not None


def _sql_write(text: str) -> bool:
    low = text.lower()
    return ("fact" in low or "attach" in low) and APPROVING_SQL.search(text) is not None


def _code_reason(code: str) -> str | None:
    """Python (or Perl, Ruby, Node) code that would approve, or write the store."""
    if _names_us(code) and APPROVING_CALL.search(code):
        return "calls mem-review's approving functions or its CLI from code"
    if _sql_write(code):
        return "changes mem-review's facts table with SQL"
    if _mentions_data_dir(code):
        return "touches mem-review's data directory from code"
    if _names_us(code) and PTY_CODE.search(code):
        return "drives mem-review through a pseudo-terminal"
    return None


# ---- tokens ---------------------------------------------------------------------------


def _segments(command: str, sh: _Shell) -> Iterator[tuple[list[str], list[str]]]:
    """(words, redirection targets) of each simple command, quotes removed."""
    tokens = _tokens(command)
    words: list[str] = []
    writes: list[str] = []
    it = iter(range(len(tokens)))
    for k in it:
        tok = tokens[k]
        if tok in OPERATORS:
            if words or writes:
                yield words, writes
            words, writes = [], []
            continue
        if tok in REDIRECTS or (tok.rstrip(">") != tok and set(tok) <= set("&>|0123456789")):
            if k + 1 < len(tokens):
                target = tokens[k + 1]
                if not target.isdigit() and target != "-":
                    writes.append(_expand(target, sh))
                next(it, None)
            if words and words[-1].isdigit():
                words.pop()  # the fd of `2>file`
            continue
        if tok in ("<<<", "<<", "<<-"):
            if k + 1 < len(tokens):
                if tok == "<<<":
                    sh.feeds.append(tokens[k + 1])
                next(it, None)  # the here-string, or the here-document's delimiter
            continue
        if tok in ("<", "<&"):
            next(it, None)  # an input file is read, not written
            continue
        if tok in ("<(", ">("):
            continue
        words.append(tok)
    if words or writes:
        yield words, writes


def _tokens(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: fall back to words, conservatively
        return [t for t in re.split(r"(\s+|[;&|()<>])", command) if t and not t.isspace()]


def _expand(word: str, sh: _Shell) -> str:
    def var(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        if name in sh.variables:
            return sh.variables[name]
        if name in ("HOME", "MEM_REVIEW_HOME", "XDG_DATA_HOME", "PWD", "USER"):
            value = {"PWD": sh.cwd}.get(name) or os.environ.get(name)
            if name == "MEM_REVIEW_HOME" and not value:
                value = str(paths.home())
            return value or m.group(0)
        return m.group(0)

    def which(m: re.Match[str]) -> str:
        body = m.group(1) if m.group(1) is not None else m.group(2)
        found = WHICH.match(body or "")
        return found.group(1) if found else m.group(0)

    word = SUBST.sub(which, word)
    word = VAR.sub(var, word) if "$" in word else word
    if word.startswith("~"):
        word = os.path.expanduser(word)
    return word


def _peel(words: list[str]) -> list[str]:
    """Drop wrappers (and their options) in front of the program that really runs."""
    i = 0
    while i < len(words):
        w = words[i]
        base = os.path.basename(w)
        if base in WRAPPERS or _assignment(w):
            i += 1
            while i < len(words) and (words[i].startswith("-") or _assignment(words[i])
                                      or (base in ("timeout", "nice", "chrt", "taskset")
                                          and words[i][:1].isdigit())):
                opt = words[i]
                i += 1
                if opt in WRAPPER_VALUE_OPTS and i < len(words):
                    i += 1
            if base in ("uv", "poetry", "pdm", "hatch", "rye", "pixi", "conda", "mamba",
                        "micromamba", "pipx", "npx", "pnpm", "yarn") and i < len(words) \
                    and words[i] in ("run", "exec", "x", "dlx"):
                i += 1
            if base == "flock" and i < len(words):
                i += 1  # the lock file
            continue
        break
    return words[i:]


def _assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.isidentifier()


def _ansi_c(body: str) -> str:
    try:
        return shlex.quote(body.encode("latin-1", "backslashreplace").decode("unicode_escape"))
    except (UnicodeDecodeError, ValueError):
        return body


def _decoded_blobs(command: str) -> Iterator[str]:
    if not re.search(r"(?i)base64|b64|xxd|\bhex\b|unhexlify|fromhex|openssl|basenc", command):
        return
    for m in BLOB.finditer(command):
        blob = m.group(1)
        for decode in (_b64, _hex):
            text = decode(blob)
            if text:
                yield text


def _b64(blob: str) -> str | None:
    try:
        raw = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True)
        return raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def _hex(blob: str) -> str | None:
    try:
        return bytes.fromhex(blob).decode("utf-8")
    except ValueError:
        return None


# ---- paths ----------------------------------------------------------------------------


def _paths_reason(words: list[str], writes: list[str], sh: _Shell, *, reader: bool) -> str | None:
    for target in writes:
        if _touches_data_dir(target, sh):
            return f"the command writes inside mem-review's data directory ({paths.home()})"
        if _in_memory_folder(_resolve(target, sh), sh.cwd):
            return MEMORY_WRITE
        if _claude_settings(_resolve(target, sh)):
            return "the command writes Claude Code's settings, which hold this guard"
    if reader:
        return None
    git_reads = bool(words) and os.path.basename(words[0]) == "git" and (
        words[1:2] and words[1] in GIT_KEEPS_FILES)
    for w in words[1:] if words else []:
        if _touches_data_dir(w, sh) or _mentions_data_dir(w):
            return f"the command touches mem-review's data directory ({paths.home()})"
        if _in_memory_folder(_resolve(w, sh), sh.cwd):
            return MEMORY_WRITE
        if not git_reads and SETTINGS_NAME.search(w) and _claude_settings(_resolve(w, sh)):
            return "the command changes Claude Code's settings, which hold this guard"
    if words and (_touches_data_dir(words[0], sh)):
        return f"the command runs something inside mem-review's data directory ({paths.home()})"
    return None


GIT_KEEPS_FILES = {"add", "commit", "diff", "log", "show", "status", "blame", "grep", "ls-files"}
SETTINGS_NAME = re.compile(r"settings(\.local)?\.json|managed-settings|\.claude(/|$)")


def _claude_settings(path: str) -> bool:
    """A Claude Code settings file (or the `.claude` dir holding one): whoever can write it
    can switch this guard off (remove the hook, `disableAllHooks`)."""
    real = os.path.realpath(path)
    parts = real.split(os.sep)
    if parts[-1] == ".claude":
        return True
    name = parts[-1]
    in_claude_dir = len(parts) >= 2 and parts[-2] in (".claude", "claude-code")
    return in_claude_dir and (
        (name.startswith("settings") and name.endswith(".json"))
        or name.startswith("managed-settings"))


def _absolute_path(target: str, cwd: str) -> str:
    path = os.path.expanduser(target)
    return path if os.path.isabs(path) else os.path.join(cwd, path)


def _absolute(word: str, sh: _Shell) -> str:
    path = os.path.expanduser(word)
    return path if os.path.isabs(path) else os.path.join(sh.cwd, path)


def _resolve(word: str, sh: _Shell) -> str:
    """Where a path leads, through `ln -s` links made earlier in the command and on disk."""
    path = os.path.normpath(_absolute(word, sh))
    for _ in range(8):
        for link, target in sh.links.items():
            if path == link or path.startswith(link + os.sep):
                path = os.path.normpath(target + path[len(link):])
                break
        else:
            break
    return os.path.realpath(path)


def _touches_data_dir(word: str, sh: _Shell) -> bool:
    if not word or (word.startswith("-") and "=" not in word):
        return False
    word = word.split("=", 1)[1] if word.startswith("-") else word
    if len(word) > 4096 or "\0" in word:
        return False
    home = _data_home()
    path = os.path.normpath(_absolute(word, sh))
    if sh.links:
        path = _resolve(word, sh)
    if path == home or path.startswith(home + os.sep):
        return True
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        st = None
    # The cwd is resolved, so a plain name can only lead elsewhere if it is a link itself;
    # a path with directories may pass through one anywhere: ask the file system.
    if "/" in word or (st is not None and stat_mod.S_ISLNK(st.st_mode)):
        resolved = os.path.realpath(path)
        if resolved == home or resolved.startswith(home + os.sep):
            return True
        try:
            st = os.stat(resolved)
        except (OSError, ValueError):
            return False
    return st is not None and (st.st_dev, st.st_ino) in _inodes()


_INODES: dict[str, set[tuple[int, int]]] = {}


def _inodes() -> set[tuple[int, int]]:
    """(dev, inode) of the data dir and the files in it: a hard link is the same file."""
    home = _data_home()
    if home not in _INODES:
        found: set[tuple[int, int]] = set()
        try:
            for entry in [home, *(os.path.join(home, n) for n in os.listdir(home))]:
                st = os.stat(entry)
                found.add((st.st_dev, st.st_ino))
        except OSError:
            pass
        _INODES[home] = found
    return _INODES[home]


def _data_home() -> str:
    key = os.environ.get("MEM_REVIEW_HOME"), os.environ.get("HOME"), os.environ.get(
        "XDG_DATA_HOME")
    if key not in _HOMES:
        _HOMES[key] = os.path.realpath(paths.home())
    return _HOMES[key]


_HOMES: dict[tuple[str | None, ...], str] = {}


_SPELLINGS: dict[tuple[str | None, ...], list[str]] = {}


def _data_dir_spellings() -> list[str]:
    key = tuple(os.environ.get(v) for v in ("MEM_REVIEW_HOME", "HOME", "XDG_DATA_HOME"))
    if key not in _SPELLINGS:
        _SPELLINGS[key] = _spellings()
    return _SPELLINGS[key]


def _spellings() -> list[str]:
    home = paths.home()
    forms = {str(home), os.path.realpath(home)}
    user_home = str(Path.home())
    for form in list(forms):
        if form.startswith(user_home + os.sep):
            rest = form[len(user_home):]
            forms.update({"~" + rest, "$HOME" + rest, "${HOME}" + rest})
    forms.update({"$MEM_REVIEW_HOME", "${MEM_REVIEW_HOME}"})
    return sorted(forms, key=len, reverse=True)


def _mentions_data_dir(text: str) -> bool:
    return any(form in text for form in _data_dir_spellings())


def _git_read(command: str) -> bool:
    """A single `git log|show|diff|status|blame|ls-files|ls-tree` with no redirection."""
    words = _one_command(command)
    return words is not None and len(words) > 1 and words[0] == "git" and words[1] in GIT_READS


def _in_shared_folder(target: str, cwd: str) -> bool:
    path = Path(os.path.expanduser(target))
    if not path.is_absolute():
        path = Path(cwd) / path
    return SHARED_DIR in Path(os.path.realpath(path)).parts or SHARED_DIR in path.parts


def _inside_data_dir(target: str, cwd: str) -> bool:
    path = Path(os.path.expanduser(target))
    if not path.is_absolute():
        path = Path(cwd) / path
    home = Path(os.path.realpath(paths.home()))
    resolved = Path(os.path.realpath(path))
    if resolved == home or home in resolved.parents:
        return True
    try:
        st = os.stat(resolved)
    except (OSError, ValueError):
        return False
    return (st.st_dev, st.st_ino) in _inodes()
