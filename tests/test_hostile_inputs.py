"""Hostile input never stops the loop: broken transcripts and garbage hook payloads.

Transcripts: a cut-off last line, binary garbage, a 100 MB session, a 20 MB single line,
a file deleted between queueing and work, a path that is a directory. Queued together,
each gets its own clear outcome (done, or failed with the reason) and the worker goes on
to the next job. Hook stdin: arbitrary bytes (hypothesis) never raise and give either
None or a payload with every field the hooks need.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fakeapi import Facts, FakeMessagesAPI
from helpers import fact, make_repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from capture import worker
from capture.transcript import read_turns
from reviewer.claude_code import hook_io
from reviewer.commands import hook as hook_cmd
from reviewer.store import db, queue

ROOT = Path(__file__).resolve().parent.parent
WAIT = 120.0  # a guard against hanging, never a speed assertion
NORMAL = fact("Releases are cut on Mondays.", "releases are cut on Mondays")


@pytest.fixture
def home(worker_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The worker's data dir (conftest) with a key for the fake API; no spend cap."""
    monkeypatch.setenv("MEM_REVIEW_DAILY_SPEND_CAP", "0")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    return worker_home


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "hello\n"})


def user(text: str) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n"


def assistant(text: str, mid: str = "msg_1") -> str:
    return json.dumps({"type": "assistant", "message": {
        "id": mid, "role": "assistant", "content": [{"type": "text", "text": text}]}}) + "\n"


def progress(n: int, size: int) -> str:
    """A `progress` record of about `size` bytes: 2/3 of the lines of a real session."""
    return json.dumps({"parentUuid": f"p{n}", "isSidechain": False, "type": "progress",
                       "data": {"type": "bash_progress", "output": "." * size},
                       "uuid": f"u{n}"}, separators=(",", ":")) + "\n"


def big_tool_result(n: int, size: int) -> str:
    """A successful tool result of `size` bytes (a huge Read): kept out of what is sent."""
    body = ("0123456789abcdef" * (size // 16 + 1))[:size]
    return json.dumps({"type": "user", "uuid": f"t{n}", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": body}]},
        "toolUseResult": {"stdout": body[:1000], "stderr": ""}}, separators=(",", ":")) + "\n"


def enqueue(path: Path, repo: Path) -> int:
    conn = db.connect()
    try:
        return queue.enqueue(conn, session_id=path.name, transcript_path=str(path),
                             project=str(repo), cwd=str(repo), event="SessionEnd")
    finally:
        conn.close()


def job(job_id: int) -> dict[str, Any]:
    conn = db.connect()
    try:
        return dict(conn.execute("SELECT * FROM job WHERE id = ?", (job_id,)).fetchone())
    finally:
        conn.close()


def facts_of(job_id: int) -> list[str]:
    conn = db.connect()
    try:
        return [r[0] for r in conn.execute("SELECT text FROM fact WHERE job_id = ?", (job_id,))]
    finally:
        conn.close()


# --------------------------------------------------------------------------- transcripts


def test_each_broken_transcript_gets_its_own_outcome_and_the_worker_goes_on(
    home: Path, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = tmp_path / "t"
    d.mkdir()
    truncated = d / "truncated.jsonl"
    whole = user("Remember: releases are cut on Mondays.")
    truncated.write_text(whole + user("and the cut-off line")[:25])
    garbage = d / "garbage.jsonl"
    garbage.write_bytes(bytes(range(256)) * 400 + b"\n\xff\xfe{\"type\":\n" + os.urandom(5000))
    huge_line = d / "huge-line.jsonl"
    with huge_line.open("w") as fh:
        fh.write(user("Remember: releases are cut on Mondays."))
        fh.write(big_tool_result(1, 20 * 1024 * 1024))
    deleted = d / "deleted.jsonl"
    deleted.write_text(whole)
    directory = d / "directory.jsonl"
    directory.mkdir()
    normal = d / "normal.jsonl"
    normal.write_text(whole + assistant("Noted."))

    ids = {p.name: enqueue(p, repo) for p in
           (truncated, garbage, huge_line, deleted, directory, normal)}
    deleted.unlink()  # between the hook and the worker

    with FakeMessagesAPI(default_extract=Facts([NORMAL])) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        assert worker.run(once=True) == 0
        asked = len(api.messages("extract"))
    out = {name: job(i) for name, i in ids.items()}

    assert out["truncated.jsonl"]["state"] == "done"
    assert out["truncated.jsonl"]["end_cursor"] == len(whole.encode())  # the cut line waits
    assert out["garbage.jsonl"]["state"] == "done" and facts_of(ids["garbage.jsonl"]) == []
    assert out["huge-line.jsonl"]["state"] == "done"
    assert out["huge-line.jsonl"]["end_cursor"] == huge_line.stat().st_size
    for name, why in (("deleted.jsonl", "No such file"), ("directory.jsonl", "Is a directory")):
        row = out[name]
        assert row["state"] == "failed" and row["permanent_error"] == 1
        assert row["last_error"].startswith("transcript unreadable") and why in row["last_error"]
    assert out["normal.jsonl"]["state"] == "done"
    assert facts_of(ids["truncated.jsonl"]) == [NORMAL["fact"]]  # the first to say it
    assert asked == 3  # truncated, huge line, normal: garbage had no conversation to send

    # The cut-off line, once complete, is read from where the last capture stopped.
    with truncated.open("a") as fh:
        fh.write(user("and the cut-off line")[25:])
    again = enqueue(truncated, repo)
    with FakeMessagesAPI() as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        worker.run(once=True)
        (req,) = api.messages("extract")
        sent = json.dumps(req.body)
    assert "and the cut-off line" in sent and "releases are cut" not in sent
    assert job(again)["end_cursor"] == truncated.stat().st_size


@pytest.mark.slow
def test_a_100_mb_session_is_captured_with_bounded_memory(
    home: Path, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.jsonl"
    target = 100 * 1024 * 1024
    said = 0
    with path.open("w") as fh:
        n = 0
        while fh.tell() < target:
            n += 1
            if n % 50 == 0:
                fh.write(user(f"Question {n}: why does step {n} of the build take so long?"))
                fh.write(assistant(f"Step {n} recompiles the assets; cache them.", f"msg_{n}"))
                said += 1
            elif n % 7 == 0:
                fh.write(big_tool_result(n, 64 * 1024))
            else:
                fh.write(progress(n, 900))
    size = path.stat().st_size
    assert size >= target
    job_id = enqueue(path, repo)
    t0 = time.perf_counter()
    with FakeMessagesAPI(default_extract=Facts([NORMAL])) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        assert worker.run(once=True) == 0
        windows = len(api.messages("extract"))
    took = time.perf_counter() - t0
    row = job(job_id)
    print(f"\n100 MB session: {size / 1e6:.0f} MB, {said} exchanges, {windows} window(s), "
          f"captured in {took:.1f} s")
    assert row["state"] == "done" and row["end_cursor"] == size
    assert facts_of(job_id) == [NORMAL["fact"]]
    assert 1 <= windows <= 5  # the bulk (progress, tool output) is never sent
    turns, stats, end = read_turns(path)
    assert end == size and stats.bad_lines == 0 and len(turns) == 2 * said


# --------------------------------------------------------------------------- hook stdin


def _valid(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and all(isinstance(obj.get(k), str) for k in hook_io.REQUIRED)
        and bool(obj["session_id"].strip())
        and bool(obj["transcript_path"].strip())
    )


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                  max_size=4),
    max_leaves=12,
)
_NEAR_PAYLOAD = st.fixed_dictionaries(
    {k: st.one_of(st.text(max_size=12), _JSONISH) for k in hook_io.REQUIRED},
    optional={"reason": _JSONISH, "source": _JSONISH},
).map(lambda d: json.dumps(d).encode())
_BYTES = st.one_of(
    st.binary(max_size=2048),
    _NEAR_PAYLOAD,
    _JSONISH.map(lambda v: json.dumps(v).encode()),
    st.tuples(_NEAR_PAYLOAD, st.binary(max_size=40)).map(lambda t: t[0] + t[1]),
    st.tuples(_NEAR_PAYLOAD, st.integers(0, 200)).map(lambda t: t[0][: t[1]]),
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_BYTES)
def test_hook_payload_from_any_bytes_is_none_or_valid(raw: bytes) -> None:
    got = hook_io.read_payload(io.BytesIO(raw), timeout=0.5)
    assert got is None or _valid(got)
    if got is not None:
        assert got == json.loads(raw.decode("utf-8"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_BYTES)
def test_hook_payload_from_a_real_pipe_is_none_or_valid(raw: bytes) -> None:
    r, w = os.pipe()
    try:
        os.write(w, raw)  # < 64 KB: fits the pipe buffer
        os.close(w)
        w = -1
        with os.fdopen(r, "rb", buffering=0) as stream:
            r = -1
            got = hook_io.read_payload(stream, timeout=0.5)
    finally:
        for fd in (r, w):
            if fd >= 0:
                os.close(fd)
    assert got is None or _valid(got)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(raw=_BYTES, event=st.sampled_from(["session-end", "pre-compact", "bogus", ""]))
def test_hook_entry_point_with_any_stdin_exits_0_and_prints_nothing(
    raw: bytes, event: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import types

    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEM_REVIEW_NO_SPAWN", "1")
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=io.BytesIO(raw)))
    assert hook_cmd.main([event] if event else []) == 0
    assert capsys.readouterr().out == ""


def test_hook_process_with_binary_garbage_exits_0_silently(tmp_path: Path) -> None:
    env = dict(os.environ, MEM_REVIEW_HOME=str(tmp_path / "home"), MEM_REVIEW_NO_SPAWN="1")
    for raw in (os.urandom(100_000), b"\x00" * 2_000_000, b'{"session_id": "' + b"\xff" * 10):
        out = subprocess.run([sys.executable, "-m", "reviewer.cli", "hook", "session-end"],
                             input=raw, env=env, cwd=ROOT, capture_output=True, timeout=WAIT,
                             check=False)
        assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")
