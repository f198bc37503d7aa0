"""`mem-review install`: add the SessionStart, SessionEnd and PreCompact hooks (and with
`--guard` the PreToolUse guard) to one Claude Code settings file, and register the
`mem-review` MCP server (recall, remember) for the same scope, its tools allowed."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from reviewer.commands import client_setup
from reviewer.project import resolve

if TYPE_CHECKING:
    from reviewer.claude_code.mcp_config import Change


def configure(parser: argparse.ArgumentParser) -> None:
    # `local` by default: the hooks name this machine's executable by absolute path, which
    # belongs in the person's own (uncommitted) file, not in one the team commits.
    parser.add_argument("--scope", choices=("project", "user", "local"), default="local",
                        help="local (default): .claude/settings.local.json (this project, "
                        "only you); project: .claude/settings.json (committed, shared with "
                        "the team: add --portable); user: ~/.claude/settings.json (every project)")
    parser.add_argument("--portable", action="store_true",
                        help="call `mem-review` from PATH, doing nothing where it is not "
                        "installed, instead of this machine's absolute path (for a settings "
                        "file the team commits)")
    parser.add_argument("--guard", action="store_true",
                        help="also deny tool calls that would write to mem-review's store or "
                        "approve facts (a PreToolUse hook)")
    parser.add_argument("--project", metavar="DIR",
                        help="the project to install into (default: the current one)")
    from reviewer.commands import memory_door

    memory_door.configure(parser)
    client_setup.add_argument(parser)


def run(args: argparse.Namespace) -> int:
    from reviewer.claude_code import mcp_config, settings_file

    project = resolve(args.project)
    if args.client:
        return client_setup.install(args, project)
    mcp_config.check(args.scope, project)  # refuse before writing anything
    exe = settings_file.PORTABLE_EXE if args.portable else None
    change = settings_file.install(args.scope, project, guard=args.guard, exe=exe,
                                   deny=not args.portable)
    if not change.changed:
        print(f"mem-review hooks already installed in {change.path}; nothing changed")
    else:
        print(f"installed mem-review hooks in {change.path}")
        for entry in change.entries:
            print(f"  {entry}")
        if change.backup is not None:
            print(f"backup of the previous file: {change.backup}")
    mcp_exe = settings_file.EXE_NAME if args.portable else settings_file.executable()
    _report(mcp_config.install(args.scope, project, exe=mcp_exe))
    _report(mcp_config.allow(args.scope, project, hooks_written=change.changed))
    if args.scope in ("local", "project"):  # both write .claude/settings.local.json
        from reviewer.claude_code import git_exclude

        if (excluded := git_exclude.keep_out(project)) is not None:
            print(f"kept .claude/settings.local.json out of git status ({excluded})")
    from reviewer.commands import memory_door

    memory_door.on_install(args, project)
    if args.guard and not args.portable:
        _report_sandbox()
    if args.guard and args.portable:
        print("note: the native permissions.deny rules name this machine's data directory, "
              "so --portable leaves them out of the shared file; each person adds them with "
              "`mem-review install --scope local --guard`")
    if args.scope == "project" and not args.portable:
        print("note: .claude/settings.json is usually committed, and these hooks name this "
              "machine's executable; `--portable` writes a form that works on every clone")
    return 0


def _report_sandbox() -> None:
    """What turning Claude Code's sandbox on changes, and whether it can run here."""
    from reviewer.claude_code import sandbox

    print(sandbox.CHANGES)
    works, why = sandbox.probe()
    if not works:
        print(f"warning: the sandbox cannot start on this machine ({why}); Claude Code will "
              "refuse to start until it can, or remove sandbox.failIfUnavailable to run "
              "with the guard as a tripwire only")


def _report(change: Change) -> None:
    """One line (plus entries) for what mcp_config did to one file."""
    if not change.changed:
        print(f"mem-review {change.what} already in {change.path}; nothing changed")
        return
    print(f"added mem-review {change.what} to {change.path}")
    for entry in change.entries:
        print(f"  {entry}")
    if change.backup is not None:
        print(f"backup of the previous file: {change.backup}")
