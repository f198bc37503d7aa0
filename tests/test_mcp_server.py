"""`mem-review mcp` spoken to as Claude Code does: JSON-RPC over the process's stdio."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import git, write_old
from test_recall import add

from reviewer.store import db

BIN = Path(sys.executable).parent


class Client:
    """A minimal MCP client: newline-delimited JSON-RPC 2.0 over a subprocess's pipes."""

    def __init__(self, cwd: Path, env: dict[str, str], argv: list[str] | None = None) -> None:
        self.proc = subprocess.Popen(
            argv or [str(BIN / "mem-review"), "mcp"], cwd=cwd, env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.next_id = 0

    def send(self, method: str, params: dict[str, Any] | None = None, *, notify: bool = False
             ) -> dict[str, Any] | None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notify:
            self.next_id += 1
            msg["id"] = self.next_id
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        if notify:
            return None
        line = self.proc.stdout.readline()
        assert line, f"server closed its stdout; stderr: {self.close()}"
        answer = json.loads(line)
        assert answer["id"] == self.next_id
        return answer

    def initialize(self) -> dict[str, Any]:
        answer = self.send("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        })
        self.send("notifications/initialized", notify=True)
        assert answer is not None
        return answer["result"]

    def call(self, tool: str, arguments: Any) -> tuple[bool, str]:
        answer = self.send("tools/call", {"name": tool, "arguments": arguments})
        assert answer is not None and "result" in answer, answer
        result = answer["result"]
        [block] = result["content"]
        return bool(result.get("isError")), block["text"]

    def close(self) -> str:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=20)
        return self.proc.stderr.read()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = (tmp_path / "proj").resolve()
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_old(root, "src/db.py", "# db\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "store"))
    out = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE")}
    out.update(MEM_REVIEW_HOME=str(tmp_path / "store"), HOME=str(tmp_path / "home"))
    return out


@pytest.fixture
def client(repo: Path, env: dict[str, str]):
    c = Client(repo, env)
    yield c
    if c.proc.poll() is None:
        c.close()


def test_initialize_and_list_the_two_tools(client: Client) -> None:
    result = client.initialize()
    assert result["serverInfo"]["name"] == "mem-review"
    assert "tools" in result["capabilities"]
    answer = client.send("tools/list")
    assert answer is not None
    tools = {t["name"]: t for t in answer["result"]["tools"]}
    assert set(tools) == {"recall", "remember"}
    recall_schema = tools["recall"]["inputSchema"]
    assert recall_schema["required"] == ["query"]
    assert set(recall_schema["properties"]) == {"query", "files", "limit"}
    assert set(tools["remember"]["inputSchema"]["required"]) == {"fact", "category"}


def test_recall_answers_only_the_approved_fresh_fact_and_counts_the_rest(
    client: Client, repo: Path
) -> None:
    conn = db.connect()
    approved = add(conn, repo, "The journal mode of the database is WAL")
    add(conn, repo, "The journal mode of the database is DELETE", status="pending")
    add(conn, repo, "The database journal mode is set in src/db.py", files=("src/db.py",))
    conn.close()
    write_old(repo, "src/db.py", "# db, changed since approval\n")
    client.initialize()
    error, text = client.call("recall", {"query": "database journal mode"})
    assert not error
    answer = json.loads(text)
    assert [r["id"] for r in answer["results"]] == [approved]
    assert answer["withheld"] == {"stale": 1, "pending": 1}


def test_hostile_calls_are_one_line_tool_errors_and_the_server_lives_on(
    client: Client, repo: Path
) -> None:
    conn = db.connect()
    fid = add(conn, repo, "Invoices are generated nightly")
    conn.close()
    client.initialize()
    for arguments in (
        {"query": 123}, {"query": "x", "files": "src/db.py"}, {"query": "x", "limit": "many"},
        {}, {"query": ["a"]}, {"query": "?!"},
    ):
        error, text = client.call("recall", arguments)
        assert error, (arguments, text)
        assert text.startswith("recall: ") and "\n" not in text, text
    for query in ('"NEAR(invoices *', "invoices:x -y ((", "invoices " * 20_000):
        error, text = client.call("recall", {"query": query})
        assert not error, text
        assert [r["id"] for r in json.loads(text)["results"]] == [fid]
    error, text = client.call("remember", {"fact": "x", "category": "opinion"})
    assert error and text.startswith("remember: category must be one of")
    answer = client.send("tools/call", {"name": "nope", "arguments": {}})
    assert answer is not None  # an unknown tool is an error answer, not a dead server
    error, _ = client.call("recall", {"query": "invoices"})
    assert not error and client.proc.poll() is None


def test_a_broken_store_is_a_one_line_tool_error(client: Client, tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir(mode=0o700)
    (store / "store.db").write_bytes(b"not a database" * 500)
    client.initialize()
    error, text = client.call("recall", {"query": "anything"})
    assert error and text.startswith("recall: ") and "\n" not in text
    assert "is damaged" in text and ".recover" in text
    assert client.proc.poll() is None


def test_no_store_yet_is_an_empty_answer_and_creates_nothing(
    client: Client, tmp_path: Path
) -> None:
    client.initialize()
    error, text = client.call("recall", {"query": "anything"})
    assert not error and json.loads(text)["results"] == []
    assert not (tmp_path / "store" / "store.db").exists()


def test_remember_over_the_wire_is_pending_and_sees_the_session_transcript(
    repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    # The session's transcript where Claude Code keeps it: the evidence is checked there.
    folder = tmp_path / "home" / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(repo))
    folder.mkdir(parents=True)
    line = {"type": "user", "message": {"role": "user", "content":
            "Our staging host is staging.shop.internal, use it for smoke tests."},
            "uuid": "u1", "sessionId": "sess-42", "timestamp": "2026-01-01T00:00:00Z"}
    (folder / "sess-42.jsonl").write_text(json.dumps(line) + "\n")
    # Claude Code names it to the SessionStart hook: the only transcript remember trusts.
    payload = {"session_id": "sess-42", "transcript_path": str(folder / "sess-42.jsonl"),
               "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"}
    subprocess.run([sys.executable, "-m", "reviewer.cli", "hook", "session-start"],
                   input=json.dumps(payload), env=env, cwd=repo, capture_output=True,
                   text=True, timeout=60, check=True)
    client = Client(repo, env)
    try:
        client.initialize()
        error, text = client.call("remember", {
            "fact": "The staging host is staging.shop.internal.", "category": "environment",
            "evidence": "Our staging host is staging.shop.internal",
        })
        assert not error, text
        assert "pending candidate" in text and "NOT approved" in text
        assert "evidence was found" in text
    finally:
        client.close()
    conn = db.connect()
    row = conn.execute("SELECT status, source, grounded, session_id FROM fact").fetchone()
    conn.close()
    assert tuple(row) == ("pending", "agent", 1, "sess-42")


def test_start_to_initialize_is_quick(repo: Path, env: dict[str, str]) -> None:
    started = time.monotonic()
    client = Client(repo, env)
    try:
        client.initialize()
        elapsed = time.monotonic() - started
    finally:
        client.close()
    assert elapsed < 10.0  # generous: a loaded 2-core box; bench/ measures it properly


def test_a_fact_approved_while_the_server_runs_is_recalled(client: Client, repo: Path) -> None:
    client.initialize()
    error, text = client.call("recall", {"query": "deploy window"})
    assert not error and json.loads(text)["results"] == []  # no store yet
    conn = db.connect()
    fid = add(conn, repo, "The deploy window is Tuesday morning", status="pending")
    conn.close()
    error, text = client.call("recall", {"query": "deploy window"})
    assert json.loads(text)["withheld"]["pending"] == 1
    conn = db.connect()  # a person approves it in the TUI meanwhile
    conn.execute("UPDATE fact SET status = 'approved', decided_at = ? WHERE id = ?",
                 (time.time(), fid))
    conn.close()
    error, text = client.call("recall", {"query": "deploy window"})
    assert not error and [r["id"] for r in json.loads(text)["results"]] == [fid]


def test_garbage_on_the_wire_does_not_kill_the_server(client: Client) -> None:
    client.initialize()
    assert client.proc.stdin is not None and client.proc.stdout is not None
    for junk in ("not json at all", '{"jsonrpc": "2.0", "id": 99, "method": 5}', "[]", "{}"):
        client.proc.stdin.write(junk + "\n")
        client.proc.stdin.flush()
    # Whatever the SDK answers to junk (or not), a real request after it is served.
    client.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1000, "method": "tools/list"})
                            + "\n")
    client.proc.stdin.flush()
    for _ in range(10):
        line = client.proc.stdout.readline()
        assert line, "the server died on junk input"
        answer = json.loads(line)
        if answer.get("id") == 1000:
            assert {t["name"] for t in answer["result"]["tools"]} == {"recall", "remember"}
            break
    else:
        raise AssertionError("no answer to tools/list after junk input")
    assert client.proc.poll() is None
