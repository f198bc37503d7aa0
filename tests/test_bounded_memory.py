"""Memory stays bounded on any input: the transcript reader holds at most a capped line.

Seen: a queued transcript that was one 10 GB line grew the worker to 5.8 GB and failed in
a loop. Lines over the cap (MEM_REVIEW_MAX_LINE_BYTES, default 16 MiB) are skipped as
they stream past and counted; the cursor still moves past them. The reader is checked
against a plain split of the bytes at every chunk boundary, and the real worker's peak
RSS is measured on a 300 MB line (a sparse file: no disk is spent).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import make_repo

from capture import transcript
from capture.transcript import ReadStats, _iter_lines

ROOT = Path(__file__).resolve().parent.parent
WAIT = 300.0
MB = 1 << 20


def expected(data: bytes, start: int, cap: int) -> tuple[list[tuple[int, int, bytes]], int, int]:
    """What the reader must yield: complete lines up to `cap` bytes; end offset; skipped."""
    out, offset, lineno, skipped = [], start, data[:start].count(b"\n") + 1, 0
    body = data[start:]
    lines = body.split(b"\n")
    lines.pop()  # the bytes after the last newline are not a complete line
    for raw in lines:
        if len(raw) > cap:
            skipped += 1
        else:
            out.append((lineno, offset, raw))
        lineno += 1
        offset += len(raw) + 1
    return out, offset, skipped


@pytest.mark.parametrize("chunk", [1, 3, 7, 16, 64, 4096])
@pytest.mark.parametrize("seed", range(6))
def test_the_capped_reader_agrees_with_a_plain_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int, seed: int
) -> None:
    rng = random.Random(seed)
    cap = rng.choice([1, 5, 10, 32])
    parts = []
    for _ in range(rng.randint(0, 40)):
        n = rng.choice([0, 1, cap - 1, cap, cap + 1, 2 * cap, rng.randint(0, 5 * cap)])
        parts.append(bytes(rng.choice(b"ab{}\" ") for _ in range(max(0, n))))
    data = b"\n".join(parts) + rng.choice([b"", b"\n", b"tail-without-newline" * 3])
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    monkeypatch.setattr(transcript, "_CHUNK", chunk)
    monkeypatch.setenv(transcript.MAX_LINE_ENV, str(cap))
    for start in sorted({0, rng.randint(0, len(data)), len(data)}):
        if start and data[start - 1:start] != b"\n":
            continue  # cursors are always at a line start
        stats = ReadStats()
        got = list(_iter_lines(path, start, stats, None))
        want, end, skipped = expected(data, start, cap)
        assert got == want
        assert start + stats.bytes_read == end
        assert stats.long_lines == skipped and stats.bad_lines == skipped
        assert stats.lines == len(want) + skipped
        assert stats.pending_bytes == len(data) - end


def test_a_bad_cap_setting_falls_back_to_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for value in ("", "x", "0", "-5"):
        monkeypatch.setenv(transcript.MAX_LINE_ENV, value)
        assert transcript.max_line_bytes() == transcript.MAX_LINE_BYTES


def _huge_transcript(path: Path, line_bytes: int, fill: bytes = b"") -> None:
    """A prompt, one line of `line_bytes` (sparse NULs unless `fill`), another prompt."""
    def prompt(text: str) -> bytes:
        return (json.dumps({"type": "user", "message": {"role": "user", "content": text}})
                + "\n").encode()

    with open(path, "wb") as f:
        f.write(prompt("Remember that we use pnpm, not npm, in this repo."))
        if fill:  # a real (non-sparse) JSON line, written in chunks
            head = b'{"type":"user","message":{"role":"user","content":"'
            f.write(head)
            left = line_bytes - len(head) - 4
            block = fill * (MB // len(fill))
            while left > 0:
                f.write(block[:left])
                left -= len(block)
            f.write(b'"}}\n')
        else:
            f.seek(f.tell() + line_bytes)
            f.write(b"\n")
        f.write(prompt("Remember that the CI image is python:3.12-slim."))


def _worker_peak_rss(home: Path, repo: Path, path: Path, **env: str) -> tuple[int, str]:
    """Queue `path` and run the real worker; its peak RSS in bytes, and the log."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "MEM_REVIEW_"))}
    base.update(MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1",
                MEM_REVIEW_EXTRACTOR="rules", **env)
    queue_it = subprocess.run(
        [sys.executable, "-m", "reviewer.cli", "capture", "--no-worker", str(path)],
        env=base, cwd=repo, capture_output=True, text=True, timeout=WAIT, check=False)
    assert queue_it.returncode == 0, queue_it.stderr
    probe = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run([sys.executable, '-m', 'reviewer.cli', 'worker', '--once'],\n"
        "                      stdout=subprocess.DEVNULL)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024\n"
        "print(done.returncode, peak)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], env=base, cwd=ROOT, capture_output=True,
                         text=True, timeout=WAIT, check=False)
    code, peak = out.stdout.split()
    assert code == "0", out.stderr
    log = (home / "mem-review.log").read_text()
    return int(peak), log


def _job_and_facts(home: Path) -> tuple[dict[str, object], list[str]]:
    import sqlite3

    conn = sqlite3.connect(home / "store.db")
    conn.row_factory = sqlite3.Row
    try:
        job = dict(conn.execute("SELECT * FROM job").fetchone())
        facts = [r[0] for r in conn.execute("SELECT text FROM fact ORDER BY id")]
    finally:
        conn.close()
    return job, facts


def test_a_300_mb_line_is_skipped_with_bounded_memory_and_the_rest_is_read(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "x\n"})
    path = tmp_path / "huge.jsonl"
    _huge_transcript(path, 300 * MB)
    peak, log = _worker_peak_rss(tmp_path / "home", repo, path)
    print(f"worker peak RSS on a 300 MB line: {peak / MB:.0f} MB")
    assert peak < 200 * MB, f"{peak / MB:.0f} MB"
    assert "skipped 1 line(s) longer than 16,777,216 bytes" in log
    job, facts = _job_and_facts(tmp_path / "home")
    assert job["state"] == "done" and job["end_cursor"] == path.stat().st_size  # cursor moved
    assert len(facts) == 2 and any("pnpm" in f for f in facts), facts


def test_the_worst_line_under_the_cap_stays_bounded_too(tmp_path: Path) -> None:
    """The worst kept input: a real JSON line just under the cap (16 MiB of prose), whose
    turn is cut to MAX_TURN_CHARS with a visible mark."""
    repo = make_repo(tmp_path / "repo", {"README.md": "x\n"})
    path = tmp_path / "big.jsonl"
    _huge_transcript(path, 16 * MB - 2, fill=b"lorem ipsum dolor sit amet ")
    peak, log = _worker_peak_rss(tmp_path / "home", repo, path)
    print(f"worker peak RSS on a 16 MiB line under the cap: {peak / MB:.0f} MB")
    assert peak < 250 * MB, f"{peak / MB:.0f} MB"
    assert "line(s) longer than" not in log
    job, _ = _job_and_facts(tmp_path / "home")
    assert job["state"] == "done" and job["end_cursor"] == path.stat().st_size


def test_a_turn_over_the_limit_keeps_its_head_and_tail_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    text = "HEAD " + "x" * (transcript.MAX_TURN_CHARS * 2) + " TAIL"
    path.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": text}})
                    + "\n")
    turns, stats, _ = transcript.read_turns(path)
    assert len(turns) == 1 and stats.kept == 1
    got = turns[0].text
    assert len(got) < transcript.MAX_TURN_CHARS + 100
    assert got.startswith("HEAD ") and got.endswith(" TAIL")
    assert f"[… {len(text) - transcript.MAX_TURN_CHARS:,} characters cut …]" in got


def test_the_worst_json_under_the_cap_many_tiny_objects(tmp_path: Path) -> None:
    """The costliest line to parse: 16 MiB of empty objects in a kept record (~5.6 M
    dicts). Bounded by the cap, reported as the worst figure."""
    repo = make_repo(tmp_path / "repo", {"README.md": "x\n"})
    path = tmp_path / "objs.jsonl"
    head = b'{"type":"user","message":{"role":"user","content":"Remember that we use pnpm."},"x":['
    n = (16 * MB - len(head) - 6) // 3
    with open(path, "wb") as f:
        f.write(head)
        for _ in range(n // 65536):
            f.write(b"{}," * 65536)
        f.write(b"{}," * (n % 65536) + b"{}]}\n")
    assert path.stat().st_size <= 16 * MB  # with its newline: just under the cap
    peak, _ = _worker_peak_rss(tmp_path / "home", repo, path)
    print(f"worker peak RSS on 16 MiB of tiny JSON objects: {peak / MB:.0f} MB")
    assert peak < 1024 * MB, f"{peak / MB:.0f} MB"
    job, facts = _job_and_facts(tmp_path / "home")
    assert job["state"] == "done" and facts


def _name(i: int) -> str:
    """Names unlike each other (near-duplicates such as tool1 / tool11 are merged)."""
    import hashlib

    return "svc-" + hashlib.sha256(str(i).encode()).hexdigest()[:12]


def _many_long_prompts(path: Path, n: int, size: int) -> None:
    """n prompts of `size` characters, each naming its own tool (the rules extractor keeps
    "Remember that ..." sentences), so every part of the file yields a fact."""
    with open(path, "w") as f:
        for i in range(n):
            text = f"Remember that {_name(i)} is pinned. " + "word " * (size // 5)
            f.write(json.dumps({"type": "user", "message": {"role": "user", "content": text}})
                    + "\n")


def test_a_giant_transcript_of_ordinary_lines_is_done_in_bounded_jobs(tmp_path: Path) -> None:
    """40 prompts of 1 Mi characters (40 MB): one job would index 40 M characters
    (~1.6 GB); with a job budget of 4 Mi characters the file is read in follow-up jobs,
    each bounded, and every part of it is extracted."""
    repo = make_repo(tmp_path / "repo", {"README.md": "x\n"})
    path = tmp_path / "giant.jsonl"
    _many_long_prompts(path, 40, 1 << 20)
    home = tmp_path / "home"
    peak, log = _worker_peak_rss(home, repo, path)
    print(f"worker peak RSS on 40 x 1 MiB prompts: {peak / MB:.0f} MB")
    assert peak < 400 * MB, f"{peak / MB:.0f} MB"
    import sqlite3

    conn = sqlite3.connect(home / "store.db")
    try:
        jobs = conn.execute("SELECT state, start_cursor, end_cursor FROM job ORDER BY id"
                            ).fetchall()
        facts = {r[0] for r in conn.execute("SELECT text FROM fact")}
    finally:
        conn.close()
    assert len(jobs) >= 10 and all(state == "done" for state, _, _ in jobs), jobs
    assert [start for _, start, _ in jobs[1:]] == [end for _, _, end in jobs[:-1]]  # contiguous
    assert jobs[-1][2] == path.stat().st_size
    missing = [i for i in range(40) if not any(_name(i) in f.lower() for f in facts)]
    assert missing == [], (missing, len(facts))
    assert "takes the rest of" in log


def test_read_turns_stops_at_max_chars_on_a_line_boundary(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _many_long_prompts(path, 5, 1000)
    turns, stats, end = transcript.read_turns(path, max_chars=2500)
    assert len(turns) == 3 and stats.more  # the line that reached 2,500 is included
    rest, stats2, end2 = transcript.read_turns(path, end, max_chars=2500)
    assert len(rest) == 2 and not stats2.more and end2 == path.stat().st_size
    assert [t.text[:30] for t in turns + rest] == [
        t.text[:30] for t in transcript.read_turns(path)[0]]
