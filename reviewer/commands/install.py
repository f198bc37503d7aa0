"""`mem-review install`: add the SessionStart, SessionEnd and PreCompact hooks (and with
`--guard` the PreToolUse guard) to one Claude Code settings file."""

from __future__ import annotations

import argparse

from reviewer.project import resolve


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
    from reviewer.claude_code import settings_file

    change = settings_file.install(args.scope, resolve(args.project), guard=args.guard)
    if not change.changed:
        print(f"mem-review hooks already installed in {change.path}; nothing changed")
        return 0
    print(f"installed mem-review hooks in {change.path}")
    for entry in change.entries:
        print(f"  {entry}")
    if change.backup is not None:
        print(f"backup of the previous file: {change.backup}")
    return 0
