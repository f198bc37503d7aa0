"""The main screen: the list, the selected fact, and one key per decision.

A decision changes the rows at once (the screen never waits on the disk), goes on the
undo stack with each row's previous state, and is queued to the store (`StoreWriter`),
which writes it with its history row in the background, in order.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.content import Content
from textual.screen import Screen
from textual.worker import get_current_worker

from reviewer.tui import live, stale, triage
from reviewer.tui.rows import (
    FactRow,
    count_facts,
    load_detail,
    load_history,
    load_page,
    load_rows,
    queue_counts,
)
from reviewer.tui.safe_text import printable
from reviewer.tui.ui_loop import UiLoop
from reviewer.tui.widgets.detail import MAX_FACT, DetailPane, full
from reviewer.tui.widgets.empty_state import EmptyState, empty_content
from reviewer.tui.widgets.fact_list import FactList
from reviewer.tui.widgets.filter_bar import FilterBar
from reviewer.tui.widgets.key_bar import KeyBar
from reviewer.tui.widgets.status_bar import StatusBar, counts_variants

if TYPE_CHECKING:
    from reviewer.tui.review_context import Review

WIDE_LAYOUT = 150  # from this many columns the detail pane sits beside the list
MAX_DIFFS = 3
FIRST_PAGE = 300  # rows read before the first paint (more than any screen shows)
EMPTY_VIEW = {
    "pending": "Nothing pending. tab shows the other views; new sessions bring new facts.",
    "approved": "No approved facts yet: a accepts a pending one.",
    "rejected": "No rejected facts.",
    "stale": "Nothing stale: every approved fact matches today's code.",
    "all": "No facts.",
}


def mark_cited_hunks(diff: str, fact_text: str) -> str:
    """Flag each hunk header whose hunk touches the lines the fact names."""
    from reviewer.freshness.parts import cited_lines

    cited = cited_lines(diff, fact_text)
    if not cited:
        return diff
    lines = diff.splitlines()
    for i in cited:
        if lines[i].startswith("@@"):
            lines[i] += "  ◀ touches what the fact names"
    return "\n".join(lines)


class MainScreen(Screen[None]):
    BINDINGS = [  # noqa: RUF012
        Binding("a", "approve", "Accept", id="approve"),
        Binding("r", "reject", "Reject", id="reject"),
        Binding("e", "edit", "Edit", id="edit"),
        Binding("u", "undo", "Undo", id="undo"),
        Binding("s", "skip", "Skip", id="skip"),
        Binding("space", "mark", "Mark", id="mark"),
        Binding("m", "merge", "Merge", id="merge"),
        Binding("S", "supersede", "Supersede", show=False, id="supersede"),
        Binding("v", "verify", "Re-verify", id="verify"),
        Binding("V", "verify_elsewhere", "Re-verify all changed elsewhere", show=False,
                id="verify-elsewhere"),
        Binding("p", "personal", "Personal", show=False, id="personal"),
        Binding("t", "team", "Team", show=False, id="team"),
        Binding("slash", "filter", "Filter", id="filter"),
        Binding("tab", "next_view", "View", id="next-view"),
        Binding("shift+tab", "previous_view", "Previous view", show=False, id="previous-view"),
        Binding("question_mark", "help", "Help", id="help"),
        Binding("q", "quit", "Quit", id="quit"),
        Binding("escape", "clear", "Clear filter / marks", show=False, id="clear"),
        Binding("ctrl+r", "reload", "Reload", show=False, id="reload"),
        Binding("shift+down", "detail_down", "Scroll detail", show=False, id="detail-down"),
        Binding("shift+up", "detail_up", "Scroll detail", show=False, id="detail-up"),
    ]

    def __init__(self) -> None:
        super().__init__(id="main")
        self.all_rows: list[FactRow] = []
        self.by_id: dict[int, FactRow] = {}
        self.view = "pending"
        self.view_rows: list[FactRow] = []
        self.query_text = ""
        self.marks = triage.Marks()
        self.skips = triage.Skips()
        self.grades: dict[int, str] = {}  # stale facts: cited part changed, or elsewhere
        self.undo_stack = triage.UndoStack()
        self.counts = triage.Counts()
        self.jobs: dict[str, int] = {}
        self.doors = ""  # Claude Code memory reaching sessions unreviewed (doors.header)
        self.ui = UiLoop()  # threads hand their results back through it
        self._review: Review | None = None
        self._keys_state: tuple[bool, ...] | None = None
        self._filter_bar: FilterBar | None = None
        self._empty: EmptyState | None = None
        self.facts = FactList(id="facts")
        self.detail = DetailPane(self._detail_content, id="detail")
        self.painted = asyncio.Event()  # set once every row is loaded (`app.settle` waits)
        self._data_version: int | None = None  # the store as last read (`live`)
        self._decisions = 0  # bumped by each decision: a reload read before it is stale

    @property
    def review(self) -> Review:
        """The app, held directly: `self.app` looks it up in a context variable, which a
        worker thread may not see (and an app shutting down no longer has)."""
        if self._review is None:
            self._review = self.app  # type: ignore[assignment]
        return self._review  # type: ignore[return-value]

    # ---- layout -------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Container(id="body"):
            yield self.facts
            yield self.detail
        yield KeyBar()
        # The empty state and the filter box are mounted when first needed: every widget
        # mounted before the first paint delays it.

    @property
    def filter_bar(self) -> FilterBar:
        if self._filter_bar is None:
            self._filter_bar = FilterBar()
            self.mount(self._filter_bar, before=self.query_one(KeyBar))
        return self._filter_bar

    @property
    def filtering(self) -> bool:
        return self._filter_bar is not None and self._filter_bar.display

    def on_mount(self) -> None:
        self.ui.capture()
        self._review = self.app  # type: ignore[assignment]
        self.facts.marked = self.marks
        self.facts.grades = self.grades
        self._first_page()
        self.facts.focus()
        self.call_after_refresh(self._after_first_paint)

    def _first_page(self) -> None:
        """Just the rows the first frame shows, and the counts; the rest comes next."""
        status = self.view if self.view in triage.STATUS_RANK else None
        with self.review.read_lock:
            conn = self.review.conn
            totals = count_facts(conn, self.review.project,
                                 triage.local_midnight(time.time()))
            self._data_version = live.data_version(conn)
            rows = [] if self.view == "stale" else load_page(
                conn, self.review.project, status, FIRST_PAGE)
            self.jobs = queue_counts(conn)
        self._set_all(rows)
        self.counts = triage.Counts(
            pending=totals["pending"], approved=totals["approved"],
            rejected=totals["rejected"], approved_today=totals["approved_since"],
        )
        self._show_empty_state(sum(totals[s] for s in triage.STATUS_RANK) == 0)
        self.show_rows()
        if self.view == "stale":
            self.facts.empty_message = "Checking which facts the code has outgrown…"
            self.facts.refresh()

    def _after_first_paint(self) -> None:
        self.review.writer.start()
        self.load_everything()
        self.set_interval(live.POLL_SECONDS, lambda: self.poll_store())  # noqa: PLW0108 - looked up per tick (tests pause it)

    # ---- another review, the worker: the store changed under the screen ------------

    def poll_store(self) -> None:
        """Cheap: one pragma. The list is read again only when the store moved."""
        if not self.painted.is_set() or self.review.writer.busy():
            return
        try:
            with self.review.read_lock:
                version = live.data_version(self.review.conn)
        except Exception:  # a closed connection at exit, a damaged store: ctrl+r says
            return
        if version != self._data_version:
            self._read_again(version, self._decisions, self.by_id)

    @work(thread=True, exclusive=True, group="live", exit_on_error=False)
    def _read_again(self, version: int, decisions: int, by_id: dict[int, FactRow]) -> None:
        from reviewer.store import db

        try:
            conn = db.connect(self.review.db_path)
            try:
                rows = load_rows(conn, self.review.project)
                jobs = queue_counts(conn)
            finally:
                conn.close()
            merged = live.merge(by_id, rows)
        except Exception:
            return
        if not get_current_worker().is_cancelled:
            self.ui.soon(self._merge_read, merged, jobs, version, decisions, by_id)

    def _merge_read(self, merged: live.Merged, jobs: dict[str, int], version: int,
                    decisions: int, by_id: dict[int, FactRow]) -> None:
        if (decisions != self._decisions or self.review.writer.busy()
                or by_id is not self.by_id):
            return  # read before one of this person's decisions landed: the next poll
        merged.apply()
        self._data_version = version
        self.jobs = jobs
        if not (merged.updated or merged.added or merged.removed):
            self.update_status()
            return
        if merged.removed:
            self.marks.discard(merged.removed)
        self._set_all(merged.rows)
        self.counts = triage.count(self.all_rows)
        self._show_empty_state(not self.all_rows)
        selected = self.facts.selected
        self.show_rows(selected.id if selected else None, keep_position=True)
        for row in merged.updated:
            self.detail.forget(row.id)
        self.detail.show(self.facts.selected)
        if merged.updated or merged.added:
            self.compute_staleness(merged.updated + merged.added)
        news = []
        if merged.added:
            news.append(f"{triage.plural(len(merged.added), 'new fact')} from the worker")
        if merged.changed:
            news.append(f"{triage.plural(len(merged.changed), 'fact')} changed in another "
                        "review: " + ", ".join(f"#{r.id} {r.status}"
                                               for r in merged.changed[:4]))
        if news:
            self.notify("; ".join(news), timeout=4, markup=False)

    def _unless_changed(self, rows: list[FactRow], what: str,
                        proceed: Callable[[], None]) -> None:
        """Decide only on what the person saw: a fact another review decided or edited
        meanwhile is shown as it is now, and the person is asked before going on."""
        if self.review.writer.busy():
            proceed()  # this person's own decisions are on their way: memory leads
            return
        with self.review.read_lock:
            moved = live.changed_under(self.review.conn, rows)
        if not moved:
            proceed()
            return
        from reviewer.tui.screens.confirm import ConfirmScreen

        lines = [live.describe(now, self.by_id.get(now.id, now)) for now in moved]
        updated = []
        for now in moved:
            row = self.by_id.get(now.id)
            if row is not None:
                live._copy(row, now)
                updated.append(row)
        self._changed(updated)
        self.detail.forget()
        self.detail.show(self.facts.selected)
        question = Content("\n").join([
            Content.styled("Changed in another review while you looked:", "bold"),
            *(Content("  " + printable(line)) for line in lines),
            Content(f"{what.capitalize()} anyway?"),
        ])

        def answer(yes: bool | None) -> None:
            if yes:
                proceed()

        self.app.push_screen(ConfirmScreen(
            question, f"y {what} anyway · n or escape leave it as it is now"), answer)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load_everything(self) -> None:
        """Every row of the project, with its stale flag, read off the UI thread after the
        first paint."""
        from reviewer.store import db

        found: stale.Scan | None = None
        try:
            conn = db.connect(self.review.db_path)
            try:
                try:
                    found = stale.scan_store(conn, self.review.project)
                except Exception as exc:  # advisory: the review goes on without flags
                    from reviewer.log import log

                    log("tui", f"staleness failed: {type(exc).__name__}: {exc}")
                rows = load_rows(conn, self.review.project)
                jobs = queue_counts(conn)
                doors = _doors_header(conn, self.review.project)
            finally:
                conn.close()
        except Exception as exc:
            self.ui.soon(self._load_failed, exc)
            return
        if not get_current_worker().is_cancelled:
            self.ui.soon(self._loaded_everything, rows, jobs, found, doors)

    def _load_failed(self, exc: Exception) -> None:
        from reviewer.log import log

        log("tui", f"loading the facts failed: {type(exc).__name__}: {exc}")
        self.notify(f"Could not read every fact: {exc}", severity="error", timeout=8,
                    markup=False)
        self.painted.set()

    def _loaded_everything(
        self, rows: list[FactRow], jobs: dict[str, int], found: stale.Scan | None = None,
        doors: str = "",
    ) -> None:
        self.doors = doors
        # Rows already shown keep their objects: a decision made meanwhile stays made.
        self._set_all([self.by_id.get(r.id, r) for r in rows])
        if found is not None:
            stale.apply(self.by_id, found)
        self.jobs = jobs
        self.counts = triage.count(self.all_rows)
        view_rows = triage.select_rows(self.all_rows, self.view, skipped=self.skips.order,
                                       grades=self.grades)
        if [r.id for r in view_rows] == [r.id for r in self.view_rows]:
            self.view_rows = view_rows  # the first page was the whole view
            self.update_status()
        else:
            selected = self.facts.selected
            self.show_rows(selected.id if selected else None, keep_position=True)
        if found is not None:
            self.facts.refresh()  # the stale flags of the rows on screen
            self.detail.show(self.facts.selected)
            self.compute_grades([r for r in self.all_rows if r.stale])
        self.painted.set()

    def _set_all(self, rows: list[FactRow]) -> None:
        self.all_rows = rows
        self.by_id = {row.id: row for row in rows}

    def _show_empty_state(self, empty: bool) -> None:
        self.query_one("#body").display = not empty
        if self._empty is None and not empty:
            return
        if self._empty is None:
            self._empty = EmptyState()
            self.mount(self._empty, before=self.query_one(KeyBar))
        self._empty.display = empty
        if empty:
            from reviewer.tui.widgets.empty_state import shared_counts

            self._empty.update(empty_content(
                self.review.project, self.jobs.get("queued", 0), self.jobs.get("running", 0),
                self.jobs.get("failed", 0), shared_counts(self.review.project),
            ))

    def on_resize(self) -> None:
        self.set_class(self.size.width >= WIDE_LAYOUT, "-wide")

    # ---- data ---------------------------------------------------------------------

    def load(self, keep_id: int | None = None) -> None:
        """(Re)read every fact of the project with stdlib sqlite3, then show the view."""
        with self.review.read_lock:
            conn = self.review.conn
            self._data_version = live.data_version(conn)
            rows = load_rows(conn, self.review.project)
            self.jobs = queue_counts(conn)
        self._set_all(rows)
        self.counts = triage.count(self.all_rows)
        self._show_empty_state(not self.all_rows)
        self.show_rows(keep_id)

    def show_rows(self, keep_id: int | None = None, *, keep_position: bool = False) -> None:
        """Recompute the view (and filter) and put the cursor on `keep_id` if shown."""
        self.view_rows = triage.select_rows(self.all_rows, self.view,
                                            skipped=self.skips.order, grades=self.grades)
        shown = triage.narrow(self.view_rows, self.query_text)
        facts = self.facts
        facts.empty_message = (
            f"No {self.view} fact matches “{self.query_text}”. escape clears the filter."
            if self.query_text else EMPTY_VIEW.get(self.view, "No facts.")
        )
        facts.dim_decided = self.view not in ("all",)
        cursor = 0
        if keep_id is not None:
            cursor = next((i for i, r in enumerate(shown) if r.id == keep_id), 0)
        facts.set_rows(shown, cursor, keep_scroll=keep_position)
        self.update_status()
        self._refresh_keys()

    def update_status(self) -> None:
        shown = len(self.facts.rows)
        self.query_one(StatusBar).show(self.view, counts_variants(
            self.counts, marked=len(self.marks), query=self.query_text, shown=shown,
            queued=self.jobs.get("queued", 0), failed=self.jobs.get("failed", 0),
            doors=self.doors,
            waiting=self.jobs.get("waiting_for_model", 0),
        ))

    def _changed(self, rows: list[FactRow]) -> None:
        self.counts = triage.count(self.all_rows)
        self.facts.refresh_rows(rows)
        self.update_status()
        self._refresh_keys()

    # ---- selection ----------------------------------------------------------------

    @on(FactList.Moved)
    def _moved(self, event: FactList.Moved) -> None:
        self.detail.show(event.row)
        self._refresh_keys()

    def _refresh_keys(self) -> None:
        """Re-check the footer's keys only when what they depend on changed (the footer
        recomposes on every refresh: not something to do on each cursor move)."""
        row = self.facts.selected
        state = (row is None, row is not None and row.stale, bool(self.undo_stack),
                 len(self.marks) >= 2)
        if state != self._keys_state:
            self._keys_state = state
            self.refresh_bindings()

    def can_act(self, action: str) -> bool:
        """Whether a key would do something now: the key bar and the palette grey or hide
        what would not. The keys themselves stay live, so a press that cannot act says why
        instead of doing nothing silently."""
        row = self.facts.selected if self.is_mounted else None
        if action == "undo":
            return bool(self.undo_stack)
        if action == "verify":
            return row is not None and row.stale
        if action in ("approve", "reject", "edit", "mark", "skip", "personal"):
            return row is not None
        if action == "merge":
            return len(self.marks) >= 2
        if action == "supersede":
            return len(self.marks) == 2
        if action == "verify_elsewhere":
            return bool(self._changed_elsewhere())
        return True

    # ---- decisions ----------------------------------------------------------------

    def _targets(self) -> list[FactRow]:
        return self.marks.targets(self.facts.rows, self.facts.selected)

    def _decided(
        self, entry: triage.UndoEntry, token: Future[Any], toast: bool = False
    ) -> None:
        entry.token = token
        self._decisions += 1
        self.undo_stack.push(entry)
        self._watch(token, entry.ids)
        batch = len(self.marks) > 0
        self.marks.clear()
        rows = [row for row, _ in entry.before]
        if batch:
            self.facts.refresh()
        self._changed(rows)
        facts = self.facts
        facts.move_to(triage.next_pending(facts.rows, facts.cursor))
        self.detail.show(facts.selected)
        if toast or batch:
            self.notify(entry.label, timeout=2, markup=False)

    def action_approve(self) -> None:
        targets = self._targets()
        self._unless_changed(targets, "approve", lambda: self._approve(targets))

    def _approve(self, targets: list[FactRow]) -> None:
        if not self._read_in_full(targets):
            return
        stale_ones = [r for r in targets if r.stale]
        entry = triage.approve(targets)
        if entry is None:
            self.app.bell()
            if stale_ones:  # the footer offered Accept: say why it does nothing
                self.notify(f"{self._ids(stale_ones)} already approved, but stale: withheld "
                            "from Claude until re-verified. v shows the diff and re-verifies.",
                            timeout=5, markup=False)
            elif targets:
                self.notify("Already approved.", timeout=2)
            return
        ids = entry.ids  # the store retires what they supersede itself
        triage.retire_superseded(entry, self.all_rows)
        withheld = [r for r, _ in entry.before if r.stale]
        self._decided(entry, self.review.writer.approve(ids), toast=not withheld)
        if withheld:
            self.notify(f"{entry.label}; {self._ids(withheld)} stays withheld from Claude "
                        "while stale: v re-verifies it against today's code.", timeout=5,
                        markup=False)

    def _read_in_full(self, targets: list[FactRow]) -> bool:
        """All of a fact is seen before it is approved: a pending fact longer than the
        pane is scrolled on to its unseen part, and accepted at the next `a`."""
        unread = [r for r in targets if r.status != "approved" and not self.detail.fully_seen(r)]
        if not unread:
            return True
        self.app.bell()
        selected = self.facts.selected
        if selected is not None and any(r.id == selected.id for r in unread) and (
                self.detail.reveal_unseen(selected)):
            self.notify("The fact goes on below: read the rest (now in view), then a again.",
                        timeout=4)
        elif len(unread) == 1 and len(unread[0].text) > MAX_FACT:
            self.notify(f"#{unread[0].id} is longer than the pane shows: e shows all of it.",
                        timeout=4, markup=False)
        else:
            self.notify(f"{self._ids(unread)} not read in full yet: open each, then accept.",
                        timeout=4, markup=False)
        return False

    @staticmethod
    def _ids(rows: list[FactRow]) -> str:
        return ", ".join(f"#{r.id}" for r in rows[:4]) + (" …" if len(rows) > 4 else "")

    def action_reject(self) -> None:
        targets = self._targets()
        if not targets:
            self.app.bell()
            return
        from reviewer.tui.screens.reject import RejectScreen

        preferred = triage.OUTDATED if any(r.stale for r in targets) else None

        def decide(reason: str) -> None:
            entry = triage.reject(targets, reason)
            if entry is None:
                self.app.bell()
                return
            self._decided(entry, self.review.writer.reject(entry.ids, reason), toast=True)

        def chosen(reason: str | None) -> None:
            if reason is not None:  # the store may have moved while the reason was typed
                self._unless_changed(targets, "reject", lambda: decide(reason))

        self.app.push_screen(RejectScreen(len(targets), preferred), chosen)

    def action_edit(self, *, with_diff: bool = False) -> None:
        row = self.facts.selected
        if row is None:
            self.app.bell()
            return
        from reviewer.tui.screens.edit import EditScreen

        def save(text: str, category: str) -> None:
            reanchor = self._anchor(row.files) if row.stale else None
            entry = triage.edit(row, text, category, reanchor=reanchor)
            triage.retire_superseded(entry, self.all_rows)
            self._decided(entry, self.review.writer.edit(row.id, text, category, reanchor))
            if reanchor is not None:
                self.compute_staleness([row])

        def saved(result: tuple[str, str] | None) -> None:
            if result is not None:  # another review may have decided it while this was typed
                self._unless_changed([row], "save your edit", lambda: save(*result))

        diffs = (lambda: self._diff_list(row)) if with_diff and row.stale else None
        self.app.push_screen(EditScreen(row.text, row.category, stale=row.stale,
                                        diffs=diffs), saved)

    def _anchor(self, files: list[str]) -> tuple[str | None, dict[str, str | None]]:
        from reviewer.freshness.anchors import ABSENT, anchor_files

        # A person affirms the fact as the files are now: one that is gone must stay gone.
        commit, _branch, anchors = anchor_files(self.review.project, files, missing=ABSENT)
        return commit, anchors

    def action_verify(self) -> None:
        """The diff and the question first: re-verify, edit, or retire (GUIDE §6)."""
        row = self.facts.selected
        if row is None or not row.stale:
            self.notify("Nothing to re-verify: only a stale fact (its cited code changed) "
                        "needs it." if row is not None else "No fact selected.", timeout=3)
            return
        from reviewer.tui.screens.verify import EDIT, RETIRE, VERIFY, VerifyScreen

        def decided(answer: str | None) -> None:
            if answer == VERIFY:
                self._verify_checked(row)
            elif answer == EDIT:
                self.action_edit(with_diff=True)
            elif answer == RETIRE:
                entry = triage.reject([row], triage.OUTDATED)
                if entry is not None:
                    self._decided(entry, self.review.writer.reject(entry.ids, triage.OUTDATED),
                                  toast=True)

        why = stale.describe(row)
        self.app.push_screen(VerifyScreen(row.text, why, lambda: self._diff_list(row)),
                             decided)

    def _changed_elsewhere(self) -> list[FactRow]:
        return [r for r in self.all_rows if r.stale and r.status != "rejected"
                and self.grades.get(r.id) == "elsewhere"]

    def action_verify_elsewhere(self) -> None:
        """Re-verify, in one confirmed step, every stale fact whose files changed only in
        lines it does not name: the person sees the list first, and one u undoes it."""
        rows = self._changed_elsewhere()
        if not rows:
            self.notify("No stale fact is changed only elsewhere in its files.", timeout=3)
            return
        if self.view != "stale":
            self.show_view("stale")
            self.notify("These are the stale facts; press V again to re-verify the ones "
                        "changed only elsewhere.", timeout=4)
            return
        from reviewer.tui.screens.confirm import ConfirmScreen

        listed = [Content.assemble("  · ", printable(r.text)) for r in rows[:8]]
        if len(rows) > 8:
            listed.append(Content(f"  … and {len(rows) - 8} more"))
        question = Content("\n").join([
            Content.styled(f"Re-verify {triage.plural(len(rows), 'fact')} whose cited lines "
                           "did not change?",
                           "bold"),
            *listed,
        ])

        def answer(yes: bool | None) -> None:
            if not yes:
                return
            items = [(r, *self._anchor(r.files)) for r in rows]
            entry = triage.verify_many(items)
            token = self.review.writer.verify_many([(r.id, c, a) for r, c, a in items])
            self._decided(entry, token, toast=True)
            self.show_rows()
            self.compute_staleness(rows)

        self.app.push_screen(ConfirmScreen(question, "y re-verify them all · n or escape "
                                                     "decide one by one"), answer)

    def _diff_list(self, row: FactRow) -> list[Content]:
        """Each stale file's diff, headed (runs in a worker thread)."""
        from reviewer.tui.widgets.detail import heading

        out: list[Content] = []
        for path, diff in self._diffs(row).items():
            out += [heading(f"Diff of {printable(path)} since capture"), diff, Content("")]
        return out

    def _verify_checked(self, row: FactRow) -> None:
        if "deleted" in row.file_states.values():
            self._recheck_moves(row)
        if row.renamed:
            from reviewer.tui.screens.confirm import ConfirmScreen

            moves = ", ".join(f"{old} → {new}" for old, new in row.renamed.items())
            question = Content.assemble("Git saw ", (moves, "bold"), ". Follow the rename?")
            renamed = dict(row.renamed)

            def answer(follow: bool | None) -> None:
                if follow is None:
                    return
                files = [renamed.get(f, f) for f in row.files] if follow else None
                self._verify(row, files)
                if follow:
                    self._offer_text_paths(row, renamed)

            self.app.push_screen(
                ConfirmScreen(question, "y follow and re-anchor · n keep the old path · "
                                        "escape cancel"),
                answer,
            )
            return
        self._verify(row, None)

    def _offer_text_paths(self, row: FactRow, renamed: dict[str, str]) -> None:
        """After following a rename, the fact's words may still name the old path."""
        new_text = triage.follow_paths(row.text, renamed)
        if new_text == row.text:
            return
        from reviewer.tui.screens.confirm import ConfirmScreen

        def answer(update: bool | None) -> None:
            if update:
                entry = triage.edit(row, new_text, row.category)
                triage.retire_superseded(entry, self.all_rows)
                self._decided(entry, self.review.writer.edit(row.id, new_text, row.category))

        # Re-verifying may have moved the list on (the fact left the stale view): the
        # question names its fact and shows both wordings, and the cursor goes back to it
        # where the view still shows it, so it never sits over another fact's detail.
        index = self.facts.index_of(row.id)
        if index is not None:
            self.facts.move_to(index)
            self.detail.show(row)
        self.app.push_screen(
            ConfirmScreen(Content("\n").join([
                Content.styled(f"Fact #{row.id} still names the old path. Update its text?",
                               "bold"),
                Content.assemble(("  now  ", "$text-muted"), printable(row.text)),
                Content.assemble(("  new  ", "bold $text-success"), printable(new_text)),
            ]), f"y update #{row.id}'s text · n keep it"),
            answer,
        )

    def _recheck_moves(self, row: FactRow) -> None:
        """Before a person anchors a path as gone, look for where it went afresh: the
        list's verdict may come from the store's memo (or this process's), which cannot
        see a copy appearing in an unrelated directory. One fact: a few milliseconds."""
        from reviewer.freshness import staleness

        staleness.forget_moves()
        try:
            found = stale.scan(self.review.db_path, self.review.project, [row])
        except Exception as exc:  # advisory: verify goes on with what the list knew
            from reviewer.log import log

            log("tui", f"staleness failed: {type(exc).__name__}: {exc}")
            return
        if found is not None:
            self._apply_verdicts(found)

    def _verify(self, row: FactRow, files: list[str] | None) -> None:
        commit, anchors = self._anchor(files if files is not None else row.files)
        entry = triage.verify(row, commit, anchors, files)
        self._decided(entry, self.review.writer.verify(row.id, commit, anchors, files),
                      toast=True)
        if self.view == "stale":
            self.facts.refresh_rows([row])
        self.compute_staleness([row])

    def action_personal(self) -> None:
        """Keep the approved target facts to yourself, or let them be shared again (a
        toggle: p again undoes it). Only `mem-review share` reads the flag."""
        rows = [r for r in self._targets() if r.status == "approved"]
        if not rows:
            self.app.bell()
            self.notify("Only approved facts are shared: nothing to keep personal.",
                        timeout=3, markup=False)
            return
        personal = not all(r.personal for r in rows)
        for row in rows:
            row.personal = personal
        self._decisions += 1
        token = self.review.writer.set_personal([r.id for r in rows], personal)
        self._watch(token, [r.id for r in rows])
        if self.marks:
            self.marks.clear()
            self.facts.refresh()
        self._changed(rows)
        what = "kept personal (not shared)" if personal else "shareable again"
        self.notify(f"{len(rows)} fact{'s' if len(rows) != 1 else ''} {what}", timeout=2,
                    markup=False)

    def action_undo(self) -> None:
        entry = self.undo_stack.pop()
        if entry is None:
            self.notify("Nothing to undo.", timeout=2)
            return
        rows = triage.undo(entry)
        self._decisions += 1
        token = self.review.writer.restore(entry.token)
        self._watch(token, entry.ids)
        if any(self.facts.index_of(r.id) is None for r in rows):
            # A row the decision took out of this view (a re-verified fact leaves the
            # stale view) comes back into it.
            self.counts = triage.count(self.all_rows)
            self.show_rows(rows[0].id, keep_position=True)
        else:
            self._changed(rows)
        index = self.facts.index_of(rows[0].id)
        if index is not None:
            self.facts.move_to(index)
        self.detail.show(self.facts.selected)
        self.notify(f"Undone: {entry.label}", timeout=2, markup=False)

    def action_mark(self) -> None:
        row = self.facts.selected
        if row is None:
            return
        self.marks.toggle(row.id)
        self.facts.refresh_rows([row])  # the cursor stays: j moves on (a person marked the
        self.update_status()  # wrong row when space also moved down)

    def action_skip(self) -> None:
        """Defer the selected candidate without deciding: it stays pending, at the end."""
        row = self.facts.selected
        if row is None:
            self.notify("No fact selected.", timeout=2)
            return
        if row.status != "pending":
            self.notify("Only a pending candidate can be skipped.", timeout=2)
            return
        after = self.facts.rows[self.facts.cursor + 1:]
        self.skips.skip(row.id)
        following = next((r.id for r in after if r.status == "pending"), row.id)
        self.show_rows(following, keep_position=True)
        self.notify(f"Skipped #{row.id}: still pending, now at the end.", timeout=2,
                    markup=False)

    def action_merge(self) -> None:
        """Marked near-duplicates become one fact, in the person's words."""
        rows = [r for r in self._targets() if r.id in self.marks]
        if len(rows) < 2:
            self.notify("Mark two or more facts with space to merge them.", timeout=3)
            return
        from reviewer.tui.screens.edit import EditScreen

        keep = triage.merge_base(rows)
        others = [r for r in rows if r is not keep]

        def saved(result: tuple[str, str] | None) -> None:
            if result is None:
                return
            text, category = result
            entry = triage.merge(keep, others, text, category)
            triage.retire_superseded(entry, self.all_rows)
            reason = triage.merged_reason(keep.id)
            token = self.review.writer.merge(keep.id, text, category,
                                             [r.id for r in others], reason)
            self._decided(entry, token, toast=True)

        self.app.push_screen(
            EditScreen(keep.text, keep.category, stale=False,
                       title=f"Merge {len(rows)} facts into #{keep.id}",  # two or more
                       note="the others are rejected as merged into it, with their "
                            "evidence and history"),
            saved,
        )

    def action_supersede(self) -> None:
        """Two marked facts: the newer one replaces the older, approved one. Shown side by
        side first; accepting approves the new one and retires the old one."""
        rows = [r for r in self._targets() if r.id in self.marks]
        if len(rows) != 2:
            self.notify("Mark exactly two facts with space: the new one and the one it "
                        "replaces.", timeout=3)
            return
        old, new = triage.supersede_pair(rows[0], rows[1])
        from reviewer.tui.screens.supersede import SupersedeScreen

        def answer(chosen: tuple[FactRow, FactRow] | None) -> None:
            if chosen is None:
                return
            new, old = chosen  # the person may have swapped them
            entry = triage.supersede(new, old)
            self._decided(entry, self.review.writer.supersede(new.id, old.id), toast=True)

        self.app.push_screen(SupersedeScreen(new, old), answer)

    def _watch(self, token: Future[Any], ids: list[int]) -> None:
        """When the write lands, the history shown for those facts is out of date."""
        def landed(fut: asyncio.Future[Any]) -> None:
            if fut.cancelled() or fut.exception() is not None:
                return  # `write_failed` already told the person and reloaded
            for fact_id in ids:
                self.detail.forget(fact_id)
            selected = self.facts.selected
            if selected is not None and selected.id in ids:
                self.detail.reload()

        asyncio.wrap_future(token).add_done_callback(landed)

    def write_failed(self, exc: BaseException) -> None:
        """A write did not reach the store: say so and show what the store holds."""
        message = str(exc).split("\n", 1)[0].split(" (Background on this error", 1)[0]
        self.notify(f"Could not save a decision: {message}. Showing the store as it is.",
                    severity="error", timeout=8, markup=False)
        self.undo_stack = triage.UndoStack()
        selected = self.facts.selected
        self.load(selected.id if selected else None)

    # ---- views and filter ---------------------------------------------------------

    def action_next_view(self) -> None:
        self.show_view(triage.next_view(self.view))

    def action_previous_view(self) -> None:
        self.show_view(triage.next_view(self.view, -1))

    def action_show_view(self, view: str) -> None:
        self.show_view(view)

    def show_view(self, view: str) -> None:
        if view not in triage.VIEWS:
            return
        self.view = view
        self.show_rows()

    def action_filter(self) -> None:
        bar = self.filter_bar
        self.query_text = ""
        bar.value = ""
        bar.display = True
        self.call_after_refresh(bar.focus)  # once mounted (the first time)
        self.show_rows()
        self._warm_filter(list(self.view_rows))

    @work(thread=True, exclusive=True, group="filter", exit_on_error=False)
    def _warm_filter(self, rows: list[FactRow]) -> None:
        """Build the rows' filter text while the person starts typing, not on the first
        key (and not at all for a review that never filters: it costs memory)."""
        for row in rows:
            row.haystack  # noqa: B018
    @on(FilterBar.Changed)
    def _filter_typed(self, event: FilterBar.Changed) -> None:
        if event.input is not self.filter_bar or event.value == self.query_text:
            return  # not ours, or our own reset of the box
        # Typing more only narrows (every word must match): filter what is shown already.
        extends = bool(self.query_text) and event.value.startswith(self.query_text)
        base = self.facts.rows if extends else self.view_rows
        self.query_text = event.value
        self.facts.set_rows(triage.narrow(base, self.query_text), 0)
        self.facts.empty_message = f"No {self.view} fact matches “{self.query_text}”."
        self.update_status()

    @on(FilterBar.Submitted)
    def _filter_done(self, event: FilterBar.Submitted) -> None:
        if event.input is not self.filter_bar:
            return
        # The box stays, showing the filter at work; escape clears it.
        self.filter_bar.display = bool(self.query_text)
        self.facts.focus()
        self.facts.move_to(0)

    @on(FilterBar.Cleared)
    def _filter_cleared(self) -> None:
        self.clear_filter()

    def clear_filter(self) -> None:
        selected = self.facts.selected
        self.query_text = ""
        if self._filter_bar is not None:
            self._filter_bar.value = ""
            self._filter_bar.display = False
        self.facts.focus()
        self.show_rows(selected.id if selected else None)

    def action_clear(self) -> None:
        if self.query_text or self.filtering:
            self.clear_filter()
        elif self.marks:
            self.marks.clear()
            self.facts.refresh()
            self.update_status()

    # ---- misc ---------------------------------------------------------------------

    def action_team(self) -> None:
        from reviewer.tui.screens.team import TeamScreen

        self.app.push_screen(TeamScreen(self.review), self._team_closed)

    def _team_closed(self, took: bool | None) -> None:
        """A fact taken in the team view is approved here too: show the store as it is."""
        if took:
            self.action_reload()

    def action_help(self) -> None:
        from reviewer.tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen())

    async def action_quit(self) -> None:
        await self.review.writer.drain()
        self.app.exit()

    def action_reload(self) -> None:
        selected = self.facts.selected
        self.load(selected.id if selected else None)
        self.detail.forget()
        self.compute_staleness(list(self.all_rows))

    def action_detail_down(self) -> None:
        self.detail.scroll_relative(y=3, animate=False)

    def action_detail_up(self) -> None:
        self.detail.scroll_relative(y=-3, animate=False)

    # ---- background work ----------------------------------------------------------

    @work(thread=True, group="staleness", exit_on_error=False)
    def compute_staleness(self, rows: list[FactRow]) -> None:
        """Verdicts off the UI thread; without the staleness module rows stay unflagged."""
        worker = get_current_worker()
        try:
            found = stale.scan(self.review.db_path, self.review.project, rows)
        except Exception as exc:  # staleness is advisory here: never take the review down
            from reviewer.log import log

            log("tui", f"staleness failed: {type(exc).__name__}: {exc}")
            return
        if found is not None and not worker.is_cancelled:
            self.ui.soon(self._apply_verdicts, found)

    def _apply_verdicts(self, found: stale.Scan) -> None:
        changed = stale.apply(self.by_id, found)
        if not changed:
            return
        for row in changed:
            self.grades.pop(row.id, None)
        self.compute_grades([r for r in changed if r.stale])
        if self.view == "stale":
            selected = self.facts.selected
            self.counts = triage.count(self.all_rows)
            self.show_rows(selected.id if selected else None)
        else:
            self._changed(changed)
        self.detail.show(self.facts.selected)

    @work(thread=True, group="grades", exit_on_error=False)
    def compute_grades(self, rows: list[FactRow]) -> None:
        """Which stale facts had their cited part change (off the UI thread)."""
        if not rows:
            return
        try:
            found = stale.grades(self.review.project, rows)
        except Exception as exc:  # advisory: ungraded rows sort as before
            from reviewer.log import log

            log("tui", f"staleness grading failed: {type(exc).__name__}: {exc}")
            return
        if found and not get_current_worker().is_cancelled:
            self.ui.soon(self._apply_grades, found)

    def _apply_grades(self, found: dict[int, str]) -> None:
        self.grades.update({i: g for i, g in found.items()
                            if i in self.by_id and self.by_id[i].stale})
        if self.view == "stale":
            selected = self.facts.selected
            self.show_rows(selected.id if selected else None)
        else:
            self.facts.refresh()
        self.detail.forget()
        self.detail.show(self.facts.selected)
        self.refresh_bindings()

    def _detail_content(self, row: FactRow) -> list[Content]:
        """The detail pane's full content (runs in a worker thread)."""
        from reviewer.tui import highlight

        with self.review.read_lock:
            detail = load_detail(self.review.conn, row.id)
            history = load_history(self.review.conn, row.id)
        context = None
        if detail is not None and detail.context:
            context = highlight.render_context(detail.context, detail.evidence)
        return full(row, detail, history, self._diffs(row), context, self.grades.get(row.id),
                    self._unread(row))

    def _unread(self, row: FactRow) -> dict[str, str]:
        """Why each missing cited file is not read (a few lstat calls; worker thread)."""
        from reviewer.freshness import cited

        out: dict[str, str] = {}
        for path in row.missing[:20]:
            why = cited.problem(self.review.project, path)
            if why is not None and why != cited.MISSING:
                out[path] = why
        return out

    def _diffs(self, row: FactRow) -> dict[str, Content]:
        """The stale files' diffs since capture, highlighted (runs in a worker thread)."""
        from reviewer.tui import highlight

        diffs: dict[str, Content] = {}
        if row.stale and row.commit_sha:
            stale_files = [p for p, s in row.file_states.items() if s in ("changed", "moved",
                                                                          "deleted")]
            for path in stale_files[:MAX_DIFFS]:
                diff = self.review.file_diff(row.commit_sha, path, row.renamed.get(path))
                diffs[path] = highlight.render_diff(
                    mark_cited_hunks(diff, row.text) if diff else "(no changes in git's view)")
        return diffs


def _doors_header(conn: object, project: str) -> str:
    """Claude Code's own memory, when it reaches Claude around the review; advisory."""
    try:
        from reviewer.claude_code.doors import doors, header

        return header(doors(project, conn))  # type: ignore[arg-type]
    except Exception as exc:
        from reviewer.log import log

        log("tui", f"memory doors unknown: {type(exc).__name__}: {exc}")
        return ""
