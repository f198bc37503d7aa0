"""The full secret detector: gitleaks' maintained rules under our own context layers.

``reviewer.sanitize.redact`` holds the context layers (key names in many languages,
command-line flags, config formats, code assignments, key blocks) and stays stdlib and
small, because the hooks' log writer imports it. This module adds, in the process that
imports it:

- gitleaks' rule set, loaded as data (``reviewer.sanitize.gitleaks``): the provider
  shapes of 200-odd services, maintained upstream;
- more context layers (``reviewer.sanitize.layers``): base64 wrapped over lines (a PEM
  encoded and wrapped at 76 columns) decoded as one run, connection strings, query
  parameters, XML and ``.ini`` values;
- a private key's base64 body with its BEGIN line out of view (``reviewer.sanitize.headless``),
  judged by what its bytes hold;
- shapes found by class (``reviewer.sanitize.shapes``): MFA seeds and recovery codes,
  credentials in URL paths, a value given in parts, random tokens whatever the words;
- memory: inside ``collecting()``, every value redacted is kept, and any later
  occurrence of it in any text is redacted too, context words or not (a model that
  repeats ``hunter2!x`` without "password" before it).

The worker, ``preview`` and the store's door import this; a hook never does
(pyproject's import-linter contract keeps it off their path).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import functools
import html
import json
import re
import urllib.parse
from collections.abc import Iterator

from reviewer.sanitize import (
    bound,
    continued,
    flags,
    gitleaks,
    headless,
    layers,
    named,
    positional,
    prefixed,
    printed,
    protocols,
    reveal,
    shapes,
    wallets,
)
from reviewer.sanitize import redact as _redact
from reviewer.sanitize.redact import MARKER_RE, redact, redact_obj, redact_report

__all__ = ["MARKER_RE", "collecting", "redact", "redact_obj", "redact_report", "remembered",
           "remembering"]

REMEMBERED = "remembered"  # marker kind of a value seen redacted earlier in the same job
_MIN_REMEMBERED = 5  # shorter values are words, not secrets worth hiding everywhere


_HEX_RE = re.compile(r"[0-9a-fA-F]{16,}")
_PIECE_SPLIT_RE = re.compile(r"(?:\\[nrt]|[&;,\s\"'<>])+")  # between values
_SUBPIECE_SPLIT_RE = re.compile(r"[:/@=]+")  # inside one: user:password, a/b/c, k=v
_ASCII_RUN_RE = re.compile(r"[\x21-\x7e]{8,}")  # a value glued to words of another script
_MIN_PIECE = 7  # "…/catch/1930325/iudbvd2": a webhook id and its secret part


@functools.lru_cache(maxsize=8192)
def forms(value: str) -> frozenset[str]:
    """What a redacted span is remembered as: itself, and each long piece of it that looks
    like a credential (a span may carry more than the secret: ``tok&dry_run=0``, a whole
    ``a=1;b=2`` line, ``user:password``, a key block's lines, ``改成了<password>``), so a
    model repeating only the secret is caught too."""
    v = value.strip()
    if len(v) < _MIN_REMEMBERED or MARKER_RE.search(v):
        return frozenset()
    out = {v}
    pieces = set(_PIECE_SPLIT_RE.split(v)) | set(_ASCII_RUN_RE.findall(v))
    for p in list(pieces):
        pieces.update(_SUBPIECE_SPLIT_RE.split(p))
    pieces.update(p[2:] for p in list(pieces) if p.startswith("0x"))
    for piece in pieces:
        p = piece.strip("-.,;:!?")
        if p != v and len(p) >= _MIN_PIECE and _credential_like(p):
            out.add(p)
    for p in list(out):
        text = _decoded(p)
        if text is not None and text != v:
            out.update(forms(text))  # a k8s Secret's ``data:``: a model may decode it
    for p in list(out):
        out.update(w for w in _spellings(p) if len(w) >= _MIN_REMEMBERED)
    return frozenset(out)


_B64_RE = re.compile(r"[A-Za-z0-9+/_\-]{8,4096}={0,2}")
_PRINTABLE_RE = re.compile(r"[\x20-\x7e\t\r\n]+")


def _decoded(v: str) -> str | None:
    """The text a base64 value encodes (``c3VwZXJzZWNyZXQ=`` → ``supersecret``), if text."""
    if not _B64_RE.fullmatch(v) or v.isalpha() or v.isdigit():
        return None
    body = v.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = (base64.urlsafe_b64decode(padded) if "-" in body or "_" in body
               else base64.b64decode(padded, validate=True))
        text = raw.decode("ascii")
    except (binascii.Error, ValueError):
        return None
    text = text.strip()
    return text if len(text) >= _MIN_REMEMBERED and _PRINTABLE_RE.fullmatch(text) else None


def _spellings(v: str) -> set[str]:
    """The same value as a model may write it back: percent-decoded or percent-encoded
    (``p%40ss`` / ``p@ss``), with its string escapes undone (``a\\"b`` / ``a"b``,
    ``\\u0061``), or escaped the way JSON writes it."""
    out = set()
    if "%" in v:
        out.add(urllib.parse.unquote(v))
    quoted = urllib.parse.quote(v, safe="")
    if quoted != v:
        out.add(quoted)
    if "\\" in v:
        try:
            out.add(json.loads(f'"{v}"'))
        except ValueError:
            out.add(v.replace('\\"', '"').replace("\\'", "'").replace("\\\\", "\\"))
    escaped = json.dumps(v)[1:-1]
    if escaped != v:
        out.add(escaped)
    if "&" in v or "<" in v or ">" in v:  # an XML or HTML file's ``&amp;`` and its reader's "&"
        out.update((html.unescape(v), html.escape(v, quote=False)))
    if _HEX_RE.fullmatch(v):  # hex read back in the other case
        out.update((v.lower(), v.upper()))
    out.discard(v)
    return out


def _credential_like(p: str) -> bool:
    has_alpha = any(c.isalpha() for c in p)
    has_digit = any(c.isdigit() for c in p)
    return has_alpha and (has_digit or any(not c.isalnum() for c in p)) and "=" not in p[1:-2]


def _remembered(text: str, low: str) -> Iterator[tuple[int, int, str]]:
    """Every occurrence of a value this job already redacted (whatever surrounds it)."""
    if not _redact._SINKS:
        return
    values = remembered({v for sink in _redact._SINKS for v in sink})
    if len(values) > _FIND_EACH:  # one pass over the text, not one per value
        for m in _alternation(frozenset(values)).finditer(text):
            yield m.start(), m.end(), REMEMBERED
        return
    for v in values:
        start = text.find(v)
        while start >= 0:
            yield start, start + len(v), REMEMBERED
            start = text.find(v, start + len(v))


# Up to this many values, each is found with `str.find` (C, and every occurrence, even one
# overlapping another value's); past it, one alternation regex. A job full of secrets
# (hundreds of values) took 3x longer through the alternation, recompiled as each value
# was added (tests/test_secrets_everywhere.py's worker: 60 s to 21 s).
_FIND_EACH = 2048


@functools.lru_cache(maxsize=4)
def _alternation(values: frozenset[str]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(v) for v in sorted(values, key=len, reverse=True)))


@contextlib.contextmanager
def collecting() -> Iterator[set[str]]:
    """Within the block, every value any ``redact`` call replaces is added to the set
    yielded, and is redacted wherever it appears again (this thread's job)."""
    found: set[str] = set()
    _redact._SINKS.append(found)
    try:
        yield found
    finally:
        _redact._SINKS.remove(found)


def remembering() -> bool:
    """Whether a job's memory is collecting (``redact`` then depends on what it saw)."""
    return bool(_redact._SINKS)


def remembered(values: set[str]) -> set[str]:
    """The values worth remembering: no markers, not too short."""
    out: set[str] = set()
    for value in values:
        out |= forms(value)
    return out


# The condenser marks each line of a command's output with "→ " (and a Read's lines carry
# their number and "→"): the finders see those marks as the spaces they stand for (same
# length, so spans need no mapping), or a line-oriented shape (a CSV header, a key under
# its header line, ``name:`` then ``value:``) would be read off its line. Every finder gets
# the view: made once a text, and a text whose only non-ASCII characters were the marks is
# then ASCII, which spares the finders their other-script word lists.
_LINE_MARK_RE = re.compile(r"(?m)^(?:[ \t]*\d{1,7})?→ ?")


def _unmarked(text: str) -> str:
    """``text`` with its line marks blanked: the lines holding a "→" are found by ``find``
    and the mark matched at their start (the same matches as a ``sub`` of the multi-line
    regex, which tries its ``^`` at every character of a long window)."""
    out: list[str] = []
    last = 0
    p = text.find("→")
    while p >= 0:
        ls = text.rfind("\n", 0, p) + 1
        m = _LINE_MARK_RE.match(text, ls)
        if m is not None:
            out += (text[last:ls], " " * (m.end() - ls))
            last = m.end()
        nl = text.find("\n", p)  # a line's other "→" are no mark: its next line is next
        p = text.find("→", nl + 1) if nl >= 0 else -1
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


_VIEW: list[tuple[str, str, str]] = []  # the last text seen, and its unmarked text and low


def _view(text: str, low: str) -> tuple[str, str]:
    """``text`` and ``low`` without line marks, made once for all the finders of a pass."""
    if "→" not in text:
        return text, low
    last = _VIEW[0] if _VIEW else None  # read once: another thread may replace it
    if last is not None and last[0] is text:
        return last[1], last[2]
    view = (text, _unmarked(text), _unmarked(low))
    _VIEW[:] = [view]
    return view[1], view[2]


def _seeing_lines(find: _redact.Finder) -> _redact.Finder:
    @functools.wraps(find)
    def finder(text: str, low: str) -> Iterator[tuple[int, int, str]]:
        return find(*_view(text, low))

    return finder


# Context one line or one message away, and prefixes that name a key: small finders run
# as one (a finder's call and line view cost more than these gates on a short turn).
_CONTEXTS = (*printed.FINDERS, *continued.FINDERS, *positional.FINDERS, *reveal.FINDERS,
             *wallets.FINDERS, *prefixed.FINDERS, *flags.FINDERS, *bound.FINDERS)


def _contexts(text: str, low: str) -> Iterator[tuple[int, int, str]]:
    for find in _CONTEXTS:
        yield from find(text, low)


for _find in (gitleaks.find, *headless.FINDERS, *layers.FINDERS, *shapes.FINDERS, *named.FINDERS,
              *protocols.FINDERS, _contexts):
    _redact.add_finder(_seeing_lines(_find))
_redact.add_finder(_remembered)
