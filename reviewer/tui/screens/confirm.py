"""A yes/no question: used to offer following a file that git saw renamed."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static


class ConfirmScreen(ModalScreen[bool | None]):
    """y → True, n → False, escape → None (do nothing)."""

    BINDINGS = [  # noqa: RUF012
        Binding("y", "answer(True)", "Yes", id="confirm-yes"),
        Binding("n", "answer(False)", "No", id="confirm-no"),
        Binding("escape", "answer(None)", "Cancel", id="confirm-cancel"),
    ]

    def __init__(self, question: Content, hint: str) -> None:
        super().__init__()
        self.question = question
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(self.question, id="confirm-question", markup=False)
            yield Static(Content.styled(self.hint, "$text-muted"), id="confirm-hint",
                         markup=False)

    def action_answer(self, answer: bool | None) -> None:
        self.dismiss(answer)
