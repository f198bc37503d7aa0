"""`mem-review demo`: the review TUI on a scratch store, filled the real way, offline.

A scratch data dir and a scratch git project (`reviewer/demo/project/`) are made; a few
facts "reviewed earlier" are imported (`import_facts(keep_status=True)`, the documented
door for approved facts); the sample session (`reviewer/demo/session.jsonl`, the current
Claude Code format) goes through the real capture pipeline with the offline rules
extractor; then a later commit changes and renames files, so some facts are stale. No
API key, no network, nothing of the user's own store is touched.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent.parent / "demo"
PLACEHOLDER = "__DEMO_PROJECT__"
SESSION_ID = "5e55d300-0000-4000-8000-000000000001"
FIRST_COMMIT_DATE = "2026-01-05T09:30:00+00:00"
LATER_COMMIT_DATE = "2026-01-12T16:45:00+00:00"
REVIEWED_AT = 1767605400.0  # 2026-01-05 09:30 UTC, when the imported facts were decided


@dataclass(frozen=True)
class Demo:
    base: Path
    home: Path  # MEM_REVIEW_HOME
    project: Path
    transcript: Path

    @property
    def db_path(self) -> Path:
        return self.home / "store.db"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--keep", metavar="DIR",
        help="build the demo in DIR (reused if already built) and keep it afterwards",
    )
    parser.add_argument(
        "--no-tui", action="store_true",
        help="only build the demo and print its directory (for scripts and screenshots)",
    )


def layout(base: Path) -> Demo:
    return Demo(base=base, home=base / "home", project=base / "acme-api",
                transcript=base / "session.jsonl")


def _git(project: Path, *args: str, date: str | None = None) -> bool:
    """Run git quietly with a fixed identity (and date: reproducible SHAs); False if absent."""
    env = dict(os.environ)
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    cmd = ["git", "-c", "user.name=ACME Dev", "-c", "user.email=dev@acme.example",
           "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args]
    try:
        done = subprocess.run(cmd, cwd=project, env=env, capture_output=True, timeout=30,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _make_project(demo: Demo) -> bool:
    shutil.copytree(DEMO_DIR / "project", demo.project,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    has_git = _git(demo.project, "init", "-q")
    if has_git:
        has_git = _git(demo.project, "add", "-A") and _git(
            demo.project, "commit", "-q", "-m", "Order service 0.9", date=FIRST_COMMIT_DATE
        )
    return has_git


def _later_commit(demo: Demo, has_git: bool) -> None:
    """A week later: the backoff cap changed and the deploy doc moved (two stale facts)."""
    client = demo.project / "src" / "acme" / "client.py"
    client.write_text(client.read_text().replace(
        "MAX_BACKOFF_SECONDS = 60", "MAX_BACKOFF_SECONDS = 30  # the provider now allows it"))
    old, new = Path("docs/deploy.md"), Path("docs/deployment.md")
    if has_git:
        _git(demo.project, "mv", str(old), str(new))
        _git(demo.project, "commit", "-q", "-am", "Shorter backoff; rename deploy doc",
             date=LATER_COMMIT_DATE)
    else:
        (demo.project / old).rename(demo.project / new)


def _import_reviewed(demo: Demo, store: object) -> None:
    """Facts a person approved (or rejected) earlier, anchored to the first commit."""
    from reviewer.freshness.anchors import anchor_files
    from reviewer.store.dedupe import fact_key
    from reviewer.store.facts import NewFact, Store

    assert isinstance(store, Store)
    items = json.loads((DEMO_DIR / "approved.json").read_text(encoding="utf-8"))
    facts = []
    for item in items:
        commit, branch, anchors = anchor_files(demo.project, item["files"])
        facts.append(NewFact(
            project=str(demo.project), text=item["fact"], norm=fact_key(item["fact"]),
            category=item["category"], files=item["files"], confidence=item["confidence"],
            evidence=item["evidence"], context=f"User: {item['evidence']}", grounded=True,
            session_id="earlier-session", source="import", commit_sha=commit, branch=branch,
            anchors=anchors, status=item["status"], reject_reason=item.get("reject_reason"),
            created_at=REVIEWED_AT, decided_at=REVIEWED_AT,
        ))
    store.import_facts(facts, keep_status=True)


def build(base: Path) -> Demo:
    """Fill `base` with a demo store and project (idempotent: a built demo is reused)."""
    demo = layout(base.resolve())
    if demo.db_path.exists():
        return demo
    from reviewer.errors import UserError

    base.mkdir(parents=True, exist_ok=True)
    if any(base.iterdir()):
        raise UserError(f"{base}: not empty and not a demo; give an empty or new directory")
    demo.home.mkdir(mode=0o700)
    has_git = _make_project(demo)
    text = (DEMO_DIR / "session.jsonl").read_text(encoding="utf-8")
    project_json = json.dumps(str(demo.project))[1:-1]
    demo.transcript.write_text(text.replace(PLACEHOLDER, project_json), encoding="utf-8")

    from capture.pipeline import capture_now
    from reviewer.store.facts import Store

    with _home(demo.home):  # the demo's config and log, never the person's own
        store = Store(demo.db_path)
        try:
            _import_reviewed(demo, store)
            capture_now(demo.transcript, project=str(demo.project), session_id=SESSION_ID,
                        extractor="rules", cwd=str(demo.project), store=store)
        finally:
            store.close()
    _later_commit(demo, has_git)
    return demo


@contextlib.contextmanager
def _home(path: Path) -> Iterator[None]:
    before = os.environ.get("MEM_REVIEW_HOME")
    os.environ["MEM_REVIEW_HOME"] = str(path)
    try:
        yield
    finally:
        if before is None:
            del os.environ["MEM_REVIEW_HOME"]
        else:
            os.environ["MEM_REVIEW_HOME"] = before


def run(args: argparse.Namespace) -> int:
    keep = args.keep is not None
    if keep:
        base = Path(args.keep).expanduser()
    else:
        base = Path(tempfile.mkdtemp(prefix="mem-review-demo-"))
    try:
        demo = build(base)
        os.environ["MEM_REVIEW_HOME"] = str(demo.home)
        if args.no_tui:
            print(demo.base)
            return 0
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            from reviewer.errors import UserError

            raise UserError(f"the review needs a terminal (demo built in {demo.base})")
        from reviewer.tui.app import ReviewApp

        ReviewApp(project=str(demo.project), db_path=demo.db_path).run()
        if keep:
            print(f"demo kept in {demo.base}")
    finally:
        if not keep and not args.no_tui:
            shutil.rmtree(base, ignore_errors=True)
    return 0
