"""Edit a fact's wording and category; saving approves what the person wrote."""

from __future__ import annotations

from collections.abc import Callable

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Select, Static, TextArea

from reviewer.tui.safe_text import printable
from reviewer.tui.ui_loop import UiLoop

CATEGORIES = ("decision", "convention", "dead_end", "todo", "gotcha", "environment")


class EditScreen(ModalScreen[tuple[str, str] | None]):
    """Dismisses with (text, category) on ctrl+s, None on escape."""

    BINDINGS = [  # noqa: RUF012
        Binding("ctrl+s", "save", "Save & approve", priority=True, id="edit-save"),
        Binding("escape", "cancel", "Cancel", id="edit-cancel"),
    ]

    def __init__(
        self, text: str, category: str, *, stale: bool = False, title: str = "Edit fact",
        note: str | None = None, diffs: Callable[[], list[Content]] | None = None,
    ) -> None:
        """`diffs`: the stale fact's diff, shown under the text (edit opened from the
        verify question hid the very change the new wording must describe)."""
        super().__init__()
        self.ui = UiLoop()
        self.diffs = diffs
        self.text = text
        self.category = category
        self.stale = stale
        self.title = title
        self.note = note

    def compose(self) -> ComposeResult:
        categories = list(CATEGORIES)
        if self.category not in categories:
            categories.append(self.category)
        note = "ctrl+s save and approve · escape cancel"
        if self.stale:
            note += " · saving also re-anchors to today's code"
        if self.note:
            note += f" · {self.note}"
        with Vertical(id="edit-box"):
            yield Static(Content.styled(self.title, "bold"), id="edit-title")
            # Above the text: its list opens over the text area, inside the box.
            yield Select(
                [(Content(printable(c.replace("_", " "))), c) for c in categories],
                value=self.category,
                allow_blank=False, id="edit-category",
            )
            yield TextArea(
                printable(self.text), id="edit-text", soft_wrap=True, show_line_numbers=False
            )
            yield Static(Content.styled(note, "$text-muted"), id="edit-help")
            if self.diffs is not None:
                with VerticalScroll(id="edit-diff"):
                    yield Static(Content.styled("Reading the diff…", "$text-muted"),
                                 id="edit-diff-body", markup=False)

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)
        if self.diffs is not None:
            self.add_class("-with-diff")
            self.ui.capture()
            self._load()

    @work(thread=True, exit_on_error=False)
    def _load(self) -> None:
        from reviewer.tui.screens.verify import load_diff

        if self.diffs is not None:
            load_diff(self.query_one("#edit-diff-body", Static), self.diffs,
                      self.query_one("#edit-diff", VerticalScroll), self.ui, self.text)

    def action_save(self) -> None:
        text = " ".join(self.query_one(TextArea).text.split())
        if not text:
            self.notify("A fact cannot be empty.", severity="error")
            return
        category = self.query_one(Select).value
        self.dismiss((text, str(category)))

    def action_cancel(self) -> None:
        """Leave at once when nothing changed; else ask before dropping the person's work."""
        changed = (" ".join(self.query_one(TextArea).text.split())
                   != " ".join(printable(self.text).split())
                   or self.query_one(Select).value != self.category)
        if not changed:
            self.dismiss(None)
            return
        from reviewer.tui.screens.confirm import ConfirmScreen

        def answer(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(
            ConfirmScreen(Content("Discard your changes to this fact?"),
                          "y discard · n or escape keep editing"),
            answer,
        )
