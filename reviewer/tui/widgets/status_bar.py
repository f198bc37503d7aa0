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


def counts_variants(
    counts: Counts, *, marked: int = 0, query: str = "", shown: int | None = None,
    queued: int = 0, failed: int = 0, doors: str = "", waiting: int = 0,
) -> list[Content]:
    """The counts line, longest first, each shorter one dropping the least needed words:
    at 80 columns the full line was cut mid-word ("… 3 st…"). What is marked, matched,
    pending, stale or failed stays to the last."""
    def line(today: str | None, with_queued: bool) -> Content:
        pieces: list[Content] = []
        if doors:  # memory reaching Claude around the review: before anything else
            pieces.append(Content.styled(doors, "bold $text-error"))
        if marked:
            pieces.append(Content.styled(f"{marked} marked", "bold $text-warning"))
        if query:
            pieces.append(Content.styled(matches_label(shown or 0), "$text-accent"))
        pieces.append(Content(f"{counts.pending:,} pending"))
        if today is not None:
            pieces.append(Content(f"{counts.approved_today:,} {today}"))
        if counts.stale:
            pieces.append(Content(f"{counts.stale:,} stale"))
        if queued and with_queued:
            pieces.append(Content.styled(f"{queued} queued", "$text-muted"))
        if failed:
            pieces.append(Content.styled(f"{failed} failed", "$text-error"))
        if waiting:  # sessions no model has read yet: say the step that unblocks them
            step = (": sign in to Claude Code or set ANTHROPIC_API_KEY" if with_queued else "")
            pieces.append(Content.styled(f"{waiting} wait for a model{step}",
                                         "bold $text-warning"))
        return Content(" · ").join(pieces)

    return [line("approved today", True), line("✓ today", True), line("✓ today", False),
            line(None, False)]


class StatusBar(Horizontal):
    """Views on the left, counts on the right: the longest counts line that fits."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._variants: list[Content] = [Content("")]

    def compose(self) -> ComposeResult:
        yield Static(views_content("pending"), id="views", markup=False)
        yield Static(Content(""), id="counts", markup=False)

    def show(self, view: str, counts: Content | list[Content]) -> None:
        self.query_one("#views", Static).update(views_content(view))
        self._variants = counts if isinstance(counts, list) else [counts]
        self._fit()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        target = self.query_one("#counts", Static)
        room = target.size.width - 2  # its padding
        if room <= 0:
            room = self.size.width - self.query_one("#views", Static).size.width - 2
        best = next((c for c in self._variants if c.cell_length <= room), self._variants[-1])
        target.update(best)
