"""`mem-review inject`: print exactly what the SessionStart hook would inject, and why.

The text goes to stdout unchanged (no JSON wrapper); the counts go to stderr, so
`mem-review inject > facts.txt` captures only what the model would read. Nothing is
recorded in the `injection` table: previewing is not injecting.
"""

from __future__ import annotations

import argparse
import sys

from reviewer.project import resolve


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", metavar="DIR", help="another project than the current one")
    parser.add_argument("--budget", type=int, metavar="CHARS",
                        help="try another size budget (default: the configured one)")


def run(args: argparse.Namespace) -> int:
    from reviewer.claude_code.inject import render_context

    project = resolve(args.project)
    text, stats = render_context(project, record=False, budget=args.budget)
    if text is None:
        print(f"{stats.line()}; nothing would be injected", file=sys.stderr)
        return 0
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    print(stats.line(), file=sys.stderr)
    return 0
