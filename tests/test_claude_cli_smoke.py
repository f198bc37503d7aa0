"""The real Claude Code CLI, offline, against the fake API: the ground the end-to-end test
of mem-review stands on. Pins what 2.1.332 does in ``-p`` mode: which hooks fire with what
payloads, where SessionStart ``additionalContext`` lands in the model request and in the
transcript, and that nothing but the Messages API is called.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from claude_cli import project_dir_name, run_claude, transcript_paths
from fakeapi import FakeMessagesAPI, Text, ToolUse, system_text

pytestmark = pytest.mark.e2e

CONTEXT = "The project's build tool is zorp."
INJECTED = f"SessionStart hook additional context: {CONTEXT}"

# The hook: `python record_hook.py EVENT LOG`. Appends what it received to LOG; as
# SessionStart, answers with additionalContext (CONTEXT comes in through the environment).
RECORDER = """
import json, os, sys
event, log = sys.argv[1], sys.argv[2]
payload = json.loads(sys.stdin.read())
env = {k: os.environ.get(k) for k in ("CLAUDE_PROJECT_DIR", "CLAUDECODE")}
with open(log, "a") as f:
    f.write(json.dumps({"event": event, "payload": payload, "env": env, "cwd": os.getcwd()}))
    f.write("\\n")
if event == "SessionStart":
    out = {"hookEventName": "SessionStart", "additionalContext": os.environ["SMOKE_CONTEXT"]}
    print(json.dumps({"hookSpecificOutput": out}))
"""


class Scratch:
    """A scratch project with recording hooks, a scratch HOME, and the hook log."""

    def __init__(self, root: Path) -> None:
        root = root.resolve()
        self.project = root / "proj"
        self.home = root / "home"
        self.log = root / "hooks.jsonl"
        script = root / "record_hook.py"
        script.write_text(RECORDER)
        (self.project / ".claude").mkdir(parents=True)
        self.home.mkdir()
        python, args = shlex.quote(sys.executable), shlex.join([str(script)])
        log = shlex.quote(str(self.log))
        hooks = {
            event: [
                {
                    "matcher": "",
                    "hooks": [
                        {
                            "type": "command",
                            "timeout": 10,
                            "command": f"{python} {args} {event} {log}",
                        }
                    ],
                }
            ]
            for event in ("SessionStart", "SessionEnd", "PreCompact")
        }
        settings = self.project / ".claude" / "settings.json"
        settings.write_text(json.dumps({"hooks": hooks}, indent=2))
        self.env = {"SMOKE_CONTEXT": CONTEXT}

    def hook_calls(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


@pytest.fixture
def scratch(tmp_path: Path) -> Scratch:
    return Scratch(tmp_path)


def records(path: Path) -> list[dict[str, Any]]:
    """Every line of a transcript must be JSON (the run has ended: no cut-off last line)."""
    lines = [line for line in path.read_text().split("\n") if line.strip()]
    return [json.loads(line) for line in lines]


def test_print_mode_hooks_transcript_and_injected_context(claude: Path, scratch: Scratch) -> None:
    with FakeMessagesAPI() as api:
        start = time.monotonic()
        proc = run_claude(
            "hello", project=scratch.project, home=scratch.home, api=api, env=scratch.env
        )
        elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "OK"
    assert elapsed < 30

    calls = scratch.hook_calls()
    # -p fires SessionStart and SessionEnd (reason "other"); PreCompact only on compaction.
    assert [c["event"] for c in calls] == ["SessionStart", "SessionEnd"]
    start_payload, end_payload = (c["payload"] for c in calls)
    session_id = start_payload["session_id"]
    uuid.UUID(session_id)
    (transcript,) = transcript_paths(scratch.home, scratch.project)
    assert (
        transcript
        == scratch.home
        / ".claude"
        / "projects"
        / project_dir_name(scratch.project)
        / f"{session_id}.jsonl"
    )
    assert start_payload == {
        "session_id": session_id,
        "transcript_path": str(transcript),
        "cwd": str(scratch.project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    assert end_payload["hook_event_name"] == "SessionEnd"
    assert end_payload["reason"] == "other"
    assert end_payload["session_id"] == session_id
    assert end_payload["transcript_path"] == str(transcript)
    assert end_payload["cwd"] == str(scratch.project)
    for call in calls:
        assert call["cwd"] == str(scratch.project)
        assert call["env"] == {"CLAUDE_PROJECT_DIR": str(scratch.project), "CLAUDECODE": "1"}

    # The only traffic is one streaming Messages call; the context arrives as a
    # role "system" *message*, not in the top-level system prompt.
    assert [(r.method, r.path) for r in api.requests] == [("POST", "/v1/messages")]
    (req,) = api.messages()
    assert req.lane == "chat" and req.stream and req.query == {"beta": ["true"]}
    assert req.headers["x-api-key"] == "<present>"
    assert req.headers["x-claude-code-session-id"] == session_id
    assert INJECTED in system_text(req)
    system_msgs = [m for m in req.body["messages"] if m["role"] == "system"]
    assert system_msgs[0]["content"][0]["text"].startswith(INJECTED)
    assert CONTEXT not in json.dumps(req.body["system"])

    recs = records(transcript)
    users = [r for r in recs if r["type"] == "user"]
    assert users[0]["message"]["content"] == "hello"
    assistants = [r for r in recs if r["type"] == "assistant"]
    assert assistants[-1]["message"]["content"] == [{"type": "text", "text": "OK"}]
    kinds = [r["attachment"]["type"] for r in recs if r["type"] == "attachment"]
    assert "hook_success" in kinds and "hook_additional_context" in kinds
    (ctx,) = [
        r["attachment"]
        for r in recs
        if r["type"] == "attachment" and r["attachment"]["type"] == "hook_additional_context"
    ]
    assert ctx["content"] == [CONTEXT] and ctx["hookEvent"] == "SessionStart"
    # The context is never part of a user/assistant record's own text.
    assert not any(CONTEXT in json.dumps(r["message"]) for r in users + assistants)


def test_resume_and_compact(claude: Path, scratch: Scratch) -> None:
    """--session-id, --resume and /compact in -p mode: SessionStart sources, PreCompact."""
    session = str(uuid.uuid4())
    with FakeMessagesAPI(chat=[Text("first"), Text("second")]) as api:
        common = {"project": scratch.project, "home": scratch.home, "api": api, "env": scratch.env}
        assert run_claude("one", session_id=session, **common).returncode == 0
        resumed = run_claude("two", resume=session, **common)
        assert resumed.returncode == 0 and resumed.stdout.strip() == "second"
        compacted = run_claude("/compact", resume=session, **common)
        assert compacted.returncode == 0, compacted.stderr

    events = [
        (
            c["event"],
            c["payload"].get("source") or c["payload"].get("reason") or c["payload"].get("trigger"),
        )
        for c in scratch.hook_calls()
    ]
    assert events == [
        ("SessionStart", "startup"),
        ("SessionEnd", "other"),
        ("SessionStart", "resume"),
        ("SessionEnd", "other"),
        ("SessionStart", "resume"),
        ("PreCompact", "manual"),
        ("SessionStart", "compact"),
        ("SessionEnd", "other"),
    ]
    assert {c["payload"]["session_id"] for c in scratch.hook_calls()} == {session}
    (transcript,) = transcript_paths(scratch.home)
    assert transcript.name == f"{session}.jsonl"
    recs = records(transcript)
    assert any(r.get("subtype") == "compact_boundary" for r in recs)
    assert any(r.get("isCompactSummary") for r in recs)
    # The resumed request carries the whole history; identical context is not repeated.
    resumed_req = api.messages()[1]
    assert [m["role"] for m in resumed_req.body["messages"]] == [
        "user",
        "system",
        "assistant",
        "user",
    ]
    assert system_text(resumed_req).count(CONTEXT) == 1


def test_scripted_tool_call_runs_in_the_project(claude: Path, scratch: Scratch) -> None:
    """The fake can drive Claude Code's tools, for transcripts with tool calls in them."""
    bash = ToolUse("Bash", {"command": "echo zorp > built.txt", "description": "build"})
    with FakeMessagesAPI(chat=[bash, Text("Built.")]) as api:
        proc = run_claude(
            "build it",
            project=scratch.project,
            home=scratch.home,
            api=api,
            env=scratch.env,
            extra_args=("--allowedTools", "Bash"),
        )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Built."
    assert (scratch.project / "built.txt").read_text() == "zorp\n"
    second = api.messages()[1].body["messages"][-1]["content"]
    assert next(b["type"] for b in second if isinstance(b, dict)) == "tool_result"
    (transcript,) = transcript_paths(scratch.home)
    blocks = [
        b
        for r in records(transcript)
        if r["type"] in ("user", "assistant") and isinstance(r["message"]["content"], list)
        for b in r["message"]["content"]
    ]
    assert any(b["type"] == "tool_use" and b["name"] == "Bash" for b in blocks)
    assert any(b["type"] == "tool_result" and not b.get("is_error") for b in blocks)
