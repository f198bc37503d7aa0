"""`mem-review uninstall`: remove exactly the hooks install added, nothing else."""

from __future__ import annotations

import argparse

from reviewer.project import resolve as project_dir


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scope", choices=("project", "user", "local"), default="local",
                        help="which settings file (as for install)")
    parser.add_argument("--project", metavar="DIR",
                        help="the project to uninstall from (default: the current one)")


def run(args: argparse.Namespace) -> int:
    from reviewer.claude_code import settings_file

    change = settings_file.uninstall(args.scope, project_dir(args.project))
    if not change.changed:
        print(f"no mem-review hooks in {change.path}; nothing changed")
        return 0
    if change.removed_file:
        print(f"removed {change.path} (install had created it)")
    elif change.restored_exactly:
        print(f"removed mem-review hooks from {change.path} (restored as it was before install)")
    else:
        print(f"removed mem-review hooks from {change.path}")
    if change.backup is not None:
        print(f"backup of the previous file: {change.backup}")
    return 0
