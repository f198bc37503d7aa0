"""End to end with the real Claude Code CLI: recall and remember over MCP.

The project is installed with `mem-review install` (hooks, `.mcp.json`, the tools
allowed); Claude Code starts `mem-review mcp` itself. The fake model selects the deferred
tool with ToolSearch and calls it, as a current model must (GUIDE §6a); what the tool
answered is read where the model would read it: the `tool_result` in the next request.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import World, git, make_project
from fakeapi import FakeMessagesAPI, Text, deferred_tool, system_text

from reviewer.freshness import anchors
from reviewer.store import db

pytestmark = pytest.mark.e2e

RECALL = "mcp__mem-review__recall"
REMEMBER = "mcp__mem-review__remember"
FILES = {"README.md": "# shop\n", "src/billing.py": "RATE = 1\n", "src/db.py": "WAL = True\n"}
APPROVED = "Billing invoices are generated nightly by the billing cron job."
PENDING = "Billing invoices are emailed by the billing mailer service."
STALE = "Billing rates are hard-coded in src/db.py."
PROPOSED = "The billing cron job runs at 02:00 UTC."
PROMPT = "When are billing invoices made? Note: the billing cron job runs at 02:00 UTC."


def seed(project: Path, text: str, status: str, files: tuple[str, ...] = ()) -> int:
    """A fact as the store holds it after capture (and, for approved, a person's key)."""
    commit, branch, anchor_map = anchors.anchor_files(project, list(files))
    now = time.time()
    conn = db.connect()
    try:
        cur = conn.execute(
            "INSERT INTO fact (project, text, norm, category, files, confidence, status, "
            "commit_sha, branch, anchors, created_at, updated_at, decided_at) "
            "VALUES (?, ?, ?, 'decision', ?, 0.9, ?, ?, ?, ?, ?, ?, ?)",
            (str(project), text, text.lower(), json.dumps(list(files)), status, commit, branch,
             json.dumps(anchor_map, sort_keys=True), now, now,
             None if status == "pending" else now),
        )
        return int(cur.lastrowid or 0)
    finally:
        conn.close()


def tool_results(request: Any) -> dict[str, tuple[bool, str]]:
    """tool_use_id -> (is_error, text) of every tool_result block in a request."""
    out: dict[str, tuple[bool, str]] = {}
    for message in request.body.get("messages", []):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content")
                text = inner if isinstance(inner, str) else "".join(
                    b.get("text", "") for b in inner or [] if isinstance(b, dict))
                out[block["tool_use_id"]] = (bool(block.get("is_error")), text)
    return out


def tool_uses(request: Any) -> dict[str, str]:
    """tool_use id -> tool name of every assistant tool_use in a request's history."""
    out: dict[str, str] = {}
    for message in request.body.get("messages", []):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                out[block["id"]] = block["name"]
    return out


def result_of(api: FakeMessagesAPI, tool: str) -> tuple[bool, str]:
    """What `tool` answered, as the first request that carried its result shows it."""
    for request in api.messages("chat"):
        uses = tool_uses(request)
        for use_id, (error, text) in tool_results(request).items():
            if uses.get(use_id) == tool:
                return error, text
    raise AssertionError(f"no tool_result for {tool} reached the model")


async def pending_in_tui(world: World, fact_id: int) -> str:
    from reviewer.tui.app import ReviewApp

    app = ReviewApp(project=str(world.project), db_path=world.db_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        rows = {r.id: r for r in app.main.facts.rows}
        assert fact_id in rows, f"fact {fact_id} is not in the TUI's list"
        await pilot.press("q")
    return str(rows[fact_id].status)


def test_recall_answers_the_approved_fact_and_remember_leaves_it_pending(
    claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path.resolve()
    store_home = root / "store"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(store_home))
    project = make_project(root / "shop", FILES)
    with FakeMessagesAPI() as api:
        world = World(project=project, home=root / "home", store_home=store_home, api=api)
        world.cli("install", "--scope", "project")
        assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["mem-review"][
            "args"] == ["mcp"]

        approved = seed(project, APPROVED, "approved", ("src/billing.py",))
        seed(project, PENDING, "pending")
        stale = seed(project, STALE, "approved", ("src/db.py",))
        (project / "src/db.py").write_text("WAL = False  # changed after approval\n")
        git(project, "commit", "-qam", "db changed")

        api.script(
            *deferred_tool(RECALL, {"query": "billing invoices", "files": ["src/"]}),
            *deferred_tool(REMEMBER, {
                "fact": PROPOSED, "category": "environment", "files": ["src/billing.py"],
                "evidence": "the billing cron job runs at 02:00 UTC",
            }),
            Text("Invoices are generated nightly."),
            lane="chat",
        )
        proc = world.claude(PROMPT, env={"MEM_REVIEW_NO_SPAWN": "1"})
        assert proc.stdout.strip() == "Invoices are generated nightly.", proc.stderr
        assert api.pending() == 0

        # The summary at SessionStart points at the tool (the server is installed here).
        first = api.messages("chat")[0]
        assert f"the tool {RECALL} searches" in system_text(first)
        assert RECALL in json.dumps(first.body)  # the deferred tool is listed by name

        # What recall answered, as the model read it.
        error, text = result_of(api, RECALL)
        assert not error, text
        answer = json.loads(text)
        assert [r["id"] for r in answer["results"]] == [approved]
        assert answer["results"][0]["text"] == APPROVED
        assert answer["results"][0]["staleness"] == "fresh"
        assert PENDING not in text and STALE not in text and str(stale) not in [
            str(r["id"]) for r in answer["results"]]
        assert answer["withheld"] == {"stale": 1, "pending": 1}

        # What remember answered, and what it left: a pending, agent-proposed, grounded row.
        error, text = result_of(api, REMEMBER)
        assert not error and "pending candidate" in text and "NOT approved" in text, text
        [row] = world.query("SELECT id, status, source, grounded, session_id FROM fact "
                            "WHERE text = ?", (PROPOSED,))
        assert (row["status"], row["source"], row["grounded"]) == ("pending", "agent", 1)
        assert row["session_id"]  # the session's transcript was found and checked

        # The person sees it in the TUI, still pending...
        assert asyncio.run(pending_in_tui(world, row["id"])) == "pending"

        # ...and the next session is not told it.
        api.script(Text("OK"), lane="chat")
        world.claude("hello again", env={"MEM_REVIEW_NO_SPAWN": "1"})
        second = system_text(api.messages("chat")[-1])
        assert APPROVED in second
        assert PROPOSED not in second and PENDING not in second

        world.cli("uninstall", "--scope", "project")
        assert not (project / ".mcp.json").exists()


@pytest.mark.parametrize("scope", ["local", "user"])
def test_local_and_user_installs_reach_the_real_client(
    claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scope: str
) -> None:
    root = tmp_path.resolve()
    store_home = root / "store"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(store_home))
    project = make_project(root / "shop", FILES)
    with FakeMessagesAPI() as api:
        world = World(project=project, home=root / "home", store_home=store_home, api=api)
        world.home.mkdir(parents=True, exist_ok=True)
        world.cli("install", "--scope", scope)
        assert not (project / ".mcp.json").exists()  # ~/.claude.json holds it
        approved = seed(project, APPROVED, "approved", ("src/billing.py",))
        api.script(*deferred_tool(RECALL, {"query": "billing invoices"}), Text("Nightly."),
                   lane="chat")
        world.claude(PROMPT, env={"MEM_REVIEW_NO_SPAWN": "1"})
        assert api.pending() == 0
        error, text = result_of(api, RECALL)
        assert not error, text
        assert [r["id"] for r in json.loads(text)["results"]] == [approved]
        world.cli("uninstall", "--scope", scope)
        state = json.loads((world.home / ".claude.json").read_text())
        assert "mem-review" not in json.dumps(state.get("mcpServers", {}))
        assert "mem-review" not in json.dumps(state.get("projects", {}).get(str(project), {}))
