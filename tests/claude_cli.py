"""Run the real Claude Code CLI, offline, against the fake Messages API.

The end-to-end tests need what only the real program gives: hooks fired with real
payloads, a transcript in the newest format, and the exact request that reaches the
model. ``run_claude`` runs ``claude -p`` in a scratch project with a scratch ``HOME`` (so
nothing of the developer's own Claude Code setup leaks in or is touched) and points it at
a :class:`tests.fakeapi.FakeMessagesAPI`.

Observed with 2.1.332: in ``-p`` mode there is no onboarding or trust prompt, project
hooks run without a trust dialog, and one ``claude -p`` run takes about 0.5-1 s.
"""

from __future__ import annotations

import fcntl
import functools
import os
import re
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fakeapi import FakeMessagesAPI

ROOT = Path(__file__).resolve().parent.parent
INSTALL_SCRIPT = ROOT / "scripts" / "install_claude_code.sh"
CACHE = ROOT / ".cache" / "claude-code"
CLAUDE_BIN = CACHE / "node_modules" / ".bin" / "claude"
VERSION = "2.1.332"

# Inherited variables that would redirect or reconfigure the child: another Claude Code's
# session (we may be running inside one), the developer's config/credentials, proxies
# (127.0.0.1 must be reached directly), XDG dirs (the product's store must land in the
# scratch HOME).
_DROP_PREFIXES = (
    "CLAUDE",
    "ANTHROPIC",
    "MEM_REVIEW_",
    "XDG_",
    "OTEL_",
    "AWS_",
    "GOOGLE_",
    "VERTEX_",
)
_DROP_NAMES = {
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "NODE_OPTIONS",
    "DEBUG",
}


def claude_bin() -> Path | None:
    """The installed pinned ``claude`` binary, or None if not installed yet."""
    return CLAUDE_BIN if CLAUDE_BIN.is_file() and os.access(CLAUDE_BIN, os.X_OK) else None


@functools.cache
def ensure_claude(timeout: float = 300) -> Path:
    """Install the pinned CLI if needed, once per process (the script is idempotent and
    checks the version; a lock keeps parallel test workers from running npm together).
    Raises ``RuntimeError`` when it cannot."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE.parent / "claude-code.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            proc = subprocess.run(
                ["bash", str(INSTALL_SCRIPT)],
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise RuntimeError(f"installing Claude Code failed: {exc}") from exc
    if proc.returncode != 0:
        raise RuntimeError(f"installing Claude Code failed:\n{proc.stderr[-2000:]}")
    path = Path(proc.stdout.strip().splitlines()[-1])
    if not path.is_file():
        raise RuntimeError(f"install script printed {path}, which does not exist")
    return path


def claude_env(
    *,
    home: Path,
    api_url: str,
    env: Mapping[str, str] | None = None,
    base: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The child's environment: ours minus anything Claude-related, plus isolation."""
    src = os.environ if base is None else base
    out = {
        k: v for k, v in src.items() if not k.startswith(_DROP_PREFIXES) and k not in _DROP_NAMES
    }
    # Claude Code writes $TMPDIR/claude-<uid>/ and $TMPDIR/cc-socks/<pid>.sock: keep them in
    # the scratch HOME too (a path too long for a socket is tolerated: it goes without).
    tmp = home / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    out.update(
        {
            "HOME": str(home),
            "TMPDIR": str(tmp),
            "ANTHROPIC_BASE_URL": api_url,
            "ANTHROPIC_API_KEY": "test-key",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }
    )
    if env:
        out.update(env)
    return out


def run_claude(
    prompt: str,
    *,
    project: Path,
    home: Path,
    api: FakeMessagesAPI,
    extra_args: Iterable[str] = (),
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
    session_id: str | None = None,
    resume: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``claude -p PROMPT`` in ``project`` with a scratch ``home``, no stdin.

    ``session_id`` starts a session with that UUID (``--session-id``); ``resume`` continues
    one (``--resume``). Tool calls the fake API scripts need permission in ``-p`` mode:
    pass e.g. ``extra_args=("--allowedTools", "Bash")`` (``--dangerously-skip-permissions``
    is refused for root unless ``IS_SANDBOX=1`` is in ``env``). Does not check the exit
    code: the caller asserts on it with ``stderr`` at hand.
    """
    binary = ensure_claude()
    home.mkdir(parents=True, exist_ok=True)
    project.mkdir(parents=True, exist_ok=True)
    args = [str(binary), "-p", prompt]
    if session_id:
        args += ["--session-id", session_id]
    if resume:
        args += ["--resume", resume]
    args += list(extra_args)
    return subprocess.run(
        args,
        cwd=project,
        env=claude_env(home=home, api_url=api.url, env=env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def project_dir_name(cwd: Path) -> str:
    """How Claude Code names a project's transcript folder: non-alphanumerics become ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def transcript_paths(home: Path, project: Path | None = None) -> list[Path]:
    """Session transcripts the CLI wrote under ``home`` (of one project, if given),
    oldest first. Subagent transcripts (``<session>/subagents/``) are not included."""
    root = home / ".claude" / "projects"
    if project is not None:
        root = root / project_dir_name(project.resolve())
        pattern = "*.jsonl"
    else:
        pattern = "*/*.jsonl"
    return sorted(root.glob(pattern), key=lambda p: (p.stat().st_mtime, p.name))
