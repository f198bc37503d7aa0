"""`mem-review uninstall`: remove exactly the hooks, MCP server and tool permissions
install added, nothing else."""

from __future__ import annotations

import argparse

from reviewer.commands import client_setup
from reviewer.project import resolve as project_dir


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scope", choices=("project", "user", "local"), default="local",
                        help="which settings file (as for install)")
    parser.add_argument("--project", metavar="DIR",
                        help="the project to uninstall from (default: the current one)")
    client_setup.add_argument(parser)


def run(args: argparse.Namespace) -> int:
    from reviewer.claude_code import mcp_config, settings_file

    project = project_dir(args.project)
    if args.client:
        return client_setup.uninstall(args, project)
    from reviewer.commands import memory_door

    memory_door.on_uninstall(args.scope, project)
    # Permissions first: the hooks' uninstall then finds the file as it was backed up.
    allowed = mcp_config.disallow(args.scope, project)
    if allowed.changed:
        print(f"removed mem-review tool permissions from {allowed.path}")
    server = mcp_config.uninstall(args.scope, project)
    if server.changed:
        how = " (install had created it)" if server.removed_file else (
            " (restored as it was before install)" if server.restored_exactly else "")
        print(f"removed the mem-review MCP server from {server.path}{how}")
        if server.backup is not None:
            print(f"backup of the previous file: {server.backup}")
    change = settings_file.uninstall(args.scope, project)
    if not change.changed:
        print(f"no mem-review hooks in {change.path}; nothing changed")
        _forget_exclude(project)
        return 0
    if change.removed_file:
        print(f"removed {change.path} (install had created it)")
    elif change.restored_exactly:
        print(f"removed mem-review hooks from {change.path} (restored as it was before install)")
    else:
        print(f"removed mem-review hooks from {change.path}")
    if change.backup is not None:
        print(f"backup of the previous file: {change.backup}")
    _forget_exclude(project)
    return 0


def _forget_exclude(project: str) -> None:
    """Take back install's info/exclude line once settings.local.json is gone."""
    from pathlib import Path

    from reviewer.claude_code import git_exclude

    if not (Path(project) / ".claude" / "settings.local.json").exists() and (
        excluded := git_exclude.take_back(project)
    ) is not None:
        print(f"removed mem-review's .claude/settings.local.json line from {excluded}")
