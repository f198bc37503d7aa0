"""The reviewer's flow (issue 15): a deliberate re-verify, skip, merge, and keys that
answer even when they cannot act. Pilot against a real store and a real git project."""

from __future__ import annotations

import json

import pytest
from test_tui_app import STALE_FACTS, _git_project, selected_text, texts
from test_tui_seed import SAMPLE, Env, F, make_app, seed
from textual.widgets import OptionList, TextArea

from reviewer.freshness.anchors import blob_sha
from reviewer.tui import triage
from reviewer.tui.screens.confirm import ConfirmScreen
from reviewer.tui.screens.edit import EditScreen
from reviewer.tui.screens.reject import RejectScreen
from reviewer.tui.screens.verify import VerifyScreen
from reviewer.tui.widgets.key_bar import KeyBar


def notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


# ---- re-verify is a decision ------------------------------------------------------------


def stale_app(env: Env):
    ids = seed(env, STALE_FACTS, commit=_git_project(env))
    (env.project / "src" / "api.py").write_text("def create_order(payload):\n    return None\n")
    return ids, make_app(env)


async def test_v_shows_the_diff_and_asks_before_anything_is_written(env: Env) -> None:
    ids, app = stale_app(env)
    async with app.run_test(size=(100, 40)) as pilot:
        await app.settle()
        await pilot.press("tab", "tab", "tab", "v")
        assert isinstance(app.screen, VerifyScreen)
        for worker in list(app.screen.workers):
            await worker.wait()
        await pilot.pause()
        body = str(app.screen.query_one("#verify-diff-body").render())
        assert "return None" in body  # the change is in front of the person
        assert env.history(ids[0]) == [("worker", "created")]  # nothing yet
        await pilot.press("escape")
        await app.settle()
        assert env.history(ids[0]) == [("worker", "created")]
        assert app.main.by_id[ids[0]].stale


async def test_verify_question_retire_rejects_as_outdated(env: Env) -> None:
    ids, app = stale_app(env)
    async with app.run_test(size=(100, 40)) as pilot:
        await app.settle()
        await pilot.press("tab", "tab", "tab", "v", "x")
        await app.settle()
        row = env.fact(ids[0])
        assert (row["status"], row["reject_reason"]) == ("rejected", "outdated")


async def test_verify_question_edit_is_prefilled_and_reanchors(env: Env) -> None:
    ids, app = stale_app(env)
    async with app.run_test(size=(100, 40)) as pilot:
        await app.settle()
        await pilot.press("tab", "tab", "tab", "v", "e")
        assert isinstance(app.screen, EditScreen)
        area = app.screen.query_one(TextArea)
        assert area.text == STALE_FACTS[0].text
        area.text = "The API returns None for an empty cart."
        await pilot.press("ctrl+s")
        await app.settle()
        row = env.fact(ids[0])
        assert row["text"] == "The API returns None for an empty cart."
        assert json.loads(row["anchors"]) == {"src/api.py": blob_sha(env.project / "src/api.py")}


async def test_undoing_a_reverify_brings_the_row_back_into_the_stale_view(env: Env) -> None:
    ids, app = stale_app(env)
    async with app.run_test(size=(100, 40)) as pilot:
        await app.settle()
        await pilot.press("tab", "tab", "tab")
        assert texts(app) == [STALE_FACTS[0].text]
        await pilot.press("v", "y")
        await app.settle()
        assert texts(app) == []  # fresh again: it leaves the stale view
        await pilot.press("u")
        await app.settle()
        assert texts(app) == [STALE_FACTS[0].text]  # without ctrl+r
        assert env.fact(ids[0])["verified_at"] is None


async def test_following_a_rename_offers_to_update_the_path_in_the_text(env: Env) -> None:
    from test_tui_seed import git

    facts = [F("Fixtures live in tests/conftest.py.", status="approved", decided_at=1.0,
               files=["tests/conftest.py"])]
    ids = seed(env, facts, commit=_git_project(env))
    git(env.project, "mv", "tests/conftest.py", "tests/fixtures.py")
    git(env.project, "commit", "-q", "-m", "rename")
    app = make_app(env)
    async with app.run_test(size=(100, 40)) as pilot:
        await app.settle()
        await pilot.press("tab", "tab", "tab", "v", "y")
        assert isinstance(app.screen, ConfirmScreen)  # follow the rename?
        await pilot.press("y")
        await app.settle()
        assert isinstance(app.screen, ConfirmScreen)  # update the text too?
        await pilot.press("y")
        await app.settle()
        row = env.fact(ids[0])
        assert row["text"] == "Fixtures live in tests/fixtures.py."
        assert json.loads(row["files"]) == ["tests/fixtures.py"]


async def test_the_update_the_path_question_names_its_fact_after_the_list_moved(
    env: Env
) -> None:
    """Seen: after a re-verify took the fact out of the stale view, "update the path in
    the text?" sat over the next fact's detail, asking about the previous one."""
    from test_tui_seed import git

    facts = [F("Fixtures live in tests/conftest.py.", status="approved", decided_at=1.0,
               files=["tests/conftest.py"]),
             F("The README explains the setup.", status="approved", decided_at=1.0,
               files=["README.md"])]
    ids = seed(env, facts, commit=_git_project(env))
    git(env.project, "mv", "tests/conftest.py", "tests/fixtures.py")
    (env.project / "README.md").write_text("changed\n")
    git(env.project, "commit", "-qam", "rename and change")
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        await pilot.press("tab", "tab", "tab")  # stale
        while app.main.facts.selected.id != ids[0]:
            await pilot.press("j")
        await pilot.press("v", "y", "y")  # re-verify, follow the rename
        await app.settle()
        assert isinstance(app.screen, ConfirmScreen)
        question = str(app.screen.query_one("#confirm-question").render())
        assert f"Fact #{ids[0]} still names the old path" in question
        assert "Fixtures live in tests/conftest.py." in question  # now
        assert "Fixtures live in tests/fixtures.py." in question  # new
        assert f"#{ids[0]}" in str(app.screen.query_one("#confirm-hint").render())


def test_follow_paths_replaces_whole_paths_only() -> None:
    renamed = {"src/a.py": "src/b.py"}
    assert triage.follow_paths("See src/a.py and src/a.pyc.", renamed) == (
        "See src/b.py and src/a.pyc.")
    assert triage.follow_paths("lib/src/a.py stays", renamed) == "lib/src/a.py stays"


# ---- skip and merge ---------------------------------------------------------------------


async def test_skip_keeps_it_pending_and_moves_it_to_the_end(env: Env) -> None:
    ids = seed(env)
    before = {i: (env.fact(i)["status"], env.history(i)) for i in ids}
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        first = selected_text(app)
        await pilot.press("s")
        assert texts(app)[-1] == first and selected_text(app) != first
        await app.settle()
        assert {i: (env.fact(i)["status"], env.history(i)) for i in ids} == before


async def test_merge_marked_facts_into_one_and_undo_it(env: Env) -> None:
    ids = seed(env)
    statuses = {i: env.fact(i)["status"] for i in ids}
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        a, b = app.main.facts.rows[0], app.main.facts.rows[1]
        await pilot.press("space", "j", "space", "m")
        assert isinstance(app.screen, EditScreen)
        keep = triage.merge_base([a, b])
        assert app.screen.query_one(TextArea).text == keep.text  # prefilled from the best
        app.screen.query_one(TextArea).text = "One merged fact."
        await pilot.press("ctrl+s")
        await app.settle()
        other = b if keep is a else a
        assert (env.fact(keep.id)["text"], env.fact(keep.id)["status"]) == (
            "One merged fact.", "approved")
        gone = env.fact(other.id)
        assert (gone["status"], gone["reject_reason"]) == ("rejected", f"merged into #{keep.id}")
        assert gone["evidence"] == next(s.evidence for s in SAMPLE if s.text == other.text)
        await pilot.press("u")
        await app.settle()
        assert {i: env.fact(i)["status"] for i in ids} == statuses
        assert env.fact(keep.id)["text"] == keep.text


async def test_merge_needs_two_marked(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("m")
        assert app.screen is app.main
        assert any("Mark two or more" in n for n in notes(app))


# ---- keys that answer -------------------------------------------------------------------


async def test_u_and_v_say_why_they_cannot_act(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("u", "v")
        said = notes(app)
        assert any("Nothing to undo" in n for n in said)
        assert any("Nothing to re-verify" in n for n in said)


async def test_reject_picker_moves_with_j_k_g_G(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("r")
        assert isinstance(app.screen, RejectScreen)
        options = app.screen.query_one(OptionList)
        assert options.highlighted == 0
        await pilot.press("j", "j")
        assert options.highlighted == 2
        await pilot.press("k")
        assert options.highlighted == 1
        await pilot.press("G")
        assert options.highlighted == len(triage.REASONS) - 1
        await pilot.press("g")
        assert options.highlighted == 0


async def test_list_g_and_G_go_to_first_and_last(env: Env) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("G")
        assert app.main.facts.cursor == len(app.main.facts.rows) - 1
        await pilot.press("g")
        assert app.main.facts.cursor == 0


@pytest.mark.parametrize("width", [60, 80, 100, 140])
async def test_help_and_quit_show_at_every_width(env: Env, width: int) -> None:
    seed(env)
    app = make_app(env)
    async with app.run_test(size=(width, 24)) as pilot:
        await app.settle()
        await pilot.pause()
        line = app.main.query_one(KeyBar).keys_content().plain
        assert "? Help" in line and "q Quit" in line, line
        assert len(line) <= width, line


# ---- finer staleness --------------------------------------------------------------------

API = """def create_order(payload):
    return payload.get('items', [])


def total(items):
    return sum(items)


def cancel_order(order):
    return refund(order)
"""


def graded_app(env: Env):
    (env.project / "src" / "api.py").write_text(API)
    facts = [
        F("create_order returns [] for an empty cart.", status="approved", decided_at=1.0,
          files=["src/api.py"]),
        F("cancel_order refunds the payment.", status="approved", decided_at=2.0,
          files=["src/api.py"]),
    ]
    ids = seed(env, facts, commit=_git_project(env))
    (env.project / "src" / "api.py").write_text(API.replace("return refund(order)",
                                                            "return void(order)"))
    return ids, facts, make_app(env)


async def test_stale_view_puts_the_changed_part_first_and_flags_the_rest(env: Env) -> None:
    ids, facts, app = graded_app(env)
    async with app.run_test(size=(140, 40)) as pilot:
        await app.settle()
        await pilot.press("tab", "tab", "tab")
        await app.settle()
        assert app.main.grades == {ids[0]: "elsewhere", ids[1]: "part"}
        assert texts(app) == [facts[1].text, facts[0].text]  # cited part changed first
        await pilot.press("j")
        await app.settle()
        await pilot.pause()
        body = str(app.main.detail.body.render())
        assert "only other parts of its files changed" in body
        # Injection still withholds both until a person decides.
        from reviewer.claude_code.inject import render_context

        out, stats = render_context(env.project)
        assert stats.stale == 2 and facts[0].text not in (out or "")


async def test_V_reverifies_every_fact_changed_elsewhere_after_showing_them(env: Env) -> None:
    ids, facts, app = graded_app(env)
    async with app.run_test(size=(140, 40)) as pilot:
        await app.settle()
        await pilot.press("tab", "tab", "tab")
        await app.settle()
        await pilot.press("V")
        assert isinstance(app.screen, ConfirmScreen)
        shown = str(app.screen.query_one("#confirm-question").render())
        assert facts[0].text in shown and facts[1].text not in shown
        await pilot.press("y")
        await app.settle()
        assert env.fact(ids[0])["verified_at"] is not None
        assert env.fact(ids[1])["verified_at"] is None
        assert texts(app) == [facts[1].text]
        await pilot.press("u")
        await app.settle()
        assert env.fact(ids[0])["verified_at"] is None
        assert set(texts(app)) == {facts[0].text, facts[1].text}


async def test_a_person_chooses_what_a_candidate_supersedes(env: Env) -> None:
    facts = [
        F("Deploys go out on Tuesdays.", status="approved", decided_at=1.0),
        F("Deploys go out on Thursdays since the freeze moved.", status="pending"),
    ]
    ids = seed(env, facts)
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("tab", "tab", "tab", "tab")  # all
        await pilot.press("space", "j", "space", "S")
        from reviewer.tui.screens.supersede import SupersedeScreen

        assert isinstance(app.screen, SupersedeScreen)
        new_side = app.screen.query_one("#supersede-new")
        old_side = app.screen.query_one("#supersede-old")
        assert facts[1].text in str(new_side.render()) and facts[0].text in str(old_side.render())
        # Side by side, as help and README say: one row, new on the left.
        assert new_side.region.y == old_side.region.y and new_side.region.x < old_side.region.x
        await pilot.press("y")
        await app.settle()
        new, old = env.fact(ids[1]), env.fact(ids[0])
        assert (new["status"], new["supersedes"]) == ("approved", ids[0])
        assert (old["status"], old["reject_reason"]) == ("rejected", f"superseded by #{ids[1]}")
        await pilot.press("u")
        await app.settle()
        assert env.fact(ids[0])["status"] == "approved"
        assert (env.fact(ids[1])["status"], env.fact(ids[1])["supersedes"]) == ("pending", None)


async def test_supersede_can_swap_which_fact_is_new(env: Env) -> None:
    """The guess (the approved, or older, one is replaced) is only a guess: x turns it."""
    facts = [
        F("Deploys go out on Tuesdays.", status="pending", created_at=1.0),
        F("Deploys go out on Thursdays.", status="pending", created_at=2.0),
    ]
    ids = seed(env, facts)
    app = make_app(env)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.settle()
        await pilot.press("space", "j", "space", "S")
        before = str(app.screen.query_one("#supersede-new").render())
        await pilot.press("x")
        after = str(app.screen.query_one("#supersede-new").render())
        assert before != after
        await pilot.press("y")
        await app.settle()
        guessed_new = 1 if facts[1].text in before else 0
        chosen_new = ids[1 - guessed_new]
        assert env.fact(chosen_new)["status"] == "approved"
        assert env.fact(chosen_new)["supersedes"] == ids[guessed_new]
        assert env.fact(ids[guessed_new])["reject_reason"] == f"superseded by #{chosen_new}"
