"""Real git for sharing tests: a bare remote, clones of it, facts approved as the TUI does."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from reviewer.freshness import anchors
from reviewer.store import db
from reviewer.store.dedupe import fact_key
from reviewer.store.facts import Store


def git(root: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(["git", "-C", str(root), "-c", "commit.gpgsign=false", *args],
                          capture_output=True, text=True, check=check)
    return done.stdout


def team(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path, Path]:
    """(bare remote, Alice's clone, Bob's clone), the first commit holding `files`."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    seed = tmp_path / "seed"
    subprocess.run(["git", "clone", "-q", str(remote), str(seed)], check=True,
                   capture_output=True)
    _identity(seed, "Seed", "seed@example.com")
    for rel, text in files.items():
        (seed / rel).parent.mkdir(parents=True, exist_ok=True)
        (seed / rel).write_text(text)
    git(seed, "add", "-A")
    git(seed, "commit", "-qm", "init")
    git(seed, "push", "-q", "origin", "HEAD:main")
    clones = []
    for name, email in (("Alice", "alice@example.com"), ("Bob", "bob@example.com")):
        clone = tmp_path / name.lower()
        subprocess.run(["git", "clone", "-q", str(remote), str(clone)], check=True,
                       capture_output=True)
        _identity(clone, f"{name} Example", email)
        clones.append(clone)
    return remote, clones[0], clones[1]


def _identity(root: Path, name: str, email: str) -> None:
    git(root, "config", "user.name", name)
    git(root, "config", "user.email", email)


def approve(root: Path, text: str, files: tuple[str, ...] = (), *, category: str = "decision",
            evidence: str = "we agreed on it in the session") -> int:
    """A pending candidate as the worker stores it, then approved with a person's actor."""
    commit, branch, anchor_map = anchors.anchor_files(root, list(files))
    now = time.time()
    conn = db.connect()
    try:
        with db.transaction(conn):
            cur = conn.execute(
                "INSERT INTO fact (project, text, norm, category, files, confidence, evidence, "
                "status, commit_sha, branch, anchors, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, 0.8, ?, 'pending', ?, ?, ?, ?, ?)",
                (str(root), text, fact_key(text), category, json.dumps(list(files)), evidence,
                 commit, branch, json.dumps(anchor_map, sort_keys=True), now, now),
            )
        fact_id = int(cur.lastrowid or 0)
    finally:
        conn.close()
    store = Store()
    try:
        store.approve([fact_id], actor="tui")
    finally:
        store.close()
    return fact_id


def share(root: Path) -> str:
    """`mem-review share` in `root`, as a person runs it; its stdout."""
    import sys

    done = subprocess.run([sys.executable, "-m", "reviewer.cli", "share"], cwd=root,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def publish(root: Path, message: str = "share facts") -> None:
    """A person commits the folder and pushes it to the default branch; their next
    `share`, `doctor` or worker run verifies it against the remote (here at once)."""
    git(root, "add", ".mem-review")
    git(root, "commit", "-qm", message)
    git(root, "push", "-q", "origin", "HEAD:main")
    verify(root)


def pull(root: Path) -> None:
    """A person pulls; their next `share`, `doctor` or worker run verifies the remote."""
    git(root, "pull", "-q")
    verify(root)


def verify(root: Path) -> None:
    """Ask the remote (recording origin's URL the first time) for the current store."""
    from reviewer.sharing import remote_trust

    conn = db.connect()
    try:
        remote_trust.refresh(conn, root, setup=True)
    finally:
        conn.close()
