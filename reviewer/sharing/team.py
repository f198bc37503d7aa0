"""The team view's logic: the project's shared facts as this clone sees them, and what a
person may do with one (take it, retire it, edit its file). Plain functions; the TUI's
screen (reviewer/tui/screens/team.py) only shows them and calls these.

Approving stays the TUI's: `take` only stores a teammate's fact as this person's pending
candidate (keeping its share id, so their next `share` rewrites the same file); the
screen then approves it through the store with the person's actor.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from reviewer.freshness import staleness
from reviewer.sanitize.detect import redact
from reviewer.sharing import format as fmt
from reviewer.sharing import reading, trust
from reviewer.store import db


@dataclass
class TeamFact:
    """One file of `.mem-review/facts/`, judged."""

    path: str
    fact: fmt.SharedFact
    counts: bool  # approved under the trust rule
    reason: str  # why not, when it does not count
    stale: bool = False
    file_states: dict[str, str] = field(default_factory=dict)
    mine: int | None = None  # this store's fact with the same share id
    mine_status: str = ""
    verified_by: str = ""  # the remote commit's author (reading.verified_approver), once asked


def load(conn: sqlite3.Connection | None, root: str) -> list[TeamFact]:
    """Every shared fact file, with its trust state, staleness and local twin."""
    got = reading.read(root)
    facts = [e for e in got.entries if e.fact is not None]
    verdicts = staleness.verdicts(conn, root, [
        (-n, json.dumps(e.fact.anchors), e.fact.commit) for n, e in enumerate(facts, 1)
    ]) if facts else {}
    local: dict[str, tuple[int, str]] = {}
    if conn is not None:
        for fid, share_id, status in conn.execute(
            "SELECT id, share_id, status FROM fact WHERE project = ? AND share_id IS NOT NULL",
            (root,),
        ):
            local[share_id] = (fid, status)
    out = []
    for n, entry in enumerate(facts, 1):
        verdict = verdicts.get(-n)
        twin = local.get(entry.fact.id)
        out.append(TeamFact(
            path=entry.path, fact=entry.fact, counts=entry.state == trust.APPROVED,
            reason=entry.reason, stale=bool(verdict and verdict.stale),
            file_states=dict(verdict.files) if verdict else {},
            mine=twin[0] if twin else None, mine_status=twin[1] if twin else "",
        ))
    out.sort(key=lambda t: (t.counts, t.fact.text.casefold()))  # pending for the person first
    return out


def stage_take(conn: sqlite3.Connection, root: str, tf: TeamFact) -> tuple[int, str, str]:
    """This person's copy of a teammate's fact, as a pending candidate with the file's share
    id (an existing twin is reused): (id to approve, the file's text and category, which
    the twin takes when its own differ). Redacted like any input."""
    from reviewer.store.dedupe import fact_key

    text = redact(tf.fact.text)
    if tf.mine is not None:
        return tf.mine, text, tf.fact.category
    now = time.time()
    with db.transaction(conn):
        cur = conn.execute(
            "INSERT INTO fact (project, text, norm, category, files, confidence, evidence, "
            "status, source, commit_sha, anchors, created_at, updated_at, share_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 'shared', ?, ?, ?, ?, ?)",
            (root, text, fact_key(text), tf.fact.category, json.dumps(list(tf.fact.files)),
             tf.fact.confidence, redact(tf.fact.evidence), tf.fact.commit,
             json.dumps(tf.fact.anchors, sort_keys=True), now, now, tf.fact.id),
        )
        fact_id = int(cur.lastrowid or 0)
        conn.execute(
            "INSERT INTO fact_history (fact_id, at, actor, action, before, after) "
            "VALUES (?, ?, 'tui', 'taken', NULL, ?)",
            (fact_id, now, json.dumps({"file": tf.path, "from": tf.fact.approved_by})),
        )
    return fact_id, text, tf.fact.category


def retire(root: str, tf: TeamFact) -> None:
    """Take the fact out of the folder (the person commits the deletion)."""
    from reviewer.sharing.writing import refresh_index

    path = Path(root) / tf.path
    if path.is_file() or path.is_symlink():
        path.unlink()
    refresh_index(None, root)


def rewrite(root: str, tf: TeamFact, text: str, category: str, editor: str) -> fmt.SharedFact:
    """A person's new wording, written into the fact's file (redacted): it no longer
    matches origin's copy, so it is pending until they push it."""
    text = redact(" ".join(text.split()))
    if not text:
        raise ValueError("a fact cannot be empty")
    new = fmt.SharedFact(
        id=tf.fact.id, text=text, category=category, files=tf.fact.files,
        anchors=tf.fact.anchors, commit=tf.fact.commit, confidence=tf.fact.confidence,
        evidence=tf.fact.evidence, approved_by=editor, approved_at=fmt.iso(time.time()),
    )
    from reviewer.sharing.writing import refresh_index

    (Path(root) / tf.path).write_text(fmt.dumps(new), encoding="utf-8")
    refresh_index(None, root)
    return new
