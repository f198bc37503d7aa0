"""Claude proposes a fact mid-session: it becomes a PENDING candidate, never more.

What the `remember` tool of `mem-review mcp` does. The proposal goes through the same
gates as a captured candidate: redacted before it is stored, deduped against the
project's facts (a repeat counts as seen again, a rejected twin is suppressed), its cited
files anchored to today's hashes, and its evidence checked against the session's
transcript when one can be found. Checking needs capture's code, which this layer may not
import: the caller (reviewer/commands/mcp.py) passes the check in as `Checks`.

Only a person approves (GUIDE §1): this module writes `status = 'pending'` and nothing
else, with `source = 'agent'` so the TUI and `list` show who proposed it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reviewer.claude_code.recall import RecallError, parse
from reviewer.freshness import cited as cited_files
from reviewer.freshness.anchors import git_head
from reviewer.sanitize.detect import collecting, redact, remembered
from reviewer.sanitize.visible import strip as strip_invisible
from reviewer.store import db
from reviewer.store.dedupe import FactIndex, fact_key
from reviewer.store.redacted import Memory, dir_of, replace_values
from reviewer.store.schema import CATEGORIES, MAX_FACT_CHARS

SOURCE = "agent"
ACTOR = "agent"
MAX_EVIDENCE_CHARS = 2_000
# A flood of proposals buries the real ones under review work (issue 19): at most
# PER_SESSION stored per session (per day when no session is known), PER_MINUTE a minute.
PER_SESSION = 20
PER_MINUTE = 5
MAX_FILES = 20
AGENT_CONFIDENCE = 0.5  # the agent states no confidence; the reviewer judges
NEIGHBOURS = 200  # full-text matches a proposal is deduped against
NOT_APPROVED = (
    "It is NOT approved: a person reviews it in `mem-review` before it is ever recalled "
    "or injected."
)


class RememberError(ValueError):
    """Arguments remember cannot use; the message is one line for the caller."""


@dataclass
class Checks:
    """What capture knows how to check, handed down by the command layer.

    `grounded(fact, evidence)` is True/False when the session's transcript was found and
    the verifier judged the quote, None when there is no transcript to check against.
    """

    grounded: Callable[[str, str], bool | None] = lambda _fact, _evidence: None
    session_id: str | None = None


@dataclass
class Proposal:
    kind: str  # new | seen_again | suppressed
    fact_id: int | None
    text: str
    grounded: bool | None = None
    missing: list[str] = field(default_factory=list)
    unread: dict[str, str] = field(default_factory=dict)

    def message(self) -> str:
        if self.kind == "suppressed":
            return (
                "Not stored: a person already rejected the same fact for this project. "
                + NOT_APPROVED.replace("It is", "Nothing was")
            )
        if self.kind == "seen_again":
            return (
                f"Already known as fact #{self.fact_id}; counted as seen again, nothing new "
                "stored. Only a person approves facts, in `mem-review`."
            )
        check = {
            True: "its evidence was found in this session's transcript",
            False: "its evidence was NOT found in this session's transcript (flagged)",
            None: "no transcript was found to check its evidence against (flagged)",
        }[self.grounded]
        gone = [f for f in self.missing if f not in self.unread]
        missing = f"; cited files not in the project: {', '.join(gone)}" if gone else ""
        missing += "".join(f"; cited file {f} not read: {why}"
                           for f, why in self.unread.items())
        return (
            f"Stored as pending candidate #{self.fact_id} (proposed by the agent); "
            f"{check}{missing}. {NOT_APPROVED}"
        )


def remember(
    conn: sqlite3.Connection, project: str | os.PathLike[str], fact: object, category: object,
    files: object = None, evidence: object = None, *, checks: Checks | None = None,
) -> Proposal:
    """Store one agent proposal as pending (or count it as a repeat); never approves."""
    checks = checks or Checks()
    root = os.fspath(project)
    text, cat, cited, quote = _validate(fact, category, files, evidence)
    # Nothing the person could not see is stored (reviewer/sanitize/visible.py), and
    # stripping comes before redaction, so a secret split by a zero-width character is whole.
    # And no value redacted before (in any job, edit or import) lands here either.
    memory = Memory(dir_of(conn))
    scrub = memory.scrub
    with collecting() as found:
        text = " ".join(redact(strip_invisible(text)).split())
        quote = redact(strip_invisible(quote)).strip()
        cited = [redact(strip_invisible(f)) for f in cited]
    values = remembered(found)
    memory.remember(values)  # the agent may repeat it bare in its next proposal
    text = " ".join(scrub(replace_values(text, values)).split())
    quote = scrub(replace_values(quote, values)).strip()
    if not text:
        raise RememberError("fact is empty after redaction")
    cited = _relative([scrub(replace_values(f, values)) for f in cited], root)
    grounded = checks.grounded(text, quote) if quote else False
    missing = [f for f in cited if not _inside_and_exists(root, f)]
    anchors, unread = cited_files.anchor(root, [f for f in cited if f not in missing])
    missing += [f for f in unread if f not in missing]  # a FIFO, a device, 2 GB: not read
    anchors = {f: anchors.get(f) for f in cited}
    commit, branch = git_head(root)
    now = db.now()
    _within_limits(conn, root, checks.session_id, now)
    with db.transaction(conn):
        decision = FactIndex.build(_neighbours(conn, root, text)).classify(text)
        if decision.kind == "suppressed":
            return Proposal("suppressed", decision.match_id, text)
        if decision.kind == "seen_again" and decision.match_id is not None:
            conn.execute(
                "UPDATE fact SET times_seen = times_seen + 1, updated_at = ? WHERE id = ?",
                (now, decision.match_id),
            )
            _history(conn, decision.match_id, "seen_again", {"source": SOURCE}, now)
            return Proposal("seen_again", decision.match_id, text)
        cur = conn.execute(
            "INSERT INTO fact (project, text, norm, category, files, confidence, evidence, "
            "status, grounded, missing_files, session_id, source, commit_sha, branch, "
            "anchors, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (root, text, fact_key(text), cat, json.dumps(cited), AGENT_CONFIDENCE, quote,
             int(bool(grounded)), json.dumps(missing), checks.session_id, SOURCE, commit,
             branch, json.dumps(anchors, sort_keys=True), now, now),
        )
        fact_id = int(cur.lastrowid or 0)
        _history(conn, fact_id, "proposed", {
            "text": text, "category": cat, "files": cited, "status": "pending",
            "grounded": grounded,
        }, now)
    return Proposal("new", fact_id, text, grounded, missing, unread)


def _neighbours(conn: sqlite3.Connection, root: str, text: str) -> list[tuple[int, str, str]]:
    """The project's facts that could be the same as `text`: those with its key, and the
    best full-text matches of its words (a near duplicate shares nearly all of them, so
    it ranks among the first). Classifying against these instead of every fact keeps a
    proposal at 10,000 facts in milliseconds, not the half second a full index takes."""
    rows = conn.execute(
        "SELECT id, text, status FROM fact WHERE project = ? AND norm = ?",
        (root, fact_key(text)),
    ).fetchall()
    try:
        match = parse(text).match  # recall's quoting, filler words left out
    except RecallError:
        match = ""
    if match:
        rows += conn.execute(
            "SELECT f.id, f.text, f.status FROM fact_fts JOIN fact f ON f.id = fact_fts.rowid "
            "WHERE fact_fts MATCH ? AND f.project = ? ORDER BY bm25(fact_fts) LIMIT ?",
            (match, root, NEIGHBOURS),
        ).fetchall()
    return list({int(r[0]): (int(r[0]), str(r[1]), str(r[2])) for r in rows}.values())


def _validate(
    fact: object, category: object, files: object, evidence: object
) -> tuple[str, str, list[str], str]:
    if not isinstance(fact, str) or not fact.strip():
        raise RememberError("fact must be a non-empty string")
    if len(fact) > MAX_FACT_CHARS:
        raise RememberError(f"fact is {len(fact)} characters; at most {MAX_FACT_CHARS}")
    if not isinstance(category, str) or category not in CATEGORIES:
        raise RememberError(f"category must be one of {', '.join(CATEGORIES)}")
    if files is None:
        files = []
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise RememberError("files must be a list of project paths (strings)")
    if len(files) > MAX_FILES:
        raise RememberError(f"at most {MAX_FILES} files")
    if evidence is None:
        evidence = ""
    if not isinstance(evidence, str):
        raise RememberError("evidence must be a string (a verbatim quote from this session)")
    if len(evidence) > MAX_EVIDENCE_CHARS:
        raise RememberError(f"evidence is {len(evidence)} characters; at most "
                            f"{MAX_EVIDENCE_CHARS}")
    return fact, category, files, evidence


def _within_limits(conn: sqlite3.Connection, root: str, session_id: str | None,
                   now: float) -> None:
    """Refuse, saying why, a proposal over the session's cap or the per-minute rate."""
    recent = conn.execute(
        "SELECT COUNT(*) FROM fact WHERE source = ? AND project = ? AND created_at > ?",
        (SOURCE, root, now - 60)).fetchone()[0]
    if recent >= PER_MINUTE:
        raise RememberError(
            f"not stored: {recent} proposals in the last minute, at most {PER_MINUTE} a "
            "minute; propose only what a person will want to keep, and wait a minute")
    if session_id:
        mine = conn.execute("SELECT COUNT(*) FROM fact WHERE source = ? AND session_id = ?",
                            (SOURCE, session_id)).fetchone()[0]
        scope = "this session"
    else:
        mine = conn.execute(
            "SELECT COUNT(*) FROM fact WHERE source = ? AND project = ? AND session_id IS NULL "
            "AND created_at > ?", (SOURCE, root, now - 86_400)).fetchone()[0]
        scope = "sessions with no known transcript today"
    if mine >= PER_SESSION:
        raise RememberError(
            f"not stored: {scope} already proposed {mine} fact{'s' if mine != 1 else ''}, "
            f"the cap is {PER_SESSION}; "
            "a person reviews them in `mem-review` first")


def _relative(files: list[str], root: str) -> list[str]:
    out: list[str] = []
    base = os.path.normpath(root)
    for given in files:
        name = given.strip()
        if os.path.isabs(name):
            norm = os.path.normpath(name)
            if os.path.commonpath([base, norm]) == base and norm != base:
                name = os.path.relpath(norm, base)
        while name.startswith("./"):
            name = name[2:]
        if name and "\0" not in name and name not in out:
            out.append(name)
    return out


def _inside_and_exists(root: str, name: str) -> bool:
    base = os.path.normpath(os.path.abspath(root))
    path = os.path.normpath(os.path.join(base, name))
    try:
        inside = os.path.commonpath([base, path]) == base
    except ValueError:
        return False
    return inside and Path(path).exists()


def _history(
    conn: sqlite3.Connection, fact_id: int, action: str, after: dict[str, Any], now: float
) -> None:
    conn.execute(
        "INSERT INTO fact_history (fact_id, at, actor, action, before, after) "
        "VALUES (?, ?, ?, ?, NULL, ?)",
        (fact_id, now, ACTOR, action, json.dumps(after, sort_keys=True)),
    )
