"""Is an approved fact still true of the code? Compare its anchors with today's files.

Stdlib only: the SessionStart hook (`stale_ids`), the TUI and `list` (`verdicts`) run this
over every fact, and a pass over 10,000 facts is held to 3× one `git ls-files -s`
subprocess (bench/rows/staleness.py). Where the time goes, and why it is spent so:

- Facts captured together share an anchors text, so work is per distinct text; a fact
  only costs C-level maps (ids and texts pulled with `itemgetter`, the answer built with
  `dict(zip(...))`). Fresh facts share ONE verdict (`FRESH_VERDICT`); a verdict object
  is built only per stale text, so a non-stale verdict carries no per-file states.
- The texts are parsed together: joined, split on `"` (they are `json.dumps` output, so
  each pair is `"path": "sha"`), checked to have exactly that shape, and compared pair
  by pair with today's SHAs in C-level maps. Only texts with a differing pair are parsed
  as JSON and judged one by one; texts with escapes or another layout take that path too.
- Each distinct cited file is stat'ed once per pass, in one `map(os.stat, ...)`, and
  hashed only when its `hash_cache` row (size, mtime, ctime, inode: a rewrite that
  restores size and mtime, as `touch -d` does, still moves the ctime) does not vouch for
  it; new
  hashes are saved in one transaction. The stats are the floor: on the 2-core VM this
  was measured on, 2,000 of them (with their stat_result objects) cost about twice the
  baseline. Two threads splitting them lost as often as they won (GIL hand-offs).
- What depends only on the texts (the parse) or only on today's SHAs (the judgement) is
  remembered for the last two big lists (MEMO_MIN facts or more) of the process: a TUI
  re-scanning the same rows, or a benchmark, then pays the stats and little else. Files
  are still stat'ed on every pass: the SHAs a pass vouched for are reused only while
  every file is the same inode with the same ctime (which any write, truncate, chmod or
  utime moves, and which a remembered pass saw settled), the same files are missing,
  and the cache table has not been rewritten (its max rowid: emptying it forces a real
  look). `forget()` drops all of it.
- Git is asked nothing unless a cited file is missing. Then moves are found cheapest
  first: the same blob in the index (`reviewer.freshness.git_index` reads `.git/index`, no
  subprocess) or at another cited path; an untracked copy beside the old path (a plain
  `mv`); and, unless `similar_moves=False`, one parallel pair of git processes,
  `ls-files -o` (untracked copies elsewhere) and `diff -M <capture commit>` (moves that
  also changed). That answer is remembered in this process, keyed by HEAD, the index
  file's (size, mtime, inode), the missing paths with their SHAs and their directories'
  mtimes, so a TUI re-scanning pays it once. Trade-off: a copy that appears later without
  touching the index, HEAD or the old directory leaves a fact `deleted` rather than
  `moved` until one of those changes; both are stale, so what is injected never depends
  on it. `stale_ids`, all injection needs, never asks git.

A cache row is trusted only when size, mtime, ctime and inode match and the mtime is
more than SETTLE_NS old: a file written in the same clock tick as it was hashed could
change again without changing its mtime (git's "racily clean" problem), so such files are
re-hashed. The ctime needs no settling: no tool sets it, the kernel moves it on every
write, so a later rewrite (even one that puts size and mtime back) cannot match the row
unless it lands in the very clock tick of the write that was hashed, before the hash.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat as stat_mod
import time
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import compress, count, repeat
from operator import attrgetter, itemgetter, ne, not_
from types import MappingProxyType
from typing import Any

from reviewer.freshness import anchors as anchors_mod
from reviewer.freshness import cited, git_index
from reviewer.log import log

ABSENT = anchors_mod.ABSENT  # anchored as gone (a person verified it so): fresh while gone
FRESH = "fresh"
CHANGED = "changed"
MOVED = "moved"
DELETED = "deleted"
UNANCHORED = "unanchored"
STALE_STATES = frozenset({CHANGED, MOVED, DELETED})
# A fact with several files takes its worst file's state.
SEVERITY = {UNANCHORED: 0, FRESH: 1, CHANGED: 2, MOVED: 3, DELETED: 4}

SETTLE_NS = 2_000_000_000
MAX_UNTRACKED_HASHED = 64  # plain `mv` detection hashes at most this many files
MAX_HASH_BYTES = 8 * 1024 * 1024  # a file larger than this is no rename clue
GIT_TIMEOUT = 3.0
MEMO_MIN = 256  # lists of fewer facts are cheap enough not to be remembered
MOVES_REMEMBERED = 16
_EMPTY: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Verdict:
    """A fact's state. For a stale verdict `files` maps each anchored path to its own state
    and `renamed_to` maps a moved path to where it is now; a fresh or unanchored verdict
    has both empty (every anchored file is fresh) and is one shared instance. Verdicts
    are shared between facts with identical anchors: all of them are read-only."""

    state: str
    stale: bool
    files: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    renamed_to: Mapping[str, str] = field(default_factory=lambda: _EMPTY)


FRESH_VERDICT = Verdict(FRESH, False)
UNANCHORED_VERDICT = Verdict(UNANCHORED, False)


@dataclass
class ScanStats:
    """What one pass cost; the benchmark and tests read it."""

    facts: int = 0
    files: int = 0
    hashed: int = 0
    cached: int = 0
    missing: int = 0
    git_calls: int = 0
    cache_written: int = 0
    shas_remembered: bool = False  # today's SHAs: the last pass's (no file changed since)
    moves_remembered: bool = False  # where missing files went: the last pass's answer
    reused: bool = False  # the whole answer: the last identical pass's
    cited: list[str] = field(default_factory=list)  # every cited path (read-only; shared)


Items = Iterable[tuple[int, str | Mapping[str, str | None] | None, str | None]]


def verdicts(
    conn: sqlite3.Connection | None,
    project_root: str | os.PathLike[str],
    facts: Iterable[Any],
    *,
    stats: ScanStats | None = None,
    similar_moves: bool = True,
) -> dict[int, Verdict]:
    """Verdicts for facts (rows, dicts or objects with `id`, `anchors`, `commit_sha`).

    `anchors` ({path: blob sha or null}, as a dict or JSON text) is what is checked: a path
    anchored to null (missing at capture) cannot go stale, and a fact without anchors is
    unanchored. `conn` gives the hash cache; None, or a read-only database, only costs
    re-hashing. `similar_moves=False` never starts a process: a file moved AND edited
    (or moved untracked to another directory) then reads as deleted.
    """
    facts = facts if isinstance(facts, list) else list(facts)
    if not facts:
        return {}
    ids, texts, commits = _columns(facts)
    return _verdicts(conn, os.fspath(project_root), ids, texts, commits, stats, similar_moves)


def verdicts_for(
    conn: sqlite3.Connection | None,
    project_root: str | os.PathLike[str],
    items: Items,
    *,
    stats: ScanStats | None = None,
    similar_moves: bool = True,
) -> dict[int, Verdict]:
    """`verdicts` for (id, anchors JSON text or dict, commit_sha) tuples."""
    items = items if isinstance(items, list) else list(items)
    if not items:
        return {}
    ids, texts = list(map(_FIRST, items)), list(map(_SECOND, items))
    commits = _lazy(lambda: list(map(_THIRD, items)))
    return _verdicts(conn, os.fspath(project_root), ids, texts, commits, stats, similar_moves)


def stale_ids(
    conn: sqlite3.Connection | None,
    project_root: str | os.PathLike[str],
    items: Items,
    *,
    stats: ScanStats | None = None,
) -> set[int]:
    """Just the ids `verdicts_for` would call stale: what injection needs. Moved and
    deleted are both stale, so git is never asked and no Verdict is built."""
    st = stats if stats is not None else ScanStats()
    items = items if isinstance(items, list) else list(items)
    st.facts = len(items)
    if not items:
        return set()
    root = os.fspath(project_root)
    plan, texts = _plan(root, list(map(_SECOND, items)))
    scan = _scan(conn, root, plan, st)
    current = scan.current
    stale = {text for text, anchored in scan.suspects.items()
             if _judge(anchored, current, {}).stale}
    if not stale:
        return set()
    return set(compress(map(_FIRST, items), map(stale.__contains__, texts)))


def forget_moves() -> None:
    """Drop the remembered answers to "where did the missing files go?": the next pass
    searches again (the TUI does before a person anchors a path as gone)."""
    _MOVES.clear()


def forget() -> None:
    """Drop what this process remembers (plans, SHAs, moves): the next pass starts afresh."""
    global _PLANS
    _PLANS = ()
    _MOVES.clear()


# ---- one pass ----------------------------------------------------------------------------

_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)
_SIZE = attrgetter("st_size")
_MTIME = attrgetter("st_mtime_ns")
_MODE = attrgetter("st_mode")
_CTIME = attrgetter("st_ctime_ns")
_INO = attrgetter("st_ino")
_CACHED_SIG, _CACHED_SHA = itemgetter(1, 2, 3, 4), itemgetter(5)  # of a hash_cache row
_IS_REG = stat_mod.S_ISREG
_NO_ANCHORS = frozenset({"{}", ""})
_PAIR_SEPS = frozenset({", ", ",", "},{", "}]"})
_TEXT_ENDS = frozenset({"},{", "}]"})
_COLONS = frozenset({": ", ":"})


def _verdicts(
    conn: sqlite3.Connection | None,
    root: str,
    ids: list[Any],
    texts: list[Any],
    commits: Callable[[], list[Any]],
    stats: ScanStats | None,
    similar_moves: bool,
) -> dict[int, Verdict]:
    st = stats if stats is not None else ScanStats()
    st.facts = len(ids)
    plan, texts = _plan(root, texts)
    scan = _scan(conn, root, plan, st)
    current, last, wanted = scan.current, plan.last, scan.wanted
    renamed: dict[str, str] = {}
    if wanted and anchors_mod.is_git(root):

        def commit() -> str | None:
            gone = {t for t, a in scan.suspects.items() if not wanted.keys().isdisjoint(a)}
            seen = Counter(compress(commits(), map(gone.__contains__, texts)))
            seen.pop(None, None)
            return seen.most_common(1)[0][0] if seen else None

        renamed = _remembered_moves(root, scan, commit, st, similar_moves)
    if last is not None and last.scan is scan and last.renamed == renamed:
        special = last.special
    else:
        special = {text: _judge(anchored, current, renamed)
                   for text, anchored in scan.suspects.items()}
        special.update(dict.fromkeys(scan.unanchored, UNANCHORED_VERDICT))
    id_key = tuple(ids) if plan.remembered else None
    if last is not None and last.special is special and last.ids == id_key:
        st.reused = True
        return dict(last.out)
    if special:
        out = dict(zip(ids, map(special.get, texts, repeat(FRESH_VERDICT)), strict=True))
    else:
        out = dict.fromkeys(ids, FRESH_VERDICT)
    if not plan.remembered:
        return out
    plan.last = _Judged(scan, renamed, special, id_key, out)
    return dict(out)  # the remembered one stays unshared: callers may change theirs


class _Plan:
    """What a list of anchors texts needs whatever the files hold: their pairs and their
    cited files (relative `names`, absolute `paths`). A pure function of (root, texts)."""

    __slots__ = ("files", "last", "names", "outside", "pairs", "paths", "remembered")

    def __init__(self, root: str, texts: list[str], remembered: bool) -> None:
        self.pairs = _Pairs(set(texts))
        names = set(compress(self.pairs.paths, self.pairs.shas))  # an empty SHA: a null
        for anchored in self.pairs.slow.values():
            names.update(anchored)
        # A name out of the project (`../x`, `/etc/x`: an imported or hand-written row)
        # is never stat'ed nor hashed: it counts as missing, so its fact is stale.
        self.outside = [n for n in names if not cited.inside(n)]
        self.names = list(names.difference(self.outside)) if self.outside else list(names)
        prefix = root.rstrip(os.sep) + os.sep
        self.paths = list(map(prefix.__add__, self.names))
        self.remembered = remembered
        self.files: _Files | None = None
        self.last: _Judged | None = None


class _Files:
    """Today's SHAs as one pass found them, with what its stats saw."""

    __slots__ = ("current", "digest", "gone", "missing", "seen", "sizes")

    def __init__(self, gone: list[str], seen: tuple[list[int], ...], digest: object,
                 current: dict[str, str | None], sizes: dict[str, int], missing: int) -> None:
        self.gone, self.seen, self.digest, self.current, self.sizes, self.missing = (
            gone, seen, digest, current, sizes, missing)


class _Scan:
    """Today's SHAs of every cited file, and the anchors texts that may not be fresh.

    `suspects` maps each such text to its parsed anchors: those with a pair whose SHA is
    not today's, and those the fast parse could not vouch for. Every other text with
    anchors is fresh; `unanchored` holds the texts with nothing anchored.
    """

    __slots__ = ("current", "gone", "sizes", "suspects", "unanchored", "wanted")

    def __init__(self, current: dict[str, str | None], sizes: dict[str, int],
                 suspects: dict[str, dict[str, str]], unanchored: set[str]) -> None:
        self.current, self.sizes, self.suspects, self.unanchored = (
            current, sizes, suspects, unanchored)
        # each missing path with the SHAs it was anchored to: what a move must match
        self.wanted: dict[str, set[str]] = {}
        for anchored in suspects.values():
            for path, sha in anchored.items():
                if current[path] is None and sha != ABSENT:
                    self.wanted.setdefault(path, set()).add(sha)
        self.gone = frozenset((p, frozenset(s)) for p, s in self.wanted.items())


class _Judged:
    """The last answer for a plan; reusable while the files hold what they held then."""

    __slots__ = ("ids", "out", "renamed", "scan", "special")

    def __init__(self, scan: _Scan, renamed: dict[str, str], special: dict[str, Verdict],
                 ids: tuple[Any, ...] | None, out: dict[Any, Verdict]) -> None:
        self.scan, self.renamed, self.special, self.ids, self.out = (
            scan, renamed, special, ids, out)


_PLANS: tuple[tuple[tuple[str, tuple[str, ...]], _Plan], ...] = ()


def _plan(root: str, texts: list[Any]) -> tuple[_Plan, list[str]]:
    """The plan for these texts (remembered when the list is big), and the texts as JSON."""
    global _PLANS
    key: tuple[str, tuple[str, ...]] | None = None
    if len(texts) >= MEMO_MIN:
        key = (root, tuple(texts))  # compared, never hashed: no string is read twice
        for known, plan in _PLANS:
            if known == key:  # element identity first: same rows, a pointer compare each
                return plan, texts
    canon = _texts(texts)
    if len(canon) < MEMO_MIN:
        return _Plan(root, canon, False), canon
    if key is None or canon is not texts:  # a dict or None among them: as text now
        key = (root, tuple(canon))
        for known, plan in _PLANS:
            if known == key:
                return plan, canon
    plan = _Plan(root, canon, True)
    _PLANS = ((key, plan), *_PLANS[:1])  # one assignment: safe across TUI worker threads
    return plan, canon


def _scan(conn: sqlite3.Connection | None, root: str, plan: _Plan, st: ScanStats) -> _Scan:
    """Look at the files; the suspects are recomputed only when a file's SHA changed."""
    st.files, st.cited = len(plan.names), plan.names
    current, sizes = _look(conn, root, plan, st)
    last = plan.last
    if last is not None and (last.scan.current is current or last.scan.current == current):
        return last.scan
    pairs = plan.pairs
    unanchored = set(pairs.unanchored)
    suspects: dict[str, dict[str, str]] = dict(pairs.slow)
    if pairs.paths:
        # A pair is suspect when today's SHA differs (None: missing). An empty SHA (a null)
        # of a path no other text cites compares equal to its default.
        odd = compress(count(), map(ne, map(current.get, pairs.paths, pairs.shas), pairs.shas))
        for text in pairs.owners(odd):
            anchored = _parse(text)
            if anchored:
                suspects[text] = anchored
            else:
                unanchored.add(text)
        if "" in pairs.shas:  # nulls: a text of nulls only is unanchored, not fresh
            for text in pairs.owners(compress(count(), map(not_, pairs.shas))):
                if text not in suspects and not _parse(text):
                    unanchored.add(text)
    return _Scan(current, sizes, suspects, unanchored)


class _Pairs:
    """The (path, sha) pairs of many anchors texts, flattened, from ONE split.

    `json.dumps` writes `{"a.py": "sha", "b.py": null}`; with no backslash in the text
    (no escaped quote), splitting the joined texts on `"` puts every key at index
    1 mod 4 and its value at 3 mod 4, provided the pieces between them are exactly the
    JSON punctuation expected (checked, so anything else is parsed as real JSON instead).
    """

    __slots__ = ("_ends", "paths", "seps", "shas", "slow", "texts", "unanchored")

    def __init__(self, distinct: set[str]) -> None:
        self.unanchored: set[str] = distinct & _NO_ANCHORS
        todo = list(distinct - self.unanchored) if self.unanchored else list(distinct)
        odd: list[str] = []
        joined = "[" + ",".join(todo) + "]"
        if "\\" in joined:  # escapes (non-ASCII paths, quotes): those texts one by one
            odd = [t for t in todo if "\\" in t]
            todo = [t for t in todo if "\\" not in t]
            joined = "[" + ",".join(todo) + "]"
        self.texts, self.paths, self.shas, self.seps = todo, [], [], []
        self._ends: list[int] | None = None
        if todo and not self._split(joined, len(todo)):
            odd += todo
            self.texts = []
        self.slow: dict[str, dict[str, str]] = {}
        for text, anchored in _parse_all(set(odd)).items():
            if anchored:
                self.slow[text] = anchored
            else:
                self.unanchored.add(text)

    def _split(self, joined: str, n: int) -> bool:
        if '":' in joined and "null" in joined:  # a null value: an empty SHA, same shape
            joined = joined.replace('": null', '": ""').replace('":null', '":""')
        parts = joined.split('"')
        pairs = len(parts) // 4
        if not pairs or len(parts) != 4 * pairs + 1 or parts[0] != "[{":
            return False
        seps = parts[4::4]
        if not set(parts[2::4]) <= _COLONS or not set(seps) <= _PAIR_SEPS:
            return False
        if seps[-1] != "}]" or seps.count("}]") != 1 or seps.count("},{") != n - 1:
            return False
        if not _printable(joined):  # a raw control character: not valid JSON
            return False
        self.paths, self.shas, self.seps = parts[1::4], parts[3::4], seps
        return True

    def owners(self, pair_indexes: Iterable[int]) -> set[str]:
        """The texts the given pairs belong to."""
        if self._ends is None:  # each text ends at the pair followed by `}`
            self._ends = list(compress(count(1), map(_TEXT_ENDS.__contains__, self.seps)))
        ends, texts = self._ends, self.texts
        return {texts[bisect_right(ends, i)] for i in pair_indexes}


_CONTROL = bytes(range(32)) + b"\x7f"


def _printable(text: str) -> bool:
    """No control character (JSON strings may not hold one raw). ASCII, the stored case,
    is checked as bytes: 4× faster than `str.isprintable`."""
    if text.isascii():
        data = text.encode("ascii")
        return len(data.translate(None, _CONTROL)) == len(data)
    return text.isprintable()


def _columns(facts: list[Any]) -> tuple[list[Any], list[Any], Callable[[], list[Any]]]:
    """(ids, anchors, commits later) with C-level getters when the facts allow it."""
    first = facts[0]
    if isinstance(first, sqlite3.Row) and {"id", "anchors", "commit_sha"} <= set(first.keys()):
        keys = first.keys()  # by-name lookup on a Row scans its names: index once instead
        get_id, get_anchors, get_commit = (
            itemgetter(keys.index("id")), itemgetter(keys.index("anchors")),
            itemgetter(keys.index("commit_sha")))
    elif isinstance(first, Mapping):
        get_id, get_anchors, get_commit = (
            itemgetter("id"), itemgetter("anchors"), itemgetter("commit_sha"))
    else:
        get_id, get_anchors, get_commit = (
            attrgetter("id"), attrgetter("anchors"), attrgetter("commit_sha"))
    try:
        ids, texts = list(map(get_id, facts)), list(map(get_anchors, facts))
    except (KeyError, IndexError, AttributeError, TypeError):  # mixed shapes: one by one
        ids = [_field(f, "id") for f in facts]
        texts = [_field(f, "anchors") for f in facts]
        return ids, texts, _lazy(lambda: [_field(f, "commit_sha") for f in facts])

    def commits() -> list[Any]:
        try:
            return list(map(get_commit, facts))
        except (KeyError, IndexError, AttributeError, TypeError):
            return [_field(f, "commit_sha") for f in facts]

    return ids, texts, _lazy(commits)


def _lazy(make: Callable[[], list[Any]]) -> Callable[[], list[Any]]:
    done: list[list[Any]] = []

    def get() -> list[Any]:
        if not done:
            done.append(make())
        return done[0]

    return get


def _texts(texts: list[Any]) -> list[str]:
    """Anchors as JSON text: stored text stays as is (and cheap); dicts, None and junk are
    written the same way, so everything below deals with text alone."""
    if set(map(type, texts)) <= {str}:
        return texts
    return [t if type(t) is str else _as_text(t) for t in texts]


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return str(value)
    return json.dumps(_clean(value), ensure_ascii=False) if isinstance(value, Mapping) else "{}"


_json_scan = json.scanner.make_scanner(json.JSONDecoder())  # the C scanner: no wrapper layers


def _parse_all(raws: set[str]) -> dict[str, dict[str, str]]:
    """Parse every distinct anchors text in ONE `json.loads` of their join (one C call
    instead of thousands of Python-level ones); any surprise falls back to one by one."""
    out: dict[str, dict[str, str]] = {raw: {} for raw in raws & _NO_ANCHORS}
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
    for raw in todo:  # the slow path: nulls (missing at capture) and junk values dropped
        values_ = out[raw].values()
        if "" in values_ or set(map(type, values_)) - {str}:
            out[raw] = _clean(out[raw])
    return out


def _parse(raw: str) -> dict[str, str]:
    """{path: sha} from anchors JSON, nulls (missing at capture) and garbage dropped."""
    if raw in _NO_ANCHORS:
        return {}
    start = len(raw) - len(raw.lstrip())  # whitespace around is fine, as for json.loads
    try:
        obj, end = _json_scan(raw, start)
    except (StopIteration, ValueError, RecursionError):
        return {}
    if type(obj) is not dict or raw[end:].strip():
        return {}
    values = obj.values()
    if "" in values or set(map(type, values)) - {str}:  # nulls, lists, numbers: dropped
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
        return FRESH_VERDICT
    files: dict[str, str] = {}
    worst = FRESH
    moved: dict[str, str] = {}
    for path, sha in anchored.items():
        now = current[path]
        if now == sha or (now is None and sha == ABSENT):  # still there, or still gone
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
    if worst == FRESH:
        return FRESH_VERDICT
    return Verdict(worst, True, files, moved)


# ---- today's content -------------------------------------------------------------------


def _look(
    conn: sqlite3.Connection | None, root: str, plan: _Plan, st: ScanStats
) -> tuple[dict[str, str | None], dict[str, int]]:
    """({relative path: blob sha now, or None when not a regular file}, {missing path: its
    cached size, a rename clue}) for the plan's cited files. The result is shared: treat
    it as read-only.

    Every file is stat'ed. The common case, each file's size and mtime as cached and
    settled, runs as C-level maps over all files at once; Python only loops over the
    files that need a look.
    """
    names = plan.names
    if not names:
        return dict.fromkeys(plan.outside), {}
    infos, failed = _stat_list(plan.paths)
    present, found, gone = names, infos, []
    if failed:
        present = list(compress(names, infos))
        found = list(filter(None, infos))
        gone = [names[i] for i in failed]
    # The last pass's SHAs still hold if every file is the same inode with the same ctime
    # (any write, truncate, chmod or utime moves it; a remembered pass saw only ctimes
    # older than SETTLE_NS, so no write can hide in the same clock tick), and the same
    # files are missing. Attribute lists, not a tuple per file: C-level, no allocation.
    ctimes, inos = list(map(_CTIME, found)), list(map(_INO, found))
    seen = (ctimes, inos)
    last = plan.files
    if (last is not None and last.seen == seen and last.gone == gone
            and last.digest == _cache_digest(conn)):
        st.shas_remembered = True
        st.cached, st.missing = len(present), last.missing
        return last.current, last.sizes
    sizes_now, mtimes, modes = (list(map(_SIZE, found)), list(map(_MTIME, found)),
                                list(map(_MODE, found)))
    cached = _load_cache(conn, root, plan.paths)
    full = plan.paths if not failed else list(compress(plan.paths, infos))
    current: dict[str, str | None] = {}
    redo: list[int] = []
    try:  # all cached, as stat'ed now: one C-level pass (a missing row raises TypeError)
        rows = list(map(cached.get, full))
        current = dict(zip(present, map(_CACHED_SHA, rows), strict=True))
        match = map(ne, map(_CACHED_SIG, rows), zip(sizes_now, mtimes, ctimes, inos,
                                                      strict=True))
        redo = list(compress(count(), match))
    except TypeError:  # some file has no row: sort them out one by one
        sigs = zip(full, sizes_now, mtimes, ctimes, inos, strict=True)
        for i, (path, *sig) in enumerate(sigs):
            hit = cached.get(path)
            if hit is None or list(hit[1:5]) != sig:
                redo.append(i)
            else:
                current[present[i]] = hit[5]
    settled = time.time_ns() - SETTLE_NS
    trusted = not ctimes or max(ctimes) < settled  # may the next pass reuse these SHAs?
    if mtimes and max(mtimes) >= settled:  # racily clean: look again
        redo = sorted({*redo, *compress(count(), map(settled.__le__, mtimes))})
    if not all(map(_IS_REG, modes)):
        redo = sorted({*redo, *compress(count(), map(not_, map(_IS_REG, modes)))})
    prefix = root.rstrip(os.sep) + os.sep
    updates: list[tuple[str, int, int, int, int, str]] = []
    for i in redo:
        rel, info = present[i], found[i]
        if not _IS_REG(info.st_mode):
            current[rel] = None
            continue
        sha, stable = hash_file(root, rel, info)
        st.hashed += 1
        current[rel] = sha
        if sha is not None and stable and info.st_mtime_ns < settled:
            updates.append((prefix + rel, info.st_size, info.st_mtime_ns, info.st_ctime_ns,
                            info.st_ino, sha))
        else:
            trusted = False
    sizes: dict[str, int] = {}
    for rel in (*gone, *plan.outside):
        current[rel] = None
        hit = cached.get(prefix + rel)
        if hit is not None:
            sizes[rel] = hit[1]
    st.missing = list(current.values()).count(None)
    st.cached = len(names) + len(plan.outside) - st.hashed - st.missing
    if updates and conn is not None:
        st.cache_written = _save_cache(conn, updates)
    if plan.remembered and trusted:
        plan.files = _Files(gone, seen, _cache_digest(conn), current, sizes, st.missing)
    return current, sizes


def _stat_list(paths: list[str]) -> tuple[list[os.stat_result | None], list[int]]:
    """(`os.stat` of each path or None where it fails, the indexes that failed), in one
    C-level map: a failure costs a restart, not a Python loop per file."""
    out: list[os.stat_result | None] = []
    failed: list[int] = []
    todo = iter(paths)
    while True:
        try:
            out.extend(map(os.stat, todo))
            return out, failed
        except (OSError, ValueError):
            failed.append(len(out))
            out.append(None)


def hash_file(root: str, rel: str, before: os.stat_result) -> tuple[str | None, bool]:
    """(blob sha, whether the file kept the size, mtime and ctime it had at `before`
    while read). Through `cited.read`: a regular file in the project, bounded."""
    data, why, after = cited.read_stat(root, rel)
    if data is None or after is None:
        log("staleness", f"cited file not read: {rel[:200]!r}: {why}")
        return None, False
    stable = (after.st_size, after.st_mtime_ns, after.st_ctime_ns) == (
        before.st_size, before.st_mtime_ns, before.st_ctime_ns)
    return anchors_mod.hash_bytes(data), stable


def _load_cache(
    conn: sqlite3.Connection | None, root: str, paths: list[str]
) -> dict[str, tuple[str, int, int, int, int, str]]:
    """{absolute path: (path, size, mtime_ns, ctime_ns, ino, sha)} from the cache rows
    under `root`: one
    range scan of the primary key, or a lookup of each path when few. Rows are kept as
    sqlite returns them: no Python work per row."""
    if conn is None:
        return {}
    prefix = root.rstrip(os.sep) + os.sep
    try:
        cur = conn.cursor()
        cur.row_factory = None
        if len(paths) <= 64:
            marks = ",".join("?" * len(paths))
            rows = cur.execute(
                "SELECT path, size, mtime_ns, ctime_ns, ino, blob_sha FROM hash_cache "
                f"WHERE path IN ({marks})",
                paths,
            ).fetchall()
        else:
            upper = prefix[:-1] + chr(ord(os.sep) + 1)
            rows = cur.execute(
                "SELECT path, size, mtime_ns, ctime_ns, ino, blob_sha FROM hash_cache "
                "WHERE path >= ? AND path < ?",
                (prefix, upper),
            ).fetchall()
    except sqlite3.Error as exc:
        log("staleness", f"hash cache unreadable, hashing everything: {exc}")
        return {}
    return dict(zip(map(_FIRST, rows), rows, strict=True))


def _cache_digest(conn: sqlite3.Connection | None) -> object:
    """What changes whenever the cache table is emptied or written (a replaced row gets a
    new rowid): lets a pass reuse the SHAs it vouched for, in O(log n)."""
    if conn is None:
        return None
    try:
        cur = conn.cursor()
        cur.row_factory = None
        return cur.execute("SELECT max(rowid) FROM hash_cache").fetchone()[0]
    except sqlite3.Error:
        return object()  # unreadable: equal to nothing, so nothing is reused


def _save_cache(
    conn: sqlite3.Connection, updates: list[tuple[str, int, int, int, int, str]]
) -> int:
    """Write the new hashes in one transaction; a read-only or busy store just skips it."""
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(
                "INSERT OR REPLACE INTO hash_cache "
                "(path, size, mtime_ns, ctime_ns, ino, blob_sha) VALUES (?, ?, ?, ?, ?, ?)",
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

_MOVES: dict[tuple[Any, ...], dict[str, str]] = {}


def _remembered_moves(
    root: str, scan: _Scan, commit: Callable[[], str | None], st: ScanStats, similar: bool
) -> dict[str, str]:
    """`find_renames` for the scan's missing files, remembered while HEAD, the index and
    the old directories stay put (see the module docstring for what that can miss)."""
    wanted = scan.wanted
    key = (
        root, similar, anchors_mod.git_head(root)[0], git_index.signature(root), scan.gone,
        tuple(_mtime(os.path.join(root, d)) for d in sorted({os.path.dirname(p) for p in wanted})),
    )
    hit = _MOVES.get(key)
    if hit is not None and all(os.path.isfile(os.path.join(root, p)) for p in hit.values()):
        st.moves_remembered = True
        return dict(hit)
    chosen = commit() if similar else None
    found = find_renames(root, wanted, Counter([chosen] if chosen else []), st,
                         current=scan.current, sizes=scan.sizes, similar=similar)
    while len(_MOVES) >= MOVES_REMEMBERED:
        del _MOVES[next(iter(_MOVES))]
    _MOVES[key] = dict(found)
    return found


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def find_renames(
    root: str,
    wanted: dict[str, set[str]],
    commits: Counter[str] | None = None,
    stats: ScanStats | None = None,
    *,
    current: Mapping[str, str | None] | None = None,
    sizes: Mapping[str, int] | None = None,
    similar: bool = True,
) -> dict[str, str]:
    """Where missing files went: {old path: new path}, for paths that exist now.

    `wanted` maps each missing path to the blob SHAs it was anchored to. Cheapest first:
    the same content at another path in the index (read in-process; `git ls-files -s`
    only if the index format is not understood) or at another cited path (`current`);
    then an untracked copy in the old directory (a plain `mv`; `sizes`, the old files'
    sizes, narrow what is hashed). With `similar`, what is left goes to git, both at once:
    `ls-files -o` for untracked copies elsewhere (same-named, or all when few) and
    `diff -M --name-status <commit>` (the commit most of the facts were captured at) for
    moves whose content also changed.
    """
    st = stats if stats is not None else ScanStats()
    found: dict[str, str] = {}
    shas = {s for ss in wanted.values() for s in ss if s != anchors_mod.EMPTY_BLOB}
    by_sha = git_index.paths_by_sha(root, shas) if shas else {}
    known: dict[str, list[str]] = {sha: list(paths) for sha, paths in (by_sha or {}).items()}
    for path, sha in (current or {}).items():
        if sha in shas:
            known.setdefault(sha, []).append(path)
    if known:
        found.update(_exact_moves(root, wanted, known))
    left = {p: s for p, s in wanted.items() if p not in found}
    if left:
        found.update(_nearby_moves(root, left, current or {}, sizes or {}))
    left = {p: s for p, s in left.items() if p not in found}
    if not left or not similar:
        return found
    listing = ("ls-files", "-z", "-o", "--exclude-standard")
    if by_sha is None:
        listing = ("ls-files", "-z", "-s", "-c", "-o", "--exclude-standard")
    commit = commits.most_common(1)[0][0] if commits else None
    argvs = [listing]
    if commit:
        argvs.append(("diff", "-z", "-M", "--name-status", "--diff-filter=R", commit, "--"))
    outs = _git_all(root, argvs)
    st.git_calls += len(argvs)
    if outs[0] is not None:
        tracked: dict[str, list[str]] = {}
        untracked: list[str] = []
        for entry in outs[0].split("\0"):
            if not entry:
                continue
            meta, tab, path = entry.partition("\t")
            if tab:
                parts = meta.split(" ")
                if len(parts) == 3:
                    tracked.setdefault(parts[1], []).append(path)
            else:
                untracked.append(meta)
        if tracked:
            found.update(_exact_moves(root, left, tracked))
        left = {p: s for p, s in left.items() if p not in found}
        if left and untracked:
            found.update(_untracked_moves(root, left, untracked))
    if len(outs) > 1 and outs[1] is not None:
        fields = outs[1].split("\0")
        for i in range(0, len(fields) - 2, 3):
            if not fields[i].startswith("R"):
                break
            old, new = fields[i + 1], fields[i + 2]
            if old in wanted and old not in found and os.path.isfile(os.path.join(root, new)):
                found[old] = new
    return found


def _exact_moves(
    root: str, wanted: dict[str, set[str]], by_sha: Mapping[str, list[str]]
) -> dict[str, str]:
    found: dict[str, str] = {}
    for old, shas in wanted.items():
        hits = [
            p for sha in shas if sha != anchors_mod.EMPTY_BLOB
            for p in by_sha.get(sha, ()) if p not in wanted
        ]
        target = _pick(old, hits, root)
        if target is not None:
            found[old] = target
    return found


def _nearby_moves(
    root: str,
    wanted: dict[str, set[str]],
    current: Mapping[str, str | None],
    sizes: Mapping[str, int],
) -> dict[str, str]:
    """Untracked copies in each missing file's own directory (a plain `mv` or a rename in
    an editor). Files whose SHA is already known are skipped, and when the old file's
    size is known only files of that size are read; at most MAX_UNTRACKED_HASHED."""
    by_dir: dict[str, list[str]] = {}
    for path in wanted:
        by_dir.setdefault(os.path.dirname(path), []).append(path)
    candidates: list[str] = []
    for rel_dir, olds in by_dir.items():
        want_sizes = {sizes.get(p) for p in olds}
        any_size = None in want_sizes
        try:
            with os.scandir(os.path.join(root, rel_dir)) as entries:
                for entry in entries:
                    rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                    if rel in wanted or rel in current or not entry.is_file(follow_symlinks=False):
                        continue
                    if any_size or entry.stat(follow_symlinks=False).st_size in want_sizes:
                        candidates.append(rel)
        except OSError:
            continue
    return _untracked_moves(root, wanted, candidates)


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
        sha = cited.blob_sha(root, rel)[0]
        if sha is not None and sha != anchors_mod.EMPTY_BLOB:
            by_sha.setdefault(sha, []).append(rel)
    found: dict[str, str] = {}
    for old, shas in wanted.items():
        target = _pick(old, [p for sha in shas for p in by_sha.get(sha, ())], root)
        if target is not None:
            found[old] = target
    return found


def _git_all(root: str, argvs: list[tuple[str, ...]]) -> list[str | None]:
    """Run git commands side by side (two cores: about the time of one), within one
    GIT_TIMEOUT in all; None for any that fails, overruns or cannot start."""
    procs = [anchors_mod.GitInBackground(root, *argv, timeout=GIT_TIMEOUT) for argv in argvs]
    deadline = time.monotonic() + GIT_TIMEOUT
    outs: list[str | None] = []
    try:
        for proc in procs:
            out = proc.output(max(0.0, deadline - time.monotonic()))
            outs.append(None if out is None else out.decode("utf-8", "replace"))
    finally:
        for proc in procs:
            proc.stop()
    return outs


def _field(fact: Any, name: str) -> Any:
    if isinstance(fact, Mapping | sqlite3.Row):
        try:
            return fact[name]
        except (KeyError, IndexError):
            return None
    return getattr(fact, name, None)
