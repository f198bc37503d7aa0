"""Deterministic review data for the TUI tests (helpers; the checks live beside it).

Facts are written with stdlib SQL at fixed times, each with its "created" history row, as
the worker would leave them; the cited files exist in a real project directory and are
anchored to their real blob SHAs, so staleness sees them fresh unless a test edits them.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from reviewer.freshness.anchors import blob_sha
from reviewer.store import db

T0 = 1767268800.0  # 2026-01-01 12:00 UTC
COMMIT = "0123456789abcdef0123456789abcdef01234567"
PROJECT_FILES = {
    "pyproject.toml": '[project]\nname = "acme"\n',
    "src/api.py": "def create_order(payload):\n    return payload.get('items', [])\n",
    "tests/conftest.py": "import pytest\n",
}
CONTEXT = (
    "User: the API fails on empty carts\n\n"
    "Assistant: The fix:\n"
    "```diff\n"
    "--- a/src/api.py\n"
    "+++ b/src/api.py\n"
    "@@ -1,2 +1,2 @@\n"
    "-    return payload['items']\n"
    "+    return payload.get('items', [])\n"
    "```\n"
    "  · Edit src/api.py\n"
    "  ! Bash failed: KeyError: 'items'\n\n"
    "User: Remember that the API returns an empty list, never null, for an empty cart.\n\n"
    "Assistant: Config now reads:\n"
    "```json\n"
    '{"items": [], "total": 0}\n'
    "```"
)


@dataclass
class F:
    """One fact to seed; defaults describe a grounded pending convention."""

    text: str
    category: str = "convention"
    confidence: float = 0.8
    status: str = "pending"
    files: Sequence[str] = ()
    grounded: bool = True
    missing: Sequence[str] = ()
    times_seen: int = 1
    used: int = 0
    evidence: str = ""
    context: str = ""
    reject_reason: str | None = None
    created_at: float = T0
    decided_at: float | None = None
    anchors: dict[str, str | None] | None = None
    session_id: str = "sess-0001"
    extra: dict[str, object] = field(default_factory=dict)


SAMPLE = [
    F(
        "The API returns an empty list, never null, for an empty cart.",
        "decision",
        0.9,
        files=["src/api.py"],
        evidence="the API returns an empty list, never null",
        context=CONTEXT,
        times_seen=2,
        used=3,
    ),
    F(
        "The project uses uv for every command, never pip.",
        files=["pyproject.toml"],
        evidence="we use uv, never pip",
        context="User: we use uv, never pip, here.",
    ),
    F(
        "TODO: squash the migrations before the 1.0 release.",
        "todo",
        0.8,
        evidence="TODO: squash the migrations",
        context="User: TODO: squash the migrations",
    ),
    F(
        "New tests run against the postgres container, not sqlite.",
        "gotcha",
        0.7,
        files=["tests/conftest.py"],
        evidence="postgres container",
        context="User: use the postgres container",
    ),
    F(
        "The staging database allows 20 connections.",
        "environment",
        0.6,
        grounded=False,
        evidence="staging allows twenty",
        context="User: something else entirely",
    ),
    F(
        "Deploys run the migrations first.",
        "environment",
        0.85,
        status="approved",
        decided_at=T0 + 60,
    ),
    F(
        "The service uses Flask.",
        "environment",
        0.4,
        status="rejected",
        reject_reason="wrong or invented",
        decided_at=T0 + 120,
    ),
]
PENDING_ORDER = [0, 1, 2, 3, 4]  # sample indexes in list order: grounded first, then id


@dataclass
class Env:
    home: Path
    project: Path
    db_path: Path

    def connect(self) -> sqlite3.Connection:
        """A second connection, as another process would see the store."""
        conn = sqlite3.connect(self.db_path)
        conn.row_factory = sqlite3.Row
        return conn

    def fact(self, fact_id: int) -> sqlite3.Row:
        with self.connect() as conn:
            return conn.execute("SELECT * FROM fact WHERE id = ?", (fact_id,)).fetchone()

    def history(self, fact_id: int) -> list[tuple[str, str]]:
        with self.connect() as conn:
            return [
                (r["actor"], r["action"])
                for r in conn.execute(
                    "SELECT actor, action FROM fact_history WHERE fact_id = ? ORDER BY id",
                    (fact_id,),
                )
            ]


def make_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    """Body of each test module's `env` fixture: a scratch home, UTC, a project dir."""
    home = tmp_path / "home"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(home))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    project = tmp_path / "acme"
    for rel, text in PROJECT_FILES.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    yield Env(home=home, project=project, db_path=home / "store.db")
    monkeypatch.delenv("TZ")
    time.tzset()


def seed(env: Env, facts: Sequence[F] = SAMPLE, *, commit: str = COMMIT) -> list[int]:
    """Insert facts (with their creation history and injections); returns their ids."""
    conn = db.connect(env.db_path)
    ids: list[int] = []
    try:
        with db.transaction(conn):
            for i, f in enumerate(facts):
                anchors = f.anchors
                if anchors is None:
                    anchors = {p: blob_sha(env.project / p) for p in f.files}
                cur = conn.execute(
                    "INSERT INTO fact (project, text, norm, category, files, confidence, "
                    "evidence, context, status, reject_reason, grounded, missing_files, "
                    "session_id, source, times_seen, commit_sha, branch, anchors, model, "
                    "created_at, updated_at, decided_at) "
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        str(env.project),
                        f.text,
                        f"norm-{i}-{f.text.lower()}",
                        f.category,
                        json.dumps(list(f.files)),
                        f.confidence,
                        f.evidence,
                        f.context,
                        f.status,
                        f.reject_reason,
                        int(f.grounded),
                        json.dumps(list(f.missing)),
                        f.session_id,
                        "model",
                        f.times_seen,
                        commit,
                        "main",
                        json.dumps(anchors, sort_keys=True),
                        "claude-haiku-4-5",
                        f.created_at,
                        f.created_at,
                        f.decided_at,
                    ),
                )
                fact_id = int(cur.lastrowid or 0)
                ids.append(fact_id)
                conn.execute(
                    "INSERT INTO fact_history (fact_id, at, actor, action, before, after) "
                    "VALUES (?, ?, 'worker', 'created', NULL, ?)",
                    (fact_id, f.created_at, json.dumps({"status": "pending"})),
                )
                for n in range(f.used):
                    conn.execute(
                        "INSERT INTO injection (project, session_id, fact_id, source, at) "
                        "VALUES (?, ?, ?, 'startup', ?)",
                        (str(env.project), f"later-{n}", fact_id, f.created_at + n),
                    )
    finally:
        conn.close()
    return ids


def make_app(env: Env, **kwargs: object):  # -> ReviewApp (imported lazily: textual)
    from reviewer.tui.app import ReviewApp

    return ReviewApp(project=str(env.project), db_path=env.db_path, **kwargs)  # type: ignore[arg-type]


def git(project: Path, *args: str) -> None:
    import subprocess

    subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
            *args,
        ],
        cwd=project,
        check=True,
        capture_output=True,
        env={
            **os.environ,
            "GIT_AUTHOR_DATE": "2026-01-01T12:00:00Z",
            "GIT_COMMITTER_DATE": "2026-01-01T12:00:00Z",
        },
    )
