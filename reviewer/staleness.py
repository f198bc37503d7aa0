"""Is an approved fact still true of the code? Compare its anchors with today's files.

Stdlib only: the SessionStart hook runs this over every approved fact before it injects
anything, so the whole check is one pass:

- all distinct anchors texts are parsed at once (facts captured together share one, and
  are judged once);
- each distinct cited file is stat'ed once and hashed only when its `hash_cache` row
  (path, size, mtime_ns) does not vouch for it; new hashes are saved in one transaction;
- git is asked nothing unless a cited file is missing; then at most two subprocesses
  (`git ls-files -s -c -o` for moves whose content is unchanged, including a plain `mv`,
  and `git diff -M --name-status <commit>` for moves that also changed) tell `moved`
  from `deleted`. `stale_ids`, all injection needs, never asks git: both are stale.

A cache row is trusted only when size and mtime_ns match and the mtime is more than
SETTLE_NS old: a file written in the same clock tick as it was hashed could change again
without changing its mtime (git's "racily clean" problem), so such files are re-hashed.
A deleted file whose exact content lives on at another path reads as moved there.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat as stat_mod
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reviewer import anchors as anchors_mod
from reviewer.log import log

FRESH = "fresh"
CHANGED = "changed"
MOVED = "moved"
DELETED = "deleted"
UNANCHORED = "unanchored"
STALE_STATES = frozenset({CHANGED, MOVED, DELETED})
# A fact with several files takes its worst file's state.
SEVERITY = {UNANCHORED: 0, FRESH: 1, CHANGED: 2, MOVED: 3, DELETED: 4}

SETTLE_NS = 2_000_000_000
MAX_UNTRACKED_HASHED = 64  # plain `mv` detection hashes at most this many untracked files
MAX_HASH_BYTES = 8 * 1024 * 1024  # an untracked file larger than this is no rename clue
GIT_TIMEOUT = 3.0


@dataclass(slots=True)
class Verdict:
    """A fact's state. `files` maps each anchored path to its own state; `renamed_to` maps
    a moved path to where it is now. Verdicts are shared between facts with identical
    anchors: treat them as read-only (not frozen only because frozen init costs 3×)."""

    state: str
    stale: bool
    files: dict[str, str] = field(default_factory=dict)
    renamed_to: dict[str, str] = field(default_factory=dict)


UNANCHORED_VERDICT = Verdict(UNANCHORED, False, {}, {})


@dataclass
class ScanStats:
    """What one `verdicts` pass cost; the benchmark and tests read it."""

    facts: int = 0
    files: int = 0
    hashed: int = 0
    cached: int = 0
    missing: int = 0
    git_calls: int = 0
    cache_written: int = 0


def verdicts(
    conn: sqlite3.Connection | None,
    project_root: str | os.PathLike[str],
    facts: Iterable[Any],
    *,
    stats: ScanStats | None = None,
) -> dict[int, Verdict]:
    """Verdicts for facts (rows, dicts or objects with `id`, `files`, `anchors`, `commit_sha`).

    `anchors` ({path: blob sha or null}, as a dict or JSON text) is what is checked: a path
    anchored to null (missing at capture) cannot go stale, and `files` without anchors
    are unanchored. `conn` gives the hash cache; None, or a read-only database, only
    costs re-hashing.
    """
    facts = list(facts)
    if not facts:
        return {}
    first = facts[0]
    items: list[tuple[Any, Any, Any]]
    if isinstance(first, sqlite3.Row) and {"id", "anchors", "commit_sha"} <= set(first.keys()):
        # By-name lookup on a Row scans its column names each time: index once instead.
        keys = first.keys()
        i, a, c = keys.index("id"), keys.index("anchors"), keys.index("commit_sha")
        items = [(f[i], f[a], f[c]) for f in facts]
    else:
        items = [(_field(f, "id"), _field(f, "anchors"), _field(f, "commit_sha")) for f in facts]
    return verdicts_for(conn, project_root, items, stats=stats)


def verdicts_for(
    conn: sqlite3.Connection | None,
    project_root: str | os.PathLike[str],
    items: Iterable[tuple[int, str | Mapping[str, str | None] | None, str | None]],
    *,
    stats: ScanStats | None = None,
) -> dict[int, Verdict]:
    """The fast path of `verdicts`: items are (id, anchors JSON text or dict, commit_sha).

    Work is per distinct anchors text (facts captured together share it), so parsing and
    judging cost what the distinct anchors cost, and facts only cost a dict lookup.
    """
    st = stats if stats is not None else ScanStats()
    root = os.fspath(project_root)
    items, parsed, others, current = _prepare(conn, root, items, st)
    missing = {p for p, sha in current.items() if sha is None}
    st.missing = len(missing)
    renamed: dict[str, str] = {}
    if missing and anchors_mod.is_git(root):
        renamed = _renames_for(root, items, parsed, others, missing, st)
    citems = current.items()
    judged = {  # the all-fresh test inlined: this runs once per distinct anchors text
        raw: Verdict(FRESH, False, dict.fromkeys(a, FRESH), {})
        if a and a.items() <= citems else _judge(a, current, renamed)
        for raw, a in parsed.items()
    }
    out = {fact_id: judged[raw] for fact_id, raw, _ in items if type(raw) is str}
    for i, anchored in others.items():
        out[items[i][0]] = _judge(anchored, current, renamed)
    return out


def stale_ids(
    conn: sqlite3.Connection | None,
    project_root: str | os.PathLike[str],
    items: Iterable[tuple[int, str | Mapping[str, str | None] | None, str | None]],
    *,
    stats: ScanStats | None = None,
) -> set[int]:
    """Just the ids `verdicts_for` would call stale: what injection needs. Moved and
    deleted are both stale, so no git subprocess is ever needed, and no Verdict is built."""
    st = stats if stats is not None else ScanStats()
    items, parsed, others, current = _prepare(conn, os.fspath(project_root), items, st)
    st.missing = sum(1 for sha in current.values() if sha is None)
    citems = current.items()
    stale = {raw for raw, a in parsed.items() if a and not a.items() <= citems}
    out = {fact_id for fact_id, raw, _ in items if type(raw) is str and raw in stale}
    out.update(items[i][0] for i, a in others.items() if a and not a.items() <= citems)
    return out


def _prepare(
    conn: sqlite3.Connection | None, root: str, items: Iterable[Any], st: ScanStats
) -> tuple[list[Any], dict[str, dict[str, str]], dict[int, dict[str, str]],
           dict[str, str | None]]:
    """(items, {anchors text: anchors}, {index: anchors} for non-text ones, today's SHAs)."""
    items = list(items)
    st.facts = len(items)
    parsed = _parse_all({raw for _, raw, _ in items if type(raw) is str})
    others = {i: _clean(raw) for i, (_, raw, _) in enumerate(items) if type(raw) is not str}
    cited: set[str] = set().union(*parsed.values(), *others.values())
    st.files = len(cited)
    return items, parsed, others, _current_shas(conn, root, cited, st)


def _renames_for(
    root: str,
    items: list[tuple[int, Any, str | None]],
    parsed: dict[str, dict[str, str]],
    others: dict[int, dict[str, str]],
    missing: set[str],
    st: ScanStats,
) -> dict[str, str]:
    """Gather what the rename search needs: each missing path's anchored SHAs, and the
    capture commits of the facts citing them (the most common one is diffed against)."""
    wanted: dict[str, set[str]] = {}
    commits: Counter[str] = Counter()
    for i, (_, raw, commit) in enumerate(items):
        anchored = parsed[raw] if type(raw) is str else others[i]
        gone = missing.intersection(anchored)
        for path in gone:
            wanted.setdefault(path, set()).add(anchored[path])
        if gone and commit:
            commits[commit] += 1
    return find_renames(root, wanted, commits, st)


_scan = json.scanner.make_scanner(json.JSONDecoder())  # the C scanner: no wrapper layers


def _parse_all(raws: set[str]) -> dict[str, dict[str, str]]:
    """Parse every distinct anchors text in ONE `json.loads` of their join (one C call
    instead of thousands of Python-level ones); any surprise falls back to one by one."""
    out: dict[str, dict[str, str]] = {raw: {} for raw in raws & {"", "{}"}}
    todo = [raw for raw in raws if raw not in out]
    if not todo:
        return out
    joined = "[" + ",".join(todo) + "]"
    try:
        values = json.loads(joined)
    except (ValueError, RecursionError):
        values = None
    if values is None or len(values) != len(todo) or set(map(type, values)) != {dict}:
        out.update((raw, _parse(raw)) for raw in todo)  # some text is not one JSON object
        return out
    out.update(zip(todo, values, strict=True))
    if "null" in joined or '""' in joined:  # paths anchored to nothing (missing at capture)
        for raw in todo:
            values_ = out[raw].values()
            if None in values_ or "" in values_:
                out[raw] = _clean(out[raw])
    return out


def _parse(raw: str) -> dict[str, str]:
    """{path: sha} from anchors JSON, nulls (missing at capture) and garbage dropped."""
    if raw in ("{}", ""):
        return {}
    try:
        obj, end = _scan(raw, 0)
    except (StopIteration, ValueError, RecursionError):
        return {}
    if type(obj) is not dict or raw[end:].strip():
        return {}
    values = obj.values()
    if None in values or "" in values:  # C-level scans; other junk just never matches
        return _clean(obj)
    return obj


def _clean(obj: object) -> dict[str, str]:
    if isinstance(obj, str):
        return _parse(obj)
    if not isinstance(obj, Mapping):
        return {}
    return {str(k): v for k, v in obj.items() if isinstance(v, str) and v}


def _judge(
    anchored: dict[str, str], current: dict[str, str | None], renamed: dict[str, str]
) -> Verdict:
    if not anchored:
        return UNANCHORED_VERDICT
    if anchored.items() <= current.items():  # all fresh: a C-level subset test
        return Verdict(FRESH, False, dict.fromkeys(anchored, FRESH), {})
    files: dict[str, str] = {}
    worst = FRESH
    moved: dict[str, str] = {}
    for path, sha in anchored.items():
        now = current[path]
        if now == sha:
            files[path] = FRESH
            continue
        if now is None:
            target = renamed.get(path)
            if target is None:
                state = DELETED
            else:
                state = MOVED
                moved[path] = target
        else:
            state = CHANGED
        files[path] = state
        if SEVERITY[state] > SEVERITY[worst]:
            worst = state
    return Verdict(worst, worst != FRESH, files, moved)


# ---- today's content -------------------------------------------------------------------


def _current_shas(
    conn: sqlite3.Connection | None, root: str, cited: set[str], st: ScanStats
) -> dict[str, str | None]:
    """{relative path: blob sha now, or None when it is not a regular file}.

    Files are stat'ed relative to an open fd of their directory where the OS allows it:
    the kernel then resolves one name instead of the whole path (half the cost here).
    """
    if not cited:
        return {}
    cache = _load_cache(conn, root)
    settled = time.time_ns() - SETTLE_NS
    updates: list[tuple[str, int, int, str]] = []
    current: dict[str, str | None] = {}
    join = os.path.join
    stat = os.stat
    is_reg = stat_mod.S_ISREG
    use_fd = stat in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")
    by_dir: dict[str, list[tuple[str, str]]] = {}
    if use_fd:
        for rel in cited:
            head, _, tail = rel.rpartition("/")  # POSIX only here: dir_fd is not on Windows
            by_dir.setdefault(head, []).append((rel, tail))
    else:
        by_dir[""] = [(rel, join(root, rel)) for rel in cited]
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
    prefix = root.rstrip(os.sep) + os.sep
    get = cache.get
    for head, rels in by_dir.items():
        fd: int | None = None
        if use_fd:
            try:
                fd = os.open(join(root, head), flags)
            except (OSError, ValueError):
                current.update(dict.fromkeys(rel for rel, _ in rels))
                continue
        try:
            for rel, name in rels:
                try:
                    info = stat(name, dir_fd=fd)
                except (OSError, ValueError):
                    current[rel] = None
                    continue
                path = prefix + rel
                hit = get(path)
                # A cached row only exists for a regular file; matching size and mtime
                # (and an mtime older than the settle time) vouch for its content.
                if (
                    hit is not None
                    and hit[1] == info.st_mtime_ns
                    and hit[0] == info.st_size
                    and info.st_mtime_ns < settled
                    and is_reg(info.st_mode)
                ):
                    current[rel] = hit[2]
                    continue
                if not is_reg(info.st_mode):
                    current[rel] = None
                    continue
                sha, stable = hash_file(path, info)
                st.hashed += 1
                current[rel] = sha
                if sha is not None and stable and info.st_mtime_ns < settled:
                    updates.append((path, info.st_size, info.st_mtime_ns, sha))
        finally:
            if fd is not None:
                os.close(fd)
    st.cached = len(cited) - st.hashed - sum(1 for v in current.values() if v is None)
    if updates and conn is not None:
        st.cache_written = _save_cache(conn, updates)
    return current


def hash_file(path: str, before: os.stat_result) -> tuple[str | None, bool]:
    """(blob sha, whether the file kept the size and mtime it had at `before` while read)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
            after = os.fstat(fh.fileno())
    except OSError:
        return None, False
    stable = after.st_size == before.st_size and after.st_mtime_ns == before.st_mtime_ns
    return anchors_mod.hash_bytes(data), stable


def _load_cache(conn: sqlite3.Connection | None, root: str) -> dict[str, tuple[int, int, str]]:
    """The cache rows under `root`, by one range scan of the primary key."""
    if conn is None:
        return {}
    prefix = root.rstrip(os.sep) + os.sep
    upper = prefix[:-1] + chr(ord(os.sep) + 1)
    try:
        cur = conn.cursor()
        cur.row_factory = None
        rows = cur.execute(
            "SELECT path, size, mtime_ns, blob_sha FROM hash_cache WHERE path >= ? AND path < ?",
            (prefix, upper),
        ).fetchall()
    except sqlite3.Error as exc:
        log("staleness", f"hash cache unreadable, hashing everything: {exc}")
        return {}
    return {p: (size, mtime, sha) for p, size, mtime, sha in rows}


def _save_cache(conn: sqlite3.Connection, updates: list[tuple[str, int, int, str]]) -> int:
    """Write the new hashes in one transaction; a read-only or busy store just skips it."""
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(
                "INSERT OR REPLACE INTO hash_cache (path, size, mtime_ns, blob_sha) "
                "VALUES (?, ?, ?, ?)",
                updates,
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        log("staleness", f"hash cache not updated ({exc})")
        return 0
    return len(updates)


# ---- moved or deleted ------------------------------------------------------------------


def find_renames(
    root: str,
    wanted: dict[str, set[str]],
    commits: Counter[str] | None = None,
    stats: ScanStats | None = None,
) -> dict[str, str]:
    """Where missing files went: {old path: new path}, for paths that exist now.

    `wanted` maps each missing path to the blob SHAs it was anchored to. First, one
    `git ls-files -s -c -o --exclude-standard` finds the same content at another path in
    the index (`git mv`, committed or not) or among untracked files (a plain `mv`; only
    same-named files, or all of them when there are few, are hashed). Then, for what is
    still unexplained, one `git diff -M --name-status <commit>` (the commit most of those
    facts were captured at) finds moves whose content also changed.
    """
    st = stats if stats is not None else ScanStats()
    found: dict[str, str] = {}
    listing = anchors_mod.run_git(
        root, "ls-files", "-z", "-s", "-c", "-o", "--exclude-standard", timeout=GIT_TIMEOUT
    )
    st.git_calls += 1
    if listing is not None:
        by_sha: dict[str, list[str]] = {}
        untracked: list[str] = []
        for entry in listing.split("\0"):
            if not entry:
                continue
            meta, tab, path = entry.partition("\t")
            if tab:
                parts = meta.split(" ")
                if len(parts) == 3:
                    by_sha.setdefault(parts[1], []).append(path)
            else:
                untracked.append(meta)
        missing = set(wanted)
        for old, shas in wanted.items():
            hits = [
                p for sha in shas if sha != anchors_mod.EMPTY_BLOB
                for p in by_sha.get(sha, ()) if p not in missing
            ]
            target = _pick(old, hits, root)
            if target is not None:
                found[old] = target
        left = {p: s for p, s in wanted.items() if p not in found}
        if left and untracked:
            found.update(_untracked_moves(root, left, untracked))
    if commits and any(p not in found for p in wanted):
        commit = commits.most_common(1)[0][0]
        diff = anchors_mod.run_git(
            root, "diff", "-z", "-M", "--name-status", "--diff-filter=R", commit, "--",
            timeout=GIT_TIMEOUT,
        )
        st.git_calls += 1
        if diff is not None:
            fields = diff.split("\0")
            for i in range(0, len(fields) - 2, 3):
                if not fields[i].startswith("R"):
                    break
                old, new = fields[i + 1], fields[i + 2]
                if old in wanted and old not in found and os.path.isfile(os.path.join(root, new)):
                    found[old] = new
    return found


def _pick(old: str, hits: list[str], root: str) -> str | None:
    """The likeliest new home: an existing file with the same name, else the only one."""
    hits = [p for p in dict.fromkeys(hits) if os.path.isfile(os.path.join(root, p))]
    if not hits:
        return None
    name = os.path.basename(old)
    same = [p for p in hits if os.path.basename(p) == name]
    if same:
        return same[0]
    return hits[0] if len(hits) == 1 else None


def _untracked_moves(
    root: str, wanted: dict[str, set[str]], untracked: list[str]
) -> dict[str, str]:
    names = {os.path.basename(p) for p in wanted}
    if len(untracked) > MAX_UNTRACKED_HASHED:
        untracked = [p for p in untracked if os.path.basename(p) in names]
        untracked = untracked[:MAX_UNTRACKED_HASHED]
    by_sha: dict[str, list[str]] = {}
    for rel in untracked:
        path = os.path.join(root, rel)
        try:
            if os.path.getsize(path) > MAX_HASH_BYTES:
                continue
        except OSError:
            continue
        sha = anchors_mod.blob_sha(path)
        if sha is not None and sha != anchors_mod.EMPTY_BLOB:
            by_sha.setdefault(sha, []).append(rel)
    found: dict[str, str] = {}
    for old, shas in wanted.items():
        target = _pick(old, [p for sha in shas for p in by_sha.get(sha, ())], root)
        if target is not None:
            found[old] = target
    return found


def _field(fact: Any, name: str) -> Any:
    if isinstance(fact, Mapping | sqlite3.Row):
        try:
            return fact[name]
        except (KeyError, IndexError):
            return None
    return getattr(fact, name, None)
