"""A subscription user's loop, end to end: no ANTHROPIC_API_KEY anywhere, the real Claude
Code CLI both as the session and as the extractor.

A session ends → our SessionEnd hook queues it and starts the worker → `extractor = "auto"`
finds no key but finds `claude` on PATH → the worker runs `claude -p --json-schema ...`
(signed in here with ANTHROPIC_AUTH_TOKEN against the fake API) → the fake model answers
through the CLI's StructuredOutput tool → pending facts, with the CLI's cost recorded.
The extraction run itself must capture nothing: our hooks (installed for every project)
are disabled for it and it writes no transcript, so no second job appears.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from claude_cli import claude_env, transcript_paths
from e2e_helpers import World, make_project, request_text
from fakeapi import Facts, FakeMessagesAPI, ToolUse, system_text

from capture.extractors.base import cost_usd
from capture.extractors.claude_code import STRUCTURED_TOOL
from capture.extractors.prompt import SYSTEM_PROMPT, TOOL_NAME

pytestmark = pytest.mark.e2e

PROMPT = (
    "Remember that we use uv, never pip, to install packages. "
    "The database layer in src/db.py must use WAL mode."
)
UV = {
    "fact": "The project installs packages with uv, never pip.",
    "category": "convention",
    "files": [],
    "confidence": 0.95,
    "evidence": "we use uv, never pip, to install packages",
    "source": "user",
    "supersedes": None,
}
WAL = {
    "fact": "The database layer in src/db.py must use WAL mode.",
    "category": "decision",
    "files": ["src/db.py"],
    "confidence": 0.9,
    "evidence": "The database layer in src/db.py must use WAL mode.",
    "source": "user",
    "supersedes": None,
}


def add_recorder(home: Path, log: Path) -> None:
    """A second user-level hook beside ours: every hook run, of any session, leaves a line."""
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    record = f"cat >> {shlex.quote(str(log))}; echo >> {shlex.quote(str(log))}"
    for event in ("SessionStart", "SessionEnd", "PreCompact"):
        data["hooks"].setdefault(event, []).append(
            {"matcher": "", "hooks": [{"type": "command", "command": record, "timeout": 10}]}
        )
    settings.write_text(json.dumps(data, indent=2))


def hook_runs(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def test_worker_extracts_through_the_real_claude_code_without_a_key(
    claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path.resolve()
    home = root / "home"
    # The store where mem-review keeps it by default for this HOME: a hook run by the
    # extraction's own CLI (which gets none of our MEM_REVIEW_* variables) would land here.
    store_home = home / ".local" / "share" / "mem-review"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(store_home))
    files = {"README.md": "# shop\n", "src/db.py": "import sqlite3\n"}
    project = make_project(root / "shop", files)
    log = root / "hook-runs.jsonl"

    with FakeMessagesAPI(extract=[Facts([UV, WAL])]) as api:
        world = World(project=project, home=home, store_home=store_home, api=api)
        home.mkdir()
        world.cli("install", "--scope", "user")
        add_recorder(home, log)

        # The session: signed in with a token, no API key; `claude` on PATH, as for a user.
        env = claude_env(home=home, api_url=api.url)
        env.pop("ANTHROPIC_API_KEY")
        env["ANTHROPIC_AUTH_TOKEN"] = "sk-ant-oat01-test-subscription-token"
        env["MEM_REVIEW_HOME"] = str(store_home)
        env["PATH"] = os.pathsep.join([str(claude.parent), str(world.exe.parent), env["PATH"]])
        session = subprocess.run(
            [str(claude), "-p", PROMPT], cwd=project, env=env, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=120, check=False,
        )
        assert session.returncode == 0, session.stderr
        status = world.wait_for_captures(done=1)

        # auto chooses Claude Code with that PATH, and `status` says why.
        assert status["spend"]["extractor_setting"] == "auto"
        spend = json.loads(world.cli("status", "--json", PATH=env["PATH"]).stdout)["spend"]
        assert spend["extractor"] == "claude-code", spend
        assert spend["extractor_reason"] == (
            f"auto: no ANTHROPIC_API_KEY; Claude Code at {claude.parent / 'claude'} (PATH)"
        )

        # Exactly one extraction request, from the CLI, carrying our prompt and the session.
        (req,) = api.messages("extract")
        assert SYSTEM_PROMPT.replace(TOOL_NAME, STRUCTURED_TOOL) in system_text(req)
        assert PROMPT in request_text(req)
        assert [t["name"] for t in req.body["tools"]] == [STRUCTURED_TOOL]  # --tools ""
        assert req.body["model"] == "claude-haiku-4-5"
        assert req.headers.get("authorization") == "<present>"  # the token, not a key
        assert "x-api-key" not in req.headers
        assert req.headers.get("user-agent", "").startswith("claude-cli/")

        # The candidates are pending, grounded in the session, for a person to review.
        pending = {f["fact"]: f for f in world.facts("pending")}
        assert set(pending) == {UV["fact"], WAL["fact"]}
        assert all(f["grounded"] for f in pending.values())
        assert {f["evidence_source"] for f in pending.values()} == {"user"}  # as the model said
        assert pending[WAL["fact"]]["files"] == ["src/db.py"]

        # The cost is the CLI's total_cost_usd (list price of what the fake reported), and
        # counts toward today's spend like the API's.
        (job,) = world.jobs()
        assert job["state"] == "done" and job["model"] == "claude-haiku-4-5"
        assert job["input_tokens"] > 0 and job["output_tokens"] > 0
        assert job["cost_usd"] == pytest.approx(
            cost_usd("claude-haiku-4-5", job["input_tokens"], job["output_tokens"])
        )
        assert world.cli_json("status")["spend"]["today"]["cost_usd"] == pytest.approx(
            job["cost_usd"], abs=1e-6
        )

        # The extraction captured nothing of itself: the hooks ran for the session only,
        # no second job, and no transcript beyond the session's own.
        runs = hook_runs(log)
        assert [r["hook_event_name"] for r in runs] == ["SessionStart", "SessionEnd"]
        assert {r["session_id"] for r in runs} == {job["session_id"]}
        (transcript,) = transcript_paths(home)
        assert transcript.stem == job["session_id"]
        assert api.pending() == 0


def test_a_signed_out_claude_code_keeps_the_job_until_the_user_signs_in(
    claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No key and no sign-in: the job waits (uncounted, with the reason in `status`); the
    real CLI's `auth status` is what says so, and the model is never asked. Once the user
    is signed in, the next worker extracts it."""
    root = tmp_path.resolve()
    home = root / "home"
    store_home = root / "store"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(store_home))
    project = make_project(root / "shop", {"README.md": "# shop\n"})
    with FakeMessagesAPI(extract=[Facts([UV])]) as api:
        world = World(project=project, home=home, store_home=store_home, api=api)
        home.mkdir()
        world.cli("install", "--scope", "project")
        world.claude(PROMPT, env={"MEM_REVIEW_NO_SPAWN": "1"})  # queued, no worker yet
        assert [j["state"] for j in world.jobs()] == ["queued"]

        path = os.pathsep.join([str(claude.parent), os.environ.get("PATH", "")])
        offline = {"PATH": path, "DISABLE_TELEMETRY": "1",
                   "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "TMPDIR": str(home / "tmp")}
        world.cli("worker", "--once", **offline)  # World.env carries no ANTHROPIC_* at all
        (job,) = world.jobs()
        assert (job["state"], job["attempts"]) == ("queued", 0)
        assert job["last_error"].startswith("Claude Code is not signed in")
        assert api.messages("extract") == []
        waiting = json.loads(world.cli("status", "--json", PATH=path).stdout)["waiting"]
        assert [w["error"] for w in waiting] == [job["last_error"]]

        signed_in = dict(offline, ANTHROPIC_AUTH_TOKEN="sk-ant-oat01-test",
                         ANTHROPIC_BASE_URL=api.url)
        world.cli("worker", "--once", **signed_in)
        (job,) = world.jobs()
        assert job["state"] == "done", job["last_error"]
        assert [f["fact"] for f in world.facts("pending")] == [UV["fact"]]
        assert len(api.messages("extract")) == 1


def test_the_verifiers_suspicions_are_judged_through_the_same_cli(
    claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A candidate the model says the assistant stated, quoting the person: the verifier
    suspects the speaker (a hint, never 'ungrounded'), and one more run of the real CLI,
    with the judgment's schema, settles it; its cost joins the job's."""
    root = tmp_path.resolve()
    home = root / "home"
    store_home = root / "store"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(store_home))
    project = make_project(root / "shop", {"README.md": "# shop\n"})
    said_by_assistant = dict(UV, source="assistant")
    verdict = {"judgments": [{"id": 0, "supported": False, "reason": "the person said it"}]}
    with FakeMessagesAPI(extract=[Facts([said_by_assistant])],
                         judge=[ToolUse(STRUCTURED_TOOL, verdict)]) as api:
        world = World(project=project, home=home, store_home=store_home, api=api)
        home.mkdir()
        world.cli("install", "--scope", "project")
        world.claude(PROMPT, env={"MEM_REVIEW_NO_SPAWN": "1"})
        path = os.pathsep.join([str(claude.parent), os.environ.get("PATH", "")])
        env = {"PATH": path, "DISABLE_TELEMETRY": "1", "ANTHROPIC_BASE_URL": api.url,
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "TMPDIR": str(home / "tmp"),
               "ANTHROPIC_AUTH_TOKEN": "sk-ant-oat01-test"}
        world.cli("worker", "--once", **env)
        (job,) = world.jobs()
        assert job["state"] == "done", job["last_error"]
        (fact,) = world.facts("pending")
        assert fact["fact"] == UV["fact"] and fact["check"] is None  # grounded
        assert fact["hint"] == (
            "speaker: the quote is the user's, not the assistant's · the model agrees: "
            "the person said it")
        (judged,) = api.messages("judge")
        assert [t["name"] for t in judged.body["tools"]] == [STRUCTURED_TOOL]
        assert "<candidate id=0>" in request_text(judged)
        assert api.pending() == 0
