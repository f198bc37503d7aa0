"""The whole loop as a person lives it, with the real Claude Code CLI (offline, against the
fake Messages API) and the real `mem-review` executable:

install the hooks → a session states durable facts → the SessionEnd hook queues it and
starts the detached worker, which redacts and extracts (fake Haiku) into pending facts →
the person approves and rejects in the TUI → the next session is told exactly the
approved facts → the cited file changes → the fact is withheld as stale → uninstall
leaves the settings as they were.

Nothing is called in-process that a person would not run: hooks run because Claude Code
runs them, the worker because the hook starts it. Only the TUI runs in-process (Pilot),
as the terminal stands in for the person.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from claude_cli import transcript_paths
from e2e_helpers import WAIT_SECONDS, GatedAPI, World, git, make_project, request_text
from fakeapi import Facts, FakeMessagesAPI, Text, system_text

pytestmark = pytest.mark.e2e

# A fake GitHub token of the real shape: it must never leave the machine for the extractor
# nor be stored, not even when the model (here: the fake) echoes it back.
SECRET = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
INJECTED_MARK = "SessionStart hook additional context"

DB_PY = (
    '"""The database layer."""\nimport sqlite3\n\n\n'
    "def connect(path):\n    return sqlite3.connect(path)\n"
)
PROJECT_FILES = {"README.md": "# shop\n", "src/db.py": DB_PY, "src/app.py": "print('shop')\n"}

PROMPT_1 = (
    "Remember that we use uv, never pip, to install packages. "
    "The database layer in src/db.py must use WAL mode. "
    "Integration tests need a running Postgres. "
    f"My GitHub token is {SECRET}, keep it out of your notes."
)
UV = {
    "fact": "The project installs packages with uv, never pip.",
    "category": "convention",
    "files": [],
    "confidence": 0.95,
    "evidence": "we use uv, never pip, to install packages",
}
WAL = {
    "fact": "The database layer in src/db.py must use WAL mode.",
    "category": "decision",
    "files": ["src/db.py"],
    "confidence": 0.9,
    "evidence": "The database layer in src/db.py must use WAL mode.",
}
POSTGRES = {
    "fact": "Integration tests need a running Postgres server.",
    "category": "environment",
    "files": [],
    "confidence": 0.8,
    "evidence": "Integration tests need a running Postgres.",
}
FRIDAY = {  # invented by the model: its evidence is in no transcript
    "fact": "Deploys happen on Fridays after the standup.",
    "category": "convention",
    "files": [],
    "confidence": 0.4,
    "evidence": "we always deploy on Fridays after the standup",
}
TOKEN = {  # a model echoing a secret it should never have seen
    "fact": f"The GitHub token for CI is {SECRET}.",
    "category": "environment",
    "files": [],
    "confidence": 0.5,
    "evidence": f"My GitHub token is {SECRET}",
}

PROMPT_2 = (
    "Which journal mode should src/db.py use? Also: the staging host is staging.shop.internal."
)
ANSWER_2 = "The database layer in src/db.py must use WAL mode, per the project facts."
STAGING = {
    "fact": "The staging host is staging.shop.internal.",
    "category": "environment",
    "files": [],
    "confidence": 0.85,
    "evidence": "the staging host is staging.shop.internal",
}
# What a model re-reading the injected memory in session 2 would propose again.
WAL_AGAIN = {**WAL, "evidence": ANSWER_2}

OTHER_SETTINGS = {  # what the person had before installing: must survive untouched
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "true"}]}]},
}
OUR_HOOKS = {
    "SessionStart": "hook session-start",
    "SessionEnd": "hook session-end",
    "PreCompact": "hook pre-compact",
}


def new_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, api: FakeMessagesAPI) -> World:
    root = tmp_path.resolve()
    store_home = root / "store"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(store_home))  # the in-process TUI's store
    monkeypatch.delenv("MEM_REVIEW_NO_SPAWN", raising=False)
    project = make_project(root / "shop", PROJECT_FILES)
    return World(project=project, home=root / "home", store_home=store_home, api=api)


def commands_of(settings: dict[str, Any], event: str) -> list[str]:
    return [
        hook.get("command", "")
        for group in settings.get("hooks", {}).get(event, [])
        for hook in group.get("hooks", [])
    ]


def assert_installed(world: World) -> None:
    """Our three hooks, each naming the installed executable by its absolute path."""
    settings = json.loads(world.settings_path.read_text())
    for event, args in OUR_HOOKS.items():
        ours = [c for c in commands_of(settings, event) if c.endswith(args)]
        assert len(ours) == 1, (event, commands_of(settings, event))
        exe, *rest = shlex.split(ours[0])
        assert Path(exe).is_absolute(), ours[0]
        assert Path(exe).resolve() == world.exe.resolve(), ours[0]
        assert rest == args.split()


def chat_requests(api: FakeMessagesAPI, since: int) -> list[Any]:
    return api.messages("chat")[since:]


def extract_text(api: FakeMessagesAPI, since: int = 0) -> str:
    return "\n".join(request_text(r) for r in api.messages("extract")[since:])


def by_text(facts: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {f["fact"]: f for f in facts}


# --------------------------------------------------------------------------- the TUI


async def _select(pilot: Any, screen: Any, fact_id: int) -> None:
    """Move the cursor with j/k, as a person would, until `fact_id` is selected."""
    facts = screen.facts
    for _ in range(2 * len(facts.rows) + 2):
        selected = facts.selected
        if selected is not None and selected.id == fact_id:
            return
        target = facts.index_of(fact_id)
        assert target is not None, f"fact {fact_id} is not in the list"
        await pilot.press("j" if target > facts.cursor else "k")
    raise AssertionError(f"could not select fact {fact_id}")


async def _review(world: World, project: str, approve: list[int], reject: int) -> str:
    """Approve with `a`, reject with `r` + Enter (the highlighted first reason); returns
    the reason the picker offered first."""
    from reviewer.tui.app import ReviewApp
    from reviewer.tui.triage import REASONS

    app = ReviewApp(project=project, db_path=world.db_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.main
        assert {r.id for r in screen.facts.rows} >= {*approve, reject}
        for fact_id in approve:
            await _select(pilot, screen, fact_id)
            await pilot.press("a")
        await _select(pilot, screen, reject)
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("enter")
        await app.settle()
        await pilot.press("q")
    return REASONS[0][0]


# --------------------------------------------------------------------------- the loop


def test_capture_review_inject_stale_uninstall(
    claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeMessagesAPI() as api:
        world = new_world(tmp_path, monkeypatch, api)
        from reviewer.project import project_root

        project = project_root(world.project)

        # 1. Install into a project that already has settings of its own.
        world.settings_path.parent.mkdir()
        world.settings_path.write_text(json.dumps(OTHER_SETTINGS, indent=2))
        before_bytes = world.settings_path.read_bytes()
        before = json.loads(before_bytes)
        world.cli("install", "--scope", "project")
        assert_installed(world)
        after_install = json.loads(world.settings_path.read_text())
        assert after_install["permissions"] == OTHER_SETTINGS["permissions"]
        assert commands_of(after_install, "Stop") == ["true"]
        world.cli("install", "--scope", "project")  # idempotent
        assert json.loads(world.settings_path.read_text()) == after_install

        # 2. Session 1 states durable facts (and a secret); the hook queues it, the worker
        #    it starts asks the (fake) model, and the candidates land as pending.
        api.script(Facts([UV, WAL, POSTGRES, FRIDAY, TOKEN]), lane="extract")
        world.claude(PROMPT_1)
        (transcript1,) = transcript_paths(world.home, world.project)
        session1 = transcript1.stem
        assert SECRET in transcript1.read_text()  # the worker really had it to redact
        world.wait_for_captures(done=1)

        (chat1,) = chat_requests(api, 0)
        assert PROMPT_1 in request_text(chat1)  # what the person typed reached Claude
        assert INJECTED_MARK not in system_text(chat1)  # nothing approved: nothing injected
        (job1,) = world.jobs()
        assert (job1["session_id"], job1["event"], job1["project"]) == (
            session1,
            "SessionEnd",
            project,
        )
        assert job1["transcript_path"] == str(transcript1)
        assert 0 < job1["end_cursor"] <= transcript1.stat().st_size

        (extract1,) = api.messages("extract")
        sent = request_text(extract1)
        assert "we use uv, never pip, to install packages" in sent
        assert "The database layer in src/db.py must use WAL mode." in sent
        assert "[REDACTED:github-token]" in sent
        assert SECRET not in sent
        assert extract1.headers.get("authorization") == "<present>"  # the SDK, not Claude Code

        pending = by_text(world.facts("pending"))
        token_text = "The GitHub token for CI is [REDACTED:github-token]."
        assert set(pending) == {
            UV["fact"],
            WAL["fact"],
            POSTGRES["fact"],
            FRIDAY["fact"],
            token_text,
        }
        wal = pending[WAL["fact"]]
        head = git(world.project, "rev-parse", "HEAD").strip()
        blob = git(world.project, "hash-object", "src/db.py").strip()
        assert wal["grounded"] is True and wal["stale"] is False
        assert wal["files"] == ["src/db.py"] and wal["missing_files"] == []
        assert wal["anchors"] == {"src/db.py": blob}
        assert (wal["commit_sha"], wal["branch"]) == (head, "main")
        assert wal["session_id"] == session1
        assert "src/db.py must use WAL mode" in wal["context"]
        assert pending[UV["fact"]]["grounded"] is True
        assert pending[FRIDAY["fact"]]["grounded"] is False
        assert SECRET not in pending[token_text]["evidence"]
        assert SECRET not in world.store_files_text()  # database, its WAL, the log

        # 3. The person approves two facts and rejects the invented one, in the TUI.
        ids = {text: f["id"] for text, f in pending.items()}
        reason = asyncio.run(
            _review(
                world,
                project,
                approve=[ids[WAL["fact"]], ids[UV["fact"]]],
                reject=ids[FRIDAY["fact"]],
            )
        )
        rows = {r["id"]: r for r in world.query("SELECT * FROM fact")}
        assert rows[ids[WAL["fact"]]]["status"] == "approved"
        assert rows[ids[UV["fact"]]]["status"] == "approved"
        assert rows[ids[FRIDAY["fact"]]]["status"] == "rejected"
        assert rows[ids[FRIDAY["fact"]]]["reject_reason"] == reason
        assert rows[ids[POSTGRES["fact"]]]["status"] == "pending"
        decisions = world.query(
            "SELECT fact_id, actor, action FROM fact_history WHERE actor = 'tui' ORDER BY id"
        )
        assert [tuple(d) for d in decisions] == [
            (ids[WAL["fact"]], "tui", "approved"),
            (ids[UV["fact"]], "tui", "approved"),
            (ids[FRIDAY["fact"]], "tui", "rejected"),
        ]

        # 4. Session 2 is told the approved facts, and only those. The model's answer
        #    repeats one of them, and the extractor proposes it again.
        inject = world.cli("inject").stdout
        assert WAL["fact"] in inject and UV["fact"] in inject
        for absent in (POSTGRES["fact"], FRIDAY["fact"], token_text):
            assert absent not in inject
        chats = len(api.messages("chat"))
        api.script(Text(ANSWER_2), lane="chat")
        api.script(Facts([WAL_AGAIN, STAGING]), lane="extract")
        world.claude(PROMPT_2)
        (chat2,) = chat_requests(api, chats)
        told = system_text(chat2)
        assert INJECTED_MARK in told
        assert WAL["fact"] in told and UV["fact"] in told
        for absent in (POSTGRES["fact"], FRIDAY["fact"], token_text, "REDACTED"):
            assert absent not in told
        session2 = next(
            p.stem for p in transcript_paths(world.home, world.project) if p.stem != session1
        )
        injected = world.query("SELECT fact_id, session_id FROM injection ORDER BY fact_id")
        assert sorted((r["fact_id"], r["session_id"]) for r in injected) == sorted(
            [(ids[WAL["fact"]], session2), (ids[UV["fact"]], session2)]
        )

        # 6. ...and the injected memory coming back is not a new candidate.
        world.wait_for_captures(done=2)
        sent2 = extract_text(api, since=1)
        assert ANSWER_2 in sent2 and "staging.shop.internal" in sent2
        assert INJECTED_MARK not in sent2
        from reviewer.claude_code.inject import INJECT_HEADER

        assert INJECT_HEADER not in sent2
        facts = world.facts("all")
        wal_rows = [f for f in facts if f["fact"] == WAL["fact"]]
        assert len(wal_rows) == 1, wal_rows
        assert wal_rows[0]["status"] == "approved" and wal_rows[0]["times_seen"] == 2
        new2 = [f for f in facts if f["session_id"] == session2]
        assert [f["fact"] for f in new2] == [STAGING["fact"]]
        assert new2[0]["status"] == "pending"

        # 5. The cited file changes: session 3 is no longer told the fact, `list` says stale.
        (world.project / "src" / "db.py").write_text(DB_PY + "\n# journal_mode = delete\n")
        git(world.project, "commit", "-q", "-am", "change db")
        chats = len(api.messages("chat"))
        world.claude("What is new?")
        (chat3,) = chat_requests(api, chats)
        told = system_text(chat3)
        assert UV["fact"] in told
        assert WAL["fact"] not in told
        stale = world.facts("stale")
        assert [(f["fact"], f["stale"], f["status"]) for f in stale] == [
            (WAL["fact"], True, "approved")
        ]
        inject = world.cli("inject")
        assert UV["fact"] in inject.stdout and WAL["fact"] not in inject.stdout
        assert "1 withheld as stale" in inject.stderr
        world.wait_for_captures(done=3)

        # 7. Uninstall leaves the settings exactly as the person had them.
        world.cli("uninstall", "--scope", "project")
        assert json.loads(world.settings_path.read_text()) == before
        assert world.settings_path.read_bytes() == before_bytes  # even the formatting

        # Nothing secret left the machine for the extractor or was kept, at any point.
        assert SECRET not in extract_text(api)
        assert SECRET not in world.store_files_text()
        assert api.pending() == 0  # every scripted answer was asked for


# --------------------------------------------------------------------------- PreCompact


PROMPT_A = "Remember that we use uv, never pip, to install packages."
PROMPT_B = "Also remember: the API server listens on port 8421."
PORT = {
    "fact": "The API server listens on port 8421.",
    "category": "environment",
    "files": [],
    "confidence": 0.9,
    "evidence": "the API server listens on port 8421",
}
SUMMARY = "<summary>The user explained how packages are installed. COMPACT-MARK-77</summary>"


def test_pre_compact_queues_and_later_capture_reads_only_new_lines(
    claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long session in -p mode is runs resumed with `--resume S`. Workers are held off
    (MEM_REVIEW_NO_SPAWN) until the test says, so the queue can be seen between hooks."""
    with GatedAPI() as api:
        world = new_world(tmp_path, monkeypatch, api)
        assert not world.settings_path.exists()
        world.cli("install", "--scope", "project")
        assert_installed(world)
        session = str(uuid.uuid4())
        no_worker = {"MEM_REVIEW_NO_SPAWN": "1"}

        world.claude(PROMPT_A, session_id=session, env=no_worker)
        (transcript,) = transcript_paths(world.home, world.project)
        assert [(j["event"], j["state"]) for j in world.jobs()] == [("SessionEnd", "queued")]

        # /compact: hold the summary request (PreCompact has fired, this run's SessionEnd
        # has not) and look at the queue: the PreCompact hook queued the session again,
        # into the job already waiting for that transcript (not a second one).
        api.script(Text(SUMMARY), lane="chat")
        api.hold_next("chat")
        result: dict[str, Any] = {}

        def compact() -> None:
            try:
                result["proc"] = world.claude("/compact", resume=session, env=no_worker)
            except BaseException as exc:
                result["error"] = exc

        runner = threading.Thread(target=compact, daemon=True)
        runner.start()
        try:
            assert api.held.wait(WAIT_SECONDS), "Claude Code never asked for a summary"
            jobs = world.jobs()
            assert [
                (j["event"], j["state"], j["session_id"], j["transcript_path"]) for j in jobs
            ] == [("PreCompact", "queued", session, str(transcript))]
        finally:
            api.release()
            runner.join(WAIT_SECONDS)
        assert "error" not in result, result.get("error")
        assert [(j["event"], j["state"]) for j in world.jobs()] == [("SessionEnd", "queued")]

        # The worker (run by hand here) captures everything up to and including the
        # compaction; the summary Claude Code wrote is not conversation: it is sent only
        # inside the lower-trust markers (issue 12), never as what someone said.
        api.script(Facts([UV]), lane="extract")
        world.cli("worker", "--once", ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=api.url)
        world.wait_for_captures(done=1)
        (job1,) = world.jobs()
        first = extract_text(api)
        assert PROMPT_A in first
        from capture.condense import SUMMARY_END, SUMMARY_MARKER

        outside = first
        while SUMMARY_MARKER in outside:
            head, _, rest = outside.partition(SUMMARY_MARKER)
            outside = head + rest.partition(SUMMARY_END)[2]
        assert "COMPACT-MARK-77" not in outside
        assert job1["end_cursor"] == transcript.stat().st_size

        # A later SessionEnd of the same session (its hook starts the worker): only what
        # was added since the cursor is read and sent.
        extracts = len(api.messages("extract"))
        api.script(Facts([PORT]), lane="extract")
        world.claude(PROMPT_B, resume=session)
        world.wait_for_captures(done=2)
        job2 = world.jobs()[1]
        assert (job2["event"], job2["session_id"]) == ("SessionEnd", session)
        assert job2["start_cursor"] == job1["end_cursor"]
        sent = extract_text(api, since=extracts)
        assert PROMPT_B in sent
        assert PROMPT_A not in sent
        assert "COMPACT-MARK-77" not in sent
        assert sorted(f["fact"] for f in world.facts("pending")) == sorted(
            [UV["fact"], PORT["fact"]]
        )

        # Uninstall from a project that had no settings file: install created it, so
        # uninstall removes it (nothing else was added to it meanwhile).
        world.cli("uninstall", "--scope", "project")
        assert not world.settings_path.exists()
        assert api.pending() == 0
