"""Staleness verdicts against real git repositories in tmp_path, and the TUI's file diff."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import git, processes_started, write_old
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

from reviewer.freshness import anchors, staleness
from reviewer.freshness.staleness import ScanStats, verdicts
from reviewer.store import db

# A private data dir (conftest) for every test of the file.
pytestmark = pytest.mark.usefixtures("home")


write = write_old


@pytest.fixture(autouse=True)
def fresh_memory() -> None:
    """Each test starts with nothing remembered from another (plans, SHAs, moves)."""
    staleness.forget()


@pytest.fixture
def spawned(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """Every process started from now on."""
    with processes_started(monkeypatch) as calls:
        yield calls


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
    assert v is staleness.FRESH_VERDICT  # one shared, read-only verdict for every fresh fact
    assert v.files == {} and v.renamed_to == {}
    with pytest.raises(TypeError):
        v.files["x"] = "y"  # type: ignore[index]


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
    st = ScanStats()
    assert verdicts(conn(), repo, [f], stats=st)[1].state == "fresh"
    assert st.files == 1  # never.py is not even looked at
    write(repo, "src/app.py", "changed\n")
    v = verdicts(conn(), repo, [f])[1]
    assert (v.state, v.files) == ("changed", {"src/app.py": "changed"})


def test_worst_file_decides(repo: Path) -> None:
    f = fact(1, repo, ["src/app.py", "src/util.py", "README.md"])
    write(repo, "README.md", "# changed\n")
    (repo / "src/util.py").unlink()
    v = verdicts(conn(), repo, [f])[1]
    assert v.state == "deleted"
    assert v.files == {"src/app.py": "fresh", "src/util.py": "deleted", "README.md": "changed"}


def test_non_git_project_hashes_and_never_calls_git(
    tmp_path: Path, spawned: list[list[str]]
) -> None:
    root = tmp_path / "plain"
    write(root, "a.txt", "alpha\n")
    write(root, "b.txt", "beta\n")
    write(root, "c.txt", "gamma\n")
    facts = [fact(1, root, ["a.txt"]), fact(2, root, ["b.txt"]), fact(3, root, ["c.txt"])]
    assert all(f["commit_sha"] is None for f in facts)
    write(root, "b.txt", "beta two\n")
    (root / "c.txt").rename(root / "c2.txt")  # moved, but without git nobody can tell
    out = verdicts(conn(), root, facts)
    assert [out[i].state for i in (1, 2, 3)] == ["fresh", "changed", "deleted"]
    assert spawned == []


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
    monkeypatch.setattr(staleness, "hash_file",
                        lambda r, p, st: hashed.append(f"{r}/{p}") or real(r, p, st))
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


@pytest.mark.parametrize("commit", [False, True])
def test_a_rewrite_that_restores_size_and_mtime_is_seen(repo: Path, commit: bool) -> None:
    """`touch -d` puts the mtime back, not the ctime: the cache must not vouch for it
    (before the fix the file stayed "fresh" and was injected, even after a commit)."""
    import os
    import subprocess

    f = fact(1, repo, ["src/app.py"])
    path = repo / "src/app.py"
    before = path.stat()
    c = conn()
    st = ScanStats()
    assert verdicts(c, repo, [f], stats=st)[1].state == "fresh"
    assert st.cache_written == 1  # the row that could be fooled
    text = path.read_text()
    if commit:
        time.sleep(1.1)  # git compares ctimes in whole seconds: let it see the rewrite
    path.write_text(text.replace("return 1", "return 9"))  # same size
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(before.st_mtime))
    subprocess.run(["touch", "-d", f"{stamp}.{before.st_mtime_ns % 10**9:09d}", str(path)],
                   check=True)
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    if commit:
        git(repo, "commit", "-qam", "rewrite")
    assert os.stat(path).st_ctime_ns != before.st_ctime_ns
    st = ScanStats()
    assert verdicts(c, repo, [f], stats=st)[1].state == "changed"
    assert st.hashed == 1


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
        "INSERT INTO hash_cache VALUES (?, ?, ?, ?, ?, ?)",
        (str(repo / "src/app.py"), info.st_size, info.st_mtime_ns, info.st_ctime_ns,
         info.st_ino, "0" * 40),
    )
    assert verdicts(c, repo, [f])[1].state == "fresh"


def test_a_poisoned_cache_row_with_an_old_mtime_is_believed_only_when_stat_matches(
    repo: Path,
) -> None:
    f = fact(1, repo, ["src/app.py"])
    c = conn()
    info = (repo / "src/app.py").stat()
    c.execute(
        "INSERT INTO hash_cache VALUES (?, ?, ?, ?, ?, ?)",
        (str(repo / "src/app.py"), info.st_size, info.st_mtime_ns + 1, info.st_ctime_ns,
         info.st_ino, "0" * 40),
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


def test_one_git_pass_for_many_missing_files(repo: Path, spawned: list[list[str]]) -> None:
    for i in range(20):
        write(repo, f"mod/m{i}.py", f"value = {i}\n" * 20)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "mods")
    facts = [fact(i, repo, [f"mod/m{i}.py", "src/app.py"]) for i in range(20)]
    for i in range(10):
        (repo / f"mod/m{i}.py").unlink()
    spawned.clear()
    st = ScanStats()
    out = verdicts(conn(), repo, facts, stats=st)
    assert [out[i].state for i in range(20)] == ["deleted"] * 10 + ["fresh"] * 10
    assert len(spawned) == 2 and st.git_calls == 2  # ls-files -o and diff -M, side by side
    assert {tuple(c[3:5]) for c in spawned} == {("ls-files", "-z"), ("diff", "-z")}

    spawned.clear()
    st = ScanStats()
    verdicts(conn(), repo, facts, stats=st)
    assert spawned == [] and st.moves_remembered  # nothing moved since: the answer is kept

    verdicts(conn(), repo, facts[10:])
    assert spawned == []  # nothing missing: no git at all


def test_default_branch_and_refs_read_from_dot_git(repo: Path) -> None:
    assert anchors.default_branch(repo) == "main"
    assert anchors.read_ref(repo, "refs/heads/main") == anchors.git_head(repo)[0]
    git(repo, "pack-refs", "--all")
    assert anchors.read_ref(repo, "refs/heads/main") == anchors.git_head(repo)[0]
    assert anchors.is_git(repo) and not anchors.is_git(repo / "src")


# ---- gitdiff: the TUI's view of what changed -------------------------------------------


def test_file_diff_shows_uncommitted_changes(repo: Path) -> None:
    from reviewer.freshness.git_diff import file_diff

    commit = anchors.git_head(repo)[0]
    write(repo, "src/app.py", "def main():\n    return 2\n")
    diff = file_diff(repo, commit, "src/app.py")
    assert "--- a/src/app.py" in diff and "+++ b/src/app.py" in diff
    assert "-    return 1" in diff and "+    return 2" in diff


def test_file_diff_follows_a_rename_and_shows_a_deletion(repo: Path) -> None:
    from reviewer.freshness.git_diff import file_diff, follow_rename

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
    from reviewer.freshness.git_diff import file_diff

    plain = tmp_path / "plain"
    write(plain, "a.txt", "x\n")
    assert file_diff(plain, None, "a.txt").startswith("(no git history")
    assert file_diff(repo, "f" * 40, "src/app.py").startswith("(the capture commit")
    commit = anchors.git_head(repo)[0]
    assert "no change" in file_diff(repo, commit, "src/app.py")


def test_stale_ids_agree_with_verdicts_and_never_call_git(
    repo: Path, spawned: list[list[str]]
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
    spawned.clear()
    items = [(f["id"], f["anchors"], f["commit_sha"]) for f in facts]
    assert staleness.stale_ids(conn(), repo, items) == expected
    assert spawned == []


@pytest.mark.parametrize("junk", ["not json", "[1, 2]", '{"a": "b"}, {"c": "d"}', "5", '{"x": 5'])
def test_junk_anchors_are_unanchored_and_spoil_nothing_else(repo: Path, junk: str) -> None:
    good = fact(1, repo, ["src/app.py"])
    changed = fact(2, repo, ["README.md"])
    write(repo, "README.md", "# changed\n")
    facts = [good, changed, {"id": 3, "files": "[]", "anchors": junk, "commit_sha": None}]
    out = verdicts(conn(), repo, facts)
    assert {i: v.state for i, v in out.items()} == {1: "fresh", 2: "changed", 3: "unanchored"}


# ---- moves without a process ------------------------------------------------------------


def test_a_git_mv_is_found_in_the_index_without_a_process(
    repo: Path, spawned: list[list[str]]
) -> None:
    f = fact(1, repo, ["src/util.py"])
    (repo / "lib").mkdir()
    git(repo, "mv", "src/util.py", "lib/helpers.py")
    spawned.clear()
    v = verdicts(conn(), repo, [f])[1]
    assert (v.state, v.renamed_to) == ("moved", {"src/util.py": "lib/helpers.py"})
    assert spawned == []


def test_a_plain_mv_beside_the_old_file_needs_no_process(
    repo: Path, spawned: list[list[str]]
) -> None:
    f = fact(1, repo, ["src/util.py"])
    c = conn()
    verdicts(c, repo, [f])  # the cache now knows the old file's size: only same-size reads
    (repo / "src/util.py").rename(repo / "src/tools.py")
    spawned.clear()
    v = verdicts(c, repo, [f])[1]
    assert v.renamed_to == {"src/util.py": "src/tools.py"}
    assert spawned == []


def test_a_move_to_another_cited_path_needs_no_process(
    repo: Path, spawned: list[list[str]]
) -> None:
    old = fact(1, repo, ["src/util.py"])
    (repo / "src/util.py").rename(repo / "src/copy.py")
    new = fact(2, repo, ["src/copy.py"])
    spawned.clear()
    assert verdicts(conn(), repo, [old, new])[1].renamed_to == {"src/util.py": "src/copy.py"}
    assert spawned == []


def test_an_untracked_move_to_another_directory_is_found_by_git(
    repo: Path, spawned: list[list[str]]
) -> None:
    f = fact(1, repo, ["src/util.py"])
    (repo / "elsewhere").mkdir()
    (repo / "src/util.py").rename(repo / "elsewhere/util.py")
    spawned.clear()
    assert verdicts(conn(), repo, [f])[1].renamed_to == {"src/util.py": "elsewhere/util.py"}
    assert spawned  # git listed the untracked files


def test_similar_moves_false_starts_no_process_and_reads_as_deleted(
    repo: Path, spawned: list[list[str]]
) -> None:
    body = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(30))
    write(repo, "src/big.py", body)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "big")
    f = fact(1, repo, ["src/big.py"])
    git(repo, "mv", "src/big.py", "src/large.py")
    write(repo, "src/large.py", body + "# edited\n")
    git(repo, "commit", "-qam", "rename and edit")
    spawned.clear()
    assert verdicts(conn(), repo, [f], similar_moves=False)[1].state == "deleted"
    assert spawned == []
    v = verdicts(conn(), repo, [f])[1]
    assert v.renamed_to == {"src/big.py": "src/large.py"}


def test_a_remembered_move_answer_is_dropped_when_the_index_changes(
    repo: Path, spawned: list[list[str]]
) -> None:
    body = "".join(f"def g{i}(x):\n    return x - {i}\n" for i in range(30))
    write(repo, "src/big.py", body)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "big")
    f = fact(1, repo, ["src/big.py"])
    (repo / "src/big.py").unlink()
    assert verdicts(conn(), repo, [f])[1].state == "deleted"
    write(repo, "lib/renamed.py", body + "# edited\n")  # elsewhere, changed: git must say
    git(repo, "add", "-A")  # the index changes: the remembered "deleted" no longer holds
    spawned.clear()
    v = verdicts(conn(), repo, [f])[1]
    assert v.renamed_to == {"src/big.py": "lib/renamed.py"}
    assert spawned


def test_an_index_this_reader_does_not_know_is_left_to_git(
    repo: Path, spawned: list[list[str]]
) -> None:
    f = fact(1, repo, ["src/util.py"])
    git(repo, "update-index", "--split-index")
    (repo / "lib").mkdir()
    git(repo, "mv", "src/util.py", "lib/helpers.py")
    spawned.clear()
    v = verdicts(conn(), repo, [f])[1]
    assert v.renamed_to == {"src/util.py": "lib/helpers.py"}
    assert any("-s" in c for c in spawned)  # `git ls-files -s` stood in for the index


# ---- the parse: every shape of anchors text judged as JSON would ------------------------

FILES = {
    "a.py": "alpha\n",
    "dir/b.py": "beta\n",
    "sp ace.py": "space\n",
    "é.py": "accent\n",
    'q"uote.py': "quote\n",
    "br{a}ces,[x].py": "braces\n",
    "null.py": "null\n",
    "colon: x.py": "colon\n",
}
GONE = ["missing.py", "dir/gone.py"]
JUNK = [
    ' {"a.py": "%s"} ' % ("0" * 40),  # whitespace around: still JSON
    "not json", "[1, 2]", "5", '{"x": 5', '{"a.py": "b"}, {"c": "d"}', "", "{}", "null",
    '{"a.py": ["x"]}', '{"a.py": {"b": "c"}}', '{"a.py":\t"x"}', '{"a.py": "\x01"}',
]


@pytest.fixture
def plain(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "plain"
    for rel, text in FILES.items():
        write(root, rel, text)
    shas = {rel: anchors.blob_sha(root / rel) or "" for rel in FILES}
    return root, shas


def reference(value: object, now: dict[str, str | None]) -> str:
    """The verdict state, the slow and obvious way."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            value = None
    anchored = {k: v for k, v in value.items() if isinstance(v, str) and v} if isinstance(
        value, dict) else {}
    if not anchored:
        return "unanchored"
    states = ["fresh" if now.get(p) == sha else "deleted" if now.get(p) is None else "changed"
              for p, sha in anchored.items()]
    return max(states, key=staleness.SEVERITY.__getitem__)


def shaped(anchored: dict[str, str | None], how: str) -> object:
    if how == "dict":
        return anchored
    if how == "sorted":
        return json.dumps(anchored, sort_keys=True)
    if how == "compact":
        return json.dumps(anchored, separators=(",", ":"))
    if how == "raw-unicode":
        return json.dumps(anchored, ensure_ascii=False)
    if how == "indented":
        return json.dumps(anchored, indent=1)
    return json.dumps(anchored)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=hst.data())
def test_any_mix_of_anchors_is_judged_as_json_would(
    plain: tuple[Path, dict[str, str]], data: hst.DataObject
) -> None:
    root, shas = plain
    now: dict[str, str | None] = {**shas, **dict.fromkeys(GONE)}
    paths = [*FILES, *GONE]
    sha_choice = hst.sampled_from(["current", "other", "null", "empty"])
    facts = []
    n = data.draw(hst.integers(1, 40), label="facts")
    for i in range(n):
        if data.draw(hst.integers(0, 9)) == 0:
            value: object = data.draw(hst.sampled_from([*JUNK, None]))
        else:
            chosen = data.draw(hst.lists(hst.sampled_from(paths), max_size=4, unique=True))
            anchored: dict[str, str | None] = {}
            for p in chosen:
                kind = data.draw(sha_choice)
                anchored[p] = (now[p] or "f" * 40 if kind == "current" else
                               "0" * 40 if kind == "other" else None if kind == "null" else "")
            value = shaped(anchored, data.draw(hst.sampled_from(
                ["plain", "dict", "sorted", "compact", "raw-unicode", "indented"])))
        facts.append({"id": i, "anchors": value, "commit_sha": None})
    copies = data.draw(hst.sampled_from([1, staleness.MEMO_MIN // max(n, 1) + 1]))
    facts = [{**f, "id": f["id"] + k * 1000} for k in range(copies) for f in facts]
    out = verdicts(None, root, facts)
    expected = {f["id"]: reference(f["anchors"], now) for f in facts}
    assert {i: v.state for i, v in out.items()} == expected
    items = [(f["id"], f["anchors"], None) for f in facts]
    stale = {i for i, state in expected.items() if state in staleness.STALE_STATES}
    assert staleness.stale_ids(None, root, items) == stale
    again = verdicts(None, root, facts)  # a second pass (remembered when big) agrees
    assert {i: v.state for i, v in again.items()} == expected


def test_a_repeated_key_counts_once_as_json_does(plain: tuple[Path, dict[str, str]]) -> None:
    root, shas = plain
    text = f'{{"a.py": "{"0" * 40}", "a.py": "{shas["a.py"]}"}}'
    assert verdicts(None, root, [{"id": 1, "anchors": text, "commit_sha": None}])[1].state == (
        "fresh")


# ---- remembering between passes ---------------------------------------------------------


def many(repo: Path, n: int = staleness.MEMO_MIN + 50) -> list[dict[str, object]]:
    """Enough facts for a pass to be remembered, over the repo's three files."""
    base = [fact(0, repo, ["src/app.py"]), fact(0, repo, ["src/util.py", "README.md"]),
            {"id": 0, "files": "[]", "anchors": "{}", "commit_sha": None}]
    return [{**base[i % 3], "id": i} for i in range(n)]


def states(out: dict[int, staleness.Verdict]) -> dict[str, int]:
    counted: dict[str, int] = {}
    for v in out.values():
        counted[v.state] = counted.get(v.state, 0) + 1
    return counted


def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the files just written count as settled: a pass remembers only SHAs of files
    whose ctime (which utime cannot set back) is older than SETTLE_NS."""
    monkeypatch.setattr(staleness, "SETTLE_NS", 20_000_000)
    time.sleep(0.05)


def test_a_repeated_pass_reuses_its_answer_until_a_file_changes(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    facts = many(repo)
    settled(monkeypatch)
    c = conn()
    first = verdicts(c, repo, facts)
    st = ScanStats()
    second = verdicts(c, repo, facts, stats=st)
    assert st.reused and st.shas_remembered and st.hashed == 0
    assert second == first and second is not first
    second.clear()  # the caller's copy: the remembered answer is untouched
    assert verdicts(c, repo, facts) == first

    write(repo, "src/app.py", "def main():\n    return 7\n")
    st = ScanStats()
    out = verdicts(c, repo, facts, stats=st)
    assert not st.reused and not st.shas_remembered and st.hashed == 1
    assert states(out) == {"changed": 102, "fresh": 102, "unanchored": 102}

    (repo / "README.md").unlink()
    out = verdicts(c, repo, facts)
    assert states(out) == {"changed": 102, "deleted": 102, "unanchored": 102}


def test_emptying_the_cache_forces_a_real_look(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    facts = many(repo)
    settled(monkeypatch)
    c = conn()
    verdicts(c, repo, facts)
    st = ScanStats()
    verdicts(c, repo, facts, stats=st)
    assert st.shas_remembered
    c.execute("DELETE FROM hash_cache")
    st = ScanStats()
    verdicts(c, repo, facts, stats=st)
    assert not st.shas_remembered and st.hashed == 3 and st.cache_written == 3
    staleness.forget()
    st = ScanStats()
    verdicts(c, repo, facts, stats=st)
    assert not st.shas_remembered and not st.reused and st.hashed == 0


def test_a_racy_file_is_never_remembered(repo: Path) -> None:
    """Written within SETTLE_NS of the pass: a same-size, same-mtime rewrite must be seen."""
    recent = time.time()
    write(repo, "src/app.py", "aaaa\n", mtime=recent)
    facts = many(repo)
    c = conn()
    assert states(verdicts(c, repo, facts))["fresh"] == 204
    write(repo, "src/app.py", "bbbb\n", mtime=recent)
    st = ScanStats()
    out = verdicts(c, repo, facts, stats=st)
    assert not st.shas_remembered and st.hashed == 1
    assert states(out)["changed"] == 102


def test_rows_and_dicts_mixed_with_text_in_a_big_list(repo: Path) -> None:
    facts = many(repo)
    for f in facts[::7]:
        f["anchors"] = json.loads(str(f["anchors"]))  # decoded, as a TUI row may hold it
    facts[1]["anchors"] = None
    out = verdicts(conn(), repo, facts)
    assert out[1].state == "unanchored"
    assert states(out) == {"fresh": 203, "unanchored": 103}
    assert verdicts(conn(), repo, facts) == out


def test_a_pass_is_not_remembered_while_ctimes_are_recent(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Timestamps are coarse: a write in the same tick as a file's last ctime leaves the
    ctime as it was. So only ctimes older than SETTLE_NS let a pass be reused (a frozen
    clock stands in for that tick here)."""
    frozen = time.time_ns()
    monkeypatch.setattr(staleness, "_CTIME", lambda info: frozen)
    facts = many(repo)
    c = conn()
    assert states(verdicts(c, repo, facts))["fresh"] == 204
    write(repo, "src/app.py", "def main():\n    return 8\n")  # same inode, same "ctime"
    st = ScanStats()
    out = verdicts(c, repo, facts, stats=st)
    assert not st.shas_remembered
    assert states(out)["changed"] == 102


def test_a_file_verified_as_gone_is_fresh_until_it_comes_back(repo: Path) -> None:
    """ABSENT (a person re-verified the fact with the file gone) is not a missing-at-capture
    null: it is compared, and a file reappearing there makes the fact stale."""
    (repo / "src/util.py").unlink()
    commit, _, anchor_map = anchors.anchor_files(repo, ["src/app.py", "src/util.py"],
                                                 missing=anchors.ABSENT)
    assert anchor_map["src/util.py"] == anchors.ABSENT
    f = {"id": 1, "anchors": json.dumps(anchor_map), "commit_sha": commit}
    assert verdicts(None, repo, [f])[1] is staleness.FRESH_VERDICT
    assert staleness.stale_ids(None, repo, [(1, f["anchors"], commit)]) == set()
    write(repo, "src/util.py", "# back, different\n")
    staleness.forget()
    v = verdicts(None, repo, [f])[1]
    assert v.state == "changed"
    assert dict(v.files) == {"src/app.py": "fresh", "src/util.py": "changed"}
    assert staleness.stale_ids(None, repo, [(1, f["anchors"], commit)]) == {1}
