"""At 80×24 what matters is on screen (issue 22): the evidence pane opens at the quote,
the verify dialog at the hunk that touches the fact (and says it scrolls), edit from
verify keeps the diff, the header and the reject box are not cut."""

from __future__ import annotations

from test_tui_app import _git_project, plain
from test_tui_seed import Env, F, make_app, seed
from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from reviewer.store import db, queue
from reviewer.tui.screens.edit import EditScreen
from reviewer.tui.screens.reject import RejectScreen
from reviewer.tui.screens.verify import VerifyScreen
from reviewer.tui.widgets.detail import quote_line

SIZE = (80, 24)
QUOTE = "Remember: deploys need the VPN up first."
LONG_CONTEXT = "\n".join(
    [f"Assistant: step {n} of the setup ran and printed its usual output line." for n in
     range(30)] + [f"User: {QUOTE}", "Assistant: Noted."])


def visible(scroll: VerticalScroll, line: int) -> bool:
    top = round(scroll.scroll_y)
    return top <= line < top + scroll.scrollable_content_region.height


async def _workers(app) -> None:
    for screen in app.screen_stack:
        for worker in list(screen.workers):
            await worker.wait()


async def test_the_evidence_pane_opens_at_the_quote(env: Env) -> None:
    seed(env, [F("Deploys need the VPN up first.", evidence=QUOTE, context=LONG_CONTEXT)])
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await app.settle()
        await pilot.pause()
        await pilot.pause()
        pane = app.main.detail
        line = quote_line(pane.body.visual if hasattr(pane.body, "visual") else None,
                          pane.scrollable_content_region.width)
        assert line is not None and line > pane.scrollable_content_region.height  # deep
        assert visible(pane, line), (pane.scroll_y, line)


LONG_FILE = "".join(f"LIMIT_{n} = {n}\n" for n in range(30)) + (
    "\n\ndef create_order(payload):\n    return payload.get('items', [])\n")
CHANGED = "".join(f"LIMIT_{n} = {n * 10}\n" for n in range(30)) + (
    "\n\ndef create_order(payload):\n    if not payload:\n        return None\n"
    "    return payload.get('items', [])\n")


def long_diff_env(env: Env) -> list[int]:
    (env.project / "src" / "api.py").write_text(LONG_FILE)
    ids = seed(env, [F("create_order returns [] for an empty payload.", status="approved",
                       decided_at=1.0, files=["src/api.py"])], commit=_git_project(env))
    (env.project / "src" / "api.py").write_text(CHANGED)
    return ids


def _line_of(body: Static, text: str) -> int:
    return next(i for i, ln in enumerate(str(body.visual).splitlines()) if text in ln)


async def test_verify_opens_at_the_changed_line_and_says_it_scrolls(env: Env) -> None:
    long_diff_env(env)
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await app.settle()
        await pilot.press("tab", "tab", "tab", "v")
        assert isinstance(app.screen, VerifyScreen)
        await _workers(app)
        await pilot.pause()
        await pilot.pause()
        scroll = app.screen.query_one("#verify-diff", VerticalScroll)
        body = app.screen.query_one("#verify-diff-body", Static)
        line = _line_of(body, "+        return None")
        assert line > scroll.scrollable_content_region.height  # below the fold at the top
        assert visible(scroll, line), (scroll.scroll_y, line)
        assert "j/k scroll" in plain(app.screen.query_one("#verify-hint"))
        assert app.screen.query_one("#verify-hint").size.height == 1  # one line, not cut
        # Edit from here keeps the diff in view under the text.
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, EditScreen)
        await _workers(app)
        await pilot.pause()
        await pilot.pause()
        scroll = app.screen.query_one("#edit-diff", VerticalScroll)
        body = app.screen.query_one("#edit-diff-body", Static)
        assert scroll.region.height >= 4 and scroll.region.bottom <= SIZE[1]
        assert visible(scroll, _line_of(body, "+        return None"))


async def test_the_header_keeps_every_count_whole(env: Env) -> None:
    long_diff_env(env)
    seed(env, [F(f"Pending fact number {n}.") for n in range(12)])
    conn = db.connect(env.db_path)
    for n in range(3):
        queue.enqueue(conn, session_id=f"s{n}", transcript_path=f"/t/{n}.jsonl",
                      project="/p", cwd="/p", event="SessionEnd")
    conn.close()
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await app.settle()
        await pilot.press("space", "j", "space")
        await pilot.pause()
        await pilot.pause()
        counts = app.main.query_one("#counts", Static)
        text = plain(counts)
        assert "2 marked" in text and "12 pending" in text and "1 stale" in text, text
        assert len(text) <= counts.content_region.width, (text, counts.content_region.width)
        assert "…" not in text


async def test_the_reject_reason_placeholder_is_whole(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await app.settle()
        await pilot.press("r", "7")
        await pilot.pause()
        assert isinstance(app.screen, RejectScreen)
        box = app.screen.query_one("#other-reason", Input)
        assert box.has_focus
        assert len(box.placeholder) <= box.content_region.width, (box.placeholder,
                                                                   box.content_region.width)
        assert "enter rejects" in plain(app.screen.query_one("#reject-help"))
