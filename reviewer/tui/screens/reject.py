"""The reject picker: why a fact is wrong, in one key (the reason teaches the extractor)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from reviewer.tui.triage import REASONS

HELP = "enter pick · j/k move · 1-7 shortcut · escape cancel"

class RejectScreen(ModalScreen[str | None]):
    """Dismisses with the reason to store, or None when cancelled."""

    BINDINGS = [  # noqa: RUF012
        Binding("escape", "cancel", "Cancel", id="reject-cancel"),
        Binding("j", "move('cursor_down')", "Down", show=False, id="reject-down"),
        Binding("k", "move('cursor_up')", "Up", show=False, id="reject-up"),
        Binding("g", "move('first')", "First", show=False, id="reject-first"),
        Binding("G", "move('last')", "Last", show=False, id="reject-last"),
        *(
            Binding(str(n), f"pick({n - 1})", label, show=False, id=f"reject-{n}")
            for n, (_, label) in enumerate(REASONS, 1)
        ),
    ]

    def __init__(self, count: int, preferred: str | None = None) -> None:
        super().__init__()
        self.count = count
        self.preferred = preferred

    def compose(self) -> ComposeResult:
        title = "Reject this fact" if self.count == 1 else f"Reject {self.count} facts"
        with Vertical(id="reject-box"):
            yield Static(Content.styled(f"{title} — why?", "bold"), id="reject-title")
            yield OptionList(
                *(
                    Option(Content.assemble((f"{n} ", "$text-muted"), label), id=reason)
                    for n, (reason, label) in enumerate(REASONS, 1)
                ),
                id="reasons",
            )
            # Short enough for the box at 80 columns (the longer one was cut); the keys
            # are in the help line below, which changes while the person types.
            yield Input(placeholder="say why", id="other-reason")
            yield Static(Content.styled(HELP, "$text-muted"), id="reject-help")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        ids = [reason for reason, _ in REASONS]
        options.highlighted = ids.index(self.preferred) if self.preferred in ids else 0
        options.focus()

    def action_move(self, where: str) -> None:
        """j/k/g/G move the highlight as in the list (not while typing a reason)."""
        options = self.query_one(OptionList)
        if options.has_focus:
            getattr(options, f"action_{where}")()

    def action_pick(self, index: int) -> None:
        if self.query_one("#other-reason", Input).has_focus:
            return
        self._choose(REASONS[index][0])

    def action_cancel(self) -> None:
        other = self.query_one("#other-reason", Input)
        if other.display:
            other.display = False
            other.value = ""
            self.query_one("#reject-help", Static).update(Content.styled(HELP, "$text-muted"))
            self.query_one(OptionList).focus()
            return
        self.dismiss(None)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose(event.option.id or "other")

    def _choose(self, reason: str) -> None:
        if reason == "other":
            other = self.query_one("#other-reason", Input)
            other.display = True
            self.query_one("#reject-help", Static).update(Content.styled(
                "enter rejects with your reason · escape back to the list", "$text-muted"))
            other.focus()
            return
        self.dismiss(reason)

    @on(Input.Submitted, "#other-reason")
    def _other(self, event: Input.Submitted) -> None:
        event.stop()
        text = " ".join(event.value.split())
        self.dismiss(text or "other")
