"""The line above the list: which view is showing, and the counts that matter."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Static

from reviewer.tui.triage import VIEWS, Counts


def views_content(current: str) -> Content:
    """The views as tabs; each is clickable, tab/shift+tab cycle them."""
    parts: list[Content] = []
    for view in VIEWS:
        style = "bold reverse $text-accent" if view == current else "$text-muted"
        parts.append(Content.styled(f" {view} ", f"{style} @click=screen.show_view('{view}')"))
    return Content("").join(parts)


def matches_label(n: int) -> str:
    return "no match" if n == 0 else "1 match" if n == 1 else f"{n:,} matches"


def counts_content(
    counts: Counts, *, marked: int = 0, query: str = "", shown: int | None = None,
    queued: int = 0, failed: int = 0, waiting: int = 0,
) -> Content:
    pieces: list[Content] = []
    if marked:  # first: at 80 columns the end of the line is cut
        pieces.append(Content.styled(f"{marked} marked", "bold $text-warning"))
    if query:
        pieces.append(Content.styled(matches_label(shown or 0), "$text-accent"))
    pieces.append(Content(counts.line()))
    if queued:
        pieces.append(Content.styled(f"{queued} queued", "$text-muted"))
    if failed:
        pieces.append(Content.styled(f"{failed} failed", "$text-error"))
    if waiting:  # sessions no model has read yet: say the step that unblocks them
        pieces.append(Content.styled(f"{waiting} wait for a model: sign in to Claude Code "
                                     "or set ANTHROPIC_API_KEY", "bold $text-warning"))
    return Content(" · ").join(pieces)


class StatusBar(Horizontal):
    """Views on the left, counts on the right."""

    def compose(self) -> ComposeResult:
        yield Static(views_content("pending"), id="views", markup=False)
        yield Static(Content(""), id="counts", markup=False)

    def show(self, view: str, counts: Content) -> None:
        self.query_one("#views", Static).update(views_content(view))
        self.query_one("#counts", Static).update(counts)
