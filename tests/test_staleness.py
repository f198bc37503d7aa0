"""Staleness verdicts against real git repositories in tmp_path, and the TUI's file diff."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from reviewer import anchors, db, staleness
from reviewer.staleness import ScanStats, verdicts

OLD = time.time() - 3600  # an mtime well past SETTLE_NS, so hashes may be cached
_tick = iter(range(1, 1_000_000))


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        [
            "git",
            "-C",
            str(root),
            "-c",
            "user.email=t@example.com",
            "-c",
            "user.name=t",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def write(root: Path, rel: str, text: str, mtime: float | None = None) -> None:
    """Write with an old mtime (cacheable), a distinct one each time so git sees edits."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    stamp = OLD + next(_tick) if mtime is None else mtime
    os.utime(path, (stamp, stamp))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, "src/app.py", "def main():\n    return 1\n")
    write(root, "src/util.py", UTIL)
    write(root, "README.md", "# proj\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


UTIL = "".join(f"def helper{i}(x):\n    return x * {i}\n" for i in range(10))


def fact(fact_id: int, root: Path, files: list[str]) -> dict[str, object]:
    commit, _, anchor_map = anchors.anchor_files(root, files)
    return {
        "id": fact_id,
        "files": json.dumps(files),
        "anchors": json.dumps(anchor_map, sort_keys=True),
        "commit_sha": commit,
    }


def conn() -> sqlite3.Connection:
    return db.connect()


def test_fresh_when_nothing_changed(repo: Path) -> None:
    v = verdicts(conn(), repo, [fact(1, repo, ["src/app.py", "src/util.py"])])[1]
    assert (v.state, v.stale) == ("fresh", False)
    assert v.files == {"src/app.py": "fresh", "src/util.py": "fresh"}
    assert v.renamed_to == {}


def test_changed_uncommitted(repo: Path) -> None:
    f = fact(1, repo, ["src/app.py", "src/util.py"])
    write(repo, "src/app.py", "def main():\n    return 2\n")
    v = verdicts(conn(), repo, [f])[1]
    assert (v.state, v.stale) == ("changed", True)
    assert v.files == {"src/app.py": "changed", "src/util.py": "fresh"}


def test_changed_committed(repo: Path) -> None:
    f = fact(1, repo, ["src/app.py"])
    write(repo, "src/app.py", "def main():\n    return 3\n")
    git(repo, "commit", "-qam", "edit")
    assert verdicts(conn(), repo, [f])[1].state == "changed"


def test_changed_back_to_the_anchored_content_is_fresh_again(repo: Path) -> None:
    f = fact(1, repo, ["src/app.py"])
    original = (repo / "src/app.py").read_text()
    write(repo, "src/app.py", "changed\n")
    assert verdicts(conn(), repo, [f])[1].state == "changed"
    write(repo, "src/app.py", original)
    assert verdicts(conn(), repo, [f])[1].state == "fresh"


def test_moved_by_git_mv_and_commit(repo: Path) -> None:
    f = fact(1, repo, ["src/util.py"])
    git(repo, "mv", "src/util.py", "src/helpers.py")
    git(repo, "commit", "-qm", "rename")
    v = verdicts(conn(), repo, [f])[1]
    assert (v.state, v.stale) == ("moved", True)
    assert v.renamed_to == {"src/util.py": "src/helpers.py"}
    assert v.files == {"src/util.py": "moved"}


def test_moved_and_edited_is_found_by_the_rename_diff(repo: Path) -> None:
    body = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(30))
    write(repo, "src/big.py", body)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "big")
    f = fact(1, repo, ["src/big.py"])
    git(repo, "mv", "src/big.py", "src/large.py")
    write(repo, "src/large.py", body + "def extra():\n    return 0\n")
    git(repo, "commit", "-qam", "rename and edit")
    v = verdicts(conn(), repo, [f])[1]
    assert v.state == "moved"
    assert v.renamed_to == {"src/big.py": "src/large.py"}


def test_moved_by_a_plain_mv_in_the_working_tree(repo: Path) -> None:
    f = fact(1, repo, ["src/util.py"])
    (repo / "src/util.py").rename(repo / "src/tools.py")
    v = verdicts(conn(), repo, [f])[1]
    assert v.state == "moved"
    assert v.renamed_to == {"src/util.py": "src/tools.py"}


def test_deleted(repo: Path) -> None:
    f = fact(1, repo, ["src/util.py", "src/app.py"])
    git(repo, "rm", "-q", "src/util.py")
    git(repo, "commit", "-qm", "drop")
    v = verdicts(conn(), repo, [f])[1]
    assert (v.state, v.stale) == ("deleted", True)
    assert v.files == {"src/util.py": "deleted", "src/app.py": "fresh"}


def test_an_empty_file_elsewhere_is_no_rename_clue(repo: Path) -> None:
    write(repo, "pkg/__init__.py", "")
    write(repo, "other/__init__.py", "")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pkgs")
    f = fact(1, repo, ["pkg/__init__.py"])
    (repo / "pkg/__init__.py").unlink()
    assert verdicts(conn(), repo, [f])[1].state == "deleted"


def test_unanchored(repo: Path) -> None:
    facts = [
        {"id": 1, "files": "[]", "anchors": "{}", "commit_sha": None},
        {"id": 2, "files": '["gone.py"]', "anchors": '{"gone.py": null}', "commit_sha": None},
        {"id": 3, "files": '["src/app.py"]', "anchors": "{}", "commit_sha": None},
        {"id": 4, "files": "[]", "anchors": None, "commit_sha": None},
    ]
    out = verdicts(conn(), repo, facts)
    assert {i: (v.state, v.stale) for i, v in out.items()} == {
        1: ("unanchored", False),
        2: ("unanchored", False),
        3: ("unanchored", False),
        4: ("unanchored", False),
    }


def test_a_null_anchor_beside_a_real_one_only_counts_the_real_one(repo: Path) -> None:
    anchors_json = json.dumps(
        {"src/app.py": anchors.blob_sha(repo / "src/app.py"), "never.py": None}
    )
    f = {"id": 1, "files": "[]", "anchors": anchors_json, "commit_sha": None}
    v = verdicts(conn(), repo, [f])[1]
    assert (v.state, v.files) == ("fresh", {"src/app.py": "fresh"})


def test_worst_file_decides(repo: Path) -> None:
    f = fact(1, repo, ["src/app.py", "src/util.py", "README.md"])
    write(repo, "README.md", "# changed\n")
    (repo / "src/util.py").unlink()
    v = verdicts(conn(), repo, [f])[1]
    assert v.state == "deleted"
    assert v.files == {"src/app.py": "fresh", "src/util.py": "deleted", "README.md": "changed"}


def test_non_git_project_hashes_and_never_calls_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "plain"
    write(root, "a.txt", "alpha\n")
    write(root, "b.txt", "beta\n")
    write(root, "c.txt", "gamma\n")
    facts = [fact(1, root, ["a.txt"]), fact(2, root, ["b.txt"]), fact(3, root, ["c.txt"])]
    assert all(f["commit_sha"] is None for f in facts)
    write(root, "b.txt", "beta two\n")
    (root / "c.txt").rename(root / "c2.txt")  # moved, but without git nobody can tell
    calls: list[object] = []
    real_run = subprocess.run
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: calls.append(a) or real_run(*a, **k))
    out = verdicts(conn(), root, facts)
    assert [out[i].state for i in (1, 2, 3)] == ["fresh", "changed", "deleted"]
    assert calls == []


def test_input_forms_rows_dicts_objects_and_parsed_anchors(repo: Path) -> None:
    f = fact(7, repo, ["src/app.py"])
    c = conn()
    c.execute(
        "INSERT INTO fact (id, project, text, norm, category, files, anchors, commit_sha, "
        "created_at, updated_at) VALUES (7, ?, 't', 't', 'decision', ?, ?, ?, 0, 0)",
        (str(repo), f["files"], f["anchors"], f["commit_sha"]),
    )
    row = c.execute("SELECT * FROM fact WHERE id = 7").fetchone()
    obj = SimpleNamespace(
        id=8,
        files=["src/app.py"],
        anchors=json.loads(str(f["anchors"])),
        commit_sha=f["commit_sha"],
    )
    out = verdicts(c, repo, [row])
    out.update(verdicts(c, repo, [obj]))
    out.update(verdicts(c, repo, [{**f, "id": 9}]))
    assert {i: v.state for i, v in out.items()} == {7: "fresh", 8: "fresh", 9: "fresh"}


def test_facts_sharing_anchors_are_judged_once_each_keeps_its_id(repo: Path) -> None:
    f = fact(1, repo, ["src/app.py"])
    facts = [{**f, "id": i} for i in range(1, 51)]
    write(repo, "src/app.py", "changed\n")
    out = verdicts(conn(), repo, facts)
    assert sorted(out) == list(range(1, 51))
    assert {v.state for v in out.values()} == {"changed"}


def test_the_hash_cache_is_reused_and_invalidated_on_edit(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    facts = [fact(1, repo, ["src/app.py"]), fact(2, repo, ["src/util.py", "README.md"])]
    hashed: list[str] = []
    real = staleness.hash_file
    monkeypatch.setattr(staleness, "hash_file", lambda p, st: hashed.append(p) or real(p, st))
    c = conn()
    first = ScanStats()
    verdicts(c, repo, facts, stats=first)
    assert (first.files, first.hashed, first.cache_written) == (3, 3, 3)
    assert c.execute("SELECT COUNT(*) FROM hash_cache").fetchone()[0] == 3

    hashed.clear()
    second = ScanStats()
    out = verdicts(c, repo, facts, stats=second)
    assert hashed == []  # nothing re-read
    assert (second.hashed, second.cached) == (0, 3)
    assert out[1].state == "fresh"

    write(repo, "src/app.py", "def main():\n    return 42\n")
    third = ScanStats()
    out = verdicts(c, repo, facts, stats=third)
    assert hashed == [str(repo / "src/app.py")]
    assert out[1].state == "changed" and out[2].state == "fresh"
    assert third.cache_written == 1


def test_a_same_size_edit_with_the_same_mtime_is_not_trusted_while_recent(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within SETTLE_NS of its mtime a file is always re-hashed and never cached."""
    recent = time.time()
    write(repo, "src/app.py", "aaaa\n", mtime=recent)
    f = fact(1, repo, ["src/app.py"])
    c = conn()
    st = ScanStats()
    assert verdicts(c, repo, [f], stats=st)[1].state == "fresh"
    assert st.cache_written == 0
    write(repo, "src/app.py", "bbbb\n", mtime=recent)  # same size, same mtime
    st = ScanStats()
    assert verdicts(c, repo, [f], stats=st)[1].state == "changed"
    assert st.hashed == 1


def test_a_cache_row_is_not_trusted_for_a_recently_modified_file(repo: Path) -> None:
    """Even a row matching size and mtime exactly: the file may change again in that tick."""
    write(repo, "src/app.py", "fresh content\n", mtime=time.time())
    f = fact(1, repo, ["src/app.py"])
    info = (repo / "src/app.py").stat()
    c = conn()
    c.execute(
        "INSERT INTO hash_cache VALUES (?, ?, ?, ?)",
        (str(repo / "src/app.py"), info.st_size, info.st_mtime_ns, "0" * 40),
    )
    assert verdicts(c, repo, [f])[1].state == "fresh"


def test_a_poisoned_cache_row_with_an_old_mtime_is_believed_only_when_stat_matches(
    repo: Path,
) -> None:
    f = fact(1, repo, ["src/app.py"])
    c = conn()
    info = (repo / "src/app.py").stat()
    c.execute(
        "INSERT INTO hash_cache VALUES (?, ?, ?, ?)",
        (str(repo / "src/app.py"), info.st_size, info.st_mtime_ns + 1, "0" * 40),
    )
    assert verdicts(c, repo, [f])[1].state == "fresh"  # mtime differs: re-hashed


def test_read_only_store_skips_the_cache(repo: Path, home: Path) -> None:
    f = fact(1, repo, ["src/app.py"])
    conn().close()
    ro = sqlite3.connect(f"file:{home / 'store.db'}?mode=ro", uri=True, isolation_level=None)
    st = ScanStats()
    assert verdicts(ro, repo, [f], stats=st)[1].state == "fresh"
    assert st.cache_written == 0
    assert verdicts(None, repo, [f])[1].state == "fresh"


def test_one_git_pass_for_many_missing_files(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(20):
        write(repo, f"mod/m{i}.py", f"value = {i}\n" * 20)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "mods")
    facts = [fact(i, repo, [f"mod/m{i}.py", "src/app.py"]) for i in range(20)]
    for i in range(10):
        (repo / f"mod/m{i}.py").unlink()
    calls: list[list[str]] = []
    real_run = subprocess.run

    def counting(cmd: list[str], *a: object, **k: object) -> object:
        calls.append(cmd)
        return real_run(cmd, *a, **k)  # type: ignore[call-overload]

    monkeypatch.setattr(subprocess, "run", counting)
    st = ScanStats()
    out = verdicts(conn(), repo, facts, stats=st)
    assert [out[i].state for i in range(20)] == ["deleted"] * 10 + ["fresh"] * 10
    assert 1 <= len(calls) <= 2 and st.git_calls == len(calls)

    calls.clear()
    verdicts(conn(), repo, facts[10:])
    assert calls == []  # nothing missing: no git at all


def test_default_branch_and_refs_read_from_dot_git(repo: Path) -> None:
    assert anchors.default_branch(repo) == "main"
    assert anchors.read_ref(repo, "refs/heads/main") == anchors.git_head(repo)[0]
    git(repo, "pack-refs", "--all")
    assert anchors.read_ref(repo, "refs/heads/main") == anchors.git_head(repo)[0]
    assert anchors.is_git(repo) and not anchors.is_git(repo / "src")


# ---- gitdiff: the TUI's view of what changed -------------------------------------------


def test_file_diff_shows_uncommitted_changes(repo: Path) -> None:
    from reviewer.gitdiff import file_diff

    commit = anchors.git_head(repo)[0]
    write(repo, "src/app.py", "def main():\n    return 2\n")
    diff = file_diff(repo, commit, "src/app.py")
    assert "--- a/src/app.py" in diff and "+++ b/src/app.py" in diff
    assert "-    return 1" in diff and "+    return 2" in diff


def test_file_diff_follows_a_rename_and_shows_a_deletion(repo: Path) -> None:
    from reviewer.gitdiff import file_diff, follow_rename

    commit = anchors.git_head(repo)[0]
    git(repo, "mv", "src/util.py", "src/helpers.py")
    write(repo, "src/helpers.py", UTIL.replace("x * 3", "x * 33"))
    git(repo, "commit", "-qam", "rename")
    assert follow_rename(repo, commit, "src/util.py") == "src/helpers.py"
    diff = file_diff(repo, commit, "src/util.py")
    assert "rename from src/util.py" in diff and "rename to src/helpers.py" in diff
    assert "-    return x * 3\n+    return x * 33" in diff

    (repo / "README.md").unlink()
    gone = file_diff(repo, commit, "README.md")
    assert "+++ /dev/null" in gone and "-# proj" in gone
    assert follow_rename(repo, commit, "README.md") is None


def test_file_diff_outside_git_and_with_an_unknown_commit(tmp_path: Path, repo: Path) -> None:
    from reviewer.gitdiff import file_diff

    plain = tmp_path / "plain"
    write(plain, "a.txt", "x\n")
    assert file_diff(plain, None, "a.txt").startswith("(no git history")
    assert file_diff(repo, "f" * 40, "src/app.py").startswith("(the capture commit")
    commit = anchors.git_head(repo)[0]
    assert "no change" in file_diff(repo, commit, "src/app.py")


def test_stale_ids_agree_with_verdicts_and_never_call_git(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    facts = [
        fact(1, repo, ["src/app.py"]),
        fact(2, repo, ["src/util.py"]),
        fact(3, repo, ["README.md"]),
        fact(4, repo, ["src/app.py", "README.md"]),
        {"id": 5, "files": "[]", "anchors": "{}", "commit_sha": None},
    ]
    facts.append(
        {
            **fact(6, repo, ["src/app.py"]),
            "anchors": {"src/app.py": anchors.blob_sha(repo / "src/app.py")},
        }
    )
    write(repo, "README.md", "# changed\n")
    git(repo, "mv", "src/util.py", "src/moved.py")
    expected = {i for i, v in verdicts(conn(), repo, facts).items() if v.stale}
    assert expected == {2, 3, 4}
    calls: list[object] = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: calls.append(a))
    items = [(f["id"], f["anchors"], f["commit_sha"]) for f in facts]
    assert staleness.stale_ids(conn(), repo, items) == expected
    assert calls == []


@pytest.mark.parametrize("junk", ["not json", "[1, 2]", '{"a": "b"}, {"c": "d"}', "5", '{"x": 5'])
def test_junk_anchors_are_unanchored_and_spoil_nothing_else(repo: Path, junk: str) -> None:
    good = fact(1, repo, ["src/app.py"])
    changed = fact(2, repo, ["README.md"])
    write(repo, "README.md", "# changed\n")
    facts = [good, changed, {"id": 3, "files": "[]", "anchors": junk, "commit_sha": None}]
    out = verdicts(conn(), repo, facts)
    assert {i: v.state for i, v in out.items()} == {1: "fresh", 2: "changed", 3: "unanchored"}
