"""A store that cannot be written still reads: `list`, `recall` and `remember`'s refusal
work on a read-only data dir; on a full disk `list` still lists and `import` fails with
one clear line, losing nothing (issue 20). The disk is a real tiny tmpfs (root only;
the tests skip where `mount` is not allowed), as in test_faults."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_faults import approve_one, fill, remount, tiny_fs

from reviewer.store import db

ROOT = Path(__file__).resolve().parent.parent
WAIT = 60.0


def cli(home: Path, repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_REVIEW_")}
    env.update(MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1")
    return subprocess.run([sys.executable, "-m", "reviewer.cli", *args], env=env, cwd=repo,
                          capture_output=True, text=True, timeout=WAIT, check=False)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _one_line_error(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode != 0 and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    return lines[0]


def test_a_read_only_data_dir_still_lists_recalls_and_refuses_remember_clearly(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reviewer.claude_code import mcp_server

    with tiny_fs(tmp_path / "disk", 2048) as disk:
        home = disk / "home"
        monkeypatch.setenv("MEM_REVIEW_HOME", str(home))
        monkeypatch.setenv("MEM_REVIEW_NO_SPAWN", "1")
        approve_one(repo)
        remount(disk, "ro")
        try:
            listed = cli(home, repo, "list")
            assert listed.returncode == 0, listed.stderr
            assert "Releases are cut on Mondays." in listed.stdout
            as_json = cli(home, repo, "list", "--json")
            assert as_json.returncode == 0, as_json.stderr
            assert json.loads(as_json.stdout)[0]["fact"] == "Releases are cut on Mondays."
            server = mcp_server.build(str(repo))
            answer = asyncio.run(server.call_tool("recall", {"query": "releases Mondays"}))
            assert "Releases are cut on Mondays." in str(answer)
            with pytest.raises(Exception, match="not stored: the store cannot be written here"):
                asyncio.run(server.call_tool("remember", {
                    "fact": "Deploys happen on Tuesdays.", "category": "convention"}))
        finally:
            remount(disk, "rw")
        conn = db.connect()
        try:
            assert [r[0] for r in conn.execute("SELECT text FROM fact")] == [
                "Releases are cut on Mondays."]
        finally:
            conn.close()


def test_a_full_disk_lists_and_import_fails_with_one_line_losing_nothing(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with tiny_fs(tmp_path / "disk", 1024) as disk:
        home = disk / "home"
        monkeypatch.setenv("MEM_REVIEW_HOME", str(home))
        monkeypatch.setenv("MEM_REVIEW_NO_SPAWN", "1")
        approve_one(repo)
        export = tmp_path / "export.json"
        out = cli(home, repo, "list", "--json")
        items = json.loads(out.stdout)
        items[0]["fact"] = "Deploys happen on Tuesdays."
        export.write_text(json.dumps(items))
        before = export.read_bytes()
        filler = fill(disk)
        try:
            listed = cli(home, repo, "list")
            assert listed.returncode == 0, listed.stderr
            assert "Releases are cut on Mondays." in listed.stdout
            line = _one_line_error(cli(home, repo, "import", str(export)))
            assert "full" in line, line
        finally:
            filler.unlink()
        assert export.read_bytes() == before
        conn = sqlite3.connect(home / "store.db")
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert [r[0] for r in conn.execute("SELECT text FROM fact")] == [
                "Releases are cut on Mondays."]
        finally:
            conn.close()
        done = cli(home, repo, "import", str(export))  # room again: the import goes through
        assert done.returncode == 0, done.stderr
