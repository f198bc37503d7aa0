"""How the review looks: SVG snapshots of every screen at 80×24 and 140×45, from fixed data
(pytest-textual-snapshot).

Regenerate after an intended change with `pytest tests/test_tui_snapshots.py
--snapshot-update`, look at the SVGs, and commit them with the change.
"""

from __future__ import annotations

import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from test_tui_80x24 import LONG_CONTEXT, QUOTE, long_diff_env
from test_tui_seed import SAMPLE, Env, F, make_app, seed
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

SIZES = {"80x24": (80, 24), "140x45": (140, 45)}
DEEP = F("Deploys need the VPN up first.", evidence=QUOTE, context=LONG_CONTEXT)
MANY = [F(f"Pending fact number {n}.") for n in range(12)]
Step = Callable[[Pilot], Awaitable[None]]


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


def after(*keys: str) -> Step:
    async def run(pilot: Pilot) -> None:
        await settled(pilot)
        if keys:
            await pilot.press(*keys)
        await settled(pilot)
        for screen in pilot.app.screen_stack:  # modals' workers too (the verify diff)
            for worker in list(screen.workers):
                await worker.wait()
        await settled(pilot)

    return run


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e",
                        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
                        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z", "PATH": "/usr/bin:/bin"})


STALE = [
    F("The API's create_order returns [] for an empty cart.", status="approved",
      decided_at=1.0, files=["src/api.py"]),
    F("Fixtures live in tests/conftest.py.", status="approved", decided_at=2.0,
      files=["tests/conftest.py"]),
]


def stale_env(env: Env) -> None:
    _git(env.project, "init", "-q")
    _git(env.project, "add", "-A")
    _git(env.project, "commit", "-q", "-m", "first")
    head = subprocess.run(["git", "-C", str(env.project), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    seed(env, STALE, commit=head)
    (env.project / "src" / "api.py").write_text(
        "def create_order(payload):\n    if not payload:\n        return None\n    return []\n")


def long_diff(env: Env) -> None:
    long_diff_env(env)


def deep_quote(env: Env) -> None:
    seed(env, [DEEP])


def long_diff_and_many(env: Env) -> None:
    long_diff_env(env)
    seed(env, MANY)


# (name, setup, steps): the view each screen is reached from, and the keys that reach it.
SCREENS: dict[str, tuple[Callable[[Env], None], Step]] = {
    "main": (seed, after()),
    "detail_scrolled": (seed, after("shift+down")),
    "reject_picker": (seed, after("j", "r")),
    "edit": (seed, after("e")),
    "help": (seed, after("question_mark")),
    "filter_open": (seed, after("slash", *"never")),
    "filter_applied": (seed, after("slash", *"never", "enter")),
    "marked_for_merge": (seed, after("space", "j", "space", "j")),
    "merge_edit": (seed, after("space", "j", "space", "j", "m")),
    "stale_view_with_diff": (stale_env, after("tab", "tab", "tab")),
    "verify_question": (stale_env, after("tab", "tab", "tab", "v")),
    # Issue 22, at 80×24: what matters is on screen.
    "verify_long_diff": (long_diff, after("tab", "tab", "tab", "v")),
    "edit_from_verify": (long_diff, after("tab", "tab", "tab", "v", "e")),
    "evidence_at_quote": (deep_quote, after()),
    "reject_other_reason": (seed, after("r", "7")),
    "supersede_side_by_side": (seed, after("space", "j", "space", "S")),
    "counts_when_marked": (long_diff_and_many, after("space", "j", "space")),
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("screen", SCREENS)
def test_screen(env: Env, snap_compare: Any, screen: str, size: str) -> None:
    setup, steps = SCREENS[screen]
    setup(env)
    assert snap_compare(make_app(env, theme="textual-dark"), terminal_size=SIZES[size],
                        run_before=steps)


@pytest.mark.parametrize("size", SIZES)
def test_empty_state(env: Env, snap_compare: Any, size: str) -> None:
    from reviewer.store import db, queue

    conn = db.connect(env.db_path)
    queue.enqueue(conn, session_id="s1", transcript_path="/t/1.jsonl", project="/p",
                  cwd="/p", event="SessionEnd")
    conn.close()
    app = make_app(env, theme="textual-dark")
    app.project = "/home/dev/acme"  # a fixed path in the picture
    assert snap_compare(app, terminal_size=SIZES[size], run_before=settled)


def test_main_light_theme_with_marks(env: Env, snap_compare: Any) -> None:
    seed(env)
    assert snap_compare(make_app(env, theme="textual-light"), press=["j", "space", "j", "j"],
                        terminal_size=SIZES["80x24"], run_before=settled)


def test_sample_carries_code_in_its_context() -> None:
    assert SAMPLE[0].context  # the detail snapshots show highlighted code in the excerpt
