"""What kind of answer a question asks for, and whether a fact's text is one.

A natural question often names its answer only by its kind: "why ..." is answered by a
cause ("because", "caused"), "how long ..." by a duration ("a 10-second timeout"), "how
many ..." by a count, "how big ..." by a size ("a 16G tmpfs"). The question's own words
then miss the very word that answers it, and recall (recall.py) gives a fact holding an
answer of the asked kind a small bonus among what the question's words found. Only the
question's opening words are read: "why" deep inside a clause asks nothing.
"""

from __future__ import annotations

import re

_NUMBER = r"\d+(?:[.,]\d+)?"
# (how the question asks, what an answer of that kind looks like in a fact)
KINDS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (re.compile(r"^\W*(?:why|what (?:caused|was the reason|is the reason))\b", re.I),
     re.compile(r"\b(?:because|caused?|causes|reason|since|due to|so that)\b", re.I)),
    (re.compile(r"^\W*how (?:long|often|much time)\b", re.I),
     re.compile(rf"\b{_NUMBER}\s*-?\s*(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|"
                r"h|hours?|days?|weeks?)\b|\btimeouts?\b", re.I)),
    (re.compile(r"^\W*how many\b", re.I), re.compile(rf"\b{_NUMBER}\b")),
    (re.compile(r"^\W*how (?:big|large|small|much (?:memory|space|disk|ram))\b", re.I),
     re.compile(rf"\b{_NUMBER}\s*(?:[kmgtp]i?b?|bytes?)\b|\bsizes?\b", re.I)),
)


def asked(question: str) -> list[re.Pattern[str]]:
    """The answer shapes `question` asks for ([] for most questions)."""
    head = question.lstrip()[:80]
    return [answer for ask, answer in KINDS if ask.search(head)]


def answers(shapes: list[re.Pattern[str]], text: str) -> bool:
    """Whether `text` holds an answer of one of the asked kinds."""
    return any(shape.search(text) for shape in shapes)
