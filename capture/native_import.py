"""Claude Code's own memory notes become pending candidates, once each.

`install` calls `sweep` for the current project; the worker calls `sweep_changed` on each
run, for every folder the hooks found changed (their check is only a stat: see
`needs_sweep` in reviewer/claude_code/native_memory.py). Each distinct statement of
MEMORY.md and every topic file is one candidate, with `file:line` and the line as
evidence, source "claude-code memory"; the store strips invisible characters, redacts and
dedupes (Store.import_facts). The statement's content hash is remembered in
`native_note`, so a note is imported once even after the person edits or rejects it.
Nothing is ever approved here and no note file is touched.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from reviewer.claude_code import native_memory
from reviewer.freshness.anchors import blob_sha, git_head
from reviewer.store import db
from reviewer.store.dedupe import fact_key
from reviewer.store.facts import NewFact, Store

SOURCE = "claude-code memory"
# Claude Code's note types (frontmatter `type`) to mem-review's categories.
CATEGORY = {"user": "convention", "feedback": "convention", "project": "decision",
            "reference": "environment"}
_PATHLIKE = re.compile(  # `anything`, or a bare dotted name, with or without folders
    r"`([^`\s]+)`|(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z]\w{0,7})(?![\w/])")


@dataclass
class Swept:
    folder: Path
    notes: int = 0
    statements: int = 0
    added: int = 0
    skipped: int = 0  # already imported once, or already a fact of the project
    unchanged: bool = False


def sweep(store: Store, project: str, folder: Path | None = None, *,
          force: bool = False) -> Swept:
    """Import the folder's new statements for `project` as pending; record its signature."""
    if folder is None:
        folder = native_memory.state(project).folder
    signature = native_memory.signature(folder)
    conn = store.conn
    row = conn.execute("SELECT signature FROM native_folder WHERE folder = ?",
                       (str(folder),)).fetchone()
    out = Swept(folder)
    if not force and row is not None and row[0] == signature:
        out.unchanged = True
        return out
    known = {r[0] for r in conn.execute("SELECT hash FROM native_note WHERE project = ?",
                                        (project,))}
    commit, branch = git_head(project)
    fresh: list[tuple[str, NewFact, str, int]] = []
    for note in native_memory.notes(folder):
        out.notes += 1
        where = _shown(note)
        for line, text, front in native_memory.statements(native_memory.read_note(note)):
            out.statements += 1
            digest = native_memory.note_hash(text)
            if digest in known:
                out.skipped += 1
                continue
            known.add(digest)
            files = _cited(text, project)
            fresh.append((digest, NewFact(
                project=project, text=text, norm=fact_key(text),
                category=CATEGORY.get(front.get("type", "").lower(), "convention"),
                files=files, evidence=f"{where}:{line}: {text}", grounded=True,
                source=SOURCE, commit_sha=commit, branch=branch,
                anchors={f: blob_sha(Path(project) / f) for f in files},
            ), str(note), line))
    if fresh:
        added, skipped = store.import_facts([nf for _, nf, _, _ in fresh], keep_status=False)
        out.added, out.skipped = added, out.skipped + skipped
    now = db.now()
    with db.transaction(conn):
        conn.executemany(
            "INSERT OR IGNORE INTO native_note (project, hash, file, line, imported_at) "
            "VALUES (?, ?, ?, ?, ?)",
            [(project, digest, note, line, now) for digest, _, note, line in fresh])
        conn.execute(
            "INSERT INTO native_folder (folder, project, signature, swept_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT(folder) DO UPDATE SET project = excluded.project, "
            "signature = excluded.signature, swept_at = excluded.swept_at",
            (str(folder), project, signature, now))
        recorded = dict(conn.execute(
            "SELECT folder, signature FROM native_folder WHERE project = ?", (project,)
        ).fetchall())
    native_memory.write_marker(project, {str(k): str(v) for k, v in recorded.items()})
    return out


def sweep_changed(store: Store) -> list[Swept]:
    """Sweep every known folder whose notes changed since its last sweep (the worker)."""
    rows = store.conn.execute("SELECT folder, project, signature FROM native_folder").fetchall()
    done = []
    for folder, project, signature in rows:
        if native_memory.signature(Path(folder)) != signature:
            done.append(sweep(store, project, Path(folder)))
    # A folder moved since (autoMemoryDirectory, CLAUDE_CONFIG_DIR): the hooks only know
    # the recorded or default path; here the settings are read and the new one recorded.
    known = {folder for folder, _, _ in rows}
    for project in sorted({project for _, project, _ in rows}):
        current = native_memory.state(project).folder
        if str(current) not in known and native_memory.notes(current):
            done.append(sweep(store, project, current))
    return done


def _shown(note: Path) -> str:
    home = str(Path.home())
    text = str(note)
    return "~" + text[len(home):] if text.startswith(home + os.sep) else text


def _cited(text: str, project: str) -> list[str]:
    """Project files the statement names (so the fact goes stale when they change)."""
    out: list[str] = []
    for m in _PATHLIKE.finditer(text):
        name = (m.group(1) or m.group(2) or "").lstrip("./").rstrip(".,;:")
        if not name or name in out or os.path.isabs(name) or ".." in name.split("/"):
            continue
        if (Path(project) / name).is_file():
            out.append(name)
    return out[:20]
