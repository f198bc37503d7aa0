"""The TUI's stdlib loader reads exactly what the store holds."""

from __future__ import annotations

import sqlite3
import sys

from test_tui_seed import SAMPLE, Env, F, seed

from reviewer.store import db, queue
from reviewer.tui.rows import load_detail, load_history, load_rows, queue_counts


def test_load_rows_reads_every_status_with_flags_and_used_counts(env: Env) -> None:
    ids = seed(env)
    conn = db.connect(env.db_path)
    rows = {r.id: r for r in load_rows(conn, str(env.project))}
    assert sorted(rows) == ids
    first = rows[ids[0]]
    assert (first.status, first.category, first.confidence) == ("pending", "decision", 0.9)
    assert first.files == ["src/api.py"] and set(first.anchors) == {"src/api.py"}
    assert (first.times_seen, first.used, first.grounded) == (2, 3, True)
    assert rows[ids[4]].grounded is False
    assert rows[ids[6]].reject_reason == "wrong or invented"
    assert "src/api.py" in first.haystack and "decision" in first.haystack


def test_load_rows_is_per_project_and_tolerates_broken_json(env: Env) -> None:
    seed(env, [F("mine")])
    conn = db.connect(env.db_path)
    conn.execute(
        "INSERT INTO fact (project, text, norm, category, files, anchors, created_at, "
        "updated_at) VALUES ('/elsewhere', 'other', 'o', 'todo', '[]', '{}', 0, 0)"
    )
    conn.execute("UPDATE fact SET files = 'not json', anchors = '[1]' WHERE text = 'mine'")
    rows = load_rows(conn, str(env.project))
    assert [r.text for r in rows] == ["mine"]
    assert rows[0].files == [] and rows[0].anchors == {}


def test_detail_and_history_are_read_per_fact(env: Env) -> None:
    ids = seed(env)
    conn = db.connect(env.db_path)
    detail = load_detail(conn, ids[0])
    assert detail is not None and detail.context == SAMPLE[0].context
    assert detail.evidence == SAMPLE[0].evidence
    assert load_detail(conn, 999_999) is None
    history = load_history(conn, ids[0])
    assert [(h.actor, h.action) for h in history] == [("worker", "created")]
    assert history[0].after == {"status": "pending"}


def test_queue_counts_for_the_empty_state(env: Env) -> None:
    conn = db.connect(env.db_path)
    for n in range(3):
        queue.enqueue(
            conn,
            session_id=f"s{n}",
            transcript_path=f"/t/{n}.jsonl",
            project=str(env.project),
            cwd=str(env.project),
            event="SessionEnd",
        )
    queue.fail(conn, 1, "unreadable")
    assert queue_counts(conn) == {"queued": 2, "running": 0, "done": 0, "failed": 1,
                                  "waiting_for_model": 0}


def test_rows_module_needs_only_the_stdlib(env: Env) -> None:
    """The first paint reads rows before sqlmodel may load: prove the import is light."""
    import subprocess

    code = (
        "import sys, reviewer.tui.rows, reviewer.tui.triage;"
        "bad = [m for m in ('sqlmodel', 'sqlalchemy', 'pydantic', 'anthropic', 'git',"
        " 'pygments') if m in sys.modules]; print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_second_connection_sees_seeded_rows(env: Env) -> None:
    seed(env, [F("visible")])
    with sqlite3.connect(env.db_path) as conn:
        assert conn.execute("SELECT text FROM fact").fetchall() == [("visible",)]


def test_a_first_page_is_the_start_of_the_full_list_in_the_same_order(env: Env) -> None:
    from reviewer.tui import triage
    from reviewer.tui.rows import count_facts, load_page

    statuses = ["pending", "approved", "rejected"]
    seed(env, [
        F(f"fact {n}", status=statuses[n % 3], grounded=n % 4 != 0,
          created_at=float(n // 5), decided_at=100.0 + n if n % 3 else None)
        for n in range(60)
    ])
    conn = db.connect(env.db_path)
    every = load_rows(conn, str(env.project))
    for view, status in (("pending", "pending"), ("approved", "approved"), ("all", None)):
        full = [r.id for r in triage.select_rows(every, view)]
        assert [r.id for r in load_page(conn, str(env.project), status, 7)] == full[:7]
        assert [r.id for r in load_page(conn, str(env.project), status, 500)] == full
    counts = count_facts(conn, str(env.project), since=110.0)
    assert counts == {"pending": 20, "approved": 20, "rejected": 20,
                      "approved_since": len([n for n in range(60)
                                             if n % 3 == 1 and 100.0 + n >= 110.0])}


def test_first_page_counts_injections_of_its_rows(env: Env) -> None:
    from reviewer.tui.rows import load_page

    seed(env, [F("used", used=4), F("unused")])
    conn = db.connect(env.db_path)
    rows = {r.text: r for r in load_page(conn, str(env.project), "pending", 10)}
    assert (rows["used"].used, rows["unused"].used) == (4, 0)
