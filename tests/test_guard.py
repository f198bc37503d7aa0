"""The PreToolUse guard: the agent cannot write to the store or approve its own memories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reviewer.claude_code import guard
from reviewer.claude_code.guard import check


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The data dir at its default place under a scratch HOME, so `~` spellings work."""
    home = tmp_path / "userhome"
    data = home / ".local" / "share" / "mem-review"
    data.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MEM_REVIEW_HOME", str(data))
    return data


def call(tool: str, cwd: Path | str = "/tmp", **tool_input: object) -> dict[str, object]:
    return {
        "session_id": "s",
        "transcript_path": "/t.jsonl",
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }


def denied(payload: object) -> bool:
    answer = check(payload)
    if answer is None:
        return False
    obj = json.loads(answer)
    assert list(obj) == ["hookSpecificOutput"]
    out = obj["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "deny"
    assert out["permissionDecisionReason"].startswith("mem-review guard: ")
    return True


def test_writes_into_the_data_dir_are_denied(data_dir: Path, tmp_path: Path) -> None:
    assert denied(call("Write", file_path=str(data_dir / "store.db"), content="x"))
    assert denied(
        call("Edit", file_path=str(data_dir / "config.toml"), old_string="a", new_string="b")
    )
    assert denied(call("MultiEdit", file_path=str(data_dir / "new.txt"), edits=[]))
    assert denied(call("NotebookEdit", notebook_path=str(data_dir / "n.ipynb")))
    assert denied(call("Write", cwd=data_dir, file_path="store.db", content="x"))
    assert denied(call("Write", file_path="~/.local/share/mem-review/store.db", content="x"))
    link = tmp_path / "innocent"
    link.symlink_to(data_dir)
    assert denied(call("Write", file_path=str(link / "store.db"), content="x"))


def test_writes_elsewhere_pass(tmp_path: Path) -> None:
    assert not denied(call("Write", file_path=str(tmp_path / "proj" / "a.py"), content="x"))
    assert not denied(
        call("Edit", cwd=tmp_path, file_path="src/store.db", old_string="a", new_string="b")
    )
    assert not denied(call("Read", file_path="~/.local/share/mem-review/store.db"))


@pytest.mark.parametrize(
    "command",
    [
        "mem-review import --keep-status facts.json",
        "/home/me/.venv/bin/mem-review import facts.json --keep-status",
        "cd /proj && mem-review import --keep-status=yes facts.json",
        "MEM_REVIEW_HOME=/tmp/scratch mem-review import --keep-status f.json",
        "python -m reviewer.cli import --keep-status f.json",
        "mem-review",
        "mem-review review --project .",
        "uvx mem-review review",
        "timeout 60 uv run mem-review import --keep-status f.json",
        "env -i PATH=/bin nohup mem-review import --keep-status f.json &",
        'python -c "from reviewer.store.facts import Store; Store().approve([1, 2])"',
        "python3 - <<'EOF'\nfrom reviewer.store.facts import Store\n"
        "Store().edit(3, 'x', 'decision')\nEOF",
        "sqlite3 ~/.local/share/mem-review/store.db \"UPDATE fact SET status='approved'\"",
        "sqlite3 /some/copy.db \"update fact set status = 'approved' where id = 3\"",
        "python -c \"import sqlite3; sqlite3.connect('x').execute('INSERT INTO fact VALUES (1)')\"",
        "echo 'extractor = \"rules\"' > ~/.local/share/mem-review/config.toml",
        "rm -rf $HOME/.local/share/mem-review",
        "cp evil.db ${MEM_REVIEW_HOME}/store.db",
        "cat ~/.local/share/mem-review/mem-review.log | tee ~/.local/share/mem-review/x",
    ],
)
def test_approving_or_store_writing_commands_are_denied(command: str) -> None:
    assert denied(call("Bash", command=command))


def test_the_absolute_data_dir_in_a_command_is_seen(data_dir: Path) -> None:
    assert denied(call("Bash", command=f"sqlite3 {data_dir}/store.db .dump"))
    assert denied(call("Bash", command=f"mv /tmp/x {data_dir}/store.db"))


@pytest.mark.parametrize(
    "command",
    [
        "mem-review import facts.json",
        "mem-review list --status approved",
        "mem-review status",
        "mem-review inject",
        "mem-review --help",
        "mem-review review --help",
        "pytest -q tests/test_store.py",
        'git commit -m "update fact table docs"',
        'grep -rn "def approve(" reviewer/',
        "cat ~/.local/share/mem-review/mem-review.log",
        "tail -n 50 $HOME/.local/share/mem-review/mem-review.log",
        "ls -la ~/.local/share/mem-review",
        "npm test",
    ],
)
def test_ordinary_commands_pass(command: str) -> None:
    assert not denied(call("Bash", command=command))


@pytest.mark.parametrize(
    "payload",
    [
        None,
        [],
        "Bash",
        {},
        {"tool_name": "Bash"},
        {"tool_name": "Bash", "tool_input": "rm"},
        {"tool_name": "Bash", "tool_input": {"command": 5}},
        {"tool_name": 3, "tool_input": {}},
        {"tool_name": "mcp__x__y", "tool_input": {"path": "~/.local/share/mem-review"}},
    ],
)
def test_garbage_and_unknown_tools_pass(payload: object) -> None:
    assert check(payload) is None


def test_guard_runs_stdlib_only_in_a_fresh_process(data_dir: Path) -> None:
    code = (
        "import json, sys; from reviewer.claude_code.guard import check; "
        "print(check(json.load(sys.stdin)) or '')"
    )
    payload = call("Bash", command="mem-review import --keep-status f.json")
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env=dict(os.environ, MEM_REVIEW_HOME=str(data_dir)),
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    imported = {
        line.split("|")[-1].strip().split(".")[0]
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "reviewer" in imported
    assert imported & {"textual", "anthropic", "sqlmodel", "sqlalchemy", "pydantic", "git"} == set()


@pytest.mark.parametrize("command", [
    "echo '{}' > .mem-review/facts/x.json",
    "cp /tmp/f.json .mem-review/facts/",
    "git add .mem-review && git commit -m facts",
    "rm -rf .mem-review",
    "git update-ref refs/remotes/origin/main HEAD",
    "echo abc > .git/refs/remotes/origin/main",
    "git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/evil",
    "git remote set-head origin evil",
    "git remote set-url origin /tmp/evil.git",
    "git fetch origin +refs/heads/evil:refs/remotes/origin/main",
    "git fetch /tmp/evil main:refs/remotes/origin/main",
    "git config remote.origin.url /tmp/evil.git",
    "sed -i s/x/y/ .git/config",
])
def test_shared_facts_and_the_remote_ref_are_not_the_agents_to_write(command: str) -> None:
    assert guard.bash_reason(command) is not None


@pytest.mark.parametrize("command", [
    "cat .mem-review/facts/x.json", "ls .mem-review/facts", "git fetch origin",
    "git fetch", "git pull --rebase", "git remote -v", "git push origin feature",
    "cat .git/config",
    "git log origin/main -- .mem-review", "mem-review share --help",
])
def test_reading_shared_facts_and_fetching_stay_allowed(command: str) -> None:
    assert guard.bash_reason(command) is None


def test_write_tools_may_not_write_shared_fact_files(tmp_path: Path) -> None:
    for target in (".mem-review/facts/a.json", str(tmp_path / ".mem-review" / "facts" / "b")):
        answer = guard.check({"tool_name": "Write", "cwd": str(tmp_path),
                              "tool_input": {"file_path": target, "content": "{}"}})
        assert answer is not None and "shared fact" in answer
    assert guard.check({"tool_name": "Write", "cwd": str(tmp_path),
                        "tool_input": {"file_path": "src/mem-review.py"}}) is None
    for target in (".git/refs/remotes/origin/main", ".git/config", ".git/packed-refs"):
        answer = guard.check({"tool_name": "Edit", "cwd": str(tmp_path),
                              "tool_input": {"file_path": target}})
        assert answer is not None and "record of the remote" in answer
