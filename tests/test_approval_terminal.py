"""The approving import asks a person, on a real terminal, and nothing else will do.

`mem-review import --keep-status` keeps approved facts from an export: the second door to
`approved`. Claude Code's Bash tool has no terminal, so the confirmation is read from
`/dev/tty`, never stdin; without one (a new session, as in the Bash tool), with a wrong
answer, or from inside Claude Code, it refuses in one line and imports nothing at all.
Argparse abbreviations are off: `--keep` is an error, not `--keep-status`.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_on_terminal

FACTS = [
    {"fact": "Deploys run on Fridays.", "category": "decision", "status": "approved"},
    {"fact": "Tests use pytest.", "category": "convention", "status": "approved"},
    {"fact": "A pending one.", "category": "todo", "status": "pending"},
]


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    export = tmp_path / "export.json"
    export.write_text(json.dumps(FACTS))
    home = tmp_path / "data"
    env = dict(os.environ, MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1")
    env.pop("CLAUDECODE", None)
    return export, home, env


def _statuses(home: Path) -> list[str]:
    if not (home / "store.db").exists():
        return []
    conn = sqlite3.connect(home / "store.db")
    try:
        return sorted(r[0] for r in conn.execute("SELECT status FROM fact"))
    finally:
        conn.close()


def _argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "reviewer.cli", *args]


def test_without_a_terminal_it_refuses_in_one_line_and_imports_nothing(
    setup: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    export, home, env = setup
    # A new session has no controlling terminal: exactly Claude Code's Bash tool.
    done = subprocess.run(_argv("import", str(export), "--keep-status"), env=env, cwd=tmp_path,
                          capture_output=True, text=True, input="approve 2\n", timeout=60,
                          start_new_session=True, check=False)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert "only a person may do" in lines[0] and "nothing was imported" in lines[0]
    assert "no terminal" in lines[0] and "approve 2" in lines[0]
    assert _statuses(home) == []  # not even as pending: the person decides


def test_a_wrong_answer_on_the_terminal_refuses(
    setup: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    export, home, env = setup
    code, out = run_on_terminal(_argv("import", str(export), "--keep-status"), "yes",
                                env=env, cwd=tmp_path)
    assert code == 1 and "did not match" in out and "Traceback" not in out
    assert _statuses(home) == []


def test_inside_claude_code_it_refuses_before_asking(
    setup: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    export, home, env = setup
    code, out = run_on_terminal(_argv("import", str(export), "--keep-status"), "approve 2",
                                env=dict(env, CLAUDECODE="1"), cwd=tmp_path)
    assert code == 1 and "outside Claude Code" in out and "Type `" not in out
    assert _statuses(home) == []


def test_a_person_typing_the_confirmation_imports_with_status(
    setup: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    export, home, env = setup
    code, out = run_on_terminal(_argv("import", str(export), "--keep-status"), "approve 2",
                                env=env, cwd=tmp_path)
    assert code == 0, out
    assert "Type `approve 2`" in out and "imported 3 facts" in out
    assert _statuses(home) == ["approved", "approved", "pending"]


@pytest.mark.parametrize("flag", ["--keep", "--keep-s", "--k", "--keep-stat"])
def test_abbreviations_are_errors_not_the_flag(
    setup: tuple[Path, Path, dict[str, str]], tmp_path: Path, flag: str
) -> None:
    export, home, env = setup
    done = subprocess.run(_argv("import", str(export), flag), env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, start_new_session=True,
                          check=False)
    assert done.returncode == 2 and "unrecognized arguments" in done.stderr
    assert _statuses(home) == []


def test_an_export_of_pending_facts_needs_no_confirmation(
    setup: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    export, home, env = setup
    export.write_text(json.dumps([FACTS[2]]))
    done = subprocess.run(_argv("import", str(export), "--keep-status"), env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, start_new_session=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert _statuses(home) == ["pending"]
