"""Claude Code's own memory: reading its notes, sweeping them once, the switch install
writes and uninstall takes back, the doors doctor shows, and the guard's answer."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from capture.native_import import sweep, sweep_changed
from reviewer.claude_code import doors, guard, memory_switch, native_memory, settings_file
from reviewer.commands import doctor
from reviewer.store import db
from reviewer.store.facts import Store


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: Path) -> dict[str, Path]:
    user = tmp_path / "userhome"
    user.mkdir()
    monkeypatch.setenv("HOME", str(user))
    for var in ("CLAUDE_CONFIG_DIR", native_memory.DISABLE_ENV, "CLAUDE_CODE_SIMPLE",
                native_memory.OVERRIDE_ENV):
        monkeypatch.delenv(var, raising=False)
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / "deploy.sh").write_text("echo\n")
    folder = native_memory.state(str(project)).folder
    folder.mkdir(parents=True)
    return {"project": project, "folder": folder, "user": user}


def test_statements_skip_headings_frontmatter_and_index_lines() -> None:
    text = ("---\nname: t\ntype: feedback\n---\n# Title\n\n- [Topic](topic.md): why\n"
            "- Tests need redis on port 6390.\n- tests need REDIS on port 6390.\n"
            "```\ncode line here\n```\nA paragraph line about the deploy.\n")
    found = native_memory.statements(text)
    assert [(n, s) for n, s, _ in found] == [
        (8, "Tests need redis on port 6390."), (13, "A paragraph line about the deploy.")]
    assert found[0][2]["type"] == "feedback"


def test_sweep_imports_once_and_a_rejected_note_stays_rejected(world: dict[str, Path]) -> None:
    project, folder = str(world["project"]), world["folder"]
    (folder / "MEMORY.md").write_text("- The deploy runs `deploy.sh` at night.\n")
    store = Store()
    try:
        first = sweep(store, project, folder)
        assert (first.notes, first.added) == (1, 1)
        (fact,) = store.facts(project)
        assert fact.source == "claude-code memory" and json.loads(fact.files) == ["deploy.sh"]
        assert json.loads(fact.anchors)["deploy.sh"]  # anchored: staleness applies
        store.reject([fact.id], "wrong", actor="tui")
        assert sweep(store, project, folder).unchanged  # nothing changed: no reading
        with (folder / "MEMORY.md").open("a") as fh:
            fh.write("- Cache keys rotate at 03:00.\n")
        again = sweep_changed(store)
        assert [s.added for s in again] == [1]
        assert sorted(f.status for f in store.facts(project)) == ["pending", "rejected"]
        assert sweep(store, project, folder, force=True).added == 0  # once, by content hash
    finally:
        store.close()


def test_an_approved_note_is_recalled_and_goes_stale_with_its_file(
    world: dict[str, Path],
) -> None:
    from reviewer.claude_code.recall import recall
    from reviewer.freshness.staleness import verdicts

    project, folder = str(world["project"]), world["folder"]
    (folder / "MEMORY.md").write_text("- The deploy runs deploy.sh with blue-green.\n"
                                      "- Tests need the local redis on port 6390.\n")
    store = Store()
    try:
        sweep(store, project, folder)
        deploy = next(f for f in store.facts(project) if "deploy" in f.text)
        assert not recall(store.conn, project, "blue-green deploy").results  # pending
        store.approve([deploy.id], actor="tui")
        hits = recall(store.conn, project, "blue-green deploy").results
        assert [h.id for h in hits] == [deploy.id]
        (world["project"] / "deploy.sh").write_text("echo changed\n")
        fresh = store.get(deploy.id)
        assert verdicts(store.conn, project, [fresh])[deploy.id].stale
        assert not recall(store.conn, project, "blue-green deploy").results
    finally:
        store.close()


def test_hook_check_is_a_stat_until_something_changes(world: dict[str, Path]) -> None:
    project, folder = str(world["project"]), world["folder"]
    conn = db.connect()
    try:
        assert not native_memory.needs_sweep(conn, project)  # empty folder, nothing to do
        (folder / "MEMORY.md").write_text("- A first note about the shop.\n")
        assert native_memory.needs_sweep(conn, project)  # unknown folder: a row, then a sweep
        store = Store()
        try:
            sweep_changed(store)
        finally:
            store.close()
        assert not native_memory.needs_sweep(conn, project)
        assert native_memory.unchanged(project) is True  # the hooks' record, no store needed
        with (folder / "MEMORY.md").open("a") as fh:
            fh.write("- A second note, written in place.\n")
        assert native_memory.needs_sweep(conn, project)
        assert native_memory.unchanged(project) is False
    finally:
        conn.close()


def test_switch_and_guard_rules_come_out_byte_for_byte(world: dict[str, Path]) -> None:
    project = str(world["project"])
    path = settings_file.settings_path("user", project)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = b'{ "permissions": {"deny": ["Bash(rm:*)"]},\n  "theme": "dark" }\n'
    path.write_bytes(raw)
    settings_file.install("user", project, guard=True)
    switched = memory_switch.turn_off("user", project, guard=True)
    data = json.loads(path.read_bytes())
    assert data["autoMemoryEnabled"] is False
    assert f"Edit(/{world['folder']}/**)" in data["permissions"]["deny"]
    assert switched.changed and not native_memory.state(project).enabled
    assert memory_switch.restore("user", project)
    settings_file.uninstall("user", project)
    assert path.read_bytes() == raw


def test_a_persons_own_switch_is_kept(world: dict[str, Path]) -> None:
    project = str(world["project"])
    path = settings_file.settings_path("local", project)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = b'{"autoMemoryEnabled": true}'
    path.write_bytes(raw)
    settings_file.install("local", project)
    memory_switch.turn_off("local", project, guard=False)
    assert not native_memory.state(project).enabled
    memory_switch.restore("local", project)
    settings_file.uninstall("local", project)
    assert path.read_bytes() == raw


def _door(project: str, name: str) -> doors.Door:
    return next(d for d in doors.doors(project) if d.name == name)


def test_open_door_is_a_cross_with_the_command_that_closes_it(
    world: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, folder = str(world["project"]), world["folder"]
    (folder / "MEMORY.md").write_text("- One note here.\n- Two notes here.\n")
    (folder / "team").mkdir()
    (folder / "team" / "MEMORY.md").write_text("- A team note for all.\n")
    checks = {c.name: c for c in doctor.check_doors(project)}
    auto = checks["memory door: Claude Code auto memory"]
    assert not auto.ok and auto.detail.startswith("ON (on by default")
    assert "2 note(s), 3 line(s)" in auto.detail and "3 not imported yet" in auto.detail
    assert auto.detail.endswith("; run `mem-review install`")
    assert not checks["memory door: team memory"].ok

    monkeypatch.setenv(native_memory.DISABLE_ENV, "0")
    memory_switch.turn_off("local", project, guard=False)
    forced = _door(project, "Claude Code auto memory")
    assert not forced.ok and "forces it on" in forced.detail
    assert forced.fix.startswith(f"unset {native_memory.DISABLE_ENV}")

    monkeypatch.delenv(native_memory.DISABLE_ENV)
    closed = _door(project, "Claude Code auto memory")
    assert closed.ok and "settings.local.json" in closed.detail and not closed.open
    assert _door(project, "team memory").ok


def test_an_overflowing_memory_index_is_said(world: dict[str, Path]) -> None:
    lines = "".join(f"- Note number {i} about the shop.\n" for i in range(250))
    (world["folder"] / "MEMORY.md").write_text(lines)
    auto = _door(str(world["project"]), "Claude Code auto memory")
    assert "MEMORY.md is 250 lines" in auto.detail and "over the 200-line" in auto.detail
    store = Store()
    try:
        assert sweep(store, str(world["project"]), world["folder"]).added == 250
    finally:
        store.close()


def test_other_session_start_hooks_and_instruction_files_are_listed(
    world: dict[str, Path],
) -> None:
    project = world["project"]
    (project / "CLAUDE.md").write_text("# rules\n")
    (project / ".claude" / "rules").mkdir(parents=True)
    (project / ".claude" / "rules" / "style.md").write_text("x\n")
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"SessionStart": [
        {"hooks": [{"type": "command", "command": "cat notes.txt"}]}]}}))
    found = doors.doors(str(project))
    hook = next(d for d in found if d.name == "SessionStart hook")
    assert "cat notes.txt" in hook.detail and not hook.gated
    listed = next(d for d in found if d.name == "CLAUDE.md and rules")
    assert "2 file(s)" in listed.detail and "style.md" in listed.detail


def test_status_json_carries_the_doors(world: dict[str, Path]) -> None:
    from reviewer.commands.status import gather, render

    data = gather(str(world["project"]))
    names = [d["name"] for d in data["doors"]]
    assert names[:2] == ["mem-review facts", "Claude Code auto memory"]
    assert data["doors"][1]["ok"] is False
    assert ("memory   ✗ Claude Code auto memory: open, unreviewed; run `mem-review install`"
            in render(data))


def test_worker_follows_a_moved_folder(world: dict[str, Path]) -> None:
    project, folder = str(world["project"]), world["folder"]
    (folder / "MEMORY.md").write_text("- A note in the default folder.\n")
    store = Store()
    try:
        sweep(store, project, folder)
        moved = world["user"] / "elsewhere"
        moved.mkdir()
        (moved / "MEMORY.md").write_text("- A note in the moved folder.\n")
        local = world["project"] / ".claude" / "settings.local.json"
        local.parent.mkdir()
        local.write_text(json.dumps({"autoMemoryDirectory": str(moved)}))
        assert [s.folder for s in sweep_changed(store)] == [moved]
        assert len(store.facts(project)) == 2
    finally:
        store.close()


def test_guard_points_a_write_into_memory_at_remember(world: dict[str, Path]) -> None:
    target = str(world["folder"] / "MEMORY.md")
    answer = guard.check({"tool_name": "Write", "cwd": str(world["project"]),
                          "tool_input": {"file_path": target, "content": "x"}})
    assert answer is not None
    reason = json.loads(answer)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "mcp__mem-review__remember" in reason
    elsewhere = guard.check({"tool_name": "Write", "cwd": str(world["project"]),
                             "tool_input": {"file_path": str(world["project"] / "a.txt"),
                                            "content": "x"}})
    assert elsewhere is None


def test_memory_folders_for_the_sandbox(world: dict[str, Path]) -> None:
    folders = native_memory.memory_folders(str(world["project"]))
    assert folders == [world["folder"], world["folder"] / "team"]
    assert all(os.path.isabs(f) for f in folders)


def test_schema_has_the_sweep_tables(home: Path) -> None:
    conn = db.connect()
    try:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
    assert {"native_folder", "native_note"} <= names
    assert sqlite3  # the hook reads these with stdlib sqlite3 only


async def test_review_screen_header_warns_of_unreviewed_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_tui_seed import make_app, make_env, seed

    env = next(make_env(tmp_path, monkeypatch))
    monkeypatch.setenv("HOME", str(tmp_path / "userhome"))
    monkeypatch.delenv(native_memory.DISABLE_ENV, raising=False)
    seed(env)
    folder = native_memory.state(str(env.project)).folder
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("- The shop deploys with blue-green.\n")
    app = make_app(env)
    async with app.run_test():
        await app.settle()
        counts = app.main.query_one("#counts")
        shown = str(getattr(counts.visual, "plain", counts.visual))
        assert shown.startswith("✗ 1 Claude Code memory note(s) unreviewed (doctor) · ")
    memory_switch.turn_off("local", str(env.project), guard=False)
    app = make_app(env)
    async with app.run_test():
        await app.settle()
        counts = app.main.query_one("#counts")
        assert "Claude Code memory" not in str(getattr(counts.visual, "plain", counts.visual))


@pytest.mark.parametrize("command", [
    "echo '- planted' >> {folder}/MEMORY.md",
    "cp /tmp/x {folder}/topic.md",
    "tee -a {folder}/MEMORY.md < /dev/null",
])
def test_guard_stops_bash_writes_into_memory(world: dict[str, Path], command: str) -> None:
    guard._memory_root.cache_clear()
    answer = guard.check({"tool_name": "Bash", "cwd": str(world["project"]),
                          "tool_input": {"command": command.format(folder=world["folder"])}})
    assert answer is not None
    assert "mcp__mem-review__remember" in json.loads(answer)["hookSpecificOutput"][
        "permissionDecisionReason"]


def test_guard_lets_bash_read_memory(world: dict[str, Path]) -> None:
    guard._memory_root.cache_clear()
    for command in (f"cat {world['folder']}/MEMORY.md", "ls -la", "echo hi > notes.txt"):
        assert guard.check({"tool_name": "Bash", "cwd": str(world["project"]),
                            "tool_input": {"command": command}}) is None, command
