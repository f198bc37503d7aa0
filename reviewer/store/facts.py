"""The store's operations on facts, through sqlmodel: the only shared ground.

Every change to a fact is written at once, in one transaction with its history row, so a
crash loses nothing and every state can be explained. Approval has exactly two doors:
`approve`/`edit` (called by the TUI, on a person's key press) and `import_facts` with
`keep_status=True` (an explicit, documented flag). Nothing else writes `approved`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reviewer.sanitize import visible
from reviewer.store import db

if TYPE_CHECKING:
    import sqlite3

    from sqlalchemy.engine import Engine
    from sqlmodel import Session

    from reviewer.store import redacted
    from reviewer.store.models import Fact, FactHistory

# The fields a decision may change; a snapshot of them is what undo restores.
MUTABLE = (
    "text", "norm", "category", "files", "status", "reject_reason", "decided_at",
    "verified_at", "commit_sha", "branch", "anchors", "missing_files", "supersedes",
)
PERSON_ACTORS = ("tui", "import")  # who may approve; see module docstring

Snapshot = dict[str, Any]


@dataclass
class NewFact:
    """A candidate ready to store (already redacted, grounded and anchored)."""

    project: str
    text: str
    norm: str
    category: str
    files: list[str] = field(default_factory=list)
    confidence: float = 0.5
    evidence: str = ""
    context: str = ""
    grounded: bool = False
    missing_files: list[str] = field(default_factory=list)
    session_id: str | None = None
    job_id: int | None = None
    source: str = "model"
    commit_sha: str | None = None
    branch: str | None = None
    anchors: dict[str, str | None] = field(default_factory=dict)
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    status: str = "pending"
    reject_reason: str | None = None
    created_at: float | None = None
    decided_at: float | None = None
    check: str | None = None  # capture.verify: the failed check, None when supported
    hint: str | None = None  # capture.verify: a suspicion and what it rests on
    evidence_turn: int | None = None
    evidence_speaker: str | None = None
    evidence_source: str | None = None
    supersedes: int | None = None


def snapshot(fact: Fact) -> Snapshot:
    return {name: getattr(fact, name) for name in MUTABLE}


_SNAPSHOT_SQL = f"SELECT {', '.join(MUTABLE)} FROM fact WHERE id = ?"


class Store:
    """A handle on the database file; cheap to create, used from one thread at a time.

    A person's decisions run on stdlib `sqlite3`, so the TUI never pays for sqlmodel
    (half a second and ~30 MB); the worker's and the CLI's richer reads and writes load
    the sqlmodel engine on first use.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._engine: Engine | None = None
        self._memory: redacted.Memory | None = None

    def _redact(self, text: str) -> str:
        """A person's text: redacted, checked against the remembered values, and what
        redaction found here is remembered too (the next edit may repeat it bare)."""
        from reviewer.sanitize.detect import collecting, redact, remembered

        with collecting() as found:
            out = redact(text)
        self.memory.remember(remembered(found))
        return self.memory.scrub(out)

    @property
    def memory(self) -> redacted.Memory:
        """The keyed hashes of what redaction found (reviewer/store/redacted.py)."""
        if self._memory is None:
            from reviewer.store import redacted

            self._memory = redacted.Memory(redacted.data_dir(self.path))
        return self._memory

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = db.connect(self.path)
        return self._conn

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            from sqlalchemy import event
            from sqlalchemy.pool import StaticPool
            from sqlmodel import create_engine

            path = self.path
            engine = create_engine("sqlite://", creator=lambda: db.connect(path),
                                   poolclass=StaticPool)

            @event.listens_for(engine, "begin")
            def _begin(conn: Any) -> None:  # writers queue on the busy timeout, not fail
                conn.exec_driver_sql("BEGIN IMMEDIATE")

            self._engine = engine
        return self._engine

    def session(self) -> Session:
        from sqlmodel import Session

        return Session(self.engine, expire_on_commit=False)

    def close(self) -> None:
        if self._engine is not None:
            self._engine.dispose()
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # ---- reading -------------------------------------------------------------------

    def get(self, fact_id: int) -> Fact | None:
        from reviewer.store.models import Fact

        with self.session() as s:
            return s.get(Fact, fact_id)

    def facts(self, project: str | None, statuses: Iterable[str] | None = None) -> list[Fact]:
        from sqlmodel import col, select

        from reviewer.store.models import Fact

        with self.session() as s:
            q = select(Fact)
            if project is not None:
                q = q.where(Fact.project == project)
            if statuses is not None:
                q = q.where(col(Fact.status).in_(list(statuses)))
            return list(s.exec(q.order_by(col(Fact.id))))

    def history(self, fact_id: int) -> list[FactHistory]:
        from sqlmodel import col, select

        from reviewer.store.models import FactHistory

        with self.session() as s:
            q = select(FactHistory).where(FactHistory.fact_id == fact_id)
            return list(s.exec(q.order_by(col(FactHistory.id))))

    def counts(self, project: str | None = None) -> dict[str, int]:
        from sqlmodel import func, select

        from reviewer.store.models import Fact

        with self.session() as s:
            q = select(Fact.status, func.count()).group_by(Fact.status)
            if project is not None:
                q = q.where(Fact.project == project)
            out = {status: 0 for status in ("pending", "approved", "rejected")}
            out.update({status: n for status, n in s.exec(q)})
            return out

    def known(self, project: str) -> list[tuple[int, str, str]]:
        """(id, text, status) of a project's facts: what the extractor must not repeat."""
        from sqlmodel import select

        from reviewer.store.models import Fact

        with self.session() as s:
            q = select(Fact.id, Fact.text, Fact.status).where(Fact.project == project)
            # Sent to the model as context: an old row's hidden characters stay behind.
            return [(int(i), _strip(t), st) for i, t, st in s.exec(q)]

    def rejected_with_reasons(self, project: str, limit: int = 200) -> list[tuple[str, str]]:
        from sqlmodel import col, select

        from reviewer.store.models import Fact

        with self.session() as s:
            q = (
                select(Fact.text, Fact.reject_reason)
                .where(Fact.project == project, Fact.status == "rejected")
                .order_by(col(Fact.decided_at).desc())
                .limit(limit)
            )
            return [(_strip(t), _strip(r or "")) for t, r in s.exec(q)]

    # ---- the worker's writes -------------------------------------------------------

    def record_extraction(
        self,
        job_id: int,
        new: Sequence[NewFact],
        seen_again: Sequence[int] = (),
        *,
        redacted: Iterable[str] = (),
        end_cursor: int,
        model: str | None = None,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cost_usd: float = 0.0,
        finish: bool = True,
    ) -> list[int]:
        """Store a job's facts and mark it done, all or nothing (with `finish` False, only
        the facts: a job waiting for a model keeps its state and cursor).

        One transaction, and `UNIQUE(job_id, norm)`, make a job's facts impossible to
        store twice, even when a worker is killed and the job is claimed again.
        """
        from sqlmodel import select

        from reviewer.sanitize.detect import remembered
        from reviewer.store.models import Fact, Job

        now = db.now()
        ids: list[int] = []
        values = remembered(set(redacted))
        self.memory.remember(values)  # before the facts: a crash between leaves more hidden
        with self.session() as s:
            for nf in new:
                _visible_new_fact(nf)
                _scrub_new_fact(nf, self.memory, values)
                if not nf.text.strip():  # nothing a person could read and approve
                    continue
                exists = s.exec(
                    select(Fact.id).where(Fact.job_id == job_id, Fact.norm == nf.norm)
                ).first()
                if exists is not None:
                    continue
                fact = _fact_from(nf, now)
                s.add(fact)
                s.flush()
                assert fact.id is not None
                ids.append(fact.id)
                s.add(_history(fact.id, "worker", "created", None, snapshot(fact), now))
            for fact_id in dict.fromkeys(seen_again):
                fact = s.get(Fact, fact_id)
                if fact is None:
                    continue
                fact.times_seen += 1
                fact.updated_at = now
                s.add(fact)
                s.add(_history(fact_id, "worker", "seen_again", None, {"job_id": job_id}, now))
            job = s.get(Job, job_id) if finish else None
            if job is not None:
                job.state = "done"
                job.end_cursor = end_cursor
                job.model = model
                job.input_tokens += input_tokens
                job.output_tokens += output_tokens
                job.cost_usd += cost_usd
                job.facts_new = len(ids)
                job.last_error = None
                job.claimed_by = None
                job.updated_at = now
                s.add(job)
            s.commit()
        return ids

    # ---- a person's decisions ------------------------------------------------------

    def approve(self, ids: Sequence[int], *, actor: str = "tui") -> list[tuple[int, Snapshot]]:
        """Approve; a fact that supersedes another retires it in the same transaction
        (rejected, "superseded by #N", in its history), and undo restores both."""
        _person(actor)
        return self._approving(ids, actor, "approved", {"status": "approved",
                                                          "reject_reason": None})

    def supersede(
        self, new_id: int, old_id: int, *, actor: str = "tui"
    ) -> list[tuple[int, Snapshot]]:
        """A person says `new_id` replaces `old_id`: link them and approve the new one,
        which retires the old one as any superseding approval does (one undo for both)."""
        _person(actor)
        if new_id == old_id:
            raise ValueError("a fact cannot supersede itself")
        return self._approving([new_id], actor, "approved", {
            "status": "approved", "reject_reason": None, "supersedes": old_id})

    def _approving(
        self, ids: Sequence[int], actor: str, action: str, changes: dict[str, Any]
    ) -> list[tuple[int, Snapshot]]:
        now = db.now()
        with db.transaction(self.conn) as conn:
            undo = _apply(conn, ids, actor, action, changes, now)
            for new_id, old_id in _superseded(conn, ids):
                undo += _apply(conn, [old_id], actor, "superseded",
                               {"status": "rejected",
                                "reject_reason": f"superseded by #{new_id}"}, now)
        _embed(conn, ids)
        return undo

    def reject(
        self, ids: Sequence[int], reason: str, *, actor: str = "tui"
    ) -> list[tuple[int, Snapshot]]:

        changes = {"status": "rejected", "reject_reason": self._redact(reason)}
        return self._change(ids, actor, "rejected", changes)

    def edit(
        self, fact_id: int, text: str, category: str, *, actor: str = "tui",
        norm: str | None = None,
    ) -> list[tuple[int, Snapshot]]:
        """Save a person's wording; editing is approving what they wrote."""
        _person(actor)
        from reviewer.store.dedupe import fact_key

        text = self._redact(visible.strip(text).strip())
        if not text:
            raise ValueError("a fact cannot be empty")
        _fits(text)
        changes = {
            "text": text, "norm": norm or fact_key(text), "category": category,
            "status": "approved", "reject_reason": None,
        }
        return self._approving([fact_id], actor, "edited", changes)

    def verify(
        self, fact_id: int, commit_sha: str | None, anchors: dict[str, str | None],
        *, files: list[str] | None = None, actor: str = "tui",
    ) -> list[tuple[int, Snapshot]]:
        """Re-anchor to today's code: a person says the fact is still true."""
        _person(actor)
        changes: dict[str, Any] = {
            "commit_sha": commit_sha, "anchors": json.dumps(anchors, sort_keys=True),
            "verified_at": db.now(),
        }
        if files is not None:
            changes["files"] = json.dumps([visible.strip(f) for f in files])
        return self._change([fact_id], actor, "verified", changes)

    def set_personal(self, ids: Sequence[int], personal: bool, *, actor: str = "tui") -> None:
        """A person keeps facts to themselves (never shared) or lets them travel again."""
        _person(actor)
        now, flag = db.now(), int(personal)
        with db.transaction(self.conn) as conn:
            for fact_id in ids:
                row = conn.execute("SELECT personal FROM fact WHERE id = ?", (fact_id,)).fetchone()
                if row is None:
                    raise KeyError(f"no fact {fact_id}")
                if int(row[0]) == flag:
                    continue
                conn.execute("UPDATE fact SET personal = ?, updated_at = ? WHERE id = ?",
                             (flag, now, fact_id))
                _log(conn, fact_id, actor, "personal" if flag else "shareable",
                     {"personal": int(row[0])}, {"personal": flag}, now)

    def restore(self, snapshots: Sequence[tuple[int, Snapshot]], *, actor: str = "tui") -> None:
        """Undo: put each fact back exactly as it was before a decision."""
        now = db.now()
        with db.transaction(self.conn) as conn:
            for fact_id, before in snapshots:
                current = _read_snapshot(conn, fact_id)
                if current is None:
                    continue
                _write(conn, fact_id, {**before, "updated_at": now})
                _log(conn, fact_id, actor, "undo", current, dict(before), now)
        _embed(conn, [fact_id for fact_id, _ in snapshots])

    def _change(
        self, ids: Sequence[int], actor: str, action: str, changes: dict[str, Any]
    ) -> list[tuple[int, Snapshot]]:
        now = db.now()
        with db.transaction(self.conn) as conn:
            return _apply(conn, ids, actor, action, changes, now)

    # ---- import --------------------------------------------------------------------

    def import_facts(self, facts: Sequence[NewFact], *, keep_status: bool) -> tuple[int, int]:
        """Add facts from an export; pending unless `keep_status` (documented flag).

        Returns (added, skipped as already present in the project).
        """
        from sqlalchemy import insert
        from sqlmodel import select

        from reviewer.sanitize.detect import collecting, remembered
        from reviewer.store.models import Fact, FactHistory

        now = db.now()
        rows: list[dict[str, Any]] = []
        skipped = 0
        with self.session() as s:
            seen = set(s.exec(select(Fact.project, Fact.norm)))
            for nf in facts:
                _visible_new_fact(nf)
                if (nf.project, nf.norm) in seen:
                    skipped += 1
                    continue
                seen.add((nf.project, nf.norm))
                if not keep_status:
                    nf.status, nf.reject_reason, nf.decided_at = "pending", None, None
                with collecting() as found:  # an export is input like any other
                    _redact_new_fact(nf)
                values = remembered(found)
                self.memory.remember(values)
                _scrub_new_fact(nf, self.memory, values)
                rows.append(_fact_from(nf, now).model_dump(exclude={"id"}))
            if rows:
                # Bulk statements: ten thousand ORM flushes take seconds, these take a fraction.
                ids = s.scalars(
                    insert(Fact).returning(Fact.id, sort_by_parameter_order=True), rows
                ).all()
                s.execute(insert(FactHistory), [
                    _history(
                        fact_id, "import",
                        "imported" if not keep_status else f"imported_{row['status']}",
                        None, {name: row[name] for name in MUTABLE}, now,
                    ).model_dump(exclude={"id"})
                    for fact_id, row in zip(ids, rows, strict=True)
                ])
            s.commit()
        added = len(rows)
        return added, skipped


def _embed(conn: sqlite3.Connection, ids: Sequence[int]) -> None:
    """Embed newly approved or re-worded facts for semantic recall (only with the
    `semantic` extra; vectors.refresh is a no-op without it). Best effort, after the
    decision is committed: a failure here costs semantic recall of these facts until the
    worker's next backfill, never the decision."""
    from reviewer.store import vectors

    try:
        vectors.refresh(conn, list(ids))
    except Exception as exc:
        from reviewer.log import log

        log("store", f"embedding facts for recall failed: {type(exc).__name__}: {exc}")


def _apply(
    conn: sqlite3.Connection, ids: Sequence[int], actor: str, action: str,
    changes: dict[str, Any], now: float,
) -> list[tuple[int, Snapshot]]:
    """Change facts with a history row each, inside the caller's transaction."""
    undo: list[tuple[int, Snapshot]] = []
    for fact_id in ids:
        before = _read_snapshot(conn, fact_id)
        if before is None:
            raise KeyError(f"no fact {fact_id}")
        after = {**before, **changes}
        if "status" in changes:
            after["decided_at"] = now
        _write(conn, fact_id, {**after, "updated_at": now})
        _log(conn, fact_id, actor, action, before, after, now)
        undo.append((fact_id, before))
    return undo


def _superseded(conn: sqlite3.Connection, ids: Sequence[int]) -> list[tuple[int, int]]:
    """(new id, old id) for each of `ids` that supersedes a fact of its project that is
    not rejected yet."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        "SELECT new.id, old.id FROM fact AS new JOIN fact AS old ON old.id = new.supersedes "
        f"WHERE new.id IN ({marks}) AND old.id != new.id AND old.status != 'rejected' "
        "AND old.project = new.project ORDER BY new.id",
        list(ids),
    ).fetchall()
    return [(int(a), int(b)) for a, b in rows]


def _read_snapshot(conn: sqlite3.Connection, fact_id: int) -> Snapshot | None:
    row = conn.execute(_SNAPSHOT_SQL, (fact_id,)).fetchone()
    return None if row is None else {name: row[name] for name in MUTABLE}


def _write(conn: sqlite3.Connection, fact_id: int, values: dict[str, Any]) -> None:
    names = [n for n in values if n in MUTABLE or n == "updated_at"]
    conn.execute(
        f"UPDATE fact SET {', '.join(f'{n} = ?' for n in names)} WHERE id = ?",
        [*(_visible(n, values[n]) for n in names), fact_id],
    )


_VISIBLE_COLUMNS = frozenset({"text", "category", "files", "reject_reason", "missing_files",
                              "anchors", "evidence", "context"})


def _visible(name: str, value: Any) -> Any:
    """The one choke point for a person's change: no invisible character is stored."""
    if isinstance(value, str) and name in _VISIBLE_COLUMNS:
        return _strip(value)
    return value


def _strip(value: str) -> str:
    """Without invisible characters; redacted again when any went, since a secret split
    by a zero-width character was not recognisable before."""
    out = visible.strip(value)
    if out != value:
        from reviewer.sanitize.detect import redact

        out = redact(out)
    return out


def _fits(text: str) -> None:
    """The store's door: a fact longer than the reviewer sees whole is refused."""
    from reviewer.store.schema import MAX_FACT_CHARS

    if len(text) > MAX_FACT_CHARS:
        raise ValueError(f"a fact is at most {MAX_FACT_CHARS:,} characters "
                         f"({len(text):,} given): split it")


def _visible_new_fact(nf: NewFact) -> None:
    """Capture's and import's choke point: every text field without invisible characters
    (reviewer/sanitize/visible.py), the dedupe key recomputed when the text changed."""
    strip = _strip
    text = strip(nf.text)
    if text != nf.text:
        from reviewer.store.dedupe import fact_key

        nf.text, nf.norm = text, fact_key(text)
    nf.category, nf.evidence, nf.context = strip(nf.category), strip(nf.evidence), strip(nf.context)
    if nf.reject_reason:
        nf.reject_reason = strip(nf.reject_reason)
    nf.files = [strip(f) for f in nf.files]
    nf.missing_files = [strip(f) for f in nf.missing_files]
    nf.anchors = {strip(f): sha for f, sha in nf.anchors.items()}
    _fits(nf.text)


def _log(
    conn: sqlite3.Connection, fact_id: int, actor: str, action: str,
    before: Snapshot | None, after: Snapshot | None, now: float,
) -> None:
    conn.execute(
        "INSERT INTO fact_history (fact_id, at, actor, action, before, after) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (fact_id, now, actor, action,
         None if before is None else json.dumps(before, sort_keys=True),
         None if after is None else json.dumps(after, sort_keys=True)),
    )


def _redact_new_fact(nf: NewFact) -> None:
    from reviewer.sanitize.detect import redact
    from reviewer.store.dedupe import fact_key

    text = redact(nf.text)
    if text != nf.text:
        nf.text, nf.norm = text, fact_key(text)
    nf.evidence, nf.context = redact(nf.evidence), redact(nf.context)
    if nf.reject_reason:
        nf.reject_reason = redact(nf.reject_reason)
    nf.files = [redact(f) for f in nf.files]
    nf.missing_files = [redact(f) for f in nf.missing_files]
    nf.anchors = {redact(f): sha for f, sha in nf.anchors.items()}


def _scrub_new_fact(nf: NewFact, memory: redacted.Memory, values: Iterable[str]) -> None:
    """The store's door: no text field keeps a value redaction found, in this job
    (``values``, known in full) or before (``memory``, keyed hashes)."""
    from reviewer.store import redacted
    from reviewer.store.dedupe import fact_key

    values = list(values)
    pieces = redacted.pieces_of(values)

    def scrub(text: str) -> str:
        return memory.scrub(redacted.replace_values(text, values, pieces))

    text = scrub(nf.text)
    if text != nf.text:
        nf.text, nf.norm = text, fact_key(text)
    nf.category, nf.evidence, nf.context = scrub(nf.category), scrub(nf.evidence), scrub(
        nf.context)
    if nf.reject_reason:
        nf.reject_reason = scrub(nf.reject_reason)
    nf.files = [scrub(f) for f in nf.files]
    nf.missing_files = [scrub(f) for f in nf.missing_files]
    nf.anchors = {scrub(f): sha for f, sha in nf.anchors.items()}


def _person(actor: str) -> None:
    if actor not in PERSON_ACTORS:
        raise PermissionError(f"only a person approves facts, not {actor!r}")


def _fact_from(nf: NewFact, now: float) -> Fact:
    from reviewer.store.models import Fact

    _visible_new_fact(nf)
    return Fact(
        project=nf.project, text=nf.text, norm=nf.norm, category=nf.category,
        files=json.dumps(nf.files), confidence=float(nf.confidence), evidence=nf.evidence,
        context=nf.context, status=nf.status, reject_reason=nf.reject_reason,
        grounded=int(nf.grounded), missing_files=json.dumps(nf.missing_files),
        session_id=nf.session_id, job_id=nf.job_id, source=nf.source,
        commit_sha=nf.commit_sha, branch=nf.branch,
        anchors=json.dumps(nf.anchors, sort_keys=True), model=nf.model,
        input_tokens=nf.input_tokens, output_tokens=nf.output_tokens,
        created_at=nf.created_at or now, updated_at=now,
        decided_at=nf.decided_at if nf.status != "pending" else None,
        verify_check=nf.check, verify_hint=nf.hint, evidence_turn=nf.evidence_turn,
        evidence_speaker=nf.evidence_speaker, evidence_source=nf.evidence_source,
        supersedes=nf.supersedes,
    )


def _history(
    fact_id: int, actor: str, action: str, before: Snapshot | None, after: Snapshot | None,
    now: float,
) -> FactHistory:
    from reviewer.store.models import FactHistory

    return FactHistory(
        fact_id=fact_id, at=now, actor=actor, action=action,
        before=None if before is None else json.dumps(before, sort_keys=True),
        after=None if after is None else json.dumps(after, sort_keys=True),
    )

