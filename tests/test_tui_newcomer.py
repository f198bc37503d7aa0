"""Small things that broke a newcomer's trust in the review (issue 22): a toast for one
decision, `a` on a stale fact says what it does, space marks without moving."""

from __future__ import annotations

from test_tui_app import STALE_FACTS, _git_project, selected_text
from test_tui_seed import SAMPLE, Env, F, make_app, seed


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_one_accept_or_reject_shows_a_toast(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        first = app.main.facts.selected.id
        await pilot.press("a")
        await app.settle()
        assert f"approved #{first}" in notes(app)
        second = app.main.facts.selected.id
        await pilot.press("r", "enter")
        await app.settle()
        assert any(n.startswith(f"rejected #{second}") for n in notes(app)), notes(app)
        assert len(ids) == len(SAMPLE)


async def test_space_marks_and_the_cursor_stays(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        before = selected_text(app)
        await pilot.press("space")
        assert selected_text(app) == before and len(app.main.marks) == 1
        await pilot.press("space")
        assert selected_text(app) == before and len(app.main.marks) == 0


def _stale(env: Env, status: str) -> tuple[list[int], object]:
    facts = [F(STALE_FACTS[0].text, status=status, decided_at=1.0 if status != "pending"
               else None, files=["src/api.py"])]
    ids = seed(env, facts, commit=_git_project(env))
    (env.project / "src" / "api.py").write_text("def create_order(payload):\n    return None\n")
    return ids, make_app(env)


async def test_a_on_a_stale_approved_fact_says_why_it_does_nothing(env: Env) -> None:
    ids, app = _stale(env, "approved")
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        await pilot.press("tab", "tab", "tab")  # stale
        assert app.main.facts.selected.id == ids[0] and app.main.facts.selected.stale
        await pilot.press("a")
        await app.settle()
        said = " ".join(notes(app))
        assert f"#{ids[0]} already approved, but stale: withheld from Claude until " \
               "re-verified" in said, said
        assert env.fact(ids[0])["status"] == "approved"


async def test_a_on_a_stale_pending_fact_says_it_stays_withheld(env: Env) -> None:
    ids, app = _stale(env, "pending")
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        assert app.main.facts.selected.stale
        await pilot.press("a")
        await app.settle()
        said = " ".join(notes(app))
        assert f"approved #{ids[0]}; #{ids[0]} stays withheld from Claude while stale" in said
        assert env.fact(ids[0])["status"] == "approved"
