"""Speed by rule: the hook path stays stdlib-only and headless code never loads the TUI.

Each check runs in a fresh interpreter, so it fails the same way on every machine, whatever
the test process itself has imported. The import-linter contracts in pyproject.toml say the
same statically; this test catches what they cannot see (imports done at run time).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = (
    "textual",
    "anthropic",
    "sqlmodel",
    "sqlalchemy",
    "pydantic",
    "git",
    "httpx2",
    "mcp",
    "mcp_types",
    "anyio",
    "starlette",
    "httpx",
    "rich",
    "pygments",
)
ROOT = Path(__file__).resolve().parent.parent

HOOK_MODULES = [
    "reviewer.cli",
    "reviewer.commands.hook",
    "reviewer.claude_code.hook_io",
    "capture.enqueue",
    "reviewer.claude_code.inject",
    "reviewer.freshness.staleness",
    "reviewer.store.queue",
    "reviewer.store.db",
    "reviewer.config",
    "reviewer.freshness.anchors",
    "reviewer.project",
    "reviewer.log",
    "reviewer.sanitize.redact",
    "capture.transcript",
    "capture.condense",
]
HEADLESS_MODULES = [
    "reviewer.store.facts",
    "reviewer.store.models",
    "capture.pipeline",
    "capture.worker",
    "capture.extractors.api",
    "reviewer.commands.listing",
    "reviewer.commands.status",
    "reviewer.commands.importing",
    "reviewer.commands.preview",
    "reviewer.claude_code.inject",
]


def _loaded_after(code: str, env: dict[str, str], stdin: bytes = b"") -> tuple[list[str], str]:
    probe = (
        "import sys, json, atexit\n"
        "def _dump():\n"
        f"    heavy = sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))\n"
        "    sys.stderr.write('\\nLOADED=' + json.dumps(heavy) + '\\n')\n"
        "atexit.register(_dump)\n" + code
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    err = out.stderr.decode()
    line = [x for x in err.splitlines() if x.startswith("LOADED=")]
    assert line, f"probe did not finish: {err[-2000:]}"
    return json.loads(line[-1][len("LOADED=") :]), out.stdout.decode()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    e = dict(os.environ)
    e["MEM_REVIEW_HOME"] = str(tmp_path / "home")
    e["MEM_REVIEW_NO_SPAWN"] = "1"
    return e


@pytest.mark.parametrize("module", HOOK_MODULES)
def test_hook_path_module_is_stdlib_only(module: str, env: dict[str, str]) -> None:
    loaded, _ = _loaded_after(f"import {module}", env)
    assert loaded == [], f"{module} pulls in {loaded}"


@pytest.mark.parametrize("module", HEADLESS_MODULES)
def test_headless_module_never_loads_the_tui(module: str, env: dict[str, str]) -> None:
    loaded, _ = _loaded_after(f"import {module}", env)
    assert "textual" not in loaded, f"{module} loads textual"


@pytest.mark.parametrize("event", ["session-end", "pre-compact", "session-start"])
def test_running_a_hook_stays_stdlib_only(event: str, env: dict[str, str], tmp_path: Path) -> None:
    transcript = tmp_path / "s.jsonl"
    transcript.write_text('{"type":"user","message":{"role":"user","content":"hi"}}\n')
    payload = json.dumps(
        {
            "session_id": "s1",
            "transcript_path": str(transcript),
            "cwd": str(tmp_path),
            "hook_event_name": event,
            "source": "startup",
            "reason": "other",
        }
    ).encode()
    code = (
        "import sys\nfrom reviewer.cli import main\n"
        f"rc = main(['hook', {event!r}])\nassert rc == 0, rc\n"
    )
    loaded, stdout = _loaded_after(code, env, stdin=payload)
    assert loaded == [], f"hook {event} pulls in {loaded}"
    if event != "session-start":
        assert stdout == ""
