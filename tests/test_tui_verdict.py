"""The verifier's verdict and a fact's `supersedes` link in the TUI, driven with Pilot.

Approving a fact that supersedes another retires the old one through the Store (rejected,
"superseded by #N", in its history), shown at once in the list, and one undo restores both.
"""

from __future__ import annotations

from test_tui_app import plain
from test_tui_seed import Env, F, make_app, seed

from reviewer.store import db
from reviewer.store.facts import Store

OLD = F("The dev server listens on port 8080.", "environment", status="approved",
        decided_at=1_700_000_000.0, evidence="the dev server listens on port 8080")
NEW = F("The dev server listens on port 8081.", "environment", 0.9,
        evidence="no, the dev server listens on port 8081 now",
        context="User: no, the dev server listens on port 8081 now")
BAD = F("The cache is invalidated on every write.", "gotcha", 0.8, grounded=False,
        evidence="the cache … invalidated on every write")


def _link(env: Env, ids: list[int]) -> None:
    conn = db.connect(env.db_path)
    try:
        with db.transaction(conn):
            conn.execute(
                "UPDATE fact SET supersedes = ?, evidence_speaker = 'user', "
                "evidence_source = 'user' WHERE id = ?", (ids[0], ids[1]))
            if len(ids) > 2:
                conn.execute(
                    "UPDATE fact SET verify_check = 'elision', evidence_speaker = 'assistant', "
                    "evidence_source = 'user' WHERE id = ?", (ids[2],))
    finally:
        conn.close()


async def test_detail_shows_verdict_speaker_and_what_is_superseded(env: Env) -> None:
    ids = seed(env, [OLD, NEW, BAD])
    _link(env, ids)
    app = make_app(env)
    async with app.run_test(size=(110, 50)) as pilot:
        await app.settle()
        await pilot.pause()
        assert app.main.facts.selected.id == ids[1]
        text = plain(app.main.detail.body)
        assert "✓ supported · said by user" in text
        assert f"Supersedes #{ids[0]}" in text and OLD.text in text
        await pilot.press("j")
        await app.settle()
        await pilot.pause()
        text = plain(app.main.detail.body)
        assert app.main.facts.selected.id == ids[2]
        assert "✗ not supported: the quote's “…” leaves words out" in text
        assert "said by assistant (the model said user)" in text


async def test_accepting_a_superseding_fact_retires_the_old_one_and_undo_restores_both(
    env: Env,
) -> None:
    ids = seed(env, [OLD, NEW])
    _link(env, ids)
    old_before = dict(env.fact(ids[0]))
    app = make_app(env)
    async with app.run_test() as pilot:
        await app.settle()
        await pilot.press("a")
        old_row = next(r for r in app.main.all_rows if r.id == ids[0])
        assert old_row.status == "rejected"  # shown before the write lands
        assert old_row.reject_reason == f"superseded by #{ids[1]}"
        await app.settle()
        assert env.fact(ids[1])["status"] == "approved"
        old = env.fact(ids[0])
        assert old["status"] == "rejected" and old["reject_reason"] == f"superseded by #{ids[1]}"
        assert env.history(ids[0]) == [("worker", "created"), ("tui", "superseded")]
        await pilot.press("u")
        await app.settle()
        assert old_row.status == "approved"
    assert env.fact(ids[1])["status"] == "pending"
    after = dict(env.fact(ids[0]))
    assert {k for k in old_before if old_before[k] != after[k]} == {"updated_at"}
    assert env.history(ids[0])[-1] == ("tui", "undo")


def test_store_approve_retires_only_a_live_fact_of_the_same_project(env: Env) -> None:
    ids = seed(env, [OLD, NEW, F("Unrelated.", status="rejected", reject_reason="dup")])
    conn = db.connect(env.db_path)
    with db.transaction(conn):
        conn.execute("UPDATE fact SET supersedes = ? WHERE id = ?", (ids[2], ids[1]))
        conn.execute("UPDATE fact SET supersedes = ? WHERE id = ?", (ids[0], ids[0]))
    conn.close()
    store = Store(env.db_path)
    try:
        undo = store.approve([ids[1]])  # supersedes an already rejected fact: left alone
        assert [i for i, _ in undo] == [ids[1]]
        assert env.fact(ids[2])["reject_reason"] == "dup"
        store.approve([ids[0]])  # a fact naming itself does not reject itself
        assert env.fact(ids[0])["status"] == "approved"
    finally:
        store.close()


async def test_detail_shows_a_suspicion_beside_a_supported_quote(env: Env) -> None:
    """Issue 21: a suspicion is no verdict; it is shown beside the evidence with the later
    turn it rests on."""
    ids = seed(env, [NEW])
    conn = db.connect(env.db_path)
    try:
        with db.transaction(conn):
            conn.execute("UPDATE fact SET verify_hint = ? WHERE id = ?", (
                "corrected_later: turn 7: “User: No, it moved to port 8082 last week.”", ids[0]))
    finally:
        conn.close()
    app = make_app(env)
    async with app.run_test(size=(110, 50)) as pilot:
        await app.settle()
        await pilot.pause()
        text = plain(app.main.detail.body)
        assert "✓ supported" in text
        assert "⚠ corrected_later: turn 7: “User: No, it moved to port 8082" in text
