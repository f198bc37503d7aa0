"""`mem-review demo` and `mem-review review` from the command line, and the demo in the TUI."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "user-home"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(home))
    return home


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reviewer.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


def facts(db_path: Path) -> list[sqlite3.Row]:
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    return conn.execute("SELECT * FROM fact ORDER BY id").fetchall()


def test_demo_builds_offline_through_the_capture_pipeline(tmp_path: Path, _home: Path) -> None:
    base = tmp_path / "demo"
    done = cli("demo", "--no-tui", "--keep", str(base))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(base.resolve())
    assert not _home.exists()  # the person's own store is never touched
    rows = facts(base / "home" / "store.db")
    pending = [r for r in rows if r["status"] == "pending"]
    assert len(pending) >= 8
    assert all(r["grounded"] == 1 and r["context"] for r in pending)
    assert {r["source"] for r in pending} == {"rules"}  # the offline extractor, no API
    texts = " ".join(r["text"] for r in pending)
    assert "httpx" in texts and "TODO" in texts and "uv" in texts
    legacy = next(r for r in pending if "legacy.py" in r["text"])
    assert json.loads(legacy["missing_files"]) == ["src/acme/legacy.py"]
    anchored = next(r for r in pending if "POOL_SIZE" in r["text"])
    assert json.loads(anchored["anchors"])["src/acme/settings.py"]
    assert anchored["commit_sha"]
    assert {r["status"] for r in rows} == {"pending", "approved", "rejected"}
    # What was said in the session is in the excerpts: code and errors for the detail pane.
    contexts = "\n".join(r["context"] for r in pending)
    assert "```json" in contexts and "failed" in contexts
    with sqlite3.connect(base / "home" / "store.db") as conn:
        assert conn.execute("SELECT state FROM job").fetchall() == [("done",)]


def test_demo_keep_reuses_a_built_demo_and_refuses_a_foreign_dir(tmp_path: Path) -> None:
    base = tmp_path / "demo"
    assert cli("demo", "--no-tui", "--keep", str(base)).returncode == 0
    before = len(facts(base / "home" / "store.db"))
    again = cli("demo", "--no-tui", "--keep", str(base))
    assert again.returncode == 0 and len(facts(base / "home" / "store.db")) == before
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    refused = cli("demo", "--no-tui", "--keep", str(foreign))
    assert refused.returncode == 1
    assert refused.stderr.startswith("mem-review: ") and "Traceback" not in refused.stderr
    assert (foreign / "notes.txt").read_text() == "mine"


def test_review_rejects_a_wrong_project_path_in_one_line(tmp_path: Path) -> None:
    done = cli("review", "--project", str(tmp_path / "nope"))
    assert done.returncode == 1
    assert done.stderr.strip() == f"mem-review: {tmp_path / 'nope'}: not a directory"


def test_review_without_a_terminal_says_so(tmp_path: Path) -> None:
    done = cli("review", "--project", str(tmp_path))
    assert done.returncode == 1
    assert "needs a terminal" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_review_on_a_broken_store_is_one_line(tmp_path: Path, _home: Path) -> None:
    _home.mkdir()
    (_home / "store.db").write_text("this is not a database")
    from reviewer.errors import UserError
    from reviewer.tui.app import ReviewApp

    with pytest.raises(UserError, match=r"is damaged .*recover"):
        ReviewApp(project=str(tmp_path))


async def test_the_demo_in_the_tui(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reviewer.commands.demo import build
    from reviewer.tui.app import ReviewApp

    before = os.environ["MEM_REVIEW_HOME"]
    demo = build(tmp_path / "demo")
    assert os.environ["MEM_REVIEW_HOME"] == before  # building left the env alone
    monkeypatch.setenv("MEM_REVIEW_HOME", str(demo.home))
    app = ReviewApp(project=str(demo.project), db_path=demo.db_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.settle()
        pending = [r.text for r in app.main.facts.rows]
        assert len(pending) == len([r for r in facts(demo.db_path) if r["status"] == "pending"])
        await pilot.press("tab", "tab", "tab")
        stale = {r.text for r in app.main.facts.rows}
        assert any("payment provider" in t for t in stale)  # the backoff cap changed
        assert any("make deploy" in t for t in stale)  # its doc was renamed
        await pilot.press("shift+tab", "shift+tab", "shift+tab")
        first = app.main.facts.rows[0].id  # read before `a`: the approved row leaves the view
        await pilot.press("a")
        await app.settle()
        assert {r["id"]: r["status"] for r in facts(demo.db_path)}[first] == "approved"
