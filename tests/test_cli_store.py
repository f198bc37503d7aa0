"""`list`, `status`, `import`, `capture`, `preview` through the real CLI, as a person runs them.

Every command runs as a subprocess: what counts is the exit code, stdout, and a one-line
error without a traceback on stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import make_repo, run_on_terminal
from test_pipeline import git

from reviewer.store import db, queue
from reviewer.store.facts import NewFact, Store

ROOT = Path(__file__).resolve().parent.parent
KEYS = {
    "id",
    "fact",
    "category",
    "files",
    "confidence",
    "status",
    "reject_reason",
    "grounded",
    "stale",
    "evidence",
    "session_id",
    "created_at",
    "missing_files",
    "times_seen",
    "commit_sha",
    "branch",
    "anchors",
    "context",
    "source",
    "approved_at",
    "decided_at",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"src/db.py": "import sqlite3\n", "README.md": "# x\n"})


def cli(*args: str, cwd: Path, home: Path, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1", COLUMNS="200")
    proc = subprocess.run(
        [sys.executable, "-m", "reviewer.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def cli_typed(*args: str, cwd: Path, home: Path, answer: str) -> str:
    """Run the CLI on a terminal and type `answer` at its confirmation, as a person would."""
    env = dict(os.environ, MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1", COLUMNS="200")
    env.pop("CLAUDECODE", None)
    code, out = run_on_terminal([sys.executable, "-m", "reviewer.cli", *args], answer,
                                env=env, cwd=cwd)
    assert code == 0 and "Traceback" not in out, out
    return out


def fail_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The one-line error of a failed command."""
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mem-review: "), proc.stderr
    return lines[0]


def seed(repo: Path) -> list[int]:
    """A pending, an approved (anchored) and a rejected fact in `repo`, one elsewhere."""
    project = str(repo)
    blob = git(repo, "hash-object", "src/db.py")
    head = git(repo, "rev-parse", "HEAD")
    store = Store()
    store.import_facts(
        [
            NewFact(
                project=project,
                text="The database layer in src/db.py uses WAL mode.",
                norm="wal",
                category="decision",
                files=["src/db.py"],
                confidence=0.9,
                evidence="must use WAL mode",
                context="User: must use WAL mode",
                grounded=True,
                session_id="s1",
                commit_sha=head,
                branch="main",
                anchors={"src/db.py": blob},
                status="approved",
                decided_at=1_700_000_000.0,
                created_at=1_699_000_000.0,
            ),
            NewFact(
                project=project,
                text=("Integration tests need a running Postgres. " * 4).strip(),
                norm="pg",
                category="environment",
                confidence=0.6,
                session_id="s1",
                files=["docs/gone.md"],
                missing_files=["docs/gone.md"],
                anchors={"docs/gone.md": None},
            ),
            NewFact(
                project=project,
                text="Deploys happen on Fridays.",
                norm="fri",
                category="decision",
                status="rejected",
                reject_reason="invented",
            ),
            NewFact(
                project="/somewhere/else", text="Not this project.", norm="else", category="gotcha"
            ),
        ],
        keep_status=True,
    )
    ids = [f.id for f in store.facts(project)]
    store.close()
    return [i for i in ids if i is not None]


# --------------------------------------------------------------------------- list


def test_list_json_shape(home: Path, repo: Path) -> None:
    seed(repo)
    out = json.loads(cli("list", "--json", cwd=repo / "src", home=home).stdout)
    assert [f["status"] for f in out] == ["approved", "pending", "rejected"]
    for item in out:
        assert set(item) >= KEYS
        assert item["created_at"].endswith("Z") and "T" in item["created_at"]
        assert isinstance(item["files"], list) and isinstance(item["anchors"], dict)
        assert isinstance(item["grounded"], bool) and isinstance(item["stale"], bool)
    wal, pg, fri = out
    assert wal["fact"] == "The database layer in src/db.py uses WAL mode."
    assert wal["approved_at"] == "2023-11-14T22:13:20Z" == wal["decided_at"]
    assert wal["created_at"] == "2023-11-03T08:26:40Z"
    assert wal["anchors"] == {"src/db.py": git(repo, "hash-object", "src/db.py")}
    assert wal["grounded"] is True and wal["evidence"] == "must use WAL mode"
    assert pg["approved_at"] is None and pg["missing_files"] == ["docs/gone.md"]
    assert fri["reject_reason"] == "invented" and fri["approved_at"] is None
    assert "Not this project." not in json.dumps(out)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("pending", ["pending"]),
        ("approved", ["approved"]),
        ("rejected", ["rejected"]),
        ("all", ["approved", "pending", "rejected"]),
    ],
)
def test_list_filters_by_status(home: Path, repo: Path, status: str, expected: list[str]) -> None:
    seed(repo)
    out = json.loads(cli("list", "--status", status, "--json", cwd=repo, home=home).stdout)
    assert [f["status"] for f in out] == expected


def test_list_project_option_and_bad_project(home: Path, repo: Path, tmp_path: Path) -> None:
    seed(repo)
    out = json.loads(cli("list", "--json", "--project", str(repo), cwd=tmp_path, home=home).stdout)
    assert len(out) == 3
    line = fail_line(
        cli("list", "--project", str(tmp_path / "nope"), cwd=tmp_path, home=home, ok=False)
    )
    assert "nope: no such directory" in line


def test_list_stale_uses_staleness_when_available(home: Path, repo: Path) -> None:
    pytest.importorskip("reviewer.freshness.staleness")
    seed(repo)
    assert json.loads(cli("list", "--status", "stale", "--json", cwd=repo, home=home).stdout) == []
    (repo / "src" / "db.py").write_text("import sqlite3  # changed\n")
    stale = json.loads(cli("list", "--status", "stale", "--json", cwd=repo, home=home).stdout)
    assert [(f["fact"], f["stale"]) for f in stale] == [
        ("The database layer in src/db.py uses WAL mode.", True)
    ]


def test_list_table_is_aligned_and_fits_100_columns(home: Path, repo: Path) -> None:
    ids = seed(repo)
    out = cli("list", cwd=repo, home=home).stdout
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "STATUS", "CATEGORY", "CONF", "FLAGS", "FACT"]
    assert all(len(line) <= 100 for line in lines)
    body = lines[1:4]
    assert [int(line.split()[0]) for line in body] == ids
    fact_col = lines[0].index("FACT")
    assert {line[fact_col - 2 : fact_col] for line in body} == {"  "}  # one column for all
    assert body[0][fact_col:].startswith("The database layer")
    assert body[1].endswith("…") and "UM" in body[1]  # long text cut; ungrounded, missing
    assert "3 facts (1 approved · 1 pending · 1 rejected)" in out


def test_list_table_says_when_there_is_nothing(home: Path, repo: Path) -> None:
    out = cli("list", "--status", "pending", cwd=repo, home=home).stdout
    assert out.strip() == f"no pending facts for {repo}"


# --------------------------------------------------------------------------- status


def test_status_json_shows_queue_facts_failures_and_spend(home: Path, repo: Path) -> None:
    seed(repo)
    conn = db.connect()
    done = queue.enqueue(
        conn,
        session_id="a",
        transcript_path="/t/a.jsonl",
        project=str(repo),
        cwd=str(repo),
        event="SessionEnd",
    )
    conn.execute(
        "UPDATE job SET state='done', input_tokens=1000, output_tokens=200, "
        "cost_usd=0.002, updated_at=? WHERE id=?",
        (db.now(), done),
    )
    old = queue.enqueue(
        conn,
        session_id="old",
        transcript_path="/t/old.jsonl",
        project=str(repo),
        cwd=str(repo),
        event="SessionEnd",
    )
    conn.execute(
        "UPDATE job SET state='done', input_tokens=5000, output_tokens=100, "
        "cost_usd=0.0055, updated_at=? WHERE id=?",
        (db.now() - 3 * 86400, old),
    )
    failed = queue.enqueue(
        conn,
        session_id="b",
        transcript_path="/t/b.jsonl",
        project=str(repo),
        cwd=str(repo),
        event="SessionEnd",
    )
    queue.fail(conn, failed, "transcript unreadable: /t/b.jsonl: No such file or directory")
    waiting = queue.enqueue(
        conn,
        session_id="c",
        transcript_path="/t/c.jsonl",
        project=str(repo),
        cwd=str(repo),
        event="SessionEnd",
    )
    queue.requeue(conn, waiting, "ANTHROPIC_API_KEY is not set", delay=0, count_attempt=False)
    conn.close()

    data = json.loads(cli("status", "--json", cwd=repo, home=home).stdout)
    assert data["jobs"] == {"queued": 1, "running": 0, "done": 2, "failed": 1}
    assert data["facts"]["project"] == {"pending": 1, "approved": 1, "rejected": 1, "stale": 0}
    assert data["facts"]["all"] == {"pending": 2, "approved": 1, "rejected": 1}
    assert [(f["id"], f["error"]) for f in data["failures"]] == [
        (failed, "transcript unreadable: /t/b.jsonl: No such file or directory")
    ]
    assert [(w["id"], w["error"]) for w in data["waiting"]] == [
        (waiting, "ANTHROPIC_API_KEY is not set")
    ]
    assert data["spend"]["total"] == {
        "input_tokens": 6000,
        "output_tokens": 300,
        "cost_usd": 0.0075,
    }
    assert data["spend"]["today"]["input_tokens"] == 1000
    assert data["worker_running"] is False and data["project"] == str(repo)

    text = cli("status", cwd=repo, home=home).stdout
    assert "1 queued · 0 running · 2 done · 1 failed · worker not running" in text
    assert "6,000 in / 300 out tokens · $0.0075 total · $0.0020 today" in text
    assert f"failed   job {failed} (b): transcript unreadable" in text
    assert f"waiting  job {waiting} (c): ANTHROPIC_API_KEY is not set" in text


def test_status_on_an_empty_store(home: Path, tmp_path: Path) -> None:
    data = json.loads(cli("status", "--json", cwd=tmp_path, home=home).stdout)
    assert data["jobs"] == {"queued": 0, "running": 0, "done": 0, "failed": 0}
    assert data["failures"] == [] and data["spend"]["total"]["cost_usd"] == 0


# --------------------------------------------------------------------------- import


def _export(home: Path, repo: Path, tmp_path: Path) -> Path:
    seed(repo)
    export = tmp_path / "export.json"
    export.write_text(cli("list", "--json", cwd=repo, home=home).stdout)
    return export


def test_import_round_trips_an_export_as_pending(home: Path, repo: Path, tmp_path: Path) -> None:
    export = _export(home, repo, tmp_path)
    other_home = tmp_path / "other-home"
    out = cli("import", str(export), cwd=repo, home=other_home)
    assert "imported 3 facts" in out.stdout and "as pending" in out.stdout
    before = json.loads(export.read_text())
    after = json.loads(cli("list", "--json", cwd=repo, home=other_home).stdout)
    assert [f["status"] for f in after] == ["pending"] * 3
    assert [f["reject_reason"] for f in after] == [None] * 3
    same = (
        "fact",
        "category",
        "files",
        "confidence",
        "grounded",
        "evidence",
        "context",
        "session_id",
        "created_at",
        "anchors",
        "commit_sha",
        "branch",
        "missing_files",
    )
    assert [{k: f[k] for k in same} for f in after] == [{k: f[k] for k in same} for f in before]
    again = cli("import", str(export), cwd=repo, home=other_home)
    assert "imported 0 facts" in again.stdout and "3 already present" in again.stdout


def test_import_keep_status_keeps_decisions(home: Path, repo: Path, tmp_path: Path) -> None:
    export = _export(home, repo, tmp_path)
    other_home = tmp_path / "other-home"
    cli_typed("import", str(export), "--keep-status", cwd=repo, home=other_home,
              answer="approve 2")
    after = json.loads(cli("list", "--json", cwd=repo, home=other_home).stdout)
    before = json.loads(export.read_text())
    assert [(f["fact"], f["status"], f["reject_reason"], f["approved_at"]) for f in after] == [
        (f["fact"], f["status"], f["reject_reason"], f["approved_at"]) for f in before
    ]


def test_import_anchors_unanchored_facts_to_the_files_as_they_are(
    home: Path, repo: Path, tmp_path: Path
) -> None:
    export = tmp_path / "hand.json"
    export.write_text(
        json.dumps(
            {
                "facts": [
                    {
                        "fact": "README.md is the entry point.",
                        "category": "convention",
                        "files": ["README.md", "gone.txt"],
                    },
                ]
            }
        )
    )
    cli("import", str(export), cwd=repo, home=home)
    (item,) = json.loads(cli("list", "--json", cwd=repo, home=home).stdout)
    assert item["anchors"] == {"README.md": git(repo, "hash-object", "README.md"), "gone.txt": None}
    assert item["commit_sha"] == git(repo, "rev-parse", "HEAD") and item["branch"] == "main"
    assert item["missing_files"] == ["gone.txt"] and item["status"] == "pending"
    assert item["confidence"] == 0.5


@pytest.mark.parametrize(
    ("content", "expect"),
    [
        (None, "no such file"),
        ("{not json", "not valid JSON"),
        ('{"facts": 3}', "expected a list of facts"),
        ("42", "expected a list of facts"),
        ("[1]", "fact #1: expected an object"),
        ('[{"category": "decision"}]', "fact #1: `fact` must be a non-empty string"),
        ('[{"fact": "x", "category": "opinion"}]', "`category` 'opinion' is not one of"),
        ('[{"fact": "x", "category": "todo", "status": "stale"}]', "`status` 'stale'"),
        ('[{"fact": "x", "category": "todo", "confidence": 7}]', "`confidence` must be"),
        ('[{"fact": "x", "category": "todo", "files": "a.py"}]', "`files`: expected a list"),
        ('[{"fact": "x", "category": "todo", "created_at": "yesterday"}]', "not an ISO 8601"),
        (b"\xff\xfe[]", "not UTF-8 text"),
    ],
)
def test_import_refuses_a_broken_file_in_one_line(
    home: Path, repo: Path, tmp_path: Path, content: str | bytes | None, expect: str
) -> None:
    path = tmp_path / "in.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    line = fail_line(cli("import", str(path), cwd=repo, home=home, ok=False))
    assert expect in line and str(path) in line
    assert (
        not (home / "store.db").exists()
        or db.connect(home / "store.db").execute("SELECT COUNT(*) FROM fact").fetchone()[0] == 0
    )


def test_import_of_a_directory_is_refused(home: Path, repo: Path, tmp_path: Path) -> None:
    assert "is a directory" in fail_line(
        cli("import", str(tmp_path), cwd=repo, home=home, ok=False)
    )


def test_import_many_facts_in_one_go(home: Path, repo: Path, tmp_path: Path) -> None:
    items: list[dict[str, Any]] = [
        {
            "fact": f"Module m{i} owns table t{i}.",
            "category": "convention",
            "files": ["src/db.py"],
            "status": "approved",
        }
        for i in range(2_000)
    ]
    path = tmp_path / "many.json"
    path.write_text(json.dumps(items))
    cli_typed("import", str(path), "--keep-status", cwd=repo, home=home, answer="approve 2000")
    conn = db.connect()
    counts = dict(conn.execute("SELECT status, COUNT(*) FROM fact GROUP BY status").fetchall())
    anchored = conn.execute("SELECT COUNT(DISTINCT anchors) FROM fact").fetchone()[0]
    conn.close()
    assert counts == {"approved": 2_000} and anchored == 1


# --------------------------------------------------------------------------- capture, preview


def test_capture_queues_with_the_file_stem_and_the_current_project(
    home: Path, repo: Path, transcripts: Path
) -> None:
    short = transcripts / "spotter" / "short.jsonl"
    out = cli("capture", str(short), "--no-worker", cwd=repo / "src", home=home)
    assert "queued 1 transcript(s)" in out.stdout
    conn = db.connect()
    (row,) = conn.execute("SELECT * FROM job").fetchall()
    conn.close()
    assert (
        row["session_id"],
        row["transcript_path"],
        row["project"],
        row["event"],
        row["state"],
    ) == ("short", str(short.resolve()), str(repo), "capture", "queued")


def test_capture_a_directory_queues_its_transcripts(
    home: Path, repo: Path, transcripts: Path
) -> None:
    cli("capture", str(transcripts / "spotter"), "--no-worker", cwd=repo, home=home)
    conn = db.connect()
    stems = sorted(r[0] for r in conn.execute("SELECT session_id FROM job"))
    conn.close()
    assert stems == ["4d5611e5-241a-462a-8d15-5122611a9569", "short", "tool_heavy"]


def test_capture_refuses_a_missing_file(home: Path, repo: Path, tmp_path: Path) -> None:
    line = fail_line(cli("capture", str(tmp_path / "nope.jsonl"), cwd=repo, home=home, ok=False))
    assert "nope.jsonl: no such file" in line
    assert not (home / "store.db").exists()


def test_preview_prints_the_condensed_text(home: Path, repo: Path, transcripts: Path) -> None:
    out = cli("preview", str(transcripts / "spotter" / "short.jsonl"), cwd=repo, home=home)
    assert out.stdout.startswith("───── window 1 of 1")
    assert "User: mix phx.server doesnt seem to start" in out.stdout


@pytest.mark.parametrize("kind", ["missing", "directory", "unreadable"])
def test_preview_refuses_a_bad_path_in_one_line(
    home: Path, repo: Path, tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "t.jsonl"
    if kind == "directory":
        path.mkdir()
    elif kind == "unreadable":
        if os.geteuid() == 0:
            pytest.skip("root reads any file")
        path.write_text("{}\n")
        path.chmod(0)
    line = fail_line(cli("preview", str(path), cwd=repo, home=home, ok=False))
    expect = {
        "missing": "no such file",
        "directory": "is a directory",
        "unreadable": "permission denied",
    }[kind]
    assert expect in line
