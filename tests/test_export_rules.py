"""`mem-review export --rules`: approved, non-stale, non-personal facts as `.claude/rules/`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sharing_helpers import approve, team

from reviewer.store.facts import Store


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "home"))
    _, alice, _ = team(tmp_path, {"src/db.py": "WAL = True\n", "src/api.py": "x = 1\n"})
    return alice


def _export(root: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "reviewer.cli", "export", "--rules"], cwd=root,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_rules_have_paths_from_cited_files_and_leave_out_stale_and_personal(repo: Path) -> None:
    approve(repo, "Run the tests with make test")
    approve(repo, "The database opens in WAL mode", ("src/db.py",))
    approve(repo, "The API handler returns x", ("src/api.py",))
    mine = approve(repo, "I like tabs")
    store = Store()
    store.set_personal([mine], True)
    store.close()
    (repo / "src/api.py").write_text("x = 2\n")  # the API fact is stale now
    rules = repo / ".claude" / "rules"
    (rules).mkdir(parents=True)
    (rules / "team-style.md").write_text("a rule of the team's own\n")
    out = _export(repo)
    names = sorted(p.name for p in rules.iterdir())
    assert "team-style.md" in names and "mem-review.md" in names
    (db_rule,) = [n for n in names if n.startswith("mem-review-db-")]
    assert len(names) == 3, names
    text = (rules / db_rule).read_text()
    assert text.startswith('---\npaths:\n  - "src/db.py"\n---\n')
    assert "- The database opens in WAL mode" in text
    wide = (rules / "mem-review.md").read_text()
    assert "- Run the tests with make test" in wide and "paths:" not in wide
    everything = "".join(p.read_text() for p in rules.iterdir())
    assert "I like tabs" not in everything and "returns x" not in everything
    assert "2 facts in 2 rule files" in out
    again = _export(repo)
    assert "0 written, 0 removed" in again
    # The database fact is rejected: its rule file goes, the team's own file stays.
    conn_store = Store()
    (fid,) = [f.id for f in conn_store.facts(str(repo)) if "WAL" in f.text]
    conn_store.reject([fid], "outdated")
    conn_store.close()
    out = _export(repo)
    assert f"removed .claude/rules/{db_rule}" in out
    assert sorted(p.name for p in rules.iterdir()) == ["mem-review.md", "team-style.md"]


def test_export_alone_writes_the_rules(repo: Path) -> None:
    """Seen: `mem-review export` was a usage error though `--rules` is its only form."""
    approve(repo, "Run the tests with make test")
    alone = subprocess.run([sys.executable, "-m", "reviewer.cli", "export"], cwd=repo,
                           capture_output=True, text=True, check=False)
    assert alone.returncode == 0, alone.stderr
    flagged = _export(repo)
    assert alone.stdout.splitlines()[-1] == "1 fact in 1 rule file; 1 written, 0 removed"
    assert "0 written, 0 removed" in flagged  # the same files: export alone is --rules
