"""All of a fact is seen before it is approved: a fact longer than the detail pane is
scrolled on to its unseen part at the first `a`, accepted at a later one."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st
from test_tui_seed import Env, F, make_app, seed

from reviewer.tui.reading import Reading, line_spans

# 1,000 characters (the store's cap on a fact): 14 lines at 80 columns, the pane has 8+.
LONG = " ".join(f"Step {n}: the deploy script checks the VPN before it pushes." for n in
                range(16))[:1000].rstrip() + " END-OF-FACT"
SHORT = "Releases are cut on Mondays."


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_a_long_fact_is_accepted_only_once_all_of_it_was_in_view(env: Env) -> None:
    (fact_id,) = seed(env, [F(LONG)])
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        detail = app.main.detail
        assert not detail.fully_seen(app.main.facts.selected)  # the pane is too short
        await pilot.press("a")
        await app.settle()
        assert env.fact(fact_id)["status"] == "pending"
        assert any("goes on below" in n for n in notes(app))
        assert detail.scroll_y > 0  # the unseen part was brought into view
        presses = 1
        while env.fact(fact_id)["status"] == "pending" and presses < 5:
            await pilot.press("a")
            await app.settle()
            presses += 1
        assert env.fact(fact_id)["status"] == "approved"
        assert presses <= 3


async def test_a_fact_that_fits_is_accepted_at_once(env: Env) -> None:
    (fact_id,) = seed(env, [F(SHORT)])
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        await pilot.press("a")
        await app.settle()
        assert env.fact(fact_id)["status"] == "approved"


async def test_what_is_in_view_at_the_key_press_counts_without_a_scroll_event(
        env: Env) -> None:
    """A key pressed before the pane's resize or scroll events reached it (a loaded
    machine, CI): the pane is asked what is in view at the press, so a fact that fits is
    accepted, and a long one is still only scrolled on."""
    short_id, long_id = seed(env, [F(SHORT), F(LONG)])
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        app.main.detail._readings.clear()  # as if no event had marked anything yet
        await pilot.press("a")
        await app.settle()
        assert env.fact(short_id)["status"] == "approved"
        assert app.main.facts.selected.id == long_id
        app.main.detail._readings.clear()
        await pilot.press("a")
        await app.settle()
        assert env.fact(long_id)["status"] == "pending"  # its end is not in view


async def test_scrolling_through_by_hand_counts(env: Env) -> None:
    (fact_id,) = seed(env, [F(LONG)])
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        await pilot.press(*["shift+down"] * 12)
        await app.settle()
        assert app.main.detail.fully_seen(app.main.facts.selected)
        await pilot.press("a")
        await app.settle()
        assert env.fact(fact_id)["status"] == "approved"


async def test_a_marked_long_fact_never_read_blocks_the_batch(env: Env) -> None:
    ids = seed(env, [F(LONG), F(SHORT)])
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        await pilot.press("space", "j", "space", "a")  # the cursor is on the short one
        await app.settle()
        assert [env.fact(i)["status"] for i in ids] == ["pending", "pending"]
        assert any("not read in full" in n for n in notes(app))


async def test_a_big_pane_shows_it_whole(env: Env) -> None:
    (fact_id,) = seed(env, [F(LONG)])
    app = make_app(env)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.settle()
        await pilot.press("a")
        await app.settle()
        assert env.fact(fact_id)["status"] == "approved"


# ---- the bookkeeping, without a terminal --------------------------------------------------


def test_spans_tile_the_text_at_any_width() -> None:
    for width in (10, 37, 80):
        spans = line_spans(LONG, width)
        assert spans[0][0] == 0 and spans[-1][1] == len(LONG)
        assert all(a[1] == b[0] for a, b in pairwise(spans))
        assert all(LONG[s:e].strip() for s, e in spans)


@given(st.lists(st.tuples(st.integers(0, 120), st.integers(0, 120)), max_size=12))
def test_a_reading_is_whole_exactly_when_the_marks_cover_the_text(
        marks: list[tuple[int, int]]) -> None:
    reading = Reading(100)
    covered = [False] * 100
    for a, b in marks:
        reading.mark(a, b)
        for i in range(a, min(b, 100)):
            covered[i] = True
    assert reading.whole == all(covered)
    first = reading.first_unseen()
    assert first == (None if all(covered) else covered.index(False))
