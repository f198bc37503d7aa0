"""`mem-review mcp`: the MCP server Claude Code starts (stdio), with `recall` and `remember`.

Built here, in the command layer, because `remember` checks evidence with capture's code
(reviewer/ below this layer may not import capture). The project is resolved like the
hooks do: CLAUDE_PROJECT_DIR, else the server's cwd, up to its git top level.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from reviewer.project import project_root, resolve

if TYPE_CHECKING:
    from reviewer.claude_code.remember import Checks

MAX_TRANSCRIPT_BYTES = 50_000_000  # a bigger file is not read to check one quote


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", metavar="DIR",
                        help="the project to answer for (default: CLAUDE_PROJECT_DIR or cwd)")


def run(args: argparse.Namespace) -> int:
    from reviewer.claude_code import mcp_server

    if args.project is not None:
        resolve(args.project)  # a missing directory is a one-line error, not a server
    cwd = args.project or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    project = project_root(cwd)
    mcp_server.serve(project, lambda: checks_for(cwd))
    return 0


def checks_for(cwd: str | os.PathLike[str]) -> Checks:
    """Capture's evidence check against the current session's transcript."""
    from reviewer.claude_code.remember import Checks
    from reviewer.claude_code.sessions import transcript_of

    # Only a transcript a hook payload named (never the newest file in the folder, which
    # the agent can write itself).
    path = transcript_of(project_root(cwd))
    if path is None:
        return Checks()

    def grounded(fact: str, evidence: str) -> bool | None:
        import dataclasses

        from capture.condense import condense_file
        from capture.verify import verify
        from reviewer.sanitize.redact import redact

        try:
            if path.stat().st_size > MAX_TRANSCRIPT_BYTES:
                return None
            turns = condense_file(path).turns
        except OSError:
            return None
        # Judged as the worker judges a candidate: against the redacted turns, as the
        # evidence itself was redacted.
        redacted = [dataclasses.replace(t, text=redact(t.text)) for t in turns]
        return verify(fact, evidence, redacted).supported

    return Checks(grounded=grounded, session_id=path.stem)
