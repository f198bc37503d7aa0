"""The shared-facts row: `mem-review hook session-start` in a clone whose
`.mem-review/facts/` holds 1,000 facts a person pushed, against `python -c pass`.

Its own scratch world (rebuilt each run, a few seconds): a repository with 200 source
files and 1,000 shared fact files citing them, pushed to a bare remote and fetched back,
so the trust rule's one `git ls-tree` of `origin/main` and the index read both run; a
handful of cited files then change, so some facts are withheld as stale. The store is
empty (a teammate who has reviewed nothing yet): every fact comes from the folder.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import uuid
from pathlib import Path

from bench.common import BIG_TRANSCRIPT, Result, missing
from bench.rows import Ctx, has_module
from bench.rows.hooks import _row

FACTS, FILES, QUICK_FACTS = 1_000, 200, 100


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=bench", "-c", "user.email=b@example.invalid",
         "-c", "commit.gpgsign=false", *args],
        capture_output=True, text=True, check=True,
    ).stdout


def build(work: Path, n_facts: int) -> Path:
    from reviewer.freshness.anchors import blob_sha
    from reviewer.sharing import format as fmt

    if work.exists():
        shutil.rmtree(work)
    repo, remote = work / "clone", work / "remote.git"
    repo.mkdir(parents=True)
    rng = random.Random(14)
    files = [f"src/pkg{i % 10}/mod{i}.py" for i in range(FILES)]
    for rel in files:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(f"def f{rel.count('/')}():\n    return {rng.random()}\n")
    _git(repo, "init", "-q", "-b", "main")
    folder = repo / fmt.FOLDER
    folder.mkdir(parents=True)
    for i in range(n_facts):
        cited = rng.sample(files, rng.choice((0, 1, 1, 2)))
        fact = fmt.SharedFact(
            id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            text=f"Shared fact {i:05d}: module {cited[0] if cited else 'all'} keeps its "
                 f"public API stable (decided in review {i}).",
            category=rng.choice(("decision", "convention", "gotcha", "environment")),
            files=tuple(cited), anchors={f: blob_sha(repo / f) for f in cited},
            confidence=round(rng.random(), 2), evidence="we agreed in review",
            approved_by="Alice Example <alice@example.com>", approved_at="2026-11-30T12:00:00Z",
        )
        (folder / fact.file_name).write_text(fmt.dumps(fact))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "shared facts")
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    _git(repo, "remote", "add", "origin", str(remote))
    _git(repo, "push", "-q", "origin", "main")
    _git(repo, "fetch", "-q", "origin")
    _git(repo, "remote", "set-head", "origin", "main")
    for rel in files[:10]:  # the code moved on since: some facts are stale here
        (repo / rel).write_text("def changed():\n    return 0\n")
    return repo


def run(ctx: Ctx) -> list[Result]:
    n = QUICK_FACTS if ctx.quick else FACTS
    key = "hook-start-shared"
    title = f"hook session-start, {n:,} shared facts (.mem-review/)"
    budget = "≤ 6×"
    if ctx.exe is None:
        return [missing(key, title, budget, "no mem-review console script")]
    if not has_module("reviewer.sharing.reading"):
        return [missing(key, title, budget, "reviewer/sharing/ has not landed")]
    work = ctx.fx.work / "shared"
    repo = build(work, n)
    home = work / "home-empty"
    # What the teammate's own terminal does once: `doctor` records origin and verifies the
    # shared folder against it (SECURITY.md, remote trust); the hook then reads that record.
    import os

    subprocess.run([str(ctx.exe), "doctor"], cwd=repo, capture_output=True, check=False,
                   env={**os.environ, "MEM_REVIEW_HOME": str(home)}, timeout=120,
                   stdin=subprocess.DEVNULL)
    payload = {
        "session_id": "bench-session-start-shared", "transcript_path": str(BIG_TRANSCRIPT),
        "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup",
    }
    res, out = _row(ctx, key, title, budget, 6.0, "session-start", payload, str(home))
    try:
        text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
        shown = sum(1 for line in text.splitlines() if line.startswith("- "))
        res.notes.append(f"injected {shown} facts, {len(text):,} chars; "
                         f"last line: {text.splitlines()[-1][:80]}")
        res.extra["injected_chars"] = len(text)
        if f" of {n} notes shown" not in text:  # the shared facts counted as approved
            res.status = "ERROR"
            res.notes.append("no approver shown: the shared facts were not read as approved")
    except (ValueError, KeyError, TypeError, IndexError):
        res.status = "ERROR"
        res.notes.append(f"stdout is not the SessionStart JSON: {out[:120]!r}")
    return [res]
