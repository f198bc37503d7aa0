"""`v` on a stale fact: the diff since capture, and the question "still true?".

Re-verifying re-approves a fact for today's code, so it is a decision made with the
change in view, never one key: y re-verify · e edit (prefilled) · x retire as outdated.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from reviewer.tui.safe_text import printable

VERIFY, EDIT, RETIRE = "verify", "edit", "retire"


class VerifyScreen(ModalScreen[str | None]):
    """Dismisses with VERIFY, EDIT, RETIRE, or None (escape: nothing happens)."""

    BINDINGS = [  # noqa: RUF012
        Binding("y", f"answer('{VERIFY}')", "Still true", id="verify-yes"),
        Binding("e", f"answer('{EDIT}')", "Edit", id="verify-edit"),
        Binding("x", f"answer('{RETIRE}')", "Retire", id="verify-retire"),
        Binding("escape", "answer(None)", "Cancel", id="verify-cancel"),
        Binding("down,j", "scroll(3)", "Scroll", show=False, id="verify-down"),
        Binding("up,k", "scroll(-3)", "Scroll", show=False, id="verify-up"),
    ]

    def __init__(self, text: str, why: str, diffs: Callable[[], list[Content]]) -> None:
        super().__init__()
        self.text = text
        self.why = why
        self._diffs = diffs

    def compose(self) -> ComposeResult:
        with Vertical(id="verify-box"):
            yield Static(Content.styled("Is this still true of today's code?", "bold"),
                         id="verify-title")
            yield Static(Content.styled(printable(self.text), "bold $text-warning"),
                         id="verify-fact", markup=False)
            yield Static(Content.styled(printable(self.why), "$text-muted"),
                         id="verify-why", markup=False)
            with VerticalScroll(id="verify-diff"):
                yield Static(Content.styled("Reading the diff…", "$text-muted"),
                             id="verify-diff-body", markup=False)
            yield Static(
                Content.assemble(
                    ("y", "bold"), " still true: re-verify  ·  ", ("e", "bold"),
                    " edit it  ·  ", ("x", "bold"), " retire (outdated)  ·  ",
                    ("escape", "bold"), " decide later",
                ),
                id="verify-hint", markup=False,
            )

    def on_mount(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._load()

    @work(thread=True, exit_on_error=False)
    def _load(self) -> None:
        try:
            parts = self._diffs()
        except Exception as exc:  # the diff is the evidence; say why it is missing
            parts = [Content(f"(no diff: {type(exc).__name__}: {exc})")]
        body = Content("\n").join(parts) if parts else Content.styled(
            "(no diff to show: git sees no change in the cited lines)", "$text-muted")
        # Not `call_from_thread`: it waits for a loop that may be shutting down.
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._show, body)

    def _show(self, body: Content) -> None:
        if self.is_attached:
            self.query_one("#verify-diff-body", Static).update(body)

    def action_scroll(self, lines: int) -> None:
        self.query_one("#verify-diff", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_answer(self, answer: str | None) -> None:
        self.dismiss(answer)
