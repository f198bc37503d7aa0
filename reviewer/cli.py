"""The `mem-review` command: a thin dispatcher that imports only the command it runs.

Stdlib only at import time. `mem-review hook ...` is on Claude Code's critical path, so
nothing heavy (textual, anthropic, sqlmodel) may load before a command asks for it.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

# name -> (module with configure(parser) and run(args) -> int, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "review": ("reviewer.commands.review", "open the review TUI on this project (default)"),
    "demo": ("reviewer.commands.demo", "open the TUI on a scratch store of sample facts"),
    "hook": ("reviewer.commands.hook", "entry point for Claude Code hooks (fails open)"),
    "worker": ("reviewer.commands.worker", "extract candidate facts from queued sessions"),
    "capture": ("reviewer.commands.capture", "queue transcripts by hand (backfill)"),
    "retry": ("reviewer.commands.retry", "put failed capture jobs back in the queue"),
    "preview": ("reviewer.commands.preview", "print exactly what would be sent to the model"),
    "list": ("reviewer.commands.listing", "list this project's facts"),
    "status": ("reviewer.commands.status", "queue, store and spend at a glance"),
    "import": ("reviewer.commands.importing", "import facts from a `list --json` export"),
    "inject": ("reviewer.commands.inject", "print what the SessionStart hook would inject"),
    "install": ("reviewer.commands.install", "add mem-review's hooks to Claude Code settings"),
    "uninstall": ("reviewer.commands.uninstall", "remove exactly what install added"),
    "doctor": ("reviewer.commands.doctor", "check the installation, each line with a fix"),
    "mcp": ("reviewer.commands.mcp", "MCP server (stdio) with recall and remember tools"),
    "share": ("reviewer.commands.share", "write shareable facts into .mem-review/ for git"),
    "log": ("reviewer.commands.history", "what happened to a fact (or to this project's)"),
    "export": ("reviewer.commands.export", "write approved facts as Claude Code rules"),
}


def _parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog="mem-review",
        description="A long-term memory for Claude Code that a person reviews.",
        epilog="commands:\n"
        + "\n".join(f"  {name:<10} {help_}" for name, (_, help_) in COMMANDS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="store_true", help="print the version")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "hook":
        # Fast path: no argparse tree, no logging setup; the hook module never raises.
        from reviewer.commands.hook import main as hook_main

        return hook_main(args[1:])
    if args and args[0] in ("-h", "--help"):
        _parser().print_help()
        return 0
    if args and args[0] == "--version":
        from reviewer import __version__

        print(f"mem-review {__version__}")
        return 0
    name = args[0] if args and not args[0].startswith("-") else "review"
    rest = args[1:] if args and args[0] == name else args
    if name not in COMMANDS:
        print(f"mem-review: unknown command {name!r} (see mem-review --help)", file=sys.stderr)
        return 2
    import argparse
    import importlib

    module_name, help_ = COMMANDS[name]
    module = importlib.import_module(module_name)
    # No abbreviations: `--keep` must never mean `--keep-status` (issue 11).
    parser = argparse.ArgumentParser(prog=f"mem-review {name}", description=help_,
                                     allow_abbrev=False)
    module.configure(parser)
    ns = parser.parse_args(rest)
    return _run(module, ns)


def _run(module: object, ns: argparse.Namespace) -> int:
    from reviewer.errors import UserError
    from reviewer.paths import HomeError

    try:
        return int(module.run(ns) or 0)  # type: ignore[attr-defined]
    except (UserError, HomeError) as exc:
        print(f"mem-review: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # one line for the person, the traceback for the log
        import errno
        import traceback

        from reviewer.log import log
        from reviewer.store import db

        if db.is_damage(exc):  # found mid-command: say what to do, stop writing there
            from reviewer import paths

            db.mark_damaged(None, exc)
            log("cli", f"damaged store: {type(exc).__name__}: {exc}")
            print(f"mem-review: {db.damaged(paths.db_path(), _first_line(exc))}",
                  file=sys.stderr)
            return 1

        if isinstance(exc, OSError) and exc.errno == errno.EROFS:  # the log is there too
            where = f"{exc.filename} is" if exc.filename else "the data dir is"
            print(f"mem-review: {where} on a read-only filesystem; nothing was written: "
                  "remount it read-write, or point MEM_REVIEW_HOME at a writable directory",
                  file=sys.stderr)
            return 1
        log("cli", "".join(traceback.format_exception(exc)))
        print(f"mem-review: unexpected error: {type(exc).__name__}: {exc} (details in the log)",
              file=sys.stderr)
        return 1


def _first_line(exc: BaseException) -> str:
    """sqlalchemy's message holds the SQL after the first line; the cause is enough."""
    orig = getattr(exc, "orig", None)
    return str(orig if orig is not None else exc).splitlines()[0] if str(exc) else repr(exc)


if __name__ == "__main__":
    sys.exit(main())
