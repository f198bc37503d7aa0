"""A cited file is read only if it is a regular file in the project, bounded in size and time.

Seen (issue 20): a cited FIFO hung the worker for ever and MCP `remember` for 60 s+; a
symlink to /dev/zero raised MemoryError (the job retried, again); a 2 GB file cost the
worker 2.1 GB and SessionStart 2.0 GB; an imported `../` anchor made SessionStart hash
files outside the project. Each hostile input runs in a child process under a memory
limit (RLIMIT_AS) and a timeout, so a regression fails the test instead of hanging it or
eating the machine. Every reader goes through `reviewer.freshness.cited`: the worker's
anchors, `remember`, SessionStart's staleness hashing and the TUI's diff.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import make_repo

from reviewer.freshness import cited

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
WAIT = 60.0  # a guard against hanging, never a speed assertion
DEVICE = os.geteuid() == 0
MEMORY = 768 * 1024 * 1024  # address space for the child: far below a 2 GB read


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", {"README.md": "hello\n", "src/app.py": "x = 1\n"})
    os.mkfifo(repo / "pipe")
    (repo / "zero").symlink_to("/dev/zero")
    (repo / "null").symlink_to("/dev/null")
    with open(repo / "big.bin", "wb") as fh:  # sparse: no disk is spent
        fh.truncate(2 * 1024 * 1024 * 1024)
    (repo / "adir").mkdir()
    secret = tmp_path / "outside.txt"
    secret.write_text("the person's other file\n")
    (repo / "escape").symlink_to(secret)
    (repo / "linked").symlink_to("src/app.py")  # a symlink inside to a file inside: fine
    if DEVICE:  # a character device in the project itself, like /dev/zero (needs root)
        os.mknod(repo / "zerodev", 0o600 | stat.S_IFCHR, os.makedev(1, 5))
    return repo


HOSTILE = {
    "pipe": "FIFO",
    "zero": "outside the project (through a symlink)",
    "null": "outside the project (through a symlink)",
    "big.bin": "larger than the 8 MiB read limit (2.1 GB)",
    "adir": "directory",
    **({"zerodev": "a device"} if DEVICE else {}),
    "escape": "outside the project",
    "../outside.txt": "outside the project",
    "src/../../outside.txt": "outside the project",
}


def bounded(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a child limited to MEMORY bytes of address space and WAIT seconds."""
    prelude = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, ({MEMORY}, {MEMORY}))
        sys.path[:0] = [{str(ROOT)!r}, {str(TESTS)!r}]
    """)
    full = {**os.environ, **env}
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], cwd=cwd,
                          env=full, capture_output=True, text=True, timeout=WAIT, check=False)


def test_the_reader_refuses_each_hostile_file_with_its_reason(project: Path) -> None:
    out = bounded(f"""
        import json
        from reviewer.freshness import cited
        names = {list(HOSTILE)!r} + ["src/app.py", "linked", "README.md"]
        print(json.dumps({{n: cited.read({str(project)!r}, n)[1] for n in names}}))
    """, project)
    assert out.returncode == 0, out.stderr
    why = json.loads(out.stdout)
    for name, reason in HOSTILE.items():
        assert why[name] is not None and reason in why[name], (name, why[name])
    assert why["src/app.py"] is None and why["linked"] is None and why["README.md"] is None


def test_the_reader_stops_at_the_limit_when_a_file_grows(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"a" * 100)
    assert cited.read(tmp_path, "f", limit=100) == (b"a" * 100, None)
    data, why = cited.read(tmp_path, "f", limit=99)
    assert data is None and why is not None and "larger than" in why


def test_lexical_containment() -> None:
    for bad in ("", "/etc/passwd", "../x", "a/../../x", "a/..", "~/x", "a\0b", "..\\x"):
        assert not cited.inside(bad), bad
    for good in ("a", "a/b.py", "a..b", ".hidden/x", "x/..y"):
        assert cited.inside(good), good


def test_the_worker_finishes_the_job_and_says_why_each_file_was_not_read(
    project: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    transcript = tmp_path / "s.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {
        "role": "user", "content": "Remember: releases are cut on Mondays."}}) + "\n")
    names = [n for n in HOSTILE if not n.startswith(("..", "src/.."))]
    out = bounded(f"""
        import os
        from fakeapi import Facts, FakeMessagesAPI
        from test_pipeline import fact
        from capture import worker
        from test_hostile_inputs import enqueue
        from pathlib import Path
        enqueue(Path({str(transcript)!r}), Path({str(project)!r}))
        f = fact("Releases are cut on Mondays.", "releases are cut on Mondays",
                 files={names!r} + ["README.md"])
        with FakeMessagesAPI(default_extract=Facts([f])) as api:
            os.environ["ANTHROPIC_BASE_URL"] = api.url
            print(worker.run(once=True))
    """, project, MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1",
        MEM_REVIEW_MAX_RETRIES="0", MEM_REVIEW_EXTRACTOR="api",
        MEM_REVIEW_DAILY_SPEND_CAP="0", ANTHROPIC_API_KEY="test-key")
    assert out.returncode == 0, out.stderr[-3000:]
    import sqlite3

    conn = sqlite3.connect(home / "store.db")
    try:
        (state,) = conn.execute("SELECT state FROM job").fetchone()
        anchors, missing = conn.execute("SELECT anchors, missing_files FROM fact").fetchone()
    finally:
        conn.close()
    assert state == "done"
    anchored = json.loads(anchors)
    assert anchored["README.md"] and all(anchored[n] is None for n in names)
    assert set(json.loads(missing)) == set(names)
    log = (home / "mem-review.log").read_text()
    for name in names:
        assert f"cited file {name!r} not read: {HOSTILE[name]}" in log or (
            name in log and HOSTILE[name] in log), name


def test_remember_answers_and_says_why_each_file_was_not_read(
    project: Path, tmp_path: Path
) -> None:
    out = bounded(f"""
        from pathlib import Path
        from reviewer.claude_code.remember import remember
        from reviewer.store import db
        conn = db.connect(Path({str(tmp_path / "store.db")!r}))
        p = remember(conn, {str(project)!r}, "Releases are cut on Mondays, see the files.",
                     "convention", files={list(HOSTILE)!r} + ["README.md"])
        print(p.message())
    """, project)
    assert out.returncode == 0, out.stderr[-3000:]
    for name, reason in HOSTILE.items():
        if name.startswith((".", "src/..")):
            assert name in out.stdout  # not in the project
        else:
            assert f"cited file {name} not read: " in out.stdout and reason in out.stdout


def test_session_start_never_reads_a_hostile_file_nor_one_outside(
    project: Path, tmp_path: Path
) -> None:
    """Facts anchored to today's content of each file (as an import could say), then the
    files turned hostile: staleness stays bounded and calls each fact stale."""
    (project / "plain").write_text("plain\n")
    real = cited.blob_sha(project, "plain")[0]
    facts = [{"id": i, "anchors": json.dumps({name: real}), "files": json.dumps([name])}
             for i, name in enumerate([*HOSTILE, "plain"], 1)]
    out = bounded(f"""
        import json
        from reviewer.freshness import staleness
        facts = {facts!r}
        got = staleness.verdicts(None, {str(project)!r}, facts)
        print(json.dumps({{str(k): v.state for k, v in got.items()}}))
    """, project)
    assert out.returncode == 0, out.stderr[-3000:]
    states = json.loads(out.stdout)
    assert states[str(len(facts))] == "fresh"
    assert all(states[str(i)] != "fresh" for i in range(1, len(facts)))


def test_session_start_does_not_stat_or_hash_through_dotdot(project: Path) -> None:
    """In a bounded child too: the rename search once hashed an untracked symlink to
    /dev/zero (this test's first version, in-process, was OOM-killed on the old code)."""
    facts = [{"id": 1, "anchors": json.dumps({"../outside.txt": "0" * 40,
                                              "/etc/hostname": "1" * 40})}]
    out = bounded(f"""
        import json, os
        seen = []
        real_stat, real_open = os.stat, os.open
        os.stat = lambda p, *a, **k: seen.append(str(p)) or real_stat(p, *a, **k)
        os.open = lambda p, *a, **k: seen.append(str(p)) or real_open(p, *a, **k)
        from reviewer.freshness import staleness
        got = staleness.verdicts(None, {str(project)!r}, {facts!r})
        print(json.dumps([got[1].stale, seen]))
    """, project)
    assert out.returncode == 0, out.stderr[-3000:]
    stale, seen = json.loads(out.stdout)
    assert stale
    assert not [p for p in seen if "outside.txt" in p or p.endswith("/etc/hostname")]


def test_the_tui_diff_says_why_it_did_not_read_the_file(project: Path) -> None:
    out = bounded(f"""
        from reviewer.freshness.git_diff import file_diff
        import subprocess
        head = subprocess.run(["git", "-C", {str(project)!r}, "rev-parse", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        for name in ("pipe", "zero", "big.bin", "adir"):
            print(file_diff({str(project)!r}, head, name))
    """, project)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "pipe is not read: a FIFO" in out.stdout
    assert "zero is not read: outside the project" in out.stdout
    assert "adir is not read: a directory" in out.stdout
    assert "big.bin is not read: larger than" in out.stdout


def test_an_import_with_an_anchor_outside_the_project_is_refused(tmp_path: Path) -> None:
    from reviewer.errors import UserError
    from reviewer.store.facts_json import validate_item

    for path in ("../../etc/passwd", "/etc/passwd"):
        item = {"fact": "x is y", "category": "convention", "anchors": {path: "0" * 40}}
        with pytest.raises(UserError, match="outside the project"):
            validate_item(item, 0, "f.json")


async def test_the_review_pane_says_why_a_cited_file_was_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_tui_seed import make_app, make_env

    env = next(make_env(tmp_path, monkeypatch))
    os.mkfifo(env.project / "pipe")
    from reviewer.claude_code.remember import remember
    from reviewer.store import db

    conn = db.connect(env.db_path)
    try:
        remember(conn, env.project, "The queue is fed through a named pipe.", "gotcha",
                 files=["pipe"])
    finally:
        conn.close()
    app = make_app(env)
    async with app.run_test(size=(100, 60)) as pilot:
        await app.settle()
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        body = app.main.detail.body
        text = str(body.visual.plain if hasattr(body.visual, "plain") else body.visual)
        assert "not read: a FIFO (named pipe), not a regular file" in text, text


def test_an_import_keeps_a_missing_outside_file_that_has_no_hash() -> None:
    from reviewer.store.facts_json import validate_item

    item = {"fact": "x is y", "category": "convention", "files": ["/etc/nginx.conf"],
            "anchors": {"/etc/nginx.conf": None}}
    assert validate_item(item, 0, "f.json")["files"] == ["/etc/nginx.conf"]
