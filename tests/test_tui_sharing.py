"""The TUI's sharing key: `p` keeps an approved fact to the person (not shared)."""

from __future__ import annotations

from test_tui_seed import Env, make_app, seed

from reviewer.tui.widgets.fact_list import flags


async def test_p_toggles_personal_on_approved_facts_only(env: Env) -> None:
    ids = seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("p")  # a pending fact: nothing to keep personal
        await app.settle()
        assert env.fact(ids[0])["personal"] == 0
        await pilot.press("a", "k", "p")  # approve the first, back on it, keep it personal
        await app.settle()
        assert env.fact(ids[0])["personal"] == 1
        row = app.main.by_id[ids[0]]
        assert ("personal", "fact-list--info") in flags(row, wide=True)
        assert env.history(ids[0])[-1] == ("tui", "personal")
        await pilot.press("p")
        await app.settle()
        assert env.fact(ids[0])["personal"] == 0
        assert env.history(ids[0])[-1] == ("tui", "shareable")
    # the flag survives a restart
    conn_app = make_app(env)
    async with conn_app.run_test():
        await conn_app.settle()
        assert conn_app.main.by_id[ids[0]].personal is False


def test_personal_is_bound_with_an_id() -> None:
    from reviewer.tui.screens.main import MainScreen

    (binding,) = [b for b in MainScreen.BINDINGS if getattr(b, "id", None) == "personal"]
    assert binding.key == "p" and binding.action == "personal"
