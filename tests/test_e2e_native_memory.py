"""Claude Code's own memory goes through the gate, end to end with the real CLI.

Before install the project's auto-memory folder holds a MEMORY.md and a topic file (one
line with a secret, one with a hidden character). `install` imports each statement as
pending and turns auto memory off: the model's request carries neither note. One note,
approved the way the review screen approves (Store.approve, actor "tui"), reaches the
next session through SessionStart. A note Claude Code (or a sync) writes afterwards is
pending after the next session, once, and never reaches the model. `uninstall` puts the
user and local settings files back byte for byte, and the notes are still on disk.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from e2e_helpers import World, make_project, request_text
from fakeapi import FakeMessagesAPI

from reviewer.store.facts import Store

pytestmark = pytest.mark.e2e

SECRET = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
NOTE_A = "The staging deploy of shop runs deploy.sh with blue-green switching."
NOTE_B = "Integration tests of shop need the local redis on port 6390."
NOTE_C = "The nightly job of shop rotates the cache keys at 03:00."
MEMORY_MD = (
    "# Memory\n\n"
    f"- {NOTE_A}\n"
    "- [Testing](testing.md): how the tests run\n"
    f"- The CI token is {SECRET} for the shop pipeline.\n"
)
ZWSP = "\u200b"  # invisible: must not reach the store
TOPIC_MD = (
    "---\nname: testing\ndescription: how the tests run\ntype: project\n---\n\n"
    + NOTE_B.replace("redis", "re" + ZWSP + "dis") + "\n"
)
# A person's own files, in their own formatting: restored to the byte.
USER_SETTINGS = b'{\n    "theme": "dark",\n    "permissions": {"allow": ["Bash(ls:*)"]}\n}\n'
LOCAL_SETTINGS = b'{"env": {"SHOP": "1"},\n "includeCoAuthoredBy": false}\n'


def memory_folder(home: Path, project: Path) -> Path:
    return home / ".claude" / "projects" / re.sub(r"[^a-zA-Z0-9]", "-", str(project)) / "memory"


def test_native_memory_passes_the_gate(
    claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path.resolve()
    store_home = root / "store"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(store_home))
    monkeypatch.delenv("MEM_REVIEW_NO_SPAWN", raising=False)
    project = make_project(root / "shop", {"README.md": "# shop\n", "deploy.sh": "echo\n"})
    home = root / "home"
    folder = memory_folder(home, project)
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(MEMORY_MD)
    (folder / "testing.md").write_text(TOPIC_MD)
    (home / ".claude" / "settings.json").write_bytes(USER_SETTINGS)
    local = project / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_bytes(LOCAL_SETTINGS)

    with FakeMessagesAPI() as api:
        world = World(project=project, home=home, store_home=store_home, api=api)
        out = world.cli("install").stdout
        assert "imported 3 statement(s) from 2 Claude Code memory note(s)" in out, out
        pending = {f["fact"]: f for f in world.facts("pending")}
        assert NOTE_A in pending and NOTE_B in pending, pending  # hidden char stripped
        assert all(f["source"] == "claude-code memory" for f in pending.values())
        assert pending[NOTE_A]["evidence"].endswith(f"MEMORY.md:3: {NOTE_A}")
        assert pending[NOTE_A]["files"] == ["deploy.sh"]  # cited: goes stale with it
        assert pending[NOTE_B]["evidence"].split(": ")[0].endswith("testing.md:7")
        assert SECRET not in world.store_files_text()

        doctor = world.cli("doctor", check=False).stdout
        assert re.search(r"✓ memory door: Claude Code auto memory: off .*settings\.local\.json",
                         doctor), doctor

        world.claude("hello")  # session 1: neither note reaches the model
        first = request_text(api.messages("chat")[0])
        assert NOTE_A not in first and "blue-green" not in first
        assert "6390" not in first and "MEMORY.md" not in first

        store = Store(world.db_path)
        try:
            store.approve([pending[NOTE_A]["id"]], actor="tui")  # the review screen's door
        finally:
            store.close()
        world.wait_for_captures(done=1)

        seen = len(api.messages("chat"))
        world.claude("hello again")  # session 2: the approved note comes through the gate
        second = request_text(api.messages("chat")[seen])
        assert NOTE_A in second and "6390" not in second
        world.wait_for_captures(done=2)

        with (folder / "MEMORY.md").open("a") as fh:  # Claude Code, a sync or an extractor
            fh.write(f"- {NOTE_C}\n")
        seen = len(api.messages("chat"))
        world.claude("third")  # session 3: the new note is not read, but swept
        assert "rotates the cache keys" not in request_text(api.messages("chat")[seen])
        world.wait_for_captures(done=3)
        now_pending = [f["fact"] for f in world.facts("pending")]
        assert now_pending.count(NOTE_C) == 1, now_pending

        seen = len(api.messages("chat"))
        world.claude("fourth")  # session 4: still pending, still absent, not imported twice
        assert "rotates the cache keys" not in request_text(api.messages("chat")[seen])
        world.wait_for_captures(done=4)
        assert [f["fact"] for f in world.facts("all")].count(NOTE_C) == 1

        world.cli("uninstall")
    assert (home / ".claude" / "settings.json").read_bytes() == USER_SETTINGS
    assert local.read_bytes() == LOCAL_SETTINGS
    assert (folder / "MEMORY.md").read_text().startswith(MEMORY_MD)  # nothing deleted
    assert (folder / "testing.md").read_text() == TOPIC_MD


def test_guard_denies_writes_into_memory_and_keep_leaves_the_door_open(
    claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fakeapi import Text, ToolUse

    root = tmp_path.resolve()
    store_home = root / "store"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(store_home))
    project = make_project(root / "shop", {"README.md": "# shop\n"})
    home = root / "home"
    folder = memory_folder(home, project)
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(f"- {NOTE_A}\n")
    tries = [
        ToolUse("Write", {"file_path": str(folder / "MEMORY.md"), "content": "- planted\n"}),
        ToolUse("Edit", {"file_path": str(folder / "MEMORY.md"), "old_string": "blue-green",
                         "new_string": "planted"}),
        Text("Done."),
    ]
    with FakeMessagesAPI(chat=tries) as api:
        world = World(project=project, home=home, store_home=store_home, api=api)
        out = world.cli("install", "--guard").stdout
        assert f"permissions.deny: Edit(/{folder}/**)" in out, out
        world.claude("note this", extra_args=("--allowedTools", "Write,Edit"))
        results = [
            json.dumps(b.get("content"))
            for r in api.messages("chat")[1:] for m in r.body["messages"]
            if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"
        ]
        # Claude Code's own deny rule answers first (our PreToolUse guard, whose message
        # points at `remember`, is behind it for what a rule does not match).
        assert len(results) >= 2 and all("denied by your permission settings" in r
                                          for r in results), results
        assert (folder / "MEMORY.md").read_text() == f"- {NOTE_A}\n"
        world.cli("uninstall")

        out = world.cli("install", "--keep-auto-memory").stdout
        assert "--keep-auto-memory" in out
        doctor = world.cli("doctor", check=False)
        assert doctor.returncode == 1
        line = next(x for x in doctor.stdout.splitlines() if "auto memory" in x)
        assert line.startswith("✗ memory door: Claude Code auto memory: ON (on by default")
        assert line.endswith("run `mem-review install`")
        seen = len(api.messages("chat"))
        world.claude("hello")
        assert NOTE_A in request_text(api.messages("chat")[seen])  # what doctor said: open
