"""Which part of a cited file a fact is about, so a change elsewhere in the file is told
apart from a change to what the fact says.

A fact names things: identifiers (`MAX_BACKOFF_SECONDS`, `create_order`), paths, numbers,
quoted values. The lines of the file that hold them, with a line of context each side, are
the fact's part of the file. Comparing that part as the fact saw it (the file at the
capture commit) with the part today grades a stale fact:

- `part`: the cited part changed or vanished: the fact may no longer be true;
- `elsewhere`: only other lines changed: likely still true, still for a person to confirm;
- `unknown`: the fact names nothing that can be found in the file (prose only).

Stdlib only; pure functions. Injection keeps withholding both kinds until a person decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

PART, ELSEWHERE, UNKNOWN = "part", "elsewhere", "unknown"
RANK = {PART: 0, UNKNOWN: 1, ELSEWHERE: 2}  # the stale view shows what matters first
CONTEXT_LINES = 1

_BACKTICK = re.compile(r"`([^`\n]{1,120})`")
_QUOTED = re.compile(r"\"([^\"\n]{2,80})\"|'([^'\n]{2,80})'")
_TOKEN = re.compile(r"[A-Za-z_][\w.\-/]*[\w]|\d+(?:\.\d+)*")


def _code_like(token: str) -> bool:
    """An identifier, path or number, as opposed to an English word."""
    if token.isdigit() or re.fullmatch(r"\d+(?:\.\d+)+", token):
        return len(token) >= 2 or token not in "0123456789"
    return (
        "_" in token
        or "/" in token
        or ("." in token.strip(".") and not token.endswith("."))
        or any(c.isdigit() for c in token)
        or (token[0].islower() and any(c.isupper() for c in token))  # camelCase
        or (token[0].isupper() and any(c.islower() for c in token[1:])
            and any(c.isupper() for c in token[1:]))  # CamelCase (not API, JSON: acronyms)
    )


def terms(fact_text: str) -> list[str]:
    """What the fact names that a file can hold, longest first, without repeats."""
    found: list[str] = []
    for m in _BACKTICK.finditer(fact_text):
        found.append(m.group(1).strip())
    for m in _QUOTED.finditer(fact_text):
        found.append((m.group(1) or m.group(2)).strip())
    for m in _TOKEN.finditer(fact_text):
        token = m.group(0).rstrip(".-/")
        if token and _code_like(token):
            found.append(token)
    out: list[str] = []
    for t in sorted(set(found), key=lambda t: (-len(t), t)):
        if t and not any(t in longer for longer in out if "/" not in longer):
            out.append(t)
    return out


def _lines_with(lines: Sequence[str], needles: Iterable[str]) -> list[int]:
    wanted = [n for n in needles if n]
    return [i for i, line in enumerate(lines) if any(n in line for n in wanted)]


def region(text: str, needles: Sequence[str], context: int = CONTEXT_LINES) -> list[str]:
    """The lines holding any needle, with `context` lines each side, in file order."""
    lines = text.splitlines()
    keep: set[int] = set()
    for i in _lines_with(lines, needles):
        keep.update(range(max(0, i - context), min(len(lines), i + context + 1)))
    return [lines[i] for i in sorted(keep)]


def grade(before: str | None, after: str | None, fact_text: str, path: str = "") -> str:
    """How a changed file's change relates to the fact (see the module docstring)."""
    needles = [t for t in terms(fact_text) if t != path and not path.endswith("/" + t)]
    if before is None or not needles:
        return UNKNOWN
    old = region(before, needles)
    if not old:
        return UNKNOWN  # the fact's names are not in this file (it cites it for context)
    if after is None:
        return PART  # the file is gone: so is the cited part
    return ELSEWHERE if region(after, needles) == old else PART


def worst(grades: Iterable[str]) -> str:
    """One fact, several changed files: the grade that matters most."""
    return min(grades, key=lambda g: RANK[g], default=UNKNOWN)


def cited_lines(diff: str, fact_text: str) -> set[int]:
    """Indices of the diff's lines that belong to a hunk touching the cited part."""
    needles = terms(fact_text)
    lines = diff.splitlines()
    hunks: list[tuple[int, int]] = []
    start = None
    for i, line in enumerate(lines):
        if line.startswith("@@"):
            if start is not None:
                hunks.append((start, i))
            start = i
    if start is not None:
        hunks.append((start, len(lines)))
    out: set[int] = set()
    for a, b in hunks:
        body = lines[a + 1:b]
        named = _lines_with([ln[1:] for ln in body], needles) if needles else []
        changed = [i for i, ln in enumerate(body) if ln[:1] in "+-"]
        # As `region`: a change on a named line or next to one touches the part.
        if any(abs(c - n) <= CONTEXT_LINES for c in changed for n in named):
            out.update(range(a, b))
    return out


# ---- reading what the fact saw (one git process for every blob) -----------------------


def read_blobs(root: str, shas: Iterable[str]) -> dict[str, str | None]:
    """Blob text by sha from the repository's object store (`git cat-file --batch`);
    None for a blob git does not have (a file anchored but never added) or binary."""
    import subprocess

    wanted = sorted({s for s in shas if s and re.fullmatch(r"[0-9a-f]{40}", s)})
    out: dict[str, str | None] = dict.fromkeys(wanted)
    if not wanted:
        return out
    try:
        proc = subprocess.run(
            ["git", "-C", root, "cat-file", "--batch"], input="\n".join(wanted).encode() + b"\n",
            capture_output=True, timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return out
    data, pos = proc.stdout, 0
    for sha in wanted:
        end = data.find(b"\n", pos)
        if end < 0:
            break
        header = data[pos:end].split()
        pos = end + 1
        if len(header) != 3 or header[1] != b"blob":
            continue  # "<sha> missing"
        size = int(header[2])
        body = data[pos:pos + size]
        pos += size + 1
        if b"\0" not in body[:8000]:
            out[sha] = body.decode("utf-8", "replace")
    return out


def grade_files(
    root: str, fact_text: str, changed: dict[str, tuple[str | None, str | None]],
    blobs: dict[str, str | None],
) -> str:
    """The fact's grade over its changed files: path → (anchored blob sha, path now)."""
    from reviewer.freshness import cited

    grades = []
    for path, (sha, now_path) in changed.items():
        before = blobs.get(sha) if sha else None
        after = None
        if now_path is not None:
            data = cited.read(root, now_path)[0]  # bounded: never a FIFO or 2 GB
            after = None if data is None else data.decode("utf-8", "replace")
        grades.append(grade(before, after, fact_text, path))
    return worst(grades)
