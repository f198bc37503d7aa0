"""`mem-review` (the review TUI): the app shell around the main screen.

Opens the store with stdlib sqlite3 before anything else (a broken or newer store is a
one-line error, not a traceback in the terminal), shows the first paint from plain rows,
then loads the sqlmodel `Store` for writing in the background.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from reviewer.store import db
from reviewer.tui.screens.main import MainScreen
from reviewer.tui.writer import StoreWriter

CSS_DIR = Path(__file__).parent


class ReviewApp(App[None]):
    """Review one project's facts. `db_path` None means the user's store."""

    TITLE = "mem-review"
    CSS_PATH = [  # noqa: RUF012
        CSS_DIR / "app.tcss", CSS_DIR / "modals.tcss",
    ]
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [  # noqa: RUF012
        Binding("ctrl+t", "toggle_theme", "Light/dark", show=False, id="toggle-theme"),
    ]

    def __init__(
        self, project: str, db_path: Path | None = None, *, theme: str | None = None
    ) -> None:
        super().__init__()
        self.project = project
        self.db_path = db_path
        self.conn = db.connect(db_path)
        self.read_lock = threading.Lock()
        self.main = MainScreen()
        self.writer = StoreWriter(db_path, self._write_failed)
        if theme:
            self.theme = theme

    def get_default_screen(self) -> Screen[None]:
        return self.main

    def on_unmount(self) -> None:
        self.writer.close()
        # A detail-pane worker may be reading on this connection: closing it under that
        # read crashes SQLite's C code (seen as a segfault). Take the lock; a worker that
        # comes after gets a closed-connection error, which its pane already handles.
        with self.read_lock:
            self.conn.close()

    def _write_failed(self, exc: BaseException) -> None:  # called in the writer thread
        from reviewer.log import log

        log("tui", f"write failed: {type(exc).__name__}: {exc}")
        self.main.ui.soon(self.main.write_failed, exc)

    async def settle(self) -> None:
        """Wait for background work: store writes, staleness, the detail pane (tests)."""
        await self.main.painted.wait()
        for _ in range(3):
            running = [w for w in self.workers if not w.is_finished]
            await asyncio.gather(*(w.wait() for w in running), return_exceptions=True)
            await self.writer.drain()

    def file_diff(self, commit_sha: str, path: str, renamed_to: str | None = None) -> str:
        """The file's diff since capture (runs in a thread).

        `reviewer.freshness.git_diff` (gitpython) when it is installed, else one `git diff` call.
        """
        try:
            from reviewer.freshness.git_diff import file_diff
        except ImportError:
            file_diff = None
        try:
            if file_diff is not None:
                return str(file_diff(self.project, commit_sha, path))
            from reviewer.freshness.anchors import run_git

            paths = [path] + ([renamed_to] if renamed_to else [])
            out = run_git(self.project, "diff", "-M", "--no-color", commit_sha, "--", *paths)
            return out if out is not None else "(no diff: git could not compare the files)"
        except Exception as exc:  # a diff is a courtesy: say why it is missing
            return f"(no diff: {type(exc).__name__}: {exc})"

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Our actions only, and only those that can act on what is selected now
        (Textual's own entries, such as "Maximize", mean nothing in a review)."""
        main = self.main
        commands: list[tuple[str, str, str, Callable[[], object]]] = [
            ("approve", "Accept", "Approve the selected (or marked) facts  a",
             main.action_approve),
            ("reject", "Reject", "Reject with a reason  r", main.action_reject),
            ("edit", "Edit", "Edit the wording and category, then approve  e",
             main.action_edit),
            ("skip", "Skip", "Defer the selected candidate to the end of the list  s",
             main.action_skip),
            ("merge", "Merge marked", "Combine the marked facts into one  m",
             main.action_merge),
            ("undo", "Undo", "Undo the last decision  u", main.action_undo),
            ("mark", "Mark", "Mark / unmark for a batch decision  space", main.action_mark),
            ("verify", "Re-verify", "Is this stale fact still true of today's code?  v",
             main.action_verify),
            ("personal", "Personal", "Keep approved facts out of `mem-review share`  p",
             main.action_personal),
            ("team", "Team view", "Shared facts: approver, trust, staleness; take, edit or "
             "retire  t", main.action_team),
            ("filter", "Filter", "Narrow the list by text, category or file  /",
             main.action_filter),
            ("next_view", "Next view", "pending → approved → rejected → stale → all  tab",
             main.action_next_view),
        ]
        for action, title, help_text, callback in commands:
            if main.can_act(action):
                yield SystemCommand(title, help_text, callback)
        for view in ("pending", "approved", "rejected", "stale", "all"):
            if view != main.view:
                yield SystemCommand(f"View: {view}", f"Show {view} facts",
                                    lambda v=view: main.show_view(v))
        yield SystemCommand("Reload", "Read the store again (new facts from the worker)  "
                            "ctrl+r", main.action_reload)
        yield SystemCommand("Toggle light/dark", "Switch the theme  ctrl+t",
                            self.action_toggle_theme)
        yield SystemCommand("Help", "Keys and flags  ?", main.action_help)
        yield SystemCommand("Quit", "Leave the review (every decision is saved)  q",
                            main.action_quit)
