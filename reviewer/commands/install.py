"""`mem-review install`: add the SessionStart, SessionEnd and PreCompact hooks (and with
`--guard` the PreToolUse guard) to one Claude Code settings file, and register the
`mem-review` MCP server (recall, remember) for the same scope, its tools allowed."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from reviewer.project import resolve

if TYPE_CHECKING:
    from reviewer.claude_code.mcp_config import Change


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scope", choices=("project", "user", "local"), default="project",
                        help="project: .claude/settings.json (shared with the team); "
                        "user: ~/.claude/settings.json (every project); "
                        "local: .claude/settings.local.json (this project, only you)")
    parser.add_argument("--guard", action="store_true",
                        help="also deny tool calls that would write to mem-review's store or "
                        "approve facts (a PreToolUse hook)")
    parser.add_argument("--project", metavar="DIR",
                        help="the project to install into (default: the current one)")


def run(args: argparse.Namespace) -> int:
    from reviewer.claude_code import mcp_config, settings_file

    project = resolve(args.project)
    mcp_config.check(args.scope, project)  # refuse before writing anything
    change = settings_file.install(args.scope, project, guard=args.guard)
    if not change.changed:
        print(f"mem-review hooks already installed in {change.path}; nothing changed")
    else:
        print(f"installed mem-review hooks in {change.path}")
        for entry in change.entries:
            print(f"  {entry}")
        if change.backup is not None:
            print(f"backup of the previous file: {change.backup}")
    _report(mcp_config.install(args.scope, project, exe=settings_file.executable()))
    _report(mcp_config.allow(args.scope, project, hooks_written=change.changed))
    return 0


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
