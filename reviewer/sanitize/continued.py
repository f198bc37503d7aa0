"""A quoted value cut by the end of a message and closed at the start of the next one.

"the pw is `Gx7UVhyQ2k" then "S5aTNQ6pLm9` — sorry, phone keyboard": each turn is redacted on
its own, so the first part may be caught (its words are there) and the rest, alone at
the head of the next turn, is not. In a window the two stand a line apart, the quote
opened before the break and closed after it: the piece before the break is a marker
(the first part was caught) or the two pieces together look like a generated value, and
then the rest is hidden too. The break may be escaped (``\\n`` in JSON text): the first
piece stops at a backslash that begins one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from reviewer.sanitize import shapes as _shapes

Span = tuple[int, int, str]

_BREAK = r"(?:[ \t]*(?:\r?\n|\\n))+[ \t]*"
_ROLE = r"(?:(?:User|Human|Assistant|Claude|You|Me)[ \t]*:[ \t]*)?"
_CUT_RE = re.compile(
    # possessive: one try a quote; a backslash ends the piece where it begins an escaped "\n"
    r"(?P<q>[`\"'])(?P<a>(?:[^\s`\"'\\]|\\(?!n)){2,256}+)" + _BREAK + _ROLE
    + r"(?P<b>[^\s`\"']{2,256}+)(?P=q)(?![\w`\"'])"
)
# ``_spans`` shows a rule a marker as a run of "x" as long as it: a secret never is one.
_MARKER_RUN_RE = re.compile(r"x{14,}")


def find_continued_values(text: str, low: str) -> Iterator[Span]:
    if "`" not in text and '"' not in text and "'" not in text:
        return
    for m in _CUT_RE.finditer(text):
        a, b = m.group("a"), m.group("b")
        if _MARKER_RUN_RE.fullmatch(a):
            yield *m.span("b"), "secret-value"  # the quote a secret opened closes here
        elif _shapes.generated(a + b):
            yield *m.span("a"), "secret-value"
            yield *m.span("b"), "secret-value"


FINDERS = (find_continued_values,)
