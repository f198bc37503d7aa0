"""`v` on a stale fact: the diff since capture, and the question "still true?".

Re-verifying re-approves a fact for today's code, so it is a decision made with the
change in view, never one key: y re-verify · e edit (prefilled) · x retire as outdated.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from reviewer.tui.safe_text import printable
from reviewer.tui.ui_loop import UiLoop

VERIFY, EDIT, RETIRE = "verify", "edit", "retire"
CITED = "◀ touches what the fact names"  # main.mark_cited_hunks puts it on a hunk header
SHORT_SCREEN = 30  # rows: below this the dialog drops its blank lines


def focus_line(body: Content, fact_text: str, width: int) -> int | None:
    """The wrapped line (at `width`) to open the diff at: the first `+`/`-` line next to
    a line naming what the fact names (the change that matters), else the first hunk
    marked as touching it."""
    from reviewer.freshness.parts import CONTEXT_LINES, terms

    if width <= 0:
        return None
    lines = body.plain.split("\n")
    needles = terms(fact_text)
    named = [i for i, ln in enumerate(lines)
             if ln[:1] in " +-" and any(n in ln[1:] for n in needles)]
    index = next((i for i, ln in enumerate(lines)
                  if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
                  and any(abs(i - n) <= CONTEXT_LINES for n in named)), None)
    if index is None:
        index = next((i for i, ln in enumerate(lines) if CITED in ln), None)
    if index is None:
        return None
    return sum(len(Content(ln).wrap(width)) or 1 for ln in lines[:index])


def hint() -> Content:
    """Short enough for one line in the box at 80 columns, and says the diff scrolls."""
    return Content.assemble(
        ("y", "bold"), " still true · ", ("e", "bold"), " edit · ", ("x", "bold"),
        " outdated: retire · ", ("esc", "bold"), " later · ", ("j/k", "bold"), " scroll",
    )


def load_diff(widget: Static, diffs: Callable[[], list[Content]], scroll: VerticalScroll,
              ui: UiLoop, fact_text: str) -> None:
    """Fill `widget` from `diffs` (run in a thread), then open `scroll` at the cited hunk:
    the `+` line that matters was below the fold at 80×24."""
    try:
        parts = diffs()
    except Exception as exc:  # the diff is the evidence; say why it is missing
        parts = [Content(f"(no diff: {type(exc).__name__}: {exc})")]
    body = Content("\n").join(parts) if parts else Content.styled(
        "(no diff to show: git sees no change in the cited lines)", "$text-muted")

    def show() -> None:
        if not widget.is_attached:
            return
        widget.update(body)

        def to_cited() -> None:
            line = focus_line(body, fact_text, scroll.scrollable_content_region.width)
            if line is not None and line + 2 >= scroll.scrollable_content_region.height:
                scroll.scroll_to(y=max(0, line - 3), animate=False, immediate=True)

        widget.call_after_refresh(to_cited)

    ui.soon(show)


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
        self.ui = UiLoop()
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
            yield Static(hint(), id="verify-hint", markup=False)

    def on_mount(self) -> None:
        self.ui.capture()
        self._load()

    def on_resize(self) -> None:
        self.set_class(self.size.height < SHORT_SCREEN, "-short")

    @work(thread=True, exit_on_error=False)
    def _load(self) -> None:
        load_diff(self.query_one("#verify-diff-body", Static), self._diffs,
                  self.query_one("#verify-diff", VerticalScroll), self.ui, self.text)

    def action_scroll(self, lines: int) -> None:
        self.query_one("#verify-diff", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_answer(self, answer: str | None) -> None:
        self.dismiss(answer)
