"""The TUI rows' baseline: the smallest Textual app, one `Static` with one line.

Started exactly like the real TUI (its own interpreter, in the same terminal), it paints
a line shaped like a fact (`F00001 …`) so the same detector times both. What the real
app costs beyond this is what mem-review adds: its imports, its store, its list.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.widgets import Static


class OneWidget(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Static("F00001 The one-widget baseline paints this line.", markup=False)


if __name__ == "__main__":
    OneWidget().run()
