"""`?`: every key, what the flags mean, and where the facts go.

Each entry is a key column and a description column, so a long description wraps
under itself rather than under the keys.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS: tuple[tuple[str, str], ...] = (
    ("j k ↓ ↑", "move"),
    ("g G  Home End", "first / last fact"),
    ("PgUp PgDn", "a page up / down"),
    ("shift+↑ shift+↓", "scroll the detail pane (long evidence, diffs)"),
    ("a", "accept: approve the fact (or every marked fact)"),
    ("r", "reject, with a reason (1-7 picks one; j/k move in the picker)"),
    ("e", "edit the wording and category; ctrl+s saves and approves"),
    ("s", "skip: leave the candidate pending and move it to the end of the list"),
    ("space", "mark / unmark for a batch (the cursor stays); a, r or m then act on every "
     "marked fact"),
    ("m", "merge the marked facts into one, in your words (the others are rejected "
          "as merged into it, keeping their evidence and history)"),
    ("S", "two marked facts: the new one supersedes the other (the approved, or older, "
          "one); shown side by side (x swaps which is new), then the new one is approved "
          "and the old one retired"),
    ("v", "a stale fact: see the diff and decide: still true (re-verify), edit, or "
          "retire"),
    ("V", "in the stale view: re-verify, in one confirmed step, every fact whose files "
          "changed only in lines it does not name"),
    ("u", "undo the last decision (again and again)"),
    ("/", "filter by text, category or file; enter returns to the list"),
    ("escape", "clear the filter, else the marks"),
    ("tab shift+tab", "next / previous view"),
    ("ctrl+r", "reload now (the list follows the store by itself: the worker's new facts, "
               "another review's decisions)"),
    ("p", "personal: keep approved facts out of `mem-review share` (again: share)"),
    ("t", "team view: shared facts and who approved them; take, edit or retire one "
          "(x asks, u puts it back; escape, t or q back)"),
    ("ctrl+t", "light / dark theme"),
    ("ctrl+p", "command palette: what can act on the selected fact now"),
    ("?", "this help"),
    ("q", "quit (every decision is already saved)"),
)
FLAGS: tuple[tuple[str, str], ...] = (
    ("· ✓ ✗", "pending, approved, rejected"),
    ("●", "marked for a batch"),
    ("⟳stale", "a cited file changed since approval, in the lines the fact names (or it "
               "names none): not given to Claude until you re-verify, edit or retire it"),
    ("⟳~  stale elsewhere", "its files changed, but not the lines it names: still withheld "
                           "until you confirm; listed last in the stale view"),
    ("?  ungrounded", "the evidence was not found in the transcript: check it"),
    ("!  missing file", "a cited file does not exist in the project"),
    ("×N  seen N", "proposed again in N sessions"),
    ("↑N  used N", "given to Claude in N sessions"),
    ("⌂  personal", "kept to yourself: `mem-review share` leaves it out"),
)
FOOTER = (
    "Views: pending, approved, rejected, stale, all. Only approved facts that are not "
    "stale reach new sessions. Rejection reasons go to the extractor, so it learns what "
    "to skip."
)


def _table(title: str, rows: tuple[tuple[str, str], ...], id: str) -> list[Static]:
    cells = [Static(Content.styled(title, "bold $text-accent"), classes="help-title")]
    grid_cells: list[Static] = []
    for key, text in rows:
        grid_cells.append(Static(Content.styled(key, "bold"), classes="help-key", markup=False))
        grid_cells.append(Static(Content(text), classes="help-text", markup=False))
    return [*cells, Grid(*grid_cells, id=id, classes="help-grid")]  # type: ignore[list-item]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [  # noqa: RUF012
        Binding("escape,q,question_mark", "close", "Close", id="help-close"),
        Binding("down,j", "scroll(2)", "Scroll", show=False, id="help-down"),
        Binding("up,k", "scroll(-2)", "Scroll", show=False, id="help-up"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield from _table("Keys", KEYS, "help-keys")
            yield from _table("Flags", FLAGS, "help-flags")
            yield Static(Content(FOOTER), id="help-footer", markup=False)
            yield Static(Content.styled("escape, q or ? to close · j/k scroll", "$text-muted"),
                         id="help-close-hint", markup=False)

    def action_scroll(self, lines: int) -> None:
        self.query_one("#help-box", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
