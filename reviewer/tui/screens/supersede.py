"""`S` on two marked facts: the old and the new one side by side, `x` swaps which is new.

The help and the README promised "side by side"; the question stacked them, and the
guess of which one is new (the approved or older one is replaced) could not be turned.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from reviewer.tui.rows import FactRow
from reviewer.tui.safe_text import printable

HINT = "y the new one supersedes the old · x swap new and old · n or escape cancel"


class SupersedeScreen(ModalScreen[tuple[FactRow, FactRow] | None]):
    """Dismisses with (new, old) on y, None on n or escape."""

    BINDINGS = [  # noqa: RUF012
        Binding("y", "accept", "Yes", id="supersede-yes"),
        Binding("x", "swap", "Swap", id="supersede-swap"),
        Binding("n", "cancel", "No", id="supersede-no"),
        Binding("escape", "cancel", "Cancel", id="supersede-cancel"),
    ]

    def __init__(self, new: FactRow, old: FactRow) -> None:
        super().__init__()
        self.new, self.old = new, old

    def compose(self) -> ComposeResult:
        with Vertical(id="supersede-box"):
            yield Static(id="supersede-title", markup=False)
            with Horizontal(id="supersede-sides"):
                yield Static(id="supersede-new", classes="supersede-side", markup=False)
                yield Static(id="supersede-old", classes="supersede-side", markup=False)
            yield Static(Content.styled(HINT, "$text-muted"), id="supersede-hint",
                         markup=False)

    def on_mount(self) -> None:
        self._show()

    def _side(self, label: str, style: str, row: FactRow) -> Content:
        return Content("\n").join([
            Content.assemble((label, f"bold {style}"), (f"  #{row.id} · {row.status}",
                                                       "$text-muted")),
            Content(printable(row.text)),
        ])

    def _show(self) -> None:
        self.query_one("#supersede-title", Static).update(Content.styled(
            f"#{self.new.id} supersedes #{self.old.id}? The new one is approved, the old "
            "one retired.", "bold"))
        self.query_one("#supersede-new", Static).update(
            self._side("NEW", "$text-success", self.new))
        self.query_one("#supersede-old", Static).update(
            self._side("OLD", "$text-error", self.old))

    def action_swap(self) -> None:
        self.new, self.old = self.old, self.new
        self._show()

    def action_accept(self) -> None:
        self.dismiss((self.new, self.old))

    def action_cancel(self) -> None:
        self.dismiss(None)
