"""The team view (`t`): shared facts with approver and trust state; take, retire, edit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sharing_helpers import approve, git, publish, pull, share, team

from reviewer import paths
from reviewer.sharing import format as fmt
from reviewer.sharing import reading
from reviewer.store import db

FORGED = fmt.SharedFact(id="0badf00d-0000-4000-8000-000000000003", text="Forged by an agent",
                        category="gotcha", approved_by="Nobody <n@example.com>")


@pytest.fixture
def bob(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "alice-home"))
    monkeypatch.setenv("MEM_REVIEW_NO_SPAWN", "1")
    _, alice, bob = team(tmp_path, {"src/db.py": "WAL = True\n"})
    approve(alice, "The database opens in WAL mode", ("src/db.py",))
    share(alice)
    publish(alice)
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "bob-home"))
    pull(bob)
    (bob / FORGED.path).write_text(fmt.dumps(FORGED))
    git(bob, "add", "-A")
    git(bob, "commit", "-qm", "agent")
    return bob


def _app(bob: Path):
    from reviewer.tui.app import ReviewApp

    return ReviewApp(project=str(bob), db_path=paths.db_path())


def _plain(widget) -> str:
    return str(widget.visual.plain if hasattr(widget.visual, "plain") else widget.visual)


async def test_team_view_shows_trust_and_takes_retires_and_edits(bob: Path) -> None:
    from textual.widgets import OptionList, Static, TextArea

    from reviewer.tui.screens.team import TeamScreen

    app = _app(bob)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.settle()
        await pilot.press("t")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TeamScreen)
        assert [r.fact.text for r in screen.rows] == [FORGED.text,
                                                     "The database opens in WAL mode"]
        assert [r.counts for r in screen.rows] == [False, True]
        shown = _plain(screen.query_one("#team-detail", Static))
        assert "pending for you: not on origin/main" in shown
        # The forged file only claims an approver: shown as approved by no one (issue 19).
        assert "approved by no one yet" in shown and "approved by Nobody" not in shown
        assert "Nobody" not in str(screen.query_one(OptionList).get_option_at_index(0).prompt)
        options = screen.query_one(OptionList)
        # Retire the forged one: asked first, then its file is gone; u puts it back.
        raw = (bob / FORGED.path).read_bytes()
        await pilot.press("x")
        await pilot.pause()
        from reviewer.tui.screens.confirm import ConfirmScreen

        assert isinstance(app.screen, ConfirmScreen) and (bob / FORGED.path).exists()
        await pilot.press("n")
        await pilot.pause()
        assert (bob / FORGED.path).exists()
        await pilot.press("x", "y")
        await pilot.pause()
        assert not (bob / FORGED.path).exists()
        await pilot.press("u")
        await pilot.pause()
        assert (bob / FORGED.path).read_bytes() == raw
        await pilot.press("x", "y")
        await pilot.pause()
        assert not (bob / FORGED.path).exists()
        assert [r.fact.text for r in screen.rows] == ["The database opens in WAL mode"]
        await app.workers.wait_for_complete()
        await pilot.pause()
        # The name shown is the remote commit's author, not what the file says.
        assert "put on origin's default branch by Alice Example" in _plain(
            screen.query_one("#team-detail", Static))
        # Take Alice's: approved in Bob's store by a person, with the file's share id.
        await pilot.press("a")
        await app.settle()
        await pilot.pause()
        conn = db.connect()
        row = conn.execute("SELECT id, status, share_id, text FROM fact").fetchone()
        assert row["status"] == "approved" and row["share_id"] == screen.rows[0].fact.id
        actions = [tuple(h) for h in conn.execute(
            "SELECT actor, action FROM fact_history WHERE fact_id = ? ORDER BY id", (row["id"],))]
        assert actions == [("tui", "taken"), ("tui", "approved")]
        conn.close()
        assert "yours (approved)" in str(options.get_option_at_index(0).prompt)
        # Edit its file: rewritten with Bob's name, and pending until pushed.
        await pilot.press("e")
        await pilot.pause()
        area = app.screen.query_one(TextArea)
        area.text = "The database layer opens SQLite in WAL mode"
        await pilot.press("ctrl+s")
        await pilot.pause()
        (path,) = (bob / fmt.FOLDER).iterdir()
        data = json.loads(path.read_text())
        assert data["text"] == "The database layer opens SQLite in WAL mode"
        assert data["approved_by"] == "Bob Example <bob@example.com>"
        assert reading.read(bob).approved == []
        assert screen.rows[0].counts is False
        await pilot.press("escape")  # back to the review: the taken fact is there, approved
        await app.settle()
        await pilot.pause()
        assert app.screen is app.main
        assert [r.status for r in app.main.all_rows] == ["approved"]


async def test_taking_a_teammates_rewording_of_your_fact_adopts_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from reviewer.sharing import team as team_view
    from reviewer.tui.app import ReviewApp
    from reviewer.tui.screens.team import TeamScreen

    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "alice-home"))
    monkeypatch.setenv("MEM_REVIEW_NO_SPAWN", "1")
    _, alice, bob = team(tmp_path, {"a.txt": "a\n"})
    fid = approve(alice, "Old wording")
    share(alice)
    publish(alice)
    pull(bob)
    (tf,) = team_view.load(None, str(bob))
    team_view.rewrite(str(bob), tf, "New wording by Bob", "convention", "Bob <bob@example.com>")
    publish(bob, "reword")
    pull(alice)
    app = ReviewApp(project=str(alice), db_path=paths.db_path())
    async with app.run_test(size=(120, 40)) as pilot:
        await app.settle()
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, TeamScreen)
        assert app.screen.rows[0].mine == fid
        await pilot.press("a")
        await app.settle()
        await pilot.pause()
    conn = db.connect()
    row = conn.execute("SELECT text, category, status FROM fact WHERE id = ?", (fid,)).fetchone()
    assert tuple(row) == ("New wording by Bob", "convention", "approved")
    last = conn.execute("SELECT actor, action FROM fact_history WHERE fact_id = ? "
                        "ORDER BY id DESC LIMIT 1", (fid,)).fetchone()
    assert tuple(last) == ("tui", "edited")
    conn.close()


async def test_a_second_clone_sees_the_team_facts_and_t_on_its_empty_screen(bob: Path) -> None:
    """Bob's store is empty, yet his sessions get Alice's fact: the screen says so."""
    app = _app(bob)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        await pilot.pause()
        text = _plain(app.main.query_one("#empty"))
        assert ("Team facts: 1 team fact approved by teammates is given to Claude at each "
                "session start (1 more pending the trust rule). t opens the team view.") in text


async def test_the_team_view_has_a_key_bar_and_q_and_help_work(bob: Path) -> None:
    from reviewer.tui.screens.help import HelpScreen
    from reviewer.tui.screens.team import TeamScreen
    from reviewer.tui.widgets.key_bar import KeyBar

    app = _app(bob)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, TeamScreen)
        keys = _plain(app.screen.query_one(KeyBar))
        for word in ("Take", "Retire", "Back", "Help"):
            assert word in keys, keys
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TeamScreen)
        await pilot.press("q")
        await pilot.pause()
        assert app.screen is app.main and app.is_running


async def test_an_empty_team_view_says_how_to_leave(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.widgets import Static

    from reviewer.tui.app import ReviewApp
    from reviewer.tui.screens.team import TeamScreen

    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "home"))
    project = tmp_path / "solo"
    project.mkdir()
    app = ReviewApp(project=str(project), db_path=paths.db_path())
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, TeamScreen)
        shown = _plain(app.screen.query_one("#team-detail", Static))
        assert "escape, t or q goes back to the review" in shown
        await pilot.press("x")  # nothing to retire: no question, no crash
        await pilot.pause()
        assert isinstance(app.screen, TeamScreen)
        await pilot.press("q")
        await pilot.pause()
        assert app.screen is app.main
