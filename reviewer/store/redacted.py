"""The store remembers what the redactor found, without keeping it.

A job redacts a password where its context gives it away ("the password is …"); the
model may then repeat the bare value in a fact, where no rule can tell it from a word.
So every way into the store checks its text against the values redacted before:

- a job's own values are known in full while it runs (``detect.collecting``): the store's
  door replaces every occurrence in every text field (``scrub_new_fact``);
- for later writes (a person's edit or reason, MCP ``remember``, import) only keyed
  hashes are kept: HMAC-SHA256 of each value under a per-store key (``redaction.key``,
  0600, in the data dir, beside the store) in ``redacted.hmac`` (0600, appended). A
  candidate token of incoming text whose HMAC is known is redacted. No raw secret is
  stored, and without the key the hashes cannot be tested against guesses.

Candidate tokens: each run of non-space characters, cut at the delimiters a value sits
between (quotes, ``=``, ``:``, ``@``, brackets, commas…), and every contiguous span of up
to eight of those pieces, so ``user:pw@host`` yields ``pw`` and ``"pw",`` yields ``pw``.
A value holding spaces is remembered by its pieces too (each at least 8 characters).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from reviewer import paths

KEY_FILE = "redaction.key"
HASH_FILE = "redacted.hmac"
MARKER = "[REDACTED:remembered]"
MIN_LEN = 5  # a value shorter than this is a word, not something to hide everywhere
MIN_PIECE = 8  # a piece of a value with spaces in it, remembered on its own
_DIGEST = 32
_MAX_PIECES = 8
_MAX_FILE = 64 << 20  # 2 M values: a bound on what is read, not a limit anyone meets
_DELIMS = "\"'`=:@,;()[]{}<>/&?|\\"
_SPLIT_RE = re.compile("([" + re.escape(_DELIMS) + "]+)")
_TRAIL = ".,;:!?)]}'\"`"
_MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9-]{1,40}\]")


def data_dir(db_path: Path | None) -> Path:
    return Path(db_path).parent if db_path is not None else paths.home()


def dir_of(conn: sqlite3.Connection) -> Path:
    """The data dir of an open store (the file its ``main`` database is)."""
    for row in conn.execute("PRAGMA database_list"):
        if row[1] == "main" and row[2]:
            return Path(row[2]).parent
    return paths.home()


class Memory:
    """The keyed hashes of one store's redacted values."""

    def __init__(self, directory: Path) -> None:
        self.dir = Path(directory)
        self._key: bytes | None = None
        self._known: set[bytes] | None = None
        self._size = -1

    # ---- the key and the file ----------------------------------------------------

    def _read_key(self, create: bool) -> bytes | None:
        if self._key is not None:
            return self._key
        path = self.dir / KEY_FILE
        try:
            with open(path, "rb") as fh:
                key = fh.read(64)
        except FileNotFoundError:
            if not create:
                return None
            key = secrets.token_bytes(32)
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            except FileExistsError:
                return self._read_key(create=False)  # another process made it first
            with os.fdopen(fd, "wb") as fh:
                fh.write(key)
        if len(key) < 16:
            return None
        self._key = key
        return key

    def _digest(self, key: bytes, value: str) -> bytes:
        return hmac.new(key, value.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()

    def _load(self) -> set[bytes]:
        path = self.dir / HASH_FILE
        try:
            size = path.stat().st_size
        except OSError:
            self._known, self._size = set(), -1
            return self._known
        if self._known is not None and size == self._size:
            return self._known
        with open(path, "rb") as fh:
            data = fh.read(min(size, _MAX_FILE))
        n = len(data) // _DIGEST * _DIGEST
        self._known = {data[i : i + _DIGEST] for i in range(0, n, _DIGEST)}
        self._size = size
        return self._known

    # ---- remembering -------------------------------------------------------------

    def remember(self, values: Iterable[str]) -> int:
        """Add the hashes of ``values`` (and of their long pieces); returns how many new."""
        forms = set()
        for v in values:
            forms.update(forms_of(v))
        if not forms:
            return 0
        key = self._read_key(create=True)
        if key is None:
            return 0
        known = self._load()
        new = [d for d in {self._digest(key, f) for f in forms} if d not in known]
        if not new:
            return 0
        path = self.dir / HASH_FILE
        fd = os.open(path, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o600)
        try:
            os.write(fd, b"".join(new))
        finally:
            os.close(fd)
        known.update(new)
        self._size = -1  # re-read next time: another process may have appended too
        return len(new)

    # ---- checking ----------------------------------------------------------------

    def scrub(self, text: str) -> str:
        """``text`` with every candidate token whose keyed hash is remembered redacted."""
        if not text:
            return text
        key = self._read_key(create=False)
        if key is None:
            return text
        known = self._load()
        if not known:
            return text
        spans = [
            (s, e) for s, e, cand in candidates(text) if self._digest(key, cand) in known
        ]
        return _replace(text, spans)


def forms_of(value: str) -> set[str]:
    """What is hashed for one value: itself trimmed, and its long space-free pieces."""
    if _MARKER_RE.search(value):
        return set()  # the job's own markers, never a secret
    v = value.strip().rstrip(_TRAIL) if len(value.strip()) > MIN_LEN else value.strip()
    out = set()
    if len(v) >= MIN_LEN:
        out.add(v)
    if any(c.isspace() for c in v):
        out.update(p for p in v.split() if len(p) >= MIN_PIECE)
    return out


def candidates(text: str) -> Iterable[tuple[int, int, str]]:
    """(start, end, token) of every span worth testing against the remembered hashes."""
    for run in re.finditer(r"\S+", text):
        base = run.start()
        word = run.group()
        if len(word) < MIN_LEN:
            continue
        parts = _SPLIT_RE.split(word)  # pieces at even indexes, delimiters at odd ones
        offsets = []
        pos = 0
        for p in parts:
            offsets.append(pos)
            pos += len(p)
        pieces = [(offsets[i], offsets[i] + len(parts[i])) for i in range(0, len(parts), 2)]
        seen = set()
        for i in range(len(pieces)):
            for j in range(i, min(len(pieces), i + _MAX_PIECES)):
                s, e = pieces[i][0], pieces[j][1]
                for cs, ce in ((s, e), (s, _trimmed_end(word, s, e))):
                    if ce - cs >= MIN_LEN and (cs, ce) not in seen:
                        seen.add((cs, ce))
                        yield base + cs, base + ce, word[cs:ce]
        if (0, len(word)) not in seen:
            yield base, base + len(word), word


def _trimmed_end(word: str, s: int, e: int) -> int:
    while e > s and word[e - 1] in _TRAIL:
        e -= 1
    return e


def _replace(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    spans.sort()
    out, pos = [], 0
    for start, e in spans:
        if e <= pos:
            continue
        out.append(text[pos : max(start, pos)])
        out.append(MARKER)
        pos = e
    out.append(text[pos:])
    return "".join(out)


PIECE = 16  # a run this long of a value the job redacted is a leak of that value


def pieces_of(values: Iterable[str]) -> frozenset[str]:
    """Every PIECE-character slice of the values: a model that repeats part of one (a
    cookie's first half, a key cut short) is caught at the door too."""
    return frozenset(
        v[i : i + PIECE] for v in values if len(v) >= PIECE
        for i in range(len(v) - PIECE + 1)
    )


_RUN_RE = re.compile(r"[^\s\"'`<>,;()\[\]{}]{" + str(PIECE) + ",}")


def replace_values(text: str, values: Iterable[str], pieces: frozenset[str] = frozenset()
                   ) -> str:
    """``text`` with every occurrence of each raw value (this job's) redacted, and every
    run of characters holding a PIECE-long slice of one."""
    if not text:
        return text
    spans: list[tuple[int, int]] = []
    for v in values:
        start = text.find(v)
        while start >= 0:
            spans.append((start, start + len(v)))
            start = text.find(v, start + len(v))
    if pieces:
        for run in _RUN_RE.finditer(text):
            r = run.group()
            if any(r[i : i + PIECE] in pieces for i in range(len(r) - PIECE + 1)):
                spans.append(run.span())
    return _replace(text, spans)
