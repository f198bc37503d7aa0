"""Bad input is refused in one line and nothing is queued; good input goes where it is told.

Seen: `capture` queued random bytes ("queued 1 transcript"), `capture --project DIR` filed
facts under the current directory's project, `MEM_REVIEW_HOME` at a file gave no clear
word, and `doctor` advised `install` when install would refuse.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from shared import need_transcripts

from capture import sniff
from reviewer.commands import doctor

WAIT = 60.0
PROMPT = {"type": "user", "message": {"role": "user", "content": "Remember: we use pnpm."}}


def cli(*args: str, home: Path, cwd: Path, stdin: bytes | None = None,
        **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("MEM_REVIEW_")}
    full.update(MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1", **env)
    return subprocess.run([sys.executable, "-m", "reviewer.cli", *args], env=full, cwd=cwd,
                          input=stdin.decode() if stdin else None, capture_output=True,
                          text=True, timeout=WAIT, check=False)


def jobs(home: Path) -> list[tuple[str, str, str]]:
    if not (home / "store.db").exists():
        return []
    conn = sqlite3.connect(home / "store.db")
    try:
        return conn.execute("SELECT transcript_path, project, cwd FROM job ORDER BY id").fetchall()
    finally:
        conn.close()


def _bad_inputs() -> dict[str, bytes]:
    rng = random.Random(11)
    return {
        "random bytes": bytes(rng.randrange(256) for _ in range(4096)),
        "empty": b"",
        "blank lines": b"\n\n  \n",
        "a JSON array": b'[{"type": "user"}]\n',
        "JSON of another shape": b'{"name": "x", "version": 1}\n{"a": 2}\n',
        "a hook log": b"",  # read from ../shared inside the test (`bad_input`), never at import
        "type without a record key": b'{"type": "user", "text": "hi"}\n',
        "CSV": b"id,name\n1,alice\n2,bob\n",
        "UTF-16 JSON": json.dumps(PROMPT).encode("utf-16") + "\n".encode("utf-16-le"),
        "PNG header": b"\x89PNG\r\n\x1a\n" + bytes(200),
        "one long garbage line": b"x" * (200 << 10),
        "a long line opening of another shape": b'{"data": "' + b"y" * (100 << 10) + b'"}\n',
        "JSON scalars": b"1\n\"two\"\nnull\ntrue\n",
    }


BAD = _bad_inputs()


def bad_input(name: str) -> bytes:
    """BAD[name]; the hook log sample is read only when its test runs (skips without ../shared)."""
    if name == "a hook log":
        return (need_transcripts() / "fasthooks" / "sample_hook_logs.jsonl").read_bytes()[:4000]
    return BAD[name]


@pytest.mark.parametrize("name", list(BAD))
def test_capture_refuses_what_is_not_a_transcript_and_queues_nothing(
    tmp_path: Path, name: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(bad_input(name))
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(PROMPT) + "\n")
    home = tmp_path / "home"
    done = cli("capture", "--no-worker", str(good), str(path), home=home, cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert "not a Claude Code transcript" in done.stderr and "nothing queued" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "queued" not in done.stdout
    assert jobs(home) == []  # not even the good file: all or nothing


def test_every_real_transcript_sample_is_accepted() -> None:
    transcripts = need_transcripts()
    samples = sorted(transcripts.rglob("*.jsonl"))
    assert len(samples) >= 5
    verdicts = {p.relative_to(transcripts).as_posix(): sniff.not_a_transcript(p)
                for p in samples}
    assert verdicts.pop("fasthooks/sample_hook_logs.jsonl") is not None  # hook logs, not a session
    assert verdicts == dict.fromkeys(verdicts)


def test_a_first_line_longer_than_the_head_is_judged_by_its_opening(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    rec = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "z" * (1 << 17)}}
    path.write_text(json.dumps(rec) + "\n")
    assert sniff.not_a_transcript(path) is None


def test_a_directory_with_one_bad_file_queues_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "a.jsonl").write_text(json.dumps(PROMPT) + "\n")
    (folder / "b.jsonl").write_bytes(BAD["random bytes"])
    home = tmp_path / "home"
    done = cli("capture", "--no-worker", str(folder), home=home, cwd=tmp_path)
    assert done.returncode == 1 and "b.jsonl: not a Claude Code transcript" in done.stderr
    assert jobs(home) == []


def test_capture_project_files_the_session_under_that_project(tmp_path: Path) -> None:
    other = tmp_path / "other-project"
    (other / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    good = tmp_path / "s.jsonl"
    good.write_text(json.dumps(PROMPT) + "\n")
    home = tmp_path / "home"
    done = cli("capture", "--no-worker", "--project", str(other / "src"), str(good),
               home=home, cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert f"for {other}" in done.stdout
    assert jobs(home) == [(str(good), str(other), str(other / "src"))]
    missing = cli("capture", "--no-worker", "--project", str(tmp_path / "nope"), str(good),
                  home=home, cwd=elsewhere)
    assert missing.returncode == 1 and "nope: not a directory" in missing.stderr


def test_the_hook_queues_nothing_for_a_file_that_is_not_a_transcript(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(BAD["random bytes"])
    home = tmp_path / "home"
    payload = json.dumps({"session_id": "s", "transcript_path": str(path), "cwd": str(tmp_path),
                          "hook_event_name": "SessionEnd"}).encode()
    done = cli("hook", "session-end", home=home, cwd=tmp_path, stdin=payload)
    assert (done.returncode, done.stdout) == (0, "")
    assert jobs(home) == []
    assert "not a Claude Code transcript" in (home / "mem-review.log").read_text()


@pytest.mark.parametrize("command", [("status",), ("list",), ("doctor",), ("worker", "--once")])
def test_a_home_that_is_a_file_is_not_a_directory(tmp_path: Path, command: tuple[str, ...]
                                                   ) -> None:
    home = tmp_path / "home-file"
    home.write_text("not a dir")
    done = cli(*command, home=home, cwd=tmp_path, HOME=str(tmp_path))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    text = done.stdout if command[0] == "doctor" else done.stderr
    assert f"{home} is not a directory" in text, text
    assert home.read_text() == "not a dir"


def _settings(project: Path, text: str, name: str = "settings.json") -> Path:
    path = project / ".claude" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _default_scope() -> str:
    return doctor._install_scope()


@pytest.mark.parametrize("case", ["invalid project settings", "invalid both", "invalid user",
                                  "nothing installed"])
def test_doctor_advises_install_only_when_install_would_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    userhome = tmp_path / "u"
    userhome.mkdir()
    project = tmp_path / "p"
    project.mkdir()
    monkeypatch.setenv("HOME", str(userhome))
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "home"))
    if case in ("invalid project settings", "invalid both"):  # where a bare install writes
        local = _default_scope() == "local"
        _settings(project, "{not json", "settings.local.json" if local else "settings.json")
    if case in ("invalid user", "invalid both"):
        _settings(userhome, "[1, 2")
    advice = {c.name: c.detail for c in doctor.checks(str(project)) if not c.ok}["hooks"]
    env = {"HOME": str(userhome)}
    install = cli("install", "--project", str(project), home=tmp_path / "home", cwd=project,
                  **env)
    user_install = cli("install", "--scope", "user", "--project", str(project),
                       home=tmp_path / "home", cwd=project, **env)
    advises_install = "run `mem-review install`" in advice
    advises_user = "mem-review install --scope user" in advice or "`--scope user`" in advice
    assert advises_install == (install.returncode == 0), (advice, install.stderr)
    assert advises_user == (user_install.returncode == 0), (advice, user_install.stderr)
    if case == "invalid both":
        assert "fix " in advice and "will not edit a file it cannot read" in advice


@pytest.mark.parametrize("kind", ["fifo", "device", "missing", "directory"])
def test_capture_refuses_what_is_not_a_regular_file_without_blocking(
    tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "odd.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path = Path("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    home = tmp_path / "home"
    done = cli("capture", "--no-worker", str(path), home=home, cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and jobs(home) == []


def test_retry_with_ids_no_store_could_hold_skips_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = cli("retry", "0", "-3", str(2**70), home=home, cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "no failed job to put back; skipped" in done.stdout
    assert done.stdout.count("no such job") == 3


def test_a_relative_data_dir_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    from reviewer import paths

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEM_REVIEW_HOME", "rel-home")
    assert paths.home() == tmp_path / "rel-home"
