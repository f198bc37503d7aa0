"""The opt-in PreToolUse guard: the agent may not approve its own memories.

Only a person, in the review screen, turns a candidate into an approved fact. An agent
with a shell could side-step that by writing to the store directly, running the approving
import (`mem-review import --keep-status`), opening the review screen itself, or calling
the store's approving functions from Python. `check` denies those tool calls; everything
else passes untouched (None). Stdlib only: it runs before every matching tool call.

It is a tripwire against a model that drifts, not a sandbox against a determined
adversary: a shell can always obfuscate. File contents written by Edit/Write are not
scanned (editing mem-review's own source must keep working); only where they write is.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

from reviewer import paths

WRITE_TOOLS = {"Edit": "file_path", "MultiEdit": "file_path", "Write": "file_path",
               "NotebookEdit": "notebook_path"}
# Reading the log or listing the dir is harmless; anything else touching the dir is not.
READ_ONLY = {"cat", "less", "more", "head", "tail", "ls", "wc", "stat", "file", "grep",
             "rg", "du", "tree", "realpath", "readlink", "test", "["}
SHELL_WRITES = re.compile(r">|\btee\b|\$\(|`|\bsed\s+-i|\bdd\b")
APPROVING_CODE = re.compile(
    r"(?is)(\breviewer\b|\bStore\s*\().*\b(approve|edit|verify|restore|import_facts)\s*\("
)
APPROVING_SQL = re.compile(
    r"(?is)\b(update\s+fact\b|insert\s+(or\s+\w+\s+)?into\s+fact\b|delete\s+from\s+fact\b|"
    r"update\s+fact_history\b|delete\s+from\s+fact_history\b)"
)
WRAPPERS = {"env", "sudo", "nohup", "exec", "command", "time", "nice", "uvx", "pipx", "run",
            "uv", "xargs", "stdbuf", "timeout"}
# Code and SQL are only suspect when something could run them (not in a grep or a commit
# message that happens to mention them).
RUNNERS = re.compile(r"(?i)\b(python[\d.]*|sqlite3|uv\s+run|pipx\s+run)\b|store\.db")
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
SEGMENT_SPLIT = re.compile(r"&&|\|\||[;|&\n()]")


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
        elif isinstance(target, str) and _in_shared_folder(target, cwd):
            reason = f"{tool} would write a shared fact ({SHARED_DIR}/ holds a person's approvals)"
        elif isinstance(target, str) and REF_FILES.search(target.replace(os.sep, "/")):
            reason = (f"{tool} would rewrite git's record of the remote, which vouches for "
                      "shared facts")
    elif tool == "Bash":
        command = tool_input.get("command")
        if isinstance(command, str):
            reason = bash_reason(command)
    if reason is None:
        return None
    return json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": (
                f"mem-review guard: {reason}. Facts in mem-review are approved only by a "
                "person in its review screen, so this tool call is not allowed."
            ),
        }
    })


def bash_reason(command: str) -> str | None:
    """Why a shell command is refused, or None."""
    if RUNNERS.search(command):
        if APPROVING_SQL.search(command):
            return "the command changes mem-review's facts table with SQL"
        if APPROVING_CODE.search(command):
            return "the command calls mem-review's approving functions"
    for words in _segments(command):
        args = _mem_review_args(words)
        if args is None:
            continue
        sub = next((a for a in args if not a.startswith("-")), "review")
        if sub == "import" and any(a.startswith("--keep-status") for a in args):
            return "`mem-review import --keep-status` would approve facts without review"
        if sub == "review" and not any(a in ("-h", "--help", "--version") for a in args):
            return "the review screen is for the person, not the agent"
    if _mentions_data_dir(command) and not _read_only(command):
        return f"the command touches mem-review's data directory ({paths.home()})"
    if SHARED_MENTION.search(command) and not (_read_only(command) or _git_read(command)):
        return f"the command touches the shared facts ({SHARED_DIR}/ holds a person's approvals)"
    if REMOTE_REF_WRITE.search(command) or (REF_FILES.search(command)
                                            and not _read_only(command)):
        return "the command rewrites a remote-tracking ref, which vouches for shared facts"
    return None


def _segments(command: str) -> Iterator[list[str]]:
    for part in SEGMENT_SPLIT.split(command):
        try:
            words = shlex.split(part, comments=True)
        except ValueError:
            words = part.split()
        if words:
            yield words


def _mem_review_args(words: list[str]) -> list[str] | None:
    """The arguments when the program run is `mem-review` (or `python -m reviewer.cli`),
    after any `VAR=value` prefixes and wrappers like `env`, `uvx`, `nohup`; else None."""
    i = 0
    while i < len(words) and (
        ("=" in words[i] and not words[i].startswith(("=", "-")))
        or os.path.basename(words[i]) in WRAPPERS
        or (i > 0 and words[i].startswith("-") and os.path.basename(words[i - 1]) in WRAPPERS)
        or (i > 0 and words[i - 1] == "timeout" and words[i][:1].isdigit())
    ):
        i += 1
    if i >= len(words):
        return None
    program = os.path.basename(words[i])
    if program in ("mem-review", "mem-review.exe"):
        return words[i + 1:]
    if program.startswith("python"):
        rest = words[i + 1:]
        for j, word in enumerate(rest):
            if word == "-m" and rest[j + 1:j + 2] == ["reviewer.cli"]:
                return rest[j + 2:]
            if word.endswith(("reviewer/cli.py", "reviewer\\cli.py")):
                return rest[j + 1:]
    return None


def _data_dir_spellings() -> list[str]:
    home = paths.home()
    forms = {str(home), os.path.realpath(home)}
    user_home = str(Path.home())
    for form in list(forms):
        if form.startswith(user_home + os.sep):
            rest = form[len(user_home):]
            forms.update({"~" + rest, "$HOME" + rest, "${HOME}" + rest})
    forms.update({"$MEM_REVIEW_HOME", "${MEM_REVIEW_HOME}"})
    return sorted(forms, key=len, reverse=True)


def _mentions_data_dir(command: str) -> bool:
    return any(form in command for form in _data_dir_spellings())


def _read_only(command: str) -> bool:
    """A single read-only command with no redirection or substitution."""
    if SHELL_WRITES.search(command) or len(list(_segments(command))) != 1:
        return False
    words = next(_segments(command))
    while words and ("=" in words[0] and not words[0].startswith("=")):
        words = words[1:]  # VAR=value prefixes
    return bool(words) and os.path.basename(words[0]) in READ_ONLY


def _git_read(command: str) -> bool:
    """A single `git log|show|diff|status|blame|ls-files|ls-tree` with no redirection."""
    if SHELL_WRITES.search(command) or len(list(_segments(command))) != 1:
        return False
    words = next(_segments(command))
    return len(words) > 1 and words[0] == "git" and words[1] in GIT_READS


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
    return resolved == home or home in resolved.parents
