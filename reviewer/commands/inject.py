"""`mem-review inject`: print exactly what the SessionStart hook would inject, and why.

The text goes to stdout unchanged (no JSON wrapper); the counts go to stderr, so
`mem-review inject > facts.txt` captures only what the model would read. Nothing is
recorded in the `injection` table: previewing is not injecting.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reviewer.errors import UserError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", metavar="DIR", help="another project than the current one")
    parser.add_argument("--budget", type=int, metavar="CHARS",
                        help="try another size budget (default: the configured one)")


def resolve_project(given: str | None) -> str:
    from reviewer.project import project_root

    if given is None:
        return project_root()
    path = Path(given).expanduser()
    if not path.is_dir():
        raise UserError(f"{given}: no such directory")
    return project_root(path)


def run(args: argparse.Namespace) -> int:
    from reviewer.inject import render_context

    project = resolve_project(args.project)
    text, stats = render_context(project, record=False, budget=args.budget)
    if text is None:
        print(f"{stats.line()}; nothing would be injected", file=sys.stderr)
        return 0
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    print(stats.line(), file=sys.stderr)
    return 0
