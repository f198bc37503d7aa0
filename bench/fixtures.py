"""The scratch world the benchmarks run in: a git repo and three stores.

Built once per run in a temp dir (or reused from `--workdir` when its manifest matches):

- `repo/`: a git repository with N committed source files; after the facts are anchored,
  a few files are then edited, deleted and renamed, as in a project that moved on.
- `facts.json`: N facts in the `mem-review list --json` shape, anchored to the files.
- `home-approved/`: those facts imported with `mem-review import --keep-status`.
- `home-pending/`: the same facts imported plainly (so pending), for the TUI.
- `home-small/`: the first 10 facts, pending: the TUI's small-store baseline.
- `home-hook/`: an empty store for the session-end hook.

Imports go through the real CLI (`mem-review import`, a subprocess) because that is how
a person would fill a store; when that command has not landed yet, `Store.import_facts`
is used instead and the manifest says so.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

FIXTURE_VERSION = 5
PACKAGES = (
    "api", "auth", "billing", "cache", "cli", "core", "db", "events", "export", "jobs",
    "mail", "models", "parser", "queue", "render", "search", "storage", "sync", "ui", "utils",
)
WORDS = (
    "upload", "token", "retry", "session", "invoice", "index", "cursor", "batch", "schema",
    "webhook", "locale", "timeout", "ledger", "snapshot", "report", "quota", "tenant",
    "thumbnail", "digest", "checksum", "migration", "fixture", "payload", "manifest",
)
TOOLS = ("pytest -x", "ruff check .", "make lint", "uv sync", "docker compose up db",
         "npm run build", "alembic upgrade head", "pre-commit run -a")
TEMPLATES = (  # (category, text): statements of the kinds the extractor proposes
    ("decision", "{id} The {word} handler in {file} retries {n} times with exponential "
     "backoff before it gives up."),
    ("convention", "{id} {file} must stay free of network calls because the {word} path "
     "runs inside the request thread."),
    ("convention", "{id} Running `{tool}` before committing is required; CI rejects {word} "
     "changes without it."),
    ("dead_end", "{id} Caching {word} results in {file} was tried and abandoned: "
     "invalidation broke the nightly export."),
    ("todo", "{id} TODO: the {word} migration still needs a backfill for tenants created "
     "before v{n}.{m}."),
    ("environment", "{id} The {word} service listens on port {port} in development and "
     "reads {WORD}_URL from the environment."),
    ("convention", "{id} Timestamps in {file} are stored as UTC epoch seconds; the UI "
     "converts them to local time."),
    ("convention", "{id} Tests for {word} use the real SQLite file in a temporary directory "
     "rather than mocks."),
    ("gotcha", "{id} {file} keeps the {word} limit at {n} items per page because larger "
     "pages time out behind the proxy."),
    ("decision", "{id} The {word} queue is drained by a single worker; two workers caused "
     "duplicate emails."),
    ("environment", "{id} Imports in {file} are sorted by ruff's isort rules, and the {word} "
     "module is first-party."),
    ("gotcha", "{id} Deleting a {word} is soft: rows keep deleted_at and a nightly job "
     "purges them after {n} days."),
)


class FixtureError(RuntimeError):
    """The scratch world could not be built; the message says which step failed."""


@dataclass
class Scale:
    files: int = 2_000
    facts: int = 10_000
    small: int = 10
    edited: int = 20
    deleted: int = 5
    renamed: int = 5

    @classmethod
    def quick(cls) -> Scale:
        return cls(files=60, facts=200, small=10, edited=2, deleted=1, renamed=1)


@dataclass
class Fixtures:
    work: Path
    repo: Path
    facts_json: Path
    small_json: Path
    home_approved: Path
    home_pending: Path
    home_small: Path
    home_hook: Path
    scale: Scale
    built_with: str = ""
    build_seconds: dict[str, float] = field(default_factory=dict)

    @property
    def project(self) -> str:
        return str(self.repo.resolve())


def mem_review_exe() -> Path | None:
    """The console script a user's Claude Code settings point at (beside the interpreter)."""
    beside = Path(sys.executable).parent / "mem-review"
    if beside.is_file():
        return beside
    found = shutil.which("mem-review")
    return Path(found) if found else None


def build(work: Path, scale: Scale, *, log: Any = print) -> Fixtures:
    """Build (or reuse) the scratch world in `work`."""
    work.mkdir(parents=True, exist_ok=True)
    fx = Fixtures(
        work=work, repo=work / "repo", facts_json=work / "facts.json",
        small_json=work / "facts-small.json", home_approved=work / "home-approved",
        home_pending=work / "home-pending", home_small=work / "home-small",
        home_hook=work / "home-hook", scale=scale,
    )
    manifest = work / "manifest.json"
    wanted = {"version": FIXTURE_VERSION, "scale": asdict(scale)}
    if manifest.is_file():
        try:
            old = json.loads(manifest.read_text())
        except ValueError:
            old = {}
        if {k: old.get(k) for k in wanted} == wanted and old.get("complete"):
            fx.built_with = str(old.get("built_with", ""))
            fx.build_seconds = dict(old.get("build_seconds", {}))
            log(f"fixtures: reusing {work}")
            return fx
    for sub in ("repo", "home-approved", "home-pending", "home-small", "home-hook"):
        shutil.rmtree(work / sub, ignore_errors=True)

    t0 = time.perf_counter()
    rng = random.Random(20_240_607)
    files = _make_repo(fx.repo, scale.files, rng)
    fx.build_seconds["repo"] = time.perf_counter() - t0
    commit = _git(fx.repo, "rev-parse", "HEAD").strip()
    facts = _make_facts(fx.repo, files, scale.facts, commit, rng)
    fx.facts_json.write_text(json.dumps(facts), encoding="utf-8")
    fx.small_json.write_text(
        json.dumps([{**f, "status": "pending", "decided_at": None} for f in facts[: scale.small]]),
        encoding="utf-8",
    )
    for home, src, keep, status, n in (
        (fx.home_approved, fx.facts_json, True, "approved", scale.facts),
        (fx.home_pending, fx.facts_json, False, "pending", scale.facts),
        (fx.home_small, fx.small_json, False, "pending", scale.small),
    ):
        t1 = time.perf_counter()
        fx.built_with = _import(fx, home, src, keep)
        fx.build_seconds[f"import {home.name}"] = time.perf_counter() - t1
        got = _count(home, status)
        if got != n:
            raise FixtureError(f"{home.name}: expected {n} {status} facts after import, got {got}")
        log(f"fixtures: {home.name}: {n} {status} facts "
            f"({fx.build_seconds[f'import {home.name}']:.1f} s via {fx.built_with})")
    _move_on(fx.repo, files, scale, rng)
    fx.build_seconds["total"] = time.perf_counter() - t0
    manifest.write_text(json.dumps({
        **wanted, "complete": True, "built_with": fx.built_with,
        "build_seconds": fx.build_seconds,
    }, indent=1))
    return fx


# ---- the repository ---------------------------------------------------------------------


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}
    out = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
         "-c", "commit.gpgsign=false", *args],
        capture_output=True, text=True, env=env, check=False,
    )
    if out.returncode != 0:
        raise FixtureError(f"git {' '.join(args)}: {out.stderr.strip()}")
    return out.stdout


def _source(rng: random.Random, name: str) -> str:
    """A plausible Python module of 10–250 lines."""
    lines = [f'"""{name}: generated for the mem-review benchmarks."""', "", "import os", ""]
    for k in range(rng.randint(2, 50)):
        word = rng.choice(WORDS)
        lines += [
            f"def {word}_{k}(value: int) -> int:",
            f"    limit = int(os.environ.get('{word.upper()}_LIMIT', '{rng.randint(1, 999)}'))",
            "    return min(value, limit)",
            "",
        ]
    return "\n".join(lines) + "\n"


def _make_repo(repo: Path, n: int, rng: random.Random) -> list[str]:
    repo.mkdir(parents=True)
    files: list[str] = []
    old = time.time() - 3600  # older than any "same-second edit" window of the hash cache
    for i in range(n):
        pkg = PACKAGES[i % len(PACKAGES)]
        rel = f"src/{pkg}/{rng.choice(WORDS)}_{i:04d}.py"
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_source(rng, rel), encoding="utf-8")
        os.utime(path, (old, old))
        files.append(rel)
    (repo / "README.md").write_text("# bench project\n", encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "initial")
    return files


def _move_on(repo: Path, files: list[str], scale: Scale, rng: random.Random) -> None:
    """After capture the project moves on: edits, deletions, renames (a few stale facts)."""
    picked = rng.sample(files, scale.edited + scale.deleted + scale.renamed)
    old = time.time() - 1800
    for rel in picked[: scale.edited]:
        path = repo / rel
        with path.open("a", encoding="utf-8") as f:
            f.write("# edited after the facts were captured\n")
        os.utime(path, (old, old))
    for rel in picked[scale.edited : scale.edited + scale.deleted]:
        (repo / rel).unlink()
    for rel in picked[scale.edited + scale.deleted :]:
        _git(repo, "mv", rel, rel.replace(".py", "_renamed.py"))
    _git(repo, "commit", "-q", "-m", "rename a few modules")


# ---- the facts ----------------------------------------------------------------------------


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def _make_facts(
    repo: Path, files: list[str], n: int, commit: str, rng: random.Random
) -> list[dict[str, Any]]:
    from reviewer.freshness.anchors import blob_sha

    shas = {rel: blob_sha(repo / rel) for rel in files}
    base = time.time() - 90 * 86400
    facts: list[dict[str, Any]] = []
    for i in range(1, n + 1):
        k = rng.choices((0, 1, 2, 3), weights=(10, 60, 20, 10))[0]
        cited = rng.sample(files, k)
        word = rng.choice(WORDS)
        category, template = TEMPLATES[i % len(TEMPLATES)]
        text = template.format(
            id=f"F{i:05d}", word=word, WORD=word.upper(),
            file=cited[0] if cited else "the project",
            n=rng.randint(2, 60), m=rng.randint(0, 9), port=rng.randint(3000, 9999),
            tool=rng.choice(TOOLS),
        )
        if i % 10 == 3:  # the only facts with a "z": the TUI rows filter on it
            text = text.removesuffix(".") + ", as agreed with the zone team."
        evidence = f"we settled it: the {word} code {'in ' + cited[0] if cited else ''} " \
                   f"works this way, keep it (see ticket #{rng.randint(100, 9999)})"
        context = "\n\n".join([
            f"User: can you look at the {word} path again? It broke in staging.",
            f"Assistant: I read {cited[0] if cited else 'the code'} and ran the tests.",
            f"  · Bash: {rng.choice(TOOLS)}",
            f"User: {evidence}",
            "Assistant: Understood. I will leave the behaviour as it is and note it.",
        ])
        created = base + i * 600
        facts.append({
            "id": i, "fact": text, "category": category,
            "files": cited, "confidence": round(rng.uniform(0.35, 0.99), 2),
            "status": "approved", "reject_reason": None, "grounded": rng.random() > 0.05,
            "stale": False, "evidence": evidence, "context": context,
            "session_id": f"bench-session-{i // 7:04d}", "created_at": _iso(created),
            "decided_at": _iso(created + 3600), "approved_at": _iso(created + 3600),
            "missing_files": [], "times_seen": rng.choice((1, 1, 1, 2, 3)),
            "commit_sha": commit, "branch": "main",
            "anchors": {rel: shas[rel] for rel in cited}, "source": "model",
        })
    with_z = [f["id"] for f in facts
              if "z" in (f["fact"] + f["category"] + " ".join(f["files"])).lower()]
    if with_z != [f["id"] for f in facts if f["id"] % 10 == 3]:  # the TUI filter relies on it
        raise FixtureError("the letter z must appear in exactly the 'zone team' facts")
    return facts


# ---- the stores ---------------------------------------------------------------------------


def _import(fx: Fixtures, home: Path, src: Path, keep: bool) -> str:
    """Fill a store through `mem-review import` (the real CLI); fall back in-process."""
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    exe = mem_review_exe()
    import importlib.util

    if exe is not None and importlib.util.find_spec("reviewer.commands.importing"):
        env = {**os.environ, "MEM_REVIEW_HOME": str(home), "MEM_REVIEW_NO_SPAWN": "1"}
        cmd = [str(exe), "import", str(src), *(["--keep-status"] if keep else [])]
        if keep:  # the approving import asks on a terminal: the fixture plays the person
            env.pop("CLAUDECODE", None)
            code, text = _typed_on_terminal(cmd, fx.repo, env)
            if code != 0:
                raise FixtureError(f"mem-review import --keep-status failed ({code}): "
                                   f"{text.strip()[-500:]}")
            return "mem-review import --keep-status (confirmed on a pty)"
        out = subprocess.run(cmd, cwd=fx.repo, env=env, capture_output=True, text=True,
                             check=False, timeout=600)
        if out.returncode != 0:
            raise FixtureError(f"mem-review import failed ({out.returncode}): "
                               f"{(out.stderr or out.stdout).strip()[-500:]}")
        return "mem-review import"
    _import_in_process(fx, home, src, keep)
    return "Store.import_facts (mem-review import has not landed)"


def _typed_on_terminal(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run `cmd` on a pseudo-terminal and type the `approve N` it asks for."""
    import pty
    import re
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.chdir(cwd)
            os.execvpe(cmd[0], cmd, env)
        finally:
            os._exit(127)
    out, sent, deadline = b"", False, time.monotonic() + 600
    try:
        while time.monotonic() < deadline:
            if not select.select([fd], [], [], 0.2)[0]:
                continue
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            out += data
            asked = re.search(rb"Type `(approve \d+)`", out)
            if asked and not sent:
                os.write(fd, asked.group(1) + b"\n")
                sent = True
    finally:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def _import_in_process(fx: Fixtures, home: Path, src: Path, keep: bool) -> None:
    from reviewer.store.dedupe import fact_key
    from reviewer.store.facts import NewFact, Store

    rows = json.loads(src.read_text(encoding="utf-8"))

    def ts(s: str | None) -> float | None:
        return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() if s else None

    new = [
        NewFact(
            project=fx.project, text=r["fact"], norm=fact_key(r["fact"]),
            category=r["category"], files=r["files"], confidence=r["confidence"],
            evidence=r["evidence"], context=r["context"], grounded=r["grounded"],
            session_id=r["session_id"], source="import", commit_sha=r["commit_sha"],
            branch=r["branch"], anchors=r["anchors"], status=r["status"],
            created_at=ts(r["created_at"]), decided_at=ts(r["decided_at"]),
        )
        for r in rows
    ]
    store = Store(home / "store.db")
    try:
        store.import_facts(new, keep_status=keep)
    finally:
        store.close()


def _count(home: Path, status: str) -> int:
    db = home / "store.db"
    if not db.is_file():
        return 0
    conn = sqlite3.connect(db)
    try:
        row = conn.execute("SELECT count(*) FROM fact WHERE status = ?", (status,)).fetchone()
        return int(row[0])
    finally:
        conn.close()
