"""The verdict memo: a remembered pass is used only while it is still the truth.

Every check compares the memo's answer with a full pass computed afresh in the same
state, after a real change to a real git repository or to the store: the memo may miss
when nothing relevant changed, but it may never answer differently from the full pass.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import git, processes_started, write_old

from reviewer.claude_code import inject
from reviewer.freshness import anchors, staleness, verdict_memo
from reviewer.freshness.verdict_memo import MemoStats
from reviewer.store import db

SETTLE_NS = 30_000_000  # tests settle in 30 ms, not 2 s; every change below sleeps past it


@pytest.fixture(autouse=True)
def home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shared data dir (conftest), the memo's rules on a small store."""
    monkeypatch.setattr(staleness, "SETTLE_NS", SETTLE_NS)
    monkeypatch.setattr(verdict_memo, "MIN_FACTS", 0)
    staleness.forget()
    return home


def settle() -> None:
    time.sleep(SETTLE_NS / 1e9 * 2)


write = write_old


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for name in ("a.py", "b.py", "c.py"):
        write(root, f"src/{name}", f"VALUE = '{name}'\n")
    write(root, "docs/guide.md", "# guide\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    write(root, "notes/todo.txt", "untracked, cited\n")
    settle()
    return root


def add(conn: sqlite3.Connection, root: Path, files: list[str], status: str = "approved") -> int:
    commit, branch, anchor_map = anchors.anchor_files(root, files)
    now = time.time()
    cur = conn.execute(
        "INSERT INTO fact (project, text, norm, category, files, status, commit_sha, branch, "
        "anchors, created_at, updated_at) VALUES (?, ?, ?, 'decision', ?, ?, ?, ?, ?, ?, ?)",
        (str(root), f"fact {files}", f"fact {files} {now}", json.dumps(files), status, commit,
         branch, json.dumps(anchor_map), now, now),
    )
    return int(cur.lastrowid or 0)


@pytest.fixture
def conn(repo: Path) -> sqlite3.Connection:
    c = db.connect()
    add(c, repo, ["src/a.py"])
    add(c, repo, ["src/b.py", "docs/guide.md"])
    add(c, repo, ["src/c.py"], status="pending")
    add(c, repo, ["notes/todo.txt"])
    add(c, repo, [])  # unanchored
    add(c, repo, ["src/a.py"], status="rejected")
    return c


def full_pass(conn: sqlite3.Connection, root: Path, scope: str) -> dict[int, staleness.Verdict]:
    staleness.forget()
    statuses = verdict_memo.SCOPES[scope]
    rows = [r for r in conn.execute("SELECT id, anchors, commit_sha, status FROM fact "
                                    "WHERE project = ?", (str(root),)) if r[3] in statuses]
    return staleness.verdicts_for(None, root, [(r[0], r[1], r[2]) for r in rows])


def memo(conn: sqlite3.Connection, root: Path, scope: str = "live") -> tuple[dict, MemoStats]:
    staleness.forget()  # a new process: nothing remembered but the store
    st = MemoStats()
    return verdict_memo.verdicts(conn, root, str(root), scope, stats=st), st


def agree(conn: sqlite3.Connection, root: Path, scope: str = "live") -> MemoStats:
    got, st = memo(conn, root, scope)
    assert got == full_pass(conn, root, scope), st
    return st


def states(v: dict) -> dict[int, str]:
    return {k: x.state for k, x in v.items()}


def test_second_pass_is_remembered_and_equal(conn: sqlite3.Connection, repo: Path) -> None:
    first = agree(conn, repo)
    assert not first.hit and first.saved, first
    second = agree(conn, repo)
    assert second.hit, second
    ids = {r[0] for r in conn.execute("SELECT id FROM fact WHERE status != 'rejected'")}
    assert set(memo(conn, repo)[0]) == ids


def _edit_same_size(root: Path) -> None:
    (root / "src/a.py").write_text("VALUE = 'A.py'\n")  # same size, new content


def _edit_untracked(root: Path) -> None:
    (root / "notes/todo.txt").write_text("UNTRACKED, cited\n")


def _stage(root: Path) -> None:
    (root / "src/b.py").write_text("VALUE = 'staged'\n")
    git(root, "add", "src/b.py")


def _commit(root: Path) -> None:
    (root / "docs/guide.md").write_text("# guide, committed\n")
    git(root, "commit", "-qam", "edit")


def _git_mv(root: Path) -> None:
    git(root, "mv", "src/a.py", "src/renamed.py")


def _plain_mv_untracked(root: Path) -> None:
    (root / "notes/todo.txt").rename(root / "notes/moved.txt")


def _delete(root: Path) -> None:
    (root / "src/b.py").unlink()


def _chmod(root: Path) -> None:
    os.chmod(root / "src/a.py", 0o755)


def _touch(root: Path) -> None:
    os.utime(root / "src/a.py")  # same content: the memo may miss, must not differ


def _assume_unchanged_then_edit(root: Path) -> None:
    git(root, "update-index", "--assume-unchanged", "src/a.py")
    (root / "src/a.py").write_text("VALUE = 'A.py'\n")


def _branch_switch(root: Path) -> None:
    git(root, "checkout", "-qb", "other")
    (root / "src/c.py").write_text("VALUE = 'other branch'\n")
    git(root, "commit", "-qam", "other")


CHANGES: dict[str, Callable[[Path], None]] = {
    "tracked file edited, same size, not staged": _edit_same_size,
    "untracked cited file edited": _edit_untracked,
    "edit staged": _stage,
    "edit committed": _commit,
    "git mv": _git_mv,
    "untracked file moved with mv": _plain_mv_untracked,
    "tracked file deleted": _delete,
    "mode changed": _chmod,
    "touched, same content": _touch,
    "assume-unchanged file edited": _assume_unchanged_then_edit,
    "branch switched": _branch_switch,
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_file_change_is_never_answered_from_the_memo(
    conn: sqlite3.Connection, repo: Path, change: str
) -> None:
    before = memo(conn, repo)[0]
    assert agree(conn, repo).hit
    CHANGES[change](repo)
    st = agree(conn, repo)  # the property: equal to a full pass, whatever the path
    after = memo(conn, repo)[0]
    if states(after) != states(before):
        assert not st.hit, f"{change}: verdicts changed, yet answered from the memo"
    settle()
    agree(conn, repo)  # settled now: remembered again
    assert agree(conn, repo).hit


def test_changes_in_sequence_stay_equal_to_a_full_pass(
    conn: sqlite3.Connection, repo: Path
) -> None:
    """One change after another on the same store, the memo rewritten each time."""
    order = (_touch, _chmod, _edit_same_size, _edit_untracked, _stage, _commit, _branch_switch,
             _assume_unchanged_then_edit, _delete, _plain_mv_untracked, _git_mv)
    assert set(order) == set(CHANGES.values())
    for change in order:
        agree(conn, repo)
        change(repo)
        agree(conn, repo)
        settle()
    agree(conn, repo)
    assert agree(conn, repo).hit


STORE_CHANGES: dict[str, Callable[[sqlite3.Connection, Path], object]] = {
    "a fact approved": lambda c, r: c.execute(
        "UPDATE fact SET status = 'approved' WHERE status = 'pending'"),
    "a fact rejected": lambda c, r: c.execute(
        "UPDATE fact SET status = 'rejected' WHERE id = (SELECT min(id) FROM fact)"),
    "a fact re-anchored": lambda c, r: c.execute(
        "UPDATE fact SET anchors = ? WHERE id = (SELECT min(id) FROM fact)",
        (json.dumps({"src/a.py": "0" * 40}),)),
    "a fact added": lambda c, r: add(c, r, ["src/c.py"]),
    "a fact deleted": lambda c, r: c.execute(
        "DELETE FROM fact WHERE id = (SELECT max(id) FROM fact)"),
    "a fact renumbered": lambda c, r: c.execute(
        "UPDATE fact SET id = 999 WHERE id = (SELECT min(id) FROM fact)"),
    "a fact moved to another project": lambda c, r: c.execute(
        "UPDATE fact SET project = 'elsewhere' WHERE id = (SELECT min(id) FROM fact)"),
}


@pytest.mark.parametrize("change", list(STORE_CHANGES))
def test_a_store_change_misses(conn: sqlite3.Connection, repo: Path, change: str) -> None:
    (repo / "src/a.py").write_text("VALUE = 'A.py'\n")  # some facts are stale
    settle()
    agree(conn, repo)
    assert agree(conn, repo).hit
    STORE_CHANGES[change](conn, repo)
    st = agree(conn, repo)
    assert not st.hit and st.why == "facts changed", st


def test_an_edit_of_text_alone_keeps_the_memo(conn: sqlite3.Connection, repo: Path) -> None:
    """Editing what a fact says does not change whether its files moved on."""
    agree(conn, repo)
    conn.execute("UPDATE fact SET text = 'reworded', updated_at = 1 WHERE id = 1")
    assert agree(conn, repo).hit


def test_a_file_written_just_now_is_not_vouched_for(
    conn: sqlite3.Connection, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(staleness, "SETTLE_NS", 2_000_000_000)
    _edit_untracked(repo)  # a watched file, its ctime is now
    st = agree(conn, repo)
    assert not st.saved and "just now" in st.why, st
    assert not agree(conn, repo).hit


def test_scopes_are_remembered_apart(conn: sqlite3.Connection, repo: Path) -> None:
    agree(conn, repo, "live")
    agree(conn, repo, "approved")
    live, approved = agree(conn, repo, "live"), agree(conn, repo, "approved")
    assert live.hit and approved.hit
    pending = {r[0] for r in conn.execute("SELECT id FROM fact WHERE status = 'pending'")}
    assert pending <= set(memo(conn, repo, "live")[0])
    assert not pending & set(memo(conn, repo, "approved")[0])


def test_stale_ids_for_injection_agree(conn: sqlite3.Connection, repo: Path) -> None:
    _edit_same_size(repo)
    settle()
    want = {k for k, v in full_pass(conn, repo, "approved").items() if v.stale}
    assert want
    for expect_hit in (False, True):
        st = MemoStats()
        assert verdict_memo.stale_ids(conn, repo, str(repo), stats=st) == want
        assert st.hit is expect_hit, st


def test_injection_withholds_what_the_memo_says_is_stale(
    conn: sqlite3.Connection, repo: Path
) -> None:
    inject.render_context(repo)  # remembered
    (repo / "src/a.py").write_text("VALUE = 'A.py'\n")
    text, stats = inject.render_context(repo)
    assert stats.stale == 1, stats
    settle()
    text2, stats2 = inject.render_context(repo)  # now from the memo
    assert (text2, stats2.stale) == (text, 1)


def test_outside_git_nothing_is_remembered(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, "x.py", "x = 1\n")
    c = db.connect()
    add(c, root, ["x.py"])
    st = agree(c, root)
    assert not st.saved
    (root / "x.py").write_text("x = 2\n")
    assert states(agree(c, root) and memo(c, root)[0]) == {1: "changed"}


def test_a_read_only_store_answers_without_remembering(
    conn: sqlite3.Connection, repo: Path
) -> None:
    conn.close()
    ro = db.connect_readonly()
    st = MemoStats()
    got = verdict_memo.verdicts(ro, repo, str(repo), "live", stats=st)
    assert got == full_pass(ro, repo, "live") and not st.saved


def test_caller_rows_from_an_older_snapshot_miss(conn: sqlite3.Connection, repo: Path) -> None:
    """Rows read before a fact changed are judged afresh, never from a newer memo."""
    agree(conn, repo)
    with verdict_memo.snapshot(conn, str(repo), "live") as rev:
        rows = conn.execute("SELECT id, anchors, commit_sha FROM fact "
                            "WHERE status IN ('pending', 'approved')").fetchall()
    add(conn, repo, ["src/b.py"])
    st = MemoStats()
    verdict_memo.verdicts(conn, repo, str(repo), rows=[tuple(r) for r in rows], rev=rev, stats=st)
    assert not st.hit and st.why == "facts changed"


def test_new_candidates_leave_the_approved_memo_standing(
    conn: sqlite3.Connection, repo: Path
) -> None:
    """The worker storing pending facts, or anything in another project, must not cost
    the next SessionStart its memo; approving one must."""
    agree(conn, repo, "approved")
    agree(conn, repo, "live")
    add(conn, repo, ["src/c.py"], status="pending")
    conn.execute(
        "INSERT INTO fact (project, text, norm, category, status, created_at, updated_at) "
        "VALUES ('/elsewhere', 'x', 'x', 'decision', 'approved', 0, 0)")
    assert agree(conn, repo, "approved").hit
    assert agree(conn, repo, "live").why == "facts changed"
    conn.execute("UPDATE fact SET status = 'approved' WHERE status = 'pending'")
    assert agree(conn, repo, "approved").why == "facts changed"
    agree(conn, repo, "approved")
    conn.execute("UPDATE fact SET text = 'reworded' WHERE status = 'approved'")
    conn.execute("UPDATE fact SET status = 'rejected' WHERE status = 'pending'")  # none left
    assert agree(conn, repo, "approved").hit


def test_moving_a_fact_between_projects_moves_both_revisions(
    conn: sqlite3.Connection, repo: Path
) -> None:
    agree(conn, repo, "approved")
    conn.execute("UPDATE fact SET project = '/elsewhere' WHERE id = 1")
    assert agree(conn, repo, "approved").why == "facts changed"
    revs = dict(conn.execute("SELECT project, rev FROM fact_rev WHERE scope = 'approved'")
                .fetchall())
    assert revs["/elsewhere"] >= 1 and revs[str(repo)] >= 2


def test_a_store_from_before_the_memo_is_upgraded_in_place(repo: Path, home: Path) -> None:
    """A version-1 store with facts gains the memo tables and triggers; its facts start
    at revision 0 and the first change moves it."""
    from reviewer.store import schema

    home.mkdir(parents=True, exist_ok=True)
    path = home / "store.db"
    old = sqlite3.connect(path)
    old.executescript(schema.V1)
    old.execute("PRAGMA user_version = 1")
    add(old, repo, ["src/a.py"])
    old.commit()
    old.close()
    c = db.connect(path)
    assert c.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION
    assert not agree(c, repo, "approved").hit
    assert agree(c, repo, "approved").hit
    c.execute("UPDATE fact SET status = 'rejected'")
    assert c.execute("SELECT rev FROM fact_rev WHERE scope = 'approved'").fetchone()[0] == 1
    assert agree(c, repo, "approved").why == "facts changed"


def test_session_start_asks_git_at_most_twice_and_only_on_a_branch(
    conn: sqlite3.Connection, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook's git budget: `diff-files` for the memo, plus the branch's diff for ranking
    on a feature branch, started together; never the rename search of the full pass."""
    (repo / "src/b.py").unlink()  # a missing file: a full `verdicts` pass would ask git
    settle()
    inject.render_context(repo)

    def hook_commands() -> list[str]:
        staleness.forget()
        with processes_started(monkeypatch) as calls:
            _, stats = inject.render_context(repo)
        assert stats.stale == 1
        return sorted(c[c.index("-C") + 2] for c in calls)

    assert hook_commands() == ["--no-optional-locks"]  # diff-files, for the memo
    git(repo, "checkout", "-qb", "feature")
    settle()
    inject.render_context(repo)
    assert hook_commands() == ["--no-optional-locks", "diff"]  # + the branch's changes


def test_every_trigger_survives_the_migrations(conn: sqlite3.Connection) -> None:
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")}
    assert {"fact_rev_insert", "fact_rev_delete", "fact_rev_update"} <= names


def test_a_tracked_symlink_is_watched_by_what_it_points_to(tmp_path: Path, repo: Path) -> None:
    """git checks a link as a link; staleness hashes its target. The target changing must
    not be answered from the memo. (The target is inside the project: one outside it is
    never read, reviewer/freshness/cited.py.)"""
    outside = repo / "local" / "shared_settings.py"
    outside.parent.mkdir()
    outside.write_text("DEBUG = False\n")
    (repo / "settings.py").symlink_to(outside)
    git(repo, "add", "settings.py")
    git(repo, "commit", "-qm", "link")
    c = db.connect()
    add(c, repo, ["settings.py"])
    settle()
    agree(c, repo)
    assert agree(c, repo).hit
    outside.write_text("DEBUG = True!\n")
    assert states(memo(c, repo)[0]) == {1: "changed"}
    agree(c, repo)
    elsewhere = tmp_path / "elsewhere.py"  # retargeted out of the project: not read, stale
    elsewhere.write_text("DEBUG = False\n")
    (repo / "settings.py").unlink()
    (repo / "settings.py").symlink_to(elsewhere)
    assert states(memo(c, repo)[0]) == {1: "deleted"}


def test_a_remembered_move_whose_new_home_is_gone_is_not_replayed(
    conn: sqlite3.Connection, repo: Path
) -> None:
    (repo / "lib").mkdir()
    (repo / "src/a.py").rename(repo / "lib/a.py")  # untracked, another directory
    settle()
    assert "moved" in states(agree(conn, repo) and memo(conn, repo)[0]).values()
    settle()
    agree(conn, repo)
    assert agree(conn, repo).hit
    (repo / "lib/a.py").unlink()
    st = agree(conn, repo)
    assert not st.hit


def test_a_copy_appearing_elsewhere_may_read_deleted_but_never_fresh(
    conn: sqlite3.Connection, repo: Path
) -> None:
    """The documented limit: a memo cannot see a new untracked file in an unrelated
    directory, so a deleted file that reappears there stays `deleted` (not `moved`) until
    something else moves; stale either way, so injection never differs."""
    (repo / "src/a.py").rename(tmp := repo / "a.py.bak")
    settle()
    agree(conn, repo)
    agree(conn, repo, "approved")
    (repo / "lib").mkdir()
    tmp.rename(repo / "lib/a.py")
    got, _ = memo(conn, repo)
    want = full_pass(conn, repo, "live")
    assert {k: v.stale for k, v in got.items()} == {k: v.stale for k, v in want.items()}
    assert verdict_memo.stale_ids(conn, repo, str(repo)) == {
        k for k, v in full_pass(conn, repo, "approved").items() if v.stale}


def test_a_slow_git_is_not_waited_for(
    conn: sqlite3.Connection, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A huge repository or a cold disk can make `git diff-files` slow: the hook must then
    answer from the full pass instead of waiting for git's timeout."""
    import shutil

    agree(conn, repo)
    real = shutil.which("git")
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\ncase "$*" in *diff-files*) sleep 5;; esac\nexec {real} "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    for _ in range(2):
        started = time.monotonic()
        st = agree(conn, repo)
        assert not st.hit and "git" in st.why, st
        assert time.monotonic() - started < 2.5  # a hang guard: git's own timeout is 3 s


def test_the_index_signature_holds_git_s_checksum(repo: Path) -> None:
    from reviewer.freshness import git_index

    index = repo / ".git" / "index"
    sig = git_index.signature(repo)
    assert sig is not None and sig[3] == index.read_bytes()[-32:].hex()
    before = index.stat()
    (repo / "src/a.py").write_text("VALUE = 'A.py'\n")  # same size
    git(repo, "add", "src/a.py")
    os.utime(index, ns=(before.st_atime_ns, before.st_mtime_ns))  # a coarse clock
    after = git_index.signature(repo)
    assert after is not None and after[1] == sig[1] and after[3] != sig[3]


def test_few_facts_skip_the_memo_and_git(
    conn: sqlite3.Connection, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verdict_memo, "MIN_FACTS", 500)
    staleness.forget()
    with processes_started(monkeypatch) as calls:
        st = agree(conn, repo)
    assert calls == [] and not st.saved and "few facts" in st.why


def test_store_writes_that_change_no_anchor_keep_the_memo(
    conn: sqlite3.Connection, repo: Path
) -> None:
    """The store writes whole rows: an edit of the wording names `anchors` and `status`
    without changing them, and must not cost the next session its memo."""
    from reviewer.store.facts import Store

    agree(conn, repo, "approved")
    store = Store()
    try:
        (first,) = [f for f in store.facts(str(repo)) if f.status == "approved"][:1]
        assert first.id is not None
        store.edit(first.id, "Reworded, same files.", first.category)
    finally:
        store.close()
    assert agree(conn, repo, "approved").hit
