"""A transcript line's JSON, decoded by msgspec when it is installed: 3× the stdlib's
speed, and parsing is most of what reading a transcript costs (`preview`, the worker).

Only what msgspec decodes is taken from it, and there both agree (same values, big
integers as ints, the last of duplicate keys); what the stdlib path bends and msgspec
refuses (NaN, lone surrogates, invalid UTF-8 replaced, a form feed as whitespace, depth)
is left to the caller's stdlib path, so every line reads as before
(tests/test_json_line.py compares both on generated and mangled lines). msgspec is
imported on first use: hooks import capture.transcript and stay stdlib-only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

UNDECIDED: Any = object()  # msgspec is absent or refused the line: parse it the stdlib way
_decode: list[Callable[[bytes], Any] | None] = []


def _decoder() -> Callable[[bytes], Any] | None:
    try:
        import msgspec.json
    except ImportError:
        return None
    return msgspec.json.Decoder().decode


def decode(raw: bytes) -> Any:
    """The line's value, or UNDECIDED."""
    if not _decode:
        _decode.append(_decoder())
    fast = _decode[0]
    if fast is None:
        return UNDECIDED
    try:
        return fast(raw)
    except Exception:  # malformed for msgspec (DecodeError, RecursionError): the stdlib decides
        return UNDECIDED
