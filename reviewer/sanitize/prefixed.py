"""A token whose own prefix says it is a secret key: ``hl_sk_…``, ``acme-secret-…``,
``xyz_pat_…``, ``svc_apikey_…``.

Providers mark their keys with a short prefix, and many put a word for what the key is in
it (``sk`` for a secret key, ``pat`` for a personal access token, ``token``, ``secret``).
A provider no rule list knows yet still writes that word: the prefix and a generated rest
(random by its classes, or small letters and digits strewn, or 32+ hex) are a key without
any context. A prefix naming a public key (``pk``, ``pub``) is not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from reviewer.sanitize import anchored as _anchored
from reviewer.sanitize import redact as _redact
from reviewer.sanitize import shapes as _shapes

Span = tuple[int, int, str]

_PREFIXED_RE = re.compile(
    r"(?<![\w\-./])(?P<p>[a-z][a-z0-9]{0,11}(?:[_\-][a-z0-9]{1,11}){0,3}[_\-])"
    r"(?P<r>[A-Za-z0-9]{16,160})(?![\w\-])")
_SECRET_SEGS = frozenset(_redact._words(
    "sk secret secretkey token tok pat apikey priv private sak sek ssk"))


# Where a secret word ends a prefix's segment: the search starts there, not at every word.
_SEG_HIT_RE = re.compile(r"(?:sk|secret|secretkey|token|tok|pat|apikey|priv|private|sak|sek|ssk)"
                         r"[_\-][a-z0-9]")
# Whether the text holds a hit at all, each secret word found from its rarest letter (the
# hit regex tries its alternatives at every s, t, p and a of a long text).
_SEG_GATE = _anchored.words_res(
    ("sk", "secret", "secretkey", "token", "tok", "pat", "apikey", "priv", "private", "sak",
     "sek", "ssk"), after=r"[_\-][a-z0-9]")
_PREFIX_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
_MAX_PREFIX = 48


def _starts(low: str) -> Iterator[int]:
    seen = -1
    for h in _SEG_HIT_RE.finditer(low):
        i = h.start()
        while i > 0 and h.start() - i < _MAX_PREFIX and low[i - 1] in _PREFIX_CHARS:
            i -= 1
        if i > seen:
            seen = i
            yield i


def find_prefixed_tokens(text: str, low: str) -> Iterator[Span]:
    if "_" not in text and "-" not in text:
        return
    if not _anchored.holds_any(low, _SEG_GATE):
        return
    for start in _starts(low):
        m = _PREFIXED_RE.match(text, start)
        if m is None:
            continue
        segs = re.split(r"[_\-]", m.group("p").lower())[:-1]
        if not any(s in _SECRET_SEGS for s in segs) or any(s in ("pk", "pub", "public")
                                                           for s in segs):
            continue
        if _shapes.generated(m.group("r")) and not _redact.placeholder(m.group()):
            yield m.start(), m.end(), "secret-value"


FINDERS = (find_prefixed_tokens,)
