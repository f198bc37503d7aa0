"""`t`: the team view. The project's shared facts (`.mem-review/facts/`) with who approved
each, whether it counts here (the trust rule), whether it is stale, and a stale fact's
diff. A person may take a teammate's fact (approve it as theirs), retire one (remove its
file) or edit one (rewrite its file). The logic is `reviewer.sharing.team`; this screen
shows it and routes the keys, approvals through the store writer with actor "tui".
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from reviewer.sharing.team import TeamFact
from reviewer.tui.safe_text import printable
from reviewer.tui.ui_loop import UiLoop
from reviewer.tui.widgets.key_bar import KeyBar

if TYPE_CHECKING:
    from reviewer.tui.review_context import Review

STALE_STATES = ("changed", "moved", "deleted")


def label(tf: TeamFact) -> Content:
    mark = ("✓ ", "$success") if tf.counts else ("· ", "$warning")
    who = "shared"  # the file's `approved_by` is a claim: no name until verified
    flags = " stale" if tf.stale else ""
    flags += "" if tf.counts else " pending"
    flags += f" · yours ({tf.mine_status})" if tf.mine is not None else ""
    return Content.assemble(mark, printable(tf.fact.text), (f"  — {who}{flags}", "$text-muted"))


def detail(tf: TeamFact, diffs: dict[str, str]) -> Content:
    f = tf.fact
    lines = [
        Content.styled(printable(f.text), "bold"),
        Content(f"{f.category} · put on origin's default branch by "
                f"{printable(tf.verified_by) or '(not known)'}" if tf.counts
                else f"{f.category} · approved by no one yet"),
        Content.styled(f"the file names {printable(f.approved_by)!s} as approver, "
                       f"on {printable(f.approved_at[:10]) or '?'}: a claim, not verified",
                       "$text-muted") if f.approved_by else Content(""),
        Content(f"file: {tf.path}"),
        Content("counts here: on origin's default branch, unchanged" if tf.counts
                else f"pending for you: {tf.reason}"),
    ]
    for path in f.files:
        state = tf.file_states.get(path, "fresh")
        lines.append(Content(f"  {printable(path)}: {state}"))
    if f.evidence:
        lines += [Content(""), Content.styled("Evidence", "bold"), Content(printable(f.evidence))]
    for path, diff in diffs.items():
        lines += [Content(""), Content.styled(f"Diff of {printable(path)} since approval", "bold"),
                  Content(printable(diff))]
    lines += [Content(""), Content.styled(
        "a take it (approve as yours) · e edit its file · x retire (remove its file, after "
        "asking; u puts it back) · escape, t or q back to the review", "$text-muted")]
    return Content("\n").join(lines)


class TeamScreen(Screen[bool]):
    """Dismissed with whether a fact was taken, so the review it returns to reloads."""

    BINDINGS = [  # noqa: RUF012
        Binding("a", "take", "Take", id="team-take"),
        Binding("e", "edit", "Edit file", id="team-edit"),
        Binding("x", "retire", "Retire", id="team-retire"),
        Binding("u", "undo", "Undo retire", id="team-undo"),
        Binding("question_mark", "help", "Help", id="team-help"),
        Binding("escape,t,q", "close", "Back", id="team-close"),
    ]

    def __init__(self, review: Review) -> None:
        super().__init__(id="team")
        self.review = review  # the app's store, writer and project (held: workers use it)
        self.ui = UiLoop()
        self.took = False
        self.rows: list[TeamFact] = []
        self.retired: list[tuple[Path, bytes]] = []  # for u: each removed file's bytes

    def compose(self) -> ComposeResult:
        with Vertical(id="team-body"):
            yield Static(Content.styled("Team facts (.mem-review/facts/)", "bold"), id="team-title")
            yield OptionList(id="team-list")
            with VerticalScroll(id="team-detail-box"):
                yield Static(id="team-detail")
        yield KeyBar()

    def can_act(self, action: str) -> bool:
        """The key bar greys what cannot act: nothing to take or retire in an empty view."""
        if action in ("take", "edit", "retire"):
            return bool(self.rows)
        if action == "undo":
            return bool(self.retired)
        return True

    def on_mount(self) -> None:
        self.ui.capture()
        self.reload()
        self.query_one(OptionList).focus()

    def reload(self, keep: str | None = None) -> None:
        from reviewer.sharing import team

        with self.review.read_lock:
            self.rows = team.load(self.review.conn, self.review.project)
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(label(tf), id=tf.fact.id) for tf in self.rows])
        self.refresh_bindings()
        if not self.rows:
            self.query_one("#team-detail", Static).update(
                "No shared facts here yet. `mem-review share` writes yours; commit and push "
                "them.\n\nescape, t or q goes back to the review.")
            return
        index = next((i for i, tf in enumerate(self.rows) if tf.fact.id == keep), 0)
        options.highlighted = index
        self._show(self.rows[index])

    @property
    def selected(self) -> TeamFact | None:
        index = self.query_one(OptionList).highlighted
        return self.rows[index] if index is not None and index < len(self.rows) else None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        tf = self.selected
        if tf is not None:
            self._show(tf)

    def _show(self, tf: TeamFact) -> None:
        self.query_one("#team-detail", Static).update(detail(tf, {}))
        if tf.stale and tf.fact.commit:
            self._diffs(tf)
        elif tf.counts and not tf.verified_by:
            self._approver(tf)

    @work(thread=True, exclusive=True, group="team-approver", exit_on_error=False)
    def _approver(self, tf: TeamFact) -> None:
        from reviewer.sharing.reading import verified_approver

        tf.verified_by = verified_approver(self.review.project, tf.path)

        def show() -> None:
            if self.is_mounted and self.selected is tf:
                self.query_one("#team-detail", Static).update(detail(tf, {}))

        self.ui.soon(show)

    @work(thread=True, exclusive=True, group="team-diff", exit_on_error=False)
    def _diffs(self, tf: TeamFact) -> None:
        stale = [p for p, s in tf.file_states.items() if s in STALE_STATES][:3]
        diffs = {p: self.review.file_diff(tf.fact.commit or "", p) for p in stale}
        def show() -> None:
            if self.is_mounted and self.selected is tf:
                self.query_one("#team-detail", Static).update(detail(tf, diffs))

        self.ui.soon(show)

    def action_take(self) -> None:
        from reviewer.sharing import team

        tf = self.selected
        if tf is None:
            self.app.bell()
            return
        project = self.review.project
        future = self.review.writer.take_shared(lambda s: team.stage_take(s.conn, project, tf))
        future.add_done_callback(lambda _f: self.ui.soon(self._taken, tf))

    def _taken(self, tf: TeamFact) -> None:
        if not self.is_mounted:
            return
        self.notify("Taken: approved as yours; `mem-review share` writes it with your name",
                    timeout=3, markup=False)
        self.took = True
        self.reload(tf.fact.id)

    def action_retire(self) -> None:

        tf = self.selected
        if tf is None:
            self.app.bell()
            return
        from reviewer.tui.screens.confirm import ConfirmScreen

        who = tf.fact.approved_by.split("<", 1)[0].strip() or "a teammate"
        question = Content("\n").join([
            Content.styled(f"Retire this fact of {printable(who)}'s? Its file is removed "
                           "(you commit the deletion).", "bold"),
            Content("  " + printable(tf.fact.text)),
            Content.styled(f"  {tf.path}", "$text-muted"),
        ])

        def answer(yes: bool | None) -> None:
            if yes:
                self._retire(tf)

        self.app.push_screen(ConfirmScreen(question, "y remove its file · n or escape keep "
                                                     "it"), answer)

    def _retire(self, tf: TeamFact) -> None:
        from reviewer.sharing import team

        path = Path(self.review.project) / tf.path
        try:
            before = path.read_bytes()
        except OSError:
            before = None
        team.retire(self.review.project, tf)
        if before is not None:
            self.retired.append((path, before))
        if tf.mine is not None and tf.mine_status == "approved":
            self.notify("Removed its file; it is still approved in your store: reject it there "
                        "too, or the next `mem-review share` writes it back", timeout=5,
                        markup=False)
        else:
            self.notify("Retired: its file is removed; commit the deletion (u puts it back)",
                        timeout=3, markup=False)
        self.reload()

    def action_undo(self) -> None:
        """Put the last retired file back, byte for byte."""
        if not self.retired:
            self.notify("Nothing to undo here.", timeout=2)
            return
        path, raw = self.retired.pop()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(raw)
        except OSError as exc:
            self.notify(f"Could not put {path.name} back: {exc}", severity="error",
                        markup=False)
            return
        self.notify(f"Undone: {path.name} is back", timeout=2, markup=False)
        self.reload()

    def action_help(self) -> None:
        from reviewer.tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen())

    def action_edit(self) -> None:
        from reviewer.sharing import team
        from reviewer.tui.screens.edit import EditScreen

        tf = self.selected
        if tf is None:
            self.app.bell()
            return

        def saved(result: tuple[str, str] | None) -> None:
            if result is None:
                return
            from reviewer.sharing.writing import git_identity

            try:
                editor = git_identity(self.review.project)
                team.rewrite(self.review.project, tf, result[0], result[1], editor)
            except Exception as exc:  # one line, the screen stays
                self.notify(f"Not saved: {exc}", severity="error", markup=False)
                return
            self.notify("Rewritten: pending until you commit and push it", timeout=3,
                        markup=False)
            self.reload(tf.fact.id)

        self.app.push_screen(EditScreen(tf.fact.text, tf.fact.category, stale=tf.stale), saved)

    def action_close(self) -> None:
        self.dismiss(self.took)
