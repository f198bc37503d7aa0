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
- memory: inside ``collecting()``, every value redacted is kept, and any later
  occurrence of it in any text is redacted too, context words or not (a model that
  repeats ``hunter2!x`` without "password" before it).

The worker, ``preview`` and the store's door import this; a hook never does
(pyproject's import-linter contract keeps it off their path).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from reviewer.sanitize import gitleaks, layers
from reviewer.sanitize import redact as _redact
from reviewer.sanitize.redact import MARKER_RE, redact, redact_obj, redact_report

__all__ = ["MARKER_RE", "collecting", "redact", "redact_obj", "redact_report", "remembered"]

REMEMBERED = "remembered"  # marker kind of a value seen redacted earlier in the same job
_MIN_REMEMBERED = 5  # shorter values are words, not secrets worth hiding everywhere


def _remembered(text: str, low: str) -> Iterator[tuple[int, int, str]]:
    """Every occurrence of a value this job already redacted (whatever surrounds it)."""
    if not _redact._SINKS:
        return
    values = {v for sink in _redact._SINKS for v in sink if len(v.strip()) >= _MIN_REMEMBERED}
    for value in values:
        v = value.strip()
        start = text.find(v)
        while start >= 0:
            yield start, start + len(v), REMEMBERED
            start = text.find(v, start + len(v))


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


def remembered(values: set[str]) -> set[str]:
    """The values worth remembering: no markers, not too short."""
    out = set()
    for value in values:
        v = value.strip()
        if len(v) >= _MIN_REMEMBERED and not MARKER_RE.fullmatch(v):
            out.add(v)
    return out


for _find in (gitleaks.find, *layers.FINDERS, _remembered):
    _redact.add_finder(_find)
