"""`.git/index` read in-process, checked against `git ls-files -s` on real repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

import helpers
import pytest

from reviewer.freshness import anchors, git_index

# A private data dir (conftest) for every test of the file.
pytestmark = pytest.mark.usefixtures("home")


def git(root: Path, *args: str, check: bool = True) -> str:
    """The index format under test is the one we ask for, never a split one by config."""
    return helpers.git(root, "-c", "core.splitIndex=false", *args, check=check)


def make_repo(root: Path, *init: str) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main", *init)
    for rel, text in {
        "README.md": "# r\n",
        "src/app.py": "print(1)\n",
        "src/util.py": "x = 1\n",
        "src/deep/er/still/mod.py": "y = 2\n",
        "docs/é-accent.md": "accent\n",
        "docs/space name.txt": "space\n",
        "same/a.txt": "twin\n",
        "same/b.txt": "twin\n",
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


def listed(root: Path) -> list[str]:
    """`git ls-files -s` lines, paths unquoted (-z)."""
    out = git(root, "ls-files", "-s", "-z")
    return [line for line in out.split("\0") if line]


def mine(root: Path) -> list[str]:
    entries = git_index.read_entries(root)
    assert entries is not None
    return [f"{e.mode:o} {e.sha} {e.stage}\t{e.path}" for e in entries]


def version(root: Path) -> int:
    data = (root / ".git" / "index").read_bytes()
    return int.from_bytes(data[4:8], "big")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def test_version_2_matches_git(repo: Path) -> None:
    assert version(repo) == 2
    assert mine(repo) == listed(repo)
    assert len(mine(repo)) == 8


def test_version_3_extended_flags_match_git(repo: Path) -> None:
    (repo / "new.py").write_text("pending\n")
    git(repo, "add", "-N", "new.py")  # intent-to-add: an extended flag, so version 3
    git(repo, "update-index", "--skip-worktree", "src/util.py")
    assert version(repo) == 3
    assert mine(repo) == listed(repo)
    entries = {e.path: e for e in git_index.read_entries(repo) or []}
    assert entries["new.py"].intent_to_add and not entries["new.py"].skip_worktree
    assert entries["src/util.py"].skip_worktree
    # neither counts as content living at that path
    wanted = {entries["src/util.py"].sha, anchors.EMPTY_BLOB}
    found = git_index.paths_by_sha(repo, wanted)
    assert found == {}


@pytest.mark.parametrize("extended", [False, True])
def test_version_4_prefix_compression_matches_git(repo: Path, extended: bool) -> None:
    if extended:
        (repo / "src/new.py").write_text("pending\n")
        git(repo, "add", "-N", "src/new.py")
    git(repo, "update-index", "--index-version", "4")
    assert version(repo) == 4
    assert mine(repo) == listed(repo)


def test_a_path_longer_than_the_name_field_matches_git(repo: Path) -> None:
    """Names of 0xFFF bytes or more do not fit the 12-bit length: read to the NUL."""
    sha = anchors.blob_sha(repo / "README.md")
    assert sha is not None
    long_path = "/".join(["d" * 200] * 22) + "/end.txt"  # 4,430 bytes: index only
    git(repo, "update-index", "--add", "--cacheinfo", f"100644,{sha},{long_path}")
    assert mine(repo) == listed(repo)
    git(repo, "update-index", "--index-version", "4")
    assert mine(repo) == listed(repo)
    assert long_path in git_index.paths_by_sha(repo, {sha}).get(sha, [])  # type: ignore[union-attr]


def test_conflict_stages_match_git_and_are_no_rename_clue(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    git(root, "checkout", "-qb", "other")
    (root / "src/app.py").write_text("print('other')\n")
    git(root, "commit", "-qam", "other")
    git(root, "checkout", "-q", "main")
    (root / "src/app.py").write_text("print('main')\n")
    git(root, "commit", "-qam", "main")
    git(root, "merge", "-q", "other", check=False)
    lines = listed(root)
    assert any("\tsrc/app.py" in line and " 2\t" in line for line in lines)
    assert mine(root) == lines
    theirs = next(e.sha for e in git_index.read_entries(root) or [] if e.stage == 3)
    assert git_index.paths_by_sha(root, {theirs}) == {}


def test_paths_by_sha_finds_every_path_of_a_blob(repo: Path) -> None:
    twin = anchors.blob_sha(repo / "same/a.txt")
    assert twin is not None
    found = git_index.paths_by_sha(repo, {twin, "not hex", "0" * 40})
    assert found == {twin: ["same/a.txt", "same/b.txt"]}


def test_unicode_and_spaces_in_paths(repo: Path) -> None:
    paths = {e.path for e in git_index.read_entries(repo) or []}
    assert {"docs/é-accent.md", "docs/space name.txt"} <= paths


def test_a_worktree_reads_its_own_index(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(other))
    (other / "only-here.txt").write_text("wt\n")
    git(other, "add", "only-here.txt")
    assert (other / ".git").is_file()
    assert mine(other) == listed(other)
    assert "only-here.txt" in {e.path for e in git_index.read_entries(other) or []}
    assert "only-here.txt" not in {e.path for e in git_index.read_entries(repo) or []}


def test_sha256_repository(tmp_path: Path) -> None:
    root = tmp_path / "r256"
    try:
        make_repo(root, "--object-format=sha256")
    except subprocess.CalledProcessError:
        pytest.skip("this git cannot make SHA-256 repositories")
    lines = listed(root)
    assert len(lines[0].split(" ")[1]) == 64
    assert mine(root) == lines


def test_a_split_index_is_left_to_git(repo: Path) -> None:
    git(repo, "update-index", "--split-index")
    assert list((repo / ".git").glob("sharedindex.*"))
    assert git_index.read_entries(repo) is None
    assert git_index.paths_by_sha(repo, {"0" * 40}) is None


def test_a_sparse_index_is_left_to_git(repo: Path) -> None:
    """`sdir` is a required extension this reader does not implement."""
    git(repo, "sparse-checkout", "init", "--cone", "--sparse-index", check=False)
    git(repo, "sparse-checkout", "set", "src", check=False)
    data = (repo / ".git" / "index").read_bytes()
    if b"sdir" not in data:
        pytest.skip("this git wrote no sparse index")
    assert git_index.read_entries(repo) is None


@pytest.mark.parametrize("damage", ["truncate", "flip", "signature", "version", "empty"])
def test_a_damaged_index_reads_as_unknown(repo: Path, damage: str) -> None:
    index = repo / ".git" / "index"
    data = bytearray(index.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data[100] ^= 0xFF  # inside the first entries: the checksum no longer matches
    elif damage == "signature":
        data[:4] = b"XXXX"
    elif damage == "version":
        data[4:8] = (9).to_bytes(4, "big")
    else:
        data = bytearray()
    index.write_bytes(bytes(data))
    assert git_index.read_entries(repo) is None
    assert git_index.paths_by_sha(repo, {"0" * 40}) is None


def test_a_walk_that_does_not_add_up_is_refused_even_without_a_checksum(repo: Path) -> None:
    """A zero checksum (what index.skipHash writes) is accepted, by git too: then the
    structure alone must catch damage."""
    index = repo / ".git" / "index"
    data = bytearray(index.read_bytes())
    data[-20:] = bytes(20)
    index.write_bytes(bytes(data))
    assert mine(repo) == listed(repo)
    data[12 + 60] |= 0x0F  # the first entry's name length now overruns its NUL
    index.write_bytes(bytes(data))
    assert git_index.read_entries(repo) is None


def test_no_index_or_no_git(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    assert git_index.read_entries(empty) is None  # nothing added yet: no index file
    assert git_index.signature(empty) is None
    plain = tmp_path / "plain"
    plain.mkdir()
    assert git_index.read_entries(plain) is None
    assert git_index.index_file(plain) is None


def test_signature_changes_when_git_rewrites_the_index(repo: Path) -> None:
    before = git_index.signature(repo)
    assert before is not None
    (repo / "src/app.py").write_text("print(2)\n")
    git(repo, "add", "src/app.py")
    assert git_index.signature(repo) != before


def test_an_index_named_by_git_index_file_is_left_to_git(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_INDEX_FILE", str(repo / ".git" / "other-index"))
    assert git_index.read_entries(repo) is None
    assert git_index.paths_by_sha(repo, {"0" * 40}) is None


def test_optional_extensions_are_skipped(repo: Path) -> None:
    """TREE (written by commit) and UNTR (the untracked cache) carry no entries."""
    git(repo, "update-index", "--untracked-cache")
    git(repo, "status", "--porcelain")
    data = (repo / ".git" / "index").read_bytes()
    assert b"TREE" in data and b"UNTR" in data
    assert mine(repo) == listed(repo)
