"""How much of a fact's text a person has had on screen: all of a fact is seen before it
is approved. A long fact in a short detail pane (1,000 characters are 14 lines at 80
columns) would otherwise be accepted on its first lines; the pane records which parts
have been in view, by character, so a resize or a scroll in any order still counts."""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.content import Content


@dataclass
class Reading:
    """The spans of one fact version's text that have been visible."""

    length: int
    seen: list[tuple[int, int]] = field(default_factory=list)

    def mark(self, start: int, end: int) -> None:
        start, end = max(0, start), min(end, self.length)
        if end <= start:
            return
        spans = sorted([*self.seen, (start, end)])
        merged: list[tuple[int, int]] = []
        for lo, hi in spans:
            if merged and lo <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
            else:
                merged.append((lo, hi))
        self.seen = merged

    @property
    def whole(self) -> bool:
        return self.first_unseen() is None

    def first_unseen(self) -> int | None:
        """The first character never on screen (None when every one has been)."""
        at = 0
        for lo, hi in self.seen:
            if lo > at:
                return at
            at = max(at, hi)
        return at if at < self.length else None


def line_spans(text: str, width: int) -> list[tuple[int, int]]:
    """The character span of `text` each wrapped line at `width` shows, the whitespace
    wrapping drops going to the line before it (so spans tile the text)."""
    if width <= 0:
        return []
    spans: list[tuple[int, int]] = []
    at = 0
    for line in Content(text).wrap(width):
        shown = line.plain.strip()
        found = text.find(shown, at) if shown else at
        if found < 0:  # wrapping changed a character: fall back on lengths
            found = at
        end = found + len(shown)
        spans.append((at, max(end, at)))
        at = max(end, at)
    if spans:  # trailing whitespace belongs to the last line
        spans[-1] = (spans[-1][0], len(text))
    return spans
