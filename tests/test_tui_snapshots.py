"""How the review looks: SVG snapshots at fixed sizes from fixed data (pytest-textual-snapshot).

Regenerate after an intended change with `pytest tests/test_tui_snapshots.py
--snapshot-update`, look at the SVGs, and commit them with the change.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_tui_seed import SAMPLE, Env, make_app, make_env, seed
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

SIZE = (100, 30)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    yield from make_env(tmp_path, monkeypatch)


async def settled(pilot: Pilot) -> None:
    """Wait for the writer, staleness and the detail pane; stop cursors blinking."""
    app = pilot.app
    await app.settle()  # type: ignore[attr-defined]
    for widget in app.screen.query(TextArea):
        widget.cursor_blink = False
    for widget in app.screen.query(Input):
        widget.cursor_blink = False
    await pilot.pause()
    await app.settle()  # type: ignore[attr-defined]
    await pilot.pause()


def test_main(env: Env, snap_compare: Any) -> None:
    seed(env)
    assert snap_compare(make_app(env, theme="textual-dark"), terminal_size=SIZE, run_before=settled)


def test_detail_of_a_fact_with_code_in_its_context(env: Env, snap_compare: Any) -> None:
    seed(env)

    async def taller_detail(pilot: Pilot) -> None:
        await settled(pilot)
        pilot.app.main.detail.scroll_to(y=3, animate=False)  # type: ignore[attr-defined]
        await pilot.pause()

    assert SAMPLE[0].context  # the first fact carries a diff and JSON in its excerpt
    assert snap_compare(
        make_app(env, theme="textual-dark"), terminal_size=(100, 40), run_before=taller_detail
    )


def test_reject_picker(env: Env, snap_compare: Any) -> None:
    seed(env)
    assert snap_compare(
        make_app(env, theme="textual-dark"),
        press=["j", "r"],
        terminal_size=SIZE,
        run_before=settled,
    )


def test_edit(env: Env, snap_compare: Any) -> None:
    seed(env)

    async def edit(pilot: Pilot) -> None:
        await settled(pilot)
        await pilot.press("e")
        await settled(pilot)

    assert snap_compare(make_app(env, theme="textual-dark"), terminal_size=SIZE, run_before=edit)


def test_help(env: Env, snap_compare: Any) -> None:
    seed(env)
    assert snap_compare(
        make_app(env, theme="textual-dark"),
        press=["question_mark"],
        terminal_size=SIZE,
        run_before=settled,
    )


def test_empty_state(env: Env, snap_compare: Any) -> None:
    from reviewer.store import db, queue

    conn = db.connect(env.db_path)
    queue.enqueue(
        conn,
        session_id="s1",
        transcript_path="/t/1.jsonl",
        project="/p",
        cwd="/p",
        event="SessionEnd",
    )
    conn.close()
    app = make_app(env, theme="textual-dark")
    app.project = "/home/dev/acme"  # a fixed path in the picture
    assert snap_compare(app, terminal_size=SIZE, run_before=settled)


def test_main_at_80x24_light(env: Env, snap_compare: Any) -> None:
    seed(env)
    assert snap_compare(
        make_app(env, theme="textual-light"),
        press=["j", "space", "j"],
        terminal_size=(80, 24),
        run_before=settled,
    )


def test_filter_open(env: Env, snap_compare: Any) -> None:
    seed(env)

    async def typed(pilot: Pilot) -> None:
        await settled(pilot)
        await pilot.press("slash", *"never")
        await settled(pilot)

    assert snap_compare(make_app(env, theme="textual-dark"), terminal_size=SIZE, run_before=typed)
