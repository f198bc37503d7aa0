"""Context layers the full detector adds to ``redact``'s (``reviewer.sanitize.detect``).

Each finder takes ``(text, text.lower())`` and yields ``(start, end, kind)`` spans, like
redact's own; they run only in a process that imported ``detect`` (never a hook).

- base64 wrapped over lines (a PEM, a .env or a kubeconfig encoded and wrapped at 64 or
  76 columns, in YAML, a quoted string list or a Read's numbered lines): the lines are
  joined and decoded as one run, and hidden whole when what they decode to holds a
  secret; each line alone decodes to garbage, so a per-run rule misses all but the first.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from reviewer.sanitize import redact as _redact

Span = tuple[int, int, str]

# One line of a wrapped base64 block: optional indentation, quote marks, a Read line
# number, list dashes; then only base64 characters.
_B64_LINE_RE = re.compile(
    r"[ \t>\-]*(?:\d+→)?[ \t]*[\"'`]?(?P<b>[A-Za-z0-9+/]{16,}={0,2})[\"'`]?[ \t,+;\\]*"
)
_LINE_BREAK_RE = re.compile(r"\r?\n|\\r\\n|\\n")
_MAX_BLOCK = 256 * 1024
_MIN_LINES = 2


def _lines(text: str) -> Iterator[tuple[int, int]]:
    pos = 0
    for m in _LINE_BREAK_RE.finditer(text):
        yield pos, m.start()
        pos = m.end()
    yield pos, len(text)


def _decodes_to_secret(body: str) -> bool:
    body = body.rstrip("=")
    if len(body) % 4 == 1:
        return False
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if "PRIVATE KEY" in decoded:
        return True
    return _redact.redact(decoded) != decoded


def find_wrapped_base64(text: str, low: str) -> Iterator[Span]:
    """Runs of two or more lines of base64, decoded together."""
    if "\n" not in text and "\\n" not in text:
        return
    run: list[tuple[int, int, str]] = []  # (start, end, base64) of each line of the run

    def flush() -> Iterator[Span]:
        if len(run) >= _MIN_LINES:
            body = "".join(b for _, _, b in run)
            if len(body) <= _MAX_BLOCK and _decodes_to_secret(body):
                yield run[0][0], run[-1][1], "base64-secret"
        run.clear()

    for s, e in _lines(text):
        m = _B64_LINE_RE.fullmatch(text, s, e)
        if m is None:
            yield from flush()
            continue
        b = m.group("b")
        if run and len(run[-1][2]) < len(b):
            yield from flush()  # a shorter line ends a block: this one starts another
        run.append((m.start("b"), m.end("b"), b))
        if b.endswith("="):
            yield from flush()
    yield from flush()


FINDERS = (find_wrapped_base64,)
