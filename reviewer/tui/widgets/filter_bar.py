"""The `/` filter: an input that narrows the list as you type."""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input


class FilterBar(Input):
    """Enter keeps the filter and returns to the list; escape clears it."""

    BINDINGS = [  # noqa: RUF012
        Binding("escape", "clear_filter", "Clear filter", id="filter-clear"),
    ]

    class Cleared(Message):
        """The person gave up on the filter."""

    def __init__(self) -> None:
        super().__init__(placeholder="filter: text, category or file", id="filter")

    def action_clear_filter(self) -> None:
        self.post_message(self.Cleared())
