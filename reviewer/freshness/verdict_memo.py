"""Staleness verdicts remembered in the store, so a new process need not redo the pass.

A full pass (`reviewer.freshness.staleness`) over 10,000 facts stats every cited file, reads the
hash cache and parses every anchors text: several times one `git ls-files -s`. Between
two sessions usually nothing it depends on has moved, and that can be proven for less
than the pass costs, the way git's own index trusts a file whose stat has not moved:

- the facts: the project's `fact_rev` for the scope, which triggers move on any insert or
  delete of a fact and any change of its project, status, anchors or commit
  (reviewer/store/schema.py V2; new pending candidates leave the `approved` scope's standing);
- the tracked files: the index unchanged (size, mtime, inode; git rewrites it on every
  change) and `git diff-files` listing exactly the files it listed then. diff-files stats
  every tracked file in C, on the other core while this process reads the store, and
  re-reads racily clean entries, so a cited file it does not list holds its index blob;
- every cited file git does not vouch for (untracked, dirty, missing, conflicted,
  assume-unchanged, skip-worktree): the same (size, mtime, ctime, inode), or still
  missing with its directory's mtime unchanged (a copy appearing beside it is a move);
- HEAD, which rename detection diffs against.

Any difference, or anything unreadable, and the full pass runs and the memo is rewritten.
A memo is written only when every watched file and directory is settled (times older than
SETTLE_NS: a write in the same clock tick cannot hide), the index did not change during
the pass, and the pass was quick. What it cannot see, as the in-process memo of moves
cannot: an untracked copy of a missing file appearing in another directory leaves the
fact `deleted` rather than `moved`, stale either way.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from reviewer.freshness import anchors, git_index, staleness
from reviewer.freshness.staleness import FRESH_VERDICT, UNANCHORED_VERDICT, Verdict
from reviewer.log import log
from reviewer.store import db

# scope → the statuses whose facts it covers
SCOPES: dict[str, tuple[str, ...]] = {"approved": ("approved",), "live": ("pending", "approved")}
MAX_PASS_S = 1.0  # a slower pass saw the files over too long a span to vouch for them
MIN_FACTS = 500  # fewer: the full pass costs a few ms, less than starting git
HIT_WAIT, HIT_WAIT_PER_FACT = 0.1, 1e-5  # how long a hit waits for git (10 ms per 1,000 facts)
MISS_WAIT = 0.02  # after a full pass, git gets at least this long to finish for the save
Row = tuple[int, Any, Any]  # (id, anchors, commit_sha)


@dataclass
class MemoStats:
    """How an answer was reached; tests and the benchmark read it."""

    hit: bool = False
    saved: bool = False
    why: str = ""  # why the memo was not used (or not saved)


@contextmanager
def snapshot(conn: sqlite3.Connection, project: str, scope: str) -> Iterator[int | None]:
    """One read transaction, yielding `fact_rev` as of it: rows read inside agree with
    it. Pass both to `verdicts`/`stale_ids`, after the block (the pass may write)."""
    opened = not conn.in_transaction
    if opened:
        conn.execute("BEGIN")
    try:
        yield _rev(conn, project, scope)
    finally:
        if opened and conn.in_transaction:
            conn.execute("COMMIT")


def verdicts(
    conn: sqlite3.Connection,
    root: str | os.PathLike[str],
    project: str,
    scope: str = "live",
    *,
    rows: list[Row] | None = None,
    rev: int | None = None,
    stats: MemoStats | None = None,
) -> dict[int, Verdict]:
    """Verdicts for the project's facts in `scope`: read here, or `rows` ((id, anchors,
    commit)) with the `rev` of the snapshot they were read in (without it, no memo)."""
    out = _answer(conn, os.fspath(root), project, scope, rows, rev, stats, ids_only=False)
    return out if isinstance(out, dict) else {}


def stale_ids(
    conn: sqlite3.Connection,
    root: str | os.PathLike[str],
    project: str,
    *,
    rows: list[Row] | None = None,
    rev: int | None = None,
    stats: MemoStats | None = None,
) -> set[int]:
    """The approved facts to withhold: what injection needs. A miss runs
    `staleness.stale_ids`, which never asks git about moves, so the hook's one git call
    stays the memo's `diff-files`."""
    out = _answer(conn, os.fspath(root), project, "approved", rows, rev, stats, ids_only=True)
    return out if isinstance(out, set) else set()


# ---- the answer -----------------------------------------------------------------------


def _answer(
    conn: sqlite3.Connection, root: str, project: str, scope: str, rows: list[Row] | None,
    rev: int | None, stats: MemoStats | None, *, ids_only: bool,
) -> dict[int, Verdict] | set[int]:
    """The memo's answer when it still holds, else a full pass (remembered for next time).

    The rev a memo is saved under is never newer than the rows the pass read: a fact
    changed between the two moves the rev on, so the memo misses rather than lies. A hit
    reads the ids in the same snapshot as the rev for the same reason.
    """
    st = stats if stats is not None else MemoStats()
    statuses = SCOPES[scope]
    key = scope + (":ids" if ids_only else "")
    if rows is not None and len(rows) < MIN_FACTS:
        st.why = "few facts: the full pass is cheap"
        return _full_pass(conn, root, rows, ids_only)[0]
    index_sig = git_index.signature(root)
    git: anchors.GitInBackground | None = None
    try:
        with snapshot(conn, project, scope) as now:
            if rows is None:
                rev = now
            memo = None
            if rev is not None and index_sig is not None:
                memo = _read_memo(conn, project, key)
                if memo is not None or rows is not None:
                    git = _diff_files(root)  # runs on the other core from now on
            if memo is None:
                st.why = "no memo"
            elif memo[0] != rev or now != rev:
                st.why = "facts changed"
            elif _files_same(root, memo[1], index_sig, git, st):
                # Built while git still runs; kept only if git then agrees, about the
                # index it read: one written meanwhile (a `git add`) voids the answer.
                ids = [r[0] for r in rows] if rows is not None else _ids(conn, project, statuses)
                answer = _decode(memo[2], ids, ids_only)
                wait = max(HIT_WAIT, len(ids) * HIT_WAIT_PER_FACT)
                if _git_same(memo[1], git, wait, st):
                    if git_index.signature(root) == index_sig:
                        st.hit = True
                        return answer
                    st.why = "index changed while git looked"
            if rows is None:
                rows = _rows(conn, project, statuses)
        if len(rows) < MIN_FACTS:
            st.why = "few facts: the full pass is cheap"
            return _full_pass(conn, root, rows, ids_only)[0]
        if git is None and rev is not None and index_sig is not None:
            git = _diff_files(root)
        started = time.monotonic()
        answer, cited = _full_pass(conn, root, rows, ids_only)
        if git is not None and rev is not None and index_sig is not None:
            elapsed = time.monotonic() - started
            # Waiting for git may cost at most about what the pass itself did.
            dirty = git.output(max(MISS_WAIT, elapsed))
            _save(conn, root, project, key, rev, index_sig, dirty, cited, answer, elapsed, st)
        return answer
    finally:
        if git is not None:
            git.stop()


def _full_pass(
    conn: sqlite3.Connection, root: str, rows: list[Row], ids_only: bool
) -> tuple[dict[int, Verdict] | set[int], list[str]]:
    """The pass the memo stands in for, and the files it cited."""
    scan = staleness.ScanStats()
    if ids_only:
        return staleness.stale_ids(conn, root, rows, stats=scan), scan.cited
    return staleness.verdicts_for(conn, root, rows, stats=scan), scan.cited


def _rev(conn: sqlite3.Connection, project: str, scope: str) -> int | None:
    """The scope's revision for the project: 0 before its facts first changed; None when
    the store cannot say (then there is no memo, only the full pass)."""
    try:
        row = conn.execute(
            "SELECT rev FROM fact_rev WHERE project = ? AND scope = ?", (project, scope)
        ).fetchone()
    except sqlite3.Error as exc:
        log("staleness", f"verdict memo unreadable ({exc})")
        return None
    return int(row[0]) if row else 0


def _read_memo(conn: sqlite3.Connection, project: str, key: str) -> tuple[int, str, str] | None:
    try:
        cur = conn.cursor()
        cur.row_factory = None
        memo: tuple[int, str, str] | None = cur.execute(
            "SELECT fact_rev, files_key, verdicts FROM verdict_memo "
            "WHERE project = ? AND scope = ?",
            (project, key),
        ).fetchone()
    except sqlite3.Error as exc:
        log("staleness", f"verdict memo unreadable ({exc})")
        return None
    return memo


def _ids(conn: sqlite3.Connection, project: str, statuses: tuple[str, ...]) -> list[int]:
    """One row holding every id as JSON: a tenth of the cost of 10,000 rows."""
    cur = conn.cursor()
    cur.row_factory = None
    marks = ",".join("?" * len(statuses))
    (text,) = cur.execute(
        f"SELECT json_group_array(id) FROM fact WHERE project = ? AND status IN ({marks})",
        (project, *statuses),
    ).fetchone()
    ids: list[int] = json.loads(text)
    return ids


def _rows(conn: sqlite3.Connection, project: str, statuses: tuple[str, ...]) -> list[Row]:
    cur = conn.cursor()
    cur.row_factory = None
    marks = ",".join("?" * len(statuses))
    return cur.execute(
        f"SELECT id, anchors, commit_sha FROM fact WHERE project = ? AND status IN ({marks})",
        (project, *statuses),
    ).fetchall()


def _files_same(
    root: str, files_key: str, index_sig: tuple[int, int, int, str] | None,
    git: anchors.GitInBackground | None, st: MemoStats,
) -> bool:
    """The memo's file conditions this process can check itself, cheapest first."""
    try:
        key = json.loads(files_key)
    except ValueError:
        st.why = "memo unreadable"
        return False
    if index_sig is None or git is None or key.get("index") != list(index_sig):
        st.why = "index changed"
        return False
    if key.get("head") != anchors.git_head(root)[0]:
        st.why = "HEAD moved"
        return False
    if any(_stat_sig(os.path.join(root, p)) != sig for p, sig in key.get("watched", {}).items()):
        st.why = "a watched file changed"
        return False
    if any(_mtime(os.path.join(root, d)) != m for d, m in key.get("dirs", {}).items()):
        st.why = "a directory changed"
        return False
    return True


def _git_same(
    files_key: str, git: anchors.GitInBackground | None, wait: float, st: MemoStats
) -> bool:
    """Does git list the same files as differing from the index as it did then? A git
    slower than `wait` (a huge repository, a cold disk) is not waited for: the full pass
    is then about as cheap."""
    dirty = git.output(wait) if git is not None else None
    if dirty is None:
        st.why = "git did not answer in time"
        return False
    if _digest(dirty) != json.loads(files_key).get("dirty"):
        st.why = "git diff-files differs"
        return False
    return True


def _decode(text: str, ids: list[int], ids_only: bool) -> dict[int, Verdict] | set[int]:
    data = json.loads(text)
    if ids_only:
        return set(data["stale"]).intersection(ids)
    out = dict.fromkeys(ids, FRESH_VERDICT)
    for fact_id in data["unanchored"]:
        if fact_id in out:
            out[fact_id] = UNANCHORED_VERDICT
    for fact_id, (state, files, renamed) in data["stale"].items():
        fid = int(fact_id)
        if fid in out:
            out[fid] = Verdict(state, True, MappingProxyType(files), MappingProxyType(renamed))
    return out


def _encode(answer: dict[int, Verdict] | set[int]) -> str:
    if isinstance(answer, set):
        return json.dumps({"stale": sorted(answer)})
    stale: dict[int, list[Any]] = {}
    unanchored: list[int] = []
    for fact_id, v in answer.items():
        if v.stale:
            stale[fact_id] = [v.state, dict(v.files), dict(v.renamed_to)]
        elif v.state == staleness.UNANCHORED:
            unanchored.append(fact_id)
    return json.dumps({"stale": stale, "unanchored": unanchored})


def _save(
    conn: sqlite3.Connection, root: str, project: str, key: str, rev: int,
    index_sig: tuple[int, int, int, str], dirty: bytes | None, cited: list[str],
    answer: dict[int, Verdict] | set[int], elapsed: float, st: MemoStats,
) -> None:
    """Remember the pass when what it saw can be vouched for next time; else say why not."""
    vouched = git_index.vouched_paths(root) if dirty is not None else None
    why = ""
    if dirty is None or vouched is None:
        why = "git unreadable or slow"
    elif elapsed > MAX_PASS_S:
        why = "pass too slow"
    elif git_index.signature(root) != index_sig:
        why = "index changed during the pass"
    if not why:
        listed = {os.fsdecode(p) for p in dirty.split(b"\0") if p}
        settled = time.time_ns() - staleness.SETTLE_NS
        watched: dict[str, list[int] | None] = {}
        dirs: dict[str, int | None] = {}
        for path in cited:
            if path in vouched and path not in listed:
                continue
            sig = _stat_sig(os.path.join(root, path))
            watched[path] = sig
            if sig is None:
                parent = os.path.dirname(path)
                dirs[parent] = _mtime(os.path.join(root, parent))
            elif max(sig[1], sig[2]) >= settled:
                why = "a cited file was written just now"
                break
        if not why and isinstance(answer, dict):  # a move's target must stay as it was
            targets = {t for v in answer.values() if v.renamed_to for t in v.renamed_to.values()}
            for target in targets - watched.keys():
                sig = watched[target] = _stat_sig(os.path.join(root, target))
                if sig is None or max(sig[1], sig[2]) >= settled:
                    why = "a moved file's new home was written just now"
        if not why and any(m is not None and m >= settled for m in dirs.values()):
            why = "a directory was written just now"
    if why:
        st.why = why
        return
    files_key = json.dumps({
        "index": list(index_sig), "head": anchors.git_head(root)[0], "dirty": _digest(dirty),
        "watched": watched, "dirs": dirs,
    })
    row = (project, key, rev, files_key, _encode(answer), time.time())
    try:
        with db.transaction(conn):
            conn.execute(_INSERT, row)
    except sqlite3.Error as exc:  # read-only or busy store: the next pass is a full one
        st.why = f"memo not saved ({exc})"
        return
    st.saved = True


_INSERT = (
    "INSERT OR REPLACE INTO verdict_memo (project, scope, fact_rev, files_key, verdicts, at) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)


# ---- the file side --------------------------------------------------------------------


def _diff_files(root: str) -> anchors.GitInBackground:
    """The tracked files whose work-tree copy differs from the index, as git sees them."""
    return anchors.GitInBackground(
        root, "--no-optional-locks", "diff-files", "--ignore-submodules", "--name-only", "-z",
        timeout=staleness.GIT_TIMEOUT,
    )


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _stat_sig(path: str) -> list[int] | None:
    try:
        s = os.stat(path)
    except OSError:
        return None
    return [s.st_size, s.st_mtime_ns, s.st_ctime_ns, s.st_ino]


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None
