"""`?`: every key, what the flags mean, and where the facts go."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS: tuple[tuple[str, str], ...] = (
    ("j / k / ↓ / ↑", "move"),
    ("a", "accept: approve the fact (or every marked fact)"),
    ("r", "reject, with a reason (1-7 picks one)"),
    ("e", "edit the wording and category; ctrl+s saves and approves"),
    ("u", "undo the last decision (again and again)"),
    ("space", "mark / unmark for a batch; a or r then act on all marked"),
    ("/", "filter by text, category or file (escape clears)"),
    ("tab / shift+tab", "next / previous view"),
    ("v", "re-verify a stale fact against today's code"),
    ("p", "personal: keep approved facts out of `mem-review share` (p again: share)"),
    ("t", "team view: shared facts, who approved them; take, edit or retire one"),
    ("ctrl+t", "light / dark theme"),
    ("ctrl+p", "command palette: every action"),
    ("?", "this help"),
    ("q", "quit (every decision is already saved)"),
)
FLAGS: tuple[tuple[str, str], ...] = (
    ("· ✓ ✗", "pending, approved, rejected"),
    ("● ", "marked for a batch"),
    ("stale / ⟳", "a cited file changed: not injected until re-verified"),
    ("ungrounded / ?", "the evidence was not found in the transcript: check it"),
    ("missing file / !", "a cited file does not exist in the project"),
    ("seen N / ×N", "proposed again in N sessions"),
    ("used N / ↑N", "injected into N sessions"),
    ("personal / ⌂", "kept to yourself: `mem-review share` leaves it out"),
)


def help_content() -> Content:
    lines = [Content.styled("Keys", "bold $text-accent")]
    lines += [Content.assemble((f"  {k:<16}", "bold"), v) for k, v in KEYS]
    lines += [Content(""), Content.styled("Flags", "bold $text-accent")]
    lines += [Content.assemble((f"  {k:<16}", "bold"), v) for k, v in FLAGS]
    lines += [
        Content(""),
        Content("Views: pending, approved, rejected, stale, all."),
        Content("Only approved facts that are not stale reach new sessions."),
        Content("Rejection reasons go to the extractor, so it learns what to skip."),
        Content(""),
        Content.styled("escape, q or ? to close", "$text-muted"),
    ]
    return Content("\n").join(lines)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [  # noqa: RUF012
        Binding("escape,q,question_mark", "close", "Close", id="help-close"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(help_content(), markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
