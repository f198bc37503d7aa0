"""`mem-review preview FILE`: print exactly what capture would send to the model.

Condensed and redacted, window by window, so a person can check what leaves the machine
before giving anything a key. Stdlib only: it must stay fast on multi-megabyte files.
"""

from __future__ import annotations

import argparse
import sys

from reviewer.commands.capture import check_transcript


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a Claude Code transcript (.jsonl)")


def run(args: argparse.Namespace) -> int:
    from capture.pipeline import preview_text

    path = check_transcript(args.file, nothing="nothing to preview")
    try:
        text = preview_text(path)
    except OSError as exc:
        from reviewer.errors import UserError

        raise UserError(f"{args.file}: {exc.strerror or exc}") from None
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0
