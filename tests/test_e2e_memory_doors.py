"""What doctor says about Claude Code's memory is what the real CLI does.

Each case sets up a project the way a person might (a path over 200 characters, a linked
git worktree, a moved folder, a switch in a settings file or the environment), asks the
pinned Claude Code (its `init` message names the auto-memory folder, and its first
request carries MEMORY.md or not), and compares with reviewer/claude_code/native_memory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_cli import run_claude
from e2e_helpers import git, make_project, request_text
from fakeapi import FakeMessagesAPI

from reviewer.claude_code import native_memory

pytestmark = pytest.mark.e2e

MARK = "NOTEMARK the deploy uses blue-green switching"


def _ask(project: Path, home: Path, env: dict[str, str]) -> tuple[str | None, bool]:
    """(the folder Claude Code names, whether MEMORY.md reached the model)."""
    with FakeMessagesAPI() as api:
        proc = run_claude("hi", project=project, home=home, api=api, env=env,
                          extra_args=("--output-format", "stream-json", "--verbose"))
        requests = api.messages("chat")
    assert proc.returncode == 0, proc.stderr
    folder = None
    for line in proc.stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("type") == "system" and event.get("subtype") == "init":
            folder = (event.get("memory_paths") or {}).get("auto")
    return folder, MARK in request_text(requests[0])


CASES = {
    "default": ({}, {}, True),
    "long path": ({}, {}, True),
    "worktree": ({}, {}, True),
    "moved by local settings": ({"autoMemoryDirectory": "~/notes/mem"}, {}, True),
    "off in local settings": ({"autoMemoryEnabled": False}, {}, False),
    "env turns it off": ({}, {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}, False),
    "env forces it on over the setting": (
        {"autoMemoryEnabled": False}, {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "0"}, True),
    "CLAUDE_CONFIG_DIR": ({}, {"CLAUDE_CONFIG_DIR": "{home}/cfg"}, True),
    "a null folder makes Claude Code ignore the file": (
        {"autoMemoryEnabled": False, "autoMemoryDirectory": None}, {}, True),
}


@pytest.mark.parametrize("case", list(CASES))
def test_doctor_agrees_with_the_cli(
    case: str, claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local, env, loaded = CASES[case]
    root = tmp_path.resolve()
    home = root / "home"
    env = {k: v.format(home=home) for k, v in env.items()}
    name = "p" * 230 if case == "long path" else "shop"
    project = make_project(root / name, {"README.md": "# shop\n"})
    cwd = project
    if case == "worktree":
        cwd = root / "wt"
        git(project, "worktree", "add", "-q", "-b", "side", str(cwd))
    if local:
        (cwd / ".claude").mkdir(exist_ok=True)
        (cwd / ".claude" / "settings.local.json").write_text(json.dumps(local))
    monkeypatch.setenv("HOME", str(home))
    for var in ("CLAUDE_CONFIG_DIR", "CLAUDE_CODE_DISABLE_AUTO_MEMORY", "CLAUDE_CODE_SIMPLE",
                native_memory.OVERRIDE_ENV):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    ours = native_memory.state(str(cwd))
    ours.folder.mkdir(parents=True)
    (ours.folder / "MEMORY.md").write_text(f"- {MARK}\n")

    folder, reached = _ask(cwd, home, env)
    assert reached is loaded
    assert ours.enabled is loaded, ours.why
    if loaded:
        assert folder is not None and Path(folder) == ours.folder
    if case == "a null folder makes Claude Code ignore the file":
        assert "ignored by Claude Code" in ours.why
