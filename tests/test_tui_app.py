"""Every key of the review, driven with Pilot; every decision checked in the database.

A second sqlite3 connection reads the store after `app.settle()` (which waits for the
background writer), so these tests see what another process, or the next session's
SessionStart hook, would see.
"""

from __future__ import annotations

import json
import shutil

import pytest
from test_tui_seed import PENDING_ORDER, SAMPLE, Env, F, git, make_app, seed
from textual.widgets import Input, OptionList, Select, TextArea

from reviewer.freshness import staleness
from reviewer.freshness.anchors import ABSENT, blob_sha
from reviewer.store import db, queue
from reviewer.tui import triage
from reviewer.tui.screens.confirm import ConfirmScreen
from reviewer.tui.screens.edit import EditScreen
from reviewer.tui.screens.help import HelpScreen
from reviewer.tui.screens.reject import RejectScreen
from reviewer.tui.widgets.empty_state import EmptyState
from reviewer.tui.widgets.fact_list import FactList


def texts(app) -> list[str]:
    return [r.text for r in app.main.facts.rows]


def selected_text(app) -> str:
    row = app.main.facts.selected
    return "" if row is None else row.text


def plain(widget) -> str:
    """What a Static shows, as plain text."""
    return str(widget.visual.plain if hasattr(widget.visual, "plain") else widget.visual)


def status_line(app) -> str:
    return plain(app.main.query_one("#counts")) + " | " + plain(app.main.query_one("#views"))


# ---- first paint -----------------------------------------------------------------------


async def test_opens_on_pending_facts_grounded_first(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        assert texts(app) == [SAMPLE[i].text for i in PENDING_ORDER]
        assert selected_text(app) == SAMPLE[0].text
        assert "5 pending · 0 approved today" in status_line(app)
        assert isinstance(app.focused, FactList)
        await pilot.press("j", "down")
        assert selected_text(app) == SAMPLE[2].text
        await pilot.press("k", "up", "up")
        assert selected_text(app) == SAMPLE[0].text


async def test_detail_shows_evidence_in_context_files_provenance_and_history(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test(size=(100, 60)) as pilot:
        await app.settle()
        await pilot.pause()
        body = app.main.detail.body
        text = plain(body)
        assert SAMPLE[0].text in text
        assert "Evidence in the transcript" in text
        assert "return payload.get('items', [])" in text  # the diff inside the context
        assert "fresh" in text and "src/api.py" in text  # the cited file and its anchor
        assert "session sess-0001" in text and "branch main" in text
        assert "2026-01-01 12:00 worker created" in " ".join(text.split())
        assert "seen in 2 sessions · injected 3 times" in text
        spans = body.visual.spans
        assert any("on $warning-muted" in str(s.style) for s in spans)  # the quote, marked


# ---- accept ----------------------------------------------------------------------------


async def test_accept_writes_at_once_and_selects_the_next_pending(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("a")
        assert app.main.facts.rows[0].status == "approved"  # shown before the write lands
        assert selected_text(app) == SAMPLE[1].text
        await app.settle()
        row = env.fact(ids[0])
        assert row["status"] == "approved" and row["decided_at"] is not None
        assert env.history(ids[0]) == [("worker", "created"), ("tui", "approved")]
        assert "4 pending · 1 approved today" in status_line(app)


async def test_selection_skips_decided_facts(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("j", "a")  # approve the second; cursor → third
        assert selected_text(app) == SAMPLE[2].text
        await pilot.press("k", "k", "a")  # back to the first, approve: skip the decided 2nd
        assert selected_text(app) == SAMPLE[2].text
        await app.settle()
        assert [env.fact(i)["status"] for i in ids[:3]] == ["approved", "approved", "pending"]


async def test_accept_on_the_last_pending_goes_back_up(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("end", "a")
        assert selected_text(app) == SAMPLE[3].text


# ---- reject ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "reason"), [(str(n), reason) for n, (reason, _) in enumerate(triage.REASONS[:-1], 1)]
)
async def test_reject_with_each_reason_by_its_number(env: Env, key: str, reason: str) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("r")
        assert isinstance(app.screen, RejectScreen)
        await pilot.press(key)
        await app.settle()
        assert not isinstance(app.screen, RejectScreen)
        row = env.fact(ids[0])
        assert (row["status"], row["reject_reason"]) == ("rejected", reason)
        assert env.history(ids[0])[-1] == ("tui", "rejected")
        assert selected_text(app) == SAMPLE[1].text


async def test_reject_enter_takes_the_highlighted_reason(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("r", "down", "down", "enter")
        await app.settle()
        assert env.fact(ids[0])["reject_reason"] == "duplicate"


async def test_reject_other_asks_for_free_text(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("r", "7")
        other = app.screen.query_one("#other-reason", Input)
        assert other.display and other.has_focus
        await pilot.press(*"a one-off, not a rule")  # 'a' and 'r' type, they do not decide
        await pilot.press("enter")
        await app.settle()
        row = env.fact(ids[0])
        assert (row["status"], row["reject_reason"]) == ("rejected", "a one-off, not a rule")


async def test_reject_other_with_no_text_is_stored_as_other(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("r")
        app.screen.query_one(OptionList).highlighted = len(triage.REASONS) - 1
        await pilot.press("enter", "enter")  # pick "other…", then submit an empty reason
        await app.settle()
        assert env.fact(ids[0])["reject_reason"] == "other"


async def test_reject_escape_cancels_and_changes_nothing(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("r", "7", "escape", "escape")  # leave the text box, then the picker
        assert not isinstance(app.screen, RejectScreen)
        await app.settle()
        assert env.fact(ids[0])["status"] == "pending"
        assert env.history(ids[0]) == [("worker", "created")]
        assert not app.main.can_act("undo")


# ---- edit ------------------------------------------------------------------------------


async def test_edit_then_ctrl_s_approves_the_edited_text(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("e")
        assert isinstance(app.screen, EditScreen)
        area = app.screen.query_one(TextArea)
        assert area.text == SAMPLE[0].text
        area.text = "An empty cart returns items: []"
        await pilot.press("end", *" (always)")  # typed keys reach the text, not the list
        app.screen.query_one(Select).value = "gotcha"
        await pilot.press("ctrl+s")
        await app.settle()
        assert not isinstance(app.screen, EditScreen)
        row = env.fact(ids[0])
        assert row["text"] == "An empty cart returns items: [] (always)"
        assert (row["status"], row["category"]) == ("approved", "gotcha")
        assert row["norm"] != f"norm-0-{SAMPLE[0].text.lower()}"  # re-keyed for dedupe
        assert env.history(ids[0])[-1] == ("tui", "edited")
        assert env.fact(ids[1])["status"] == "pending"


async def test_edit_escape_cancels(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("e", "end", *" changed", "escape")
        assert isinstance(app.screen, ConfirmScreen)  # changes are not dropped silently
        await pilot.press("n")
        assert isinstance(app.screen, EditScreen)
        assert app.screen.query_one(TextArea).text.endswith(" changed")
        await pilot.press("escape", "y")
        assert not isinstance(app.screen, EditScreen)
        await app.settle()
        row = env.fact(ids[0])
        assert (row["text"], row["status"]) == (SAMPLE[0].text, "pending")
        assert selected_text(app) == SAMPLE[0].text


async def test_edit_escape_without_changes_leaves_at_once(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("e", "escape")
        assert app.screen is app.main


async def test_edit_refuses_an_empty_fact(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("e")
        app.screen.query_one(TextArea).text = "   "
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, EditScreen)  # still open, nothing saved
        await pilot.press("escape", "y")
        await app.settle()
        assert env.fact(ids[0])["text"] == SAMPLE[0].text


# ---- undo ------------------------------------------------------------------------------


async def test_undo_is_greyed_until_there_is_something_to_undo(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        assert not app.main.can_act("undo")
        await pilot.press("u")  # nothing happens
        await pilot.press("a")
        assert app.main.can_act("undo")
        await pilot.press("u")
        assert not app.main.can_act("undo")


async def test_undo_accept_restores_the_stored_fact_exactly(env: Env) -> None:
    ids = seed(env)
    before = dict(env.fact(ids[0]))
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("a", "u")
        assert selected_text(app) == SAMPLE[0].text
        assert app.main.facts.rows[0].status == "pending"
        await app.settle()
    after = dict(env.fact(ids[0]))
    changed = {k for k in before if before[k] != after[k]}
    assert changed == {"updated_at"}
    assert env.history(ids[0]) == [("worker", "created"), ("tui", "approved"), ("tui", "undo")]


async def test_undo_reject_and_edit_restore_reason_and_text(env: Env) -> None:
    ids = seed(env)
    before = [dict(env.fact(i)) for i in ids[:2]]
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("r", "2")  # reject #1, cursor → #2
        await pilot.press("e")
        app.screen.query_one(TextArea).text = "rewritten"
        app.screen.query_one(Select).value = "todo"
        await pilot.press("ctrl+s")
        await app.settle()
        assert env.fact(ids[1])["text"] == "rewritten"
        await pilot.press("u")  # the edit
        assert app.main.by_id[ids[1]].text == SAMPLE[1].text
        await pilot.press("u")  # the rejection
        await app.settle()
    for i, old in zip(ids[:2], before, strict=True):
        new = dict(env.fact(i))
        assert {k for k in old if old[k] != new[k]} == {"updated_at"}


async def test_undo_is_repeatable(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("a", "a", "a")
        await pilot.press("u", "u", "u")
        await app.settle()
        assert [env.fact(i)["status"] for i in ids[:4]] == ["pending"] * 4
        assert all(r.status == "pending" for r in app.main.facts.rows)


# ---- batch -----------------------------------------------------------------------------


async def test_space_marks_a_batch_then_a_approves_all_marked(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("space")  # marks #1; the cursor stays on it
        assert selected_text(app) == SAMPLE[0].text and len(app.main.marks) == 1
        await pilot.press("j", "space")  # marks #2
        assert len(app.main.marks) == 2 and "2 marked" in status_line(app)
        await pilot.press("j", "space", "k", "space")  # mark #3, back up, unmark #2
        assert len(app.main.marks) == 2
        await pilot.press("a")
        await app.settle()
        assert [env.fact(i)["status"] for i in ids[:4]] == [
            "approved",
            "pending",
            "approved",
            "pending",
        ]
        assert not app.main.marks and "marked" not in status_line(app)


async def test_batch_reject_then_undo_restores_every_marked_fact(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("space", "j", "j", "space", "r")
        assert "2 facts" in plain(app.screen.query_one("#reject-title"))
        await pilot.press("4")
        await app.settle()
        assert [(env.fact(i)["status"], env.fact(i)["reject_reason"]) for i in ids[:4]] == [
            ("rejected", "too vague"),
            ("pending", None),
            ("rejected", "too vague"),
            ("pending", None),
        ]
        await pilot.press("u")
        await app.settle()
        assert [env.fact(i)["status"] for i in ids[:4]] == ["pending"] * 4


async def test_escape_clears_marks(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("space", "j", "space", "escape")
        assert not app.main.marks


# ---- filter ----------------------------------------------------------------------------


async def test_filter_narrows_enter_selects_first_match_escape_clears(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("slash")
        bar = app.main.filter_bar
        assert bar.display and bar.has_focus and bar.value == ""
        await pilot.press(*"never")
        assert texts(app) == [SAMPLE[0].text, SAMPLE[1].text]
        assert "2 matches" in status_line(app)
        await pilot.press("j")  # typed into the filter, not a cursor move
        assert texts(app) == []
        await pilot.press("backspace", "enter")
        # The list has the keys again; the box stays, showing the filter at work.
        assert isinstance(app.focused, FactList) and bar.display and bar.value == "never"
        assert selected_text(app) == SAMPLE[0].text
        await pilot.press("j")
        assert selected_text(app) == SAMPLE[1].text
        await pilot.press("escape")
        assert len(texts(app)) == 5 and app.main.query_text == "" and not bar.display
        assert selected_text(app) == SAMPLE[1].text  # the selection survives clearing


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("todo", [2]),
        ("conftest.py", [3]),
        ("GOTCHA", [3]),
        ("uv pip", [1]),
    ],
)
async def test_filter_matches_text_category_and_files(
    env: Env, query: str, expected: list[int]
) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("slash", *query, "enter")
        assert texts(app) == [SAMPLE[i].text for i in expected]


async def test_escape_in_the_filter_clears_it(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("slash", *"postgres")
        assert len(texts(app)) == 1
        await pilot.press("escape")
        assert len(texts(app)) == 5 and not app.main.filter_bar.display
        assert isinstance(app.focused, FactList)


async def test_decisions_work_on_the_filtered_list(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("slash", *"postgres", "enter", "a")
        await app.settle()
        assert env.fact(ids[3])["status"] == "approved"
        assert env.fact(ids[0])["status"] == "pending"


# ---- views, help, quit, theme ----------------------------------------------------------


async def test_tab_cycles_views(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        seen = {}
        for _ in range(5):
            await pilot.press("tab")
            seen[app.main.view] = texts(app)
        assert seen["approved"] == [SAMPLE[5].text]
        assert seen["rejected"] == [SAMPLE[6].text]
        assert seen["stale"] == []
        assert len(seen["all"]) == 7
        assert app.main.view == "pending" and len(texts(app)) == 5
        await pilot.press("shift+tab")
        assert app.main.view == "all"


async def test_decided_facts_leave_the_pending_view_on_the_next_visit(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("a")
        assert len(texts(app)) == 5  # still there, shown as decided (undo is one key away)
        await pilot.press("tab", "shift+tab")
        assert SAMPLE[0].text not in texts(app) and len(texts(app)) == 4
        await pilot.press("tab")
        assert SAMPLE[0].text in texts(app)


async def test_question_mark_opens_help(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        shown = "\n".join(plain(s) for s in app.screen.query("Static"))
        assert "undo the last decision" in shown
        # Every key the main screen binds is explained (none forgotten, as ctrl+r was).
        for key in ("ctrl+r", "shift+↑", "Home", "PgDn", "escape", "g G", "s", "m", "v"):
            assert key in shown, key
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_q_quits_after_the_writes_land(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("a", "q")
        await pilot.pause()
        assert app.return_code == 0
        assert not app.is_running
    assert env.fact(ids[0])["status"] == "approved"


async def test_ctrl_t_toggles_light_and_dark(env: Env) -> None:
    seed(env)
    app = make_app(env, theme="textual-dark")
    async with app.run_test() as pilot:
        await pilot.press("ctrl+t")
        assert app.theme == "textual-light"
        await pilot.press("ctrl+t")
        assert app.theme == "textual-dark"


async def test_command_palette_lists_every_action(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        titles = {c.title for c in app.get_system_commands(app.main)}
        for title in (
            "Accept", "Reject", "Edit", "Skip", "Mark", "Filter", "Next view",
            "View: stale", "Help", "Toggle light/dark", "Quit", "Reload",
        ):
            assert title in titles
        # Context-aware: what cannot act now is not offered, nor Textual's own entries.
        assert {"Undo", "Re-verify", "Merge marked", "View: pending"} & titles == set()
        assert not {"Maximize", "Screenshot", "Theme", "Keys"} & titles
        await pilot.press("space", "j", "space", "a")
        titles = {c.title for c in app.get_system_commands(app.main)}
        assert "Undo" in titles
        await pilot.press("space", "j", "space")
        assert "Merge marked" in {c.title for c in app.get_system_commands(app.main)}


async def test_palette_command_runs_the_action(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test():
        await app.settle()
        accept = next(c for c in app.get_system_commands(app.main) if c.title == "Accept")
        accept.callback()
        await app.settle()
        assert env.fact(ids[0])["status"] == "approved"


def test_bindings_have_ids_and_single_letters_are_not_priority() -> None:
    from reviewer.tui.app import ReviewApp
    from reviewer.tui.screens.main import MainScreen
    from reviewer.tui.widgets.filter_bar import FilterBar

    classes = (
        ReviewApp,
        MainScreen,
        FactList,
        FilterBar,
        RejectScreen,
        EditScreen,
        HelpScreen,
        ConfirmScreen,
    )
    for cls in classes:
        for binding in cls.BINDINGS:
            assert binding.id, f"{cls.__name__}: {binding.key} has no id"
            if binding.priority:
                assert all(len(k) > 1 for k in binding.key.split(",")), binding


# ---- empty state, size, mouse ----------------------------------------------------------


async def test_empty_state_tells_what_to_do_and_counts_jobs(env: Env) -> None:
    conn = db.connect(env.db_path)
    for n in range(3):
        queue.enqueue(
            conn,
            session_id=f"s{n}",
            transcript_path=f"/t/{n}.jsonl",
            project=str(env.project),
            cwd=str(env.project),
            event="SessionEnd",
        )
    queue.fail(conn, 3, "transcript unreadable")
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        empty = app.main.query_one(EmptyState)
        assert empty.display and not app.main.query_one("#body").display
        text = plain(empty)
        assert "mem-review install" in text and "mem-review demo" in text
        assert "2 queued" in text and "1 failed" in text
        await pilot.press("a", "r", "e", "u", "space", "tab")  # nothing to act on: no crash
        assert not isinstance(app.screen, RejectScreen | EditScreen)


async def test_an_empty_view_says_so(env: Env) -> None:
    seed(env, [F("only approved", status="approved", decided_at=1.0)])
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        assert texts(app) == [] and "Nothing pending" in app.main.facts.empty_message
        await pilot.press("a")  # nothing selected: a bell, no error
        assert env.fact(1)["status"] == "approved"


async def test_works_at_80x24(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        facts = app.main.facts
        assert facts.size.height >= 5 and facts.size.width >= 78
        assert app.main.detail.size.height >= 8
        await pilot.press("j", "a")
        await app.settle()
        assert env.fact(ids[1])["status"] == "approved"


async def test_click_selects_a_row(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        assert await pilot.click(FactList, offset=(20, 3))
        assert app.main.facts.cursor == 3
        assert selected_text(app) == SAMPLE[3].text


async def test_ten_thousand_facts_load_and_move(env: Env) -> None:
    seed(env, [F(f"fact number {n}", created_at=float(n)) for n in range(10_000)])
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        assert len(texts(app)) == 10_000 and texts(app)[0] == "fact number 9999"
        await pilot.press("end")
        assert selected_text(app) == "fact number 0"
        await pilot.press("slash", *"number 42", "enter")  # both words, anywhere
        expected = [f"fact number {n}" for n in range(9_999, -1, -1) if "42" in str(n)]
        assert texts(app) == expected and selected_text(app) == "fact number 9942"


# ---- hostile text ----------------------------------------------------------------------


HOSTILE = [
    F("[/foo] closing tag first", evidence="[/foo]", context="User: [/foo] and [bold]"),
    F(
        "[bold]not bold[/bold] [link=https://x]y[/link] [@click=app.quit]z[/]",
        evidence="[bold]",
        context='User: [bold]not bold[/bold]\n```json\n{"a": "[/b]"}\n```',
    ),
    F(
        "ansi \x1b[31mred\x1b[0m bell \x07 nul \x00 cr \r done",
        evidence="\x1b[31mred",
        context="User: ansi \x1b[31mred\x1b[0m\x1b]0;title\x07",
    ),
    F("long " + "x" * 10_000, evidence="x" * 500, context="User: " + "word " * 5_000),
    F("multi\nline\tfact", context="```\nunclosed fence [/foo]"),
    F("odd category", category="[/oops]"),
]


async def test_hostile_text_renders_literally(env: Env) -> None:
    ids = seed(env, HOSTILE)
    app = make_app(env)
    async with app.run_test(size=(100, 30)) as pilot:
        await app.settle()
        for _ in HOSTILE:
            await app.settle()
            await pilot.pause()
            assert "\x1b" not in plain(app.main.detail.body)
            await pilot.press("j")
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "\x07" not in svg
        assert not app.return_code
        await pilot.press("home", "e")  # the edit box shows it too, safely
        assert "[/foo]" in app.screen.query_one(TextArea).text
        await pilot.press("escape", "end", "e")  # a category that looks like markup
        await pilot.pause()
        assert app.screen.query_one(Select).value == "[/oops]"
        await pilot.press("escape")
        first = app.main.facts.selected
        assert first is not None and first.id in ids
    assert "[/foo]" in plain_row_text(env, ids[0])


async def test_a_reason_with_markup_is_stored_and_shown_literally(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("space", "j", "space", "r", "7", *"[/foo] [bold]x", "enter")
        await app.settle()
        await pilot.press("u")  # the undo toast names the reason too
        await app.settle()
        await pilot.pause()
        assert app.is_running
        from textual.widgets._toast import Toast

        # Tests run without the toast rack; render each toast as the rack would.
        shown = [Toast(n).render().plain for n in app._notifications]
        assert any("[/foo] [bold]x" in text for text in shown), shown
    history = env.connect().execute(
        "SELECT after FROM fact_history WHERE fact_id = ? AND action = 'rejected'", (ids[0],)
    ).fetchone()
    assert json.loads(history["after"])["reject_reason"] == "[/foo] [bold]x"


def plain_row_text(env: Env, fact_id: int) -> str:
    return str(env.fact(fact_id)["text"])


# ---- staleness -------------------------------------------------------------------------


def _git_project(env: Env) -> str:
    from reviewer.freshness.anchors import git_head

    git(env.project, "init", "-q")
    git(env.project, "add", "-A")
    git(env.project, "commit", "-q", "-m", "first")
    commit = git_head(env.project)[0]
    assert commit
    return commit


STALE_FACTS = [
    F(
        "The API returns [] for an empty cart.",
        status="approved",
        decided_at=1.0,
        files=["src/api.py"],
    ),
    F(
        "conftest holds the fixtures.",
        status="approved",
        decided_at=2.0,
        files=["tests/conftest.py"],
    ),
    F("Fresh one.", status="approved", decided_at=3.0, files=["pyproject.toml"]),
]


async def test_stale_facts_are_flagged_and_v_reverifies(env: Env) -> None:
    pytest.importorskip("reviewer.freshness.staleness")
    ids = seed(env, STALE_FACTS, commit=_git_project(env))
    (env.project / "src" / "api.py").write_text("def create_order(payload):\n    return []\n")
    app = make_app(env)
    async with app.run_test(size=(100, 40)) as pilot:
        await app.settle()
        assert app.main.by_id[ids[0]].stale and not app.main.by_id[ids[2]].stale
        await pilot.press("tab", "tab", "tab")
        assert app.main.view == "stale" and texts(app) == [STALE_FACTS[0].text]
        await app.settle()
        await pilot.pause()
        assert "Diff of src/api.py since capture" in plain(app.main.detail.body)
        assert "return []" in plain(app.main.detail.body)
        assert app.main.can_act("verify")
        anchors_before = json.loads(env.fact(ids[0])["anchors"])
        await pilot.press("v", "y")
        await app.settle()
        row = env.fact(ids[0])
        assert json.loads(row["anchors"]) == {"src/api.py": blob_sha(env.project / "src/api.py")}
        assert row["verified_at"] is not None and row["status"] == "approved"
        assert env.history(ids[0])[-1] == ("tui", "verified")
        assert not app.main.by_id[ids[0]].stale
        await pilot.press("u")
        await app.settle()
        assert json.loads(env.fact(ids[0])["anchors"]) == anchors_before
        assert env.fact(ids[0])["verified_at"] is None
        assert app.main.by_id[ids[0]].stale


async def test_v_only_acts_on_stale_facts(env: Env) -> None:
    ids = seed(env, STALE_FACTS)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("tab")
        assert not app.main.can_act("verify")
        await pilot.press("v", "y")
        await app.settle()
        assert env.history(ids[0]) == [("worker", "created")]


async def test_moved_file_offers_to_follow_the_rename(env: Env) -> None:
    pytest.importorskip("reviewer.freshness.staleness")
    ids = seed(env, STALE_FACTS, commit=_git_project(env))
    git(env.project, "mv", "tests/conftest.py", "tests/fixtures.py")
    git(env.project, "commit", "-q", "-m", "rename")
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        row = app.main.by_id[ids[1]]
        assert row.stale and row.renamed == {"tests/conftest.py": "tests/fixtures.py"}
        await pilot.press("tab", "tab", "tab")
        assert selected_text(app) == STALE_FACTS[1].text
        await pilot.press("v", "y")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await app.settle()
        stored = env.fact(ids[1])
        assert json.loads(stored["files"]) == ["tests/fixtures.py"]
        assert json.loads(stored["anchors"]) == {
            "tests/fixtures.py": blob_sha(env.project / "tests/fixtures.py")
        }


async def test_verify_looks_again_for_where_a_deleted_file_went(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list may say `deleted` from the store's memo, which cannot see a copy appear in
    an unrelated directory; `v` looks again before anchoring the path as gone."""
    import time

    from reviewer.freshness import verdict_memo

    monkeypatch.setattr(verdict_memo, "MIN_FACTS", 0)
    monkeypatch.setattr(staleness, "SETTLE_NS", 20_000_000)
    ids = seed(env, STALE_FACTS, commit=_git_project(env))
    content = (env.project / "tests" / "conftest.py").read_bytes()
    (env.project / "tests" / "conftest.py").unlink()
    time.sleep(0.05)
    conn = db.connect(env.db_path)
    verdict_memo.verdicts(conn, str(env.project), str(env.project), "live")  # remembered
    conn.close()
    (env.project / "lib").mkdir()
    (env.project / "lib" / "conftest.py").write_bytes(content)  # untracked, elsewhere
    staleness.forget()
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        assert app.main.by_id[ids[1]].verdict == "deleted"  # what the memo knew
        await pilot.press("tab", "tab", "tab")
        assert selected_text(app) == STALE_FACTS[1].text
        await pilot.press("v", "y")
        assert isinstance(app.screen, ConfirmScreen)  # "Git saw … Follow the rename?"
        await pilot.press("y")
        await app.settle()
        assert json.loads(env.fact(ids[1])["files"]) == ["lib/conftest.py"]


async def test_keeping_the_old_path_anchors_it_as_gone(env: Env) -> None:
    """`n` to the follow offer: the person says the fact holds with the file gone. It
    stays fresh while the path is empty, and goes stale if a file comes back there."""
    pytest.importorskip("reviewer.freshness.staleness")
    ids = seed(env, STALE_FACTS, commit=_git_project(env))
    git(env.project, "mv", "tests/conftest.py", "tests/fixtures.py")
    git(env.project, "commit", "-q", "-m", "rename")
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("tab", "tab", "tab")
        assert selected_text(app) == STALE_FACTS[1].text
        await pilot.press("v", "y")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await app.settle()
        stored = env.fact(ids[1])
        assert json.loads(stored["files"]) == ["tests/conftest.py"]
        assert json.loads(stored["anchors"]) == {"tests/conftest.py": ABSENT}
        assert not app.main.by_id[ids[1]].stale
    (env.project / "tests" / "conftest.py").write_text("# a new file where the old was\n")
    verdict = staleness.verdicts(None, env.project, [env.fact(ids[1])])[ids[1]]
    assert verdict.stale and verdict.state == "changed"


async def test_stale_reject_preselects_outdated_and_edit_reanchors(env: Env) -> None:
    pytest.importorskip("reviewer.freshness.staleness")
    ids = seed(env, STALE_FACTS, commit=_git_project(env))
    (env.project / "src" / "api.py").write_text("changed\n")
    shutil.move(env.project / "tests" / "conftest.py", env.project / "conftest.py")
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("tab", "tab", "tab")
        assert len(texts(app)) == 2
        await pilot.press("r")
        assert app.screen.query_one(OptionList).highlighted == [r for r, _ in triage.REASONS].index(
            "outdated"
        )
        await pilot.press("enter")
        await app.settle()
        assert env.fact(ids[0])["reject_reason"] == "outdated"
        await pilot.press("j", "e")
        app.screen.query_one(TextArea).text = "The root conftest holds the fixtures."
        await pilot.press("ctrl+s")
        await app.settle()
        stored = env.fact(ids[1])
        assert stored["text"] == "The root conftest holds the fixtures."
        assert stored["verified_at"] is not None
        assert env.history(ids[1])[-2:] == [("tui", "edited"), ("tui", "verified")]


# ---- failure ---------------------------------------------------------------------------


async def test_a_failed_write_is_reported_and_the_store_shown_as_it_is(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reviewer.store.facts import Store

    ids = seed(env)

    def broken(self: Store, ids: list[int], *, actor: str = "tui") -> None:
        raise OSError("disk full")

    monkeypatch.setattr(Store, "approve", broken)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("a")
        await app.settle()
        await pilot.pause()
        assert app.main.by_id[ids[0]].status == "pending"  # reloaded from the store
        assert not app.main.undo_stack
        assert any("disk full" in str(n.message) for n in app._notifications)
    assert env.fact(ids[0])["status"] == "pending"


# ---- loading -------------------------------------------------------------------------


async def test_more_facts_than_a_first_page_all_arrive(env: Env) -> None:
    from reviewer.tui.screens.main import FIRST_PAGE

    seed(env, [F(f"fact {n:04d}", created_at=float(n)) for n in range(FIRST_PAGE + 50)])
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        assert len(texts(app)) == FIRST_PAGE + 50
        assert texts(app)[0] == f"fact {FIRST_PAGE + 49:04d}"
        await pilot.press("end")
        assert selected_text(app) == "fact 0000"


async def test_the_full_load_keeps_rows_already_decided(env: Env) -> None:
    from reviewer.tui.rows import load_rows

    ids = seed(env)
    app = make_app(env)
    async with app.run_test():
        await app.settle()
        shown = app.main.by_id[ids[0]]
        shown.status = "approved"  # as if decided before the whole list arrived
        with app.read_lock:
            fresh = load_rows(app.conn, str(env.project))
        app.main._loaded_everything(fresh, {})
        assert app.main.by_id[ids[0]] is shown and shown.status == "approved"


async def test_staleness_missing_degrades_to_no_flags(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    ids = seed(env, STALE_FACTS)
    (env.project / "src" / "api.py").write_text("changed\n")
    monkeypatch.setitem(sys.modules, "reviewer.freshness.staleness", None)  # import fails
    monkeypatch.setitem(sys.modules, "reviewer.freshness.verdict_memo", None)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        assert not any(r.stale for r in app.main.all_rows)
        await pilot.press("tab", "a")  # the review goes on
        await app.settle()
        assert env.fact(ids[0])["status"] == "approved"


async def test_clicking_a_view_tab_switches_to_it(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        views = app.main.query_one("#views")
        offset = plain(views).index("rejected") + 2
        assert await pilot.click("#views", offset=(offset, 0))
        assert app.main.view == "rejected" and texts(app) == [SAMPLE[6].text]


async def test_opening_on_the_stale_view_lists_stale_facts_once_checked(env: Env) -> None:
    pytest.importorskip("reviewer.freshness.staleness")
    seed(env, STALE_FACTS, commit=_git_project(env))
    (env.project / "src" / "api.py").write_text("changed\n")
    app = make_app(env)
    app.main.view = "stale"  # `mem-review review --view stale`
    async with app.run_test():
        await app.settle()
        assert texts(app) == [STALE_FACTS[0].text]
        assert "1 stale" in status_line(app)


async def test_wide_terminals_put_the_detail_beside_the_list(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test(size=(160, 40)):
        await app.settle()
        facts, detail = app.main.facts.region, app.main.detail.region
        assert app.main.has_class("-wide")
        assert detail.x >= facts.right and detail.y == facts.y
    app = make_app(env)
    async with app.run_test(size=(100, 40)):
        await app.settle()
        facts, detail = app.main.facts.region, app.main.detail.region
        assert detail.y >= facts.bottom and detail.x == facts.x


async def test_ctrl_r_reloads_new_facts_and_rechecks_staleness(env: Env) -> None:
    pytest.importorskip("reviewer.freshness.staleness")
    ids = seed(env, STALE_FACTS, commit=_git_project(env))
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        assert not any(r.stale for r in app.main.all_rows)
        (env.project / "pyproject.toml").write_text("[project]\nname = 'renamed'\n")
        seed(env, [F("arrived while reviewing")])  # the worker stored a new fact
        await pilot.press("ctrl+r")
        await app.settle()
        assert "arrived while reviewing" in texts(app)
        assert app.main.by_id[ids[2]].stale and not app.main.by_id[ids[0]].stale
