"""capture/json_line.py: msgspec reads a transcript line exactly as the stdlib path does,
or leaves it to that path (generated values, then bytes mangled the ways files are)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capture import json_line
from capture.transcript import _parse


def _stdlib(raw: bytes, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as m:
        m.setattr(json_line, "_decode", [None])  # as if msgspec were not installed
        return _parse(raw)


_scalars = (st.none() | st.booleans() | st.floats(allow_nan=True)
            | st.integers(min_value=-(10**30), max_value=10**30) | st.text())
_values = st.recursive(_scalars, lambda kids: st.lists(kids, max_size=4)
                       | st.dictionaries(st.text(max_size=8), kids, max_size=4), max_leaves=12)
_mangles = st.sampled_from([b"", b"\xef\xbb\xbf", b"\x0c", b" \t", b"\xff", b"}", b"x", b"\x00",
                            b"\\ud800", b'"', b"\n", b"1" * 30, b"NaN", b"[" * 1100])


@settings(max_examples=400, deadline=None)
@given(value=_values, ascii_only=st.booleans(), before=_mangles, after=_mangles,
       at=st.integers(min_value=0, max_value=200), inside=_mangles)
def test_msgspec_or_the_stdlib_same_value(
    value: Any, ascii_only: bool, before: bytes, after: bytes, at: int, inside: bytes,
) -> None:
    raw = json.dumps({"type": "user", "message": value}, ensure_ascii=ascii_only).encode(
        "utf-8", "surrogatepass")
    mp = pytest.MonkeyPatch()
    try:
        for line in (raw, before + raw + after, raw[:at] + inside + raw[at:]):
            assert repr(_parse(line)) == repr(_stdlib(line, mp))
    finally:
        mp.undo()


def test_msgspec_reads_the_lines_it_is_given() -> None:
    """msgspec is a dependency: a plain line never falls back (the fast path is taken)."""
    assert json_line.decode(b'{"type": "user", "n": 123456789012345678901234567890}') == {
        "type": "user", "n": 123456789012345678901234567890}
    for refused in (b'{"a": NaN}', b'{"a": "\\ud800"}', b'\xef\xbb\xbf{}', b'{"a": "\xff"}',
                    b"\x0c{}", b"[" * 1100 + b"]" * 1100):
        assert json_line.decode(refused) is json_line.UNDECIDED
