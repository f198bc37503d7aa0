"""Two reviewers on one store, as two TUIs: each sees the other's decisions without
ctrl+r, a decision on a fact the other changed meanwhile asks first, and the worker's new
candidates appear by themselves."""

from __future__ import annotations

import asyncio

from test_tui_seed import SAMPLE, Env, F, make_app, seed

from reviewer.tui import live
from reviewer.tui.screens.confirm import ConfirmScreen
from reviewer.tui.screens.reject import RejectScreen

WAIT = 10.0  # a guard against hanging; the poll runs every POLL_SECONDS


async def until(pilot, check, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not check():
        assert loop.time() < deadline, f"not seen within {WAIT} s: {what}"
        await pilot.pause(0.1)


def status_of(app, fact_id: int) -> str:
    return app.main.by_id[fact_id].status


async def test_each_review_sees_the_others_decision_without_reload(env: Env) -> None:
    ids = seed(env)
    first, second = make_app(env), make_app(env)
    async with first.run_test(size=(80, 24)) as one, second.run_test(size=(80, 24)) as two:
        await first.settle()
        await second.settle()
        target = first.main.facts.selected.id
        assert second.main.facts.selected.id == target
        await one.press("a")
        await first.settle()
        assert env.fact(target)["status"] == "approved"
        await until(two, lambda: status_of(second, target) == "approved",
                    "the other review's approval in the second TUI")
        assert target in ids


async def test_a_decision_on_a_fact_changed_meanwhile_asks_first(env: Env) -> None:
    seed(env)
    first, second = make_app(env), make_app(env)
    async with first.run_test(size=(80, 24)) as one, second.run_test(size=(80, 24)) as two:
        await first.settle()
        await second.settle()
        target = first.main.facts.selected.id
        second.main.poll_store = lambda: None  # the second has not looked up yet
        await one.press("a")
        await first.settle()
        assert status_of(second, target) == "pending"  # what the second person still sees
        await two.press("r")
        assert isinstance(second.screen, RejectScreen)
        await two.press("enter")  # the first reason
        await two.pause()
        assert isinstance(second.screen, ConfirmScreen), "rejected without a word"
        question = str(second.screen.query_one("#confirm-question").visual)
        assert f"#{target} is now approved (you saw it pending)" in question
        assert status_of(second, target) == "approved"  # the screen shows the store now
        await two.press("n")
        await second.settle()
        assert env.fact(target)["status"] == "approved"  # the first decision stands
        # Now that the person has seen it approved, a rejection is their informed choice.
        await two.press("r", "enter")
        await second.settle()
        assert not isinstance(second.screen, ConfirmScreen)
        assert env.fact(target)["status"] == "rejected"


async def test_the_workers_new_candidates_appear_without_reload(env: Env) -> None:
    seed(env, SAMPLE[:2])
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        before = len(app.main.facts.rows)
        seed(env, [F("The worker found this one after the review opened.", files=[])])
        await until(pilot, lambda: len(app.main.facts.rows) == before + 1,
                    "the new candidate in the list")
        assert "1 new fact from the worker" in " ".join(
            str(n.message) for n in app._notifications)


def test_the_poll_is_one_pragma_until_the_store_moves(env: Env) -> None:
    seed(env)
    conn = env.connect()
    try:
        first = live.data_version(conn)
        assert live.data_version(conn) == first
        seed(env, [F("Another connection commits.", files=[])])
        assert live.data_version(conn) != first
    finally:
        conn.close()


async def test_an_edit_of_a_fact_rejected_meanwhile_asks_first(env: Env) -> None:
    seed(env)
    first, second = make_app(env), make_app(env)
    async with first.run_test(size=(80, 24)) as one, second.run_test(size=(80, 24)) as two:
        await first.settle()
        await second.settle()
        target = second.main.facts.selected.id
        second.main.poll_store = lambda: None
        await two.press("e")  # the second person starts typing
        await one.press("r", "enter")  # the first rejects it meanwhile
        await first.settle()
        await two.press("ctrl+s")
        await two.pause()
        assert isinstance(second.screen, ConfirmScreen), "saved over a rejection silently"
        assert "is now rejected" in str(second.screen.query_one("#confirm-question").visual)
        await two.press("y")
        await second.settle()
        assert env.fact(target)["status"] == "approved"  # the person chose, knowingly
