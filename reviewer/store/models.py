"""sqlmodel views of the store's tables, for the worker, the CLI and the TUI's decisions.

The schema itself is defined once, as SQL, in `reviewer/store/schema.py` (the hooks create the
database without sqlmodel); `tests/test_schema.py` proves these models match it column by
column. JSON-valued columns are kept as text here and decoded by the `Fact` helpers.
"""

from __future__ import annotations

import json

from sqlmodel import Field, SQLModel


class Job(SQLModel, table=True):
    __tablename__ = "job"

    id: int | None = Field(default=None, primary_key=True)
    session_id: str
    transcript_path: str
    project: str
    cwd: str = ""
    event: str
    state: str = "queued"
    attempts: int = 0
    last_error: str | None = None
    permanent_error: int = 0
    start_cursor: int = 0
    end_cursor: int | None = None
    not_before: float = 0.0
    claimed_by: int | None = None
    heartbeat: float | None = None
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    facts_new: int = 0
    created_at: float
    updated_at: float
    first_failed_at: float | None = None


class Fact(SQLModel, table=True):
    __tablename__ = "fact"

    id: int | None = Field(default=None, primary_key=True)
    project: str
    text: str
    norm: str
    category: str
    files: str = "[]"
    confidence: float = 0.5
    evidence: str = ""
    context: str = ""
    status: str = "pending"
    reject_reason: str | None = None
    grounded: int = 0
    missing_files: str = "[]"
    session_id: str | None = None
    job_id: int | None = None
    source: str = "model"
    times_seen: int = 1
    commit_sha: str | None = None
    branch: str | None = None
    anchors: str = "{}"
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    created_at: float
    updated_at: float
    decided_at: float | None = None
    verified_at: float | None = None
    verify_check: str | None = None  # the verifier's failed check; None when supported
    verify_hint: str | None = None  # a suspicion ("corrected_later: turn 12: …"), not a verdict
    evidence_turn: int | None = None
    evidence_speaker: str | None = None  # user | assistant | tool, as the verifier found it
    evidence_source: str | None = None  # user | assistant | tool, as the model said
    supersedes: int | None = None  # an existing fact's id; approving this one retires it
    share_id: str | None = None
    approver: str | None = None
    personal: int = 0

    def file_list(self) -> list[str]:
        return list(json.loads(self.files or "[]"))

    def anchor_map(self) -> dict[str, str | None]:
        return dict(json.loads(self.anchors or "{}"))

    def missing_list(self) -> list[str]:
        return list(json.loads(self.missing_files or "[]"))


class FactHistory(SQLModel, table=True):
    __tablename__ = "fact_history"

    id: int | None = Field(default=None, primary_key=True)
    fact_id: int = Field(foreign_key="fact.id")
    at: float
    actor: str
    action: str
    before: str | None = None
    after: str | None = None


class Injection(SQLModel, table=True):
    __tablename__ = "injection"

    id: int | None = Field(default=None, primary_key=True)
    project: str
    session_id: str
    fact_id: int
    source: str = ""
    at: float


class HashCache(SQLModel, table=True):
    __tablename__ = "hash_cache"

    path: str = Field(primary_key=True)
    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    blob_sha: str


class ShareRemote(SQLModel, table=True):
    """The remote a project's shared facts are verified against (schema V10)."""

    __tablename__ = "share_remote"

    project: str = Field(primary_key=True)
    url: str
    recorded_at: float
    branch: str | None = None
    commit_sha: str | None = None
    verified_at: float | None = None
    last_error: str | None = None


class ShareTrust(SQLModel, table=True):
    """A shared file's blob on the remote's default branch, as last verified (schema V10)."""

    __tablename__ = "share_trust"

    project: str = Field(primary_key=True)
    path: str = Field(primary_key=True)
    blob: str


class FactRev(SQLModel, table=True):
    """Counters the fact triggers move, per project and scope (reviewer/store/schema.py V2)."""

    __tablename__ = "fact_rev"

    project: str = Field(primary_key=True)
    scope: str = Field(primary_key=True)
    rev: int


class VerdictMemo(SQLModel, table=True):
    """A staleness pass remembered for the next process (reviewer/freshness/verdict_memo.py)."""

    __tablename__ = "verdict_memo"

    project: str = Field(primary_key=True)
    scope: str = Field(primary_key=True)
    fact_rev: int
    files_key: str
    verdicts: str
    at: float


class NativeFolder(SQLModel, table=True):
    """A Claude Code memory folder and its fingerprint at the last sweep (schema V9)."""

    __tablename__ = "native_folder"

    folder: str = Field(primary_key=True)
    project: str
    signature: str = ""
    swept_at: float | None = None


class NativeNote(SQLModel, table=True):
    """A statement of a Claude Code memory note already imported, by content hash (V9)."""

    __tablename__ = "native_note"

    project: str = Field(primary_key=True)
    hash: str = Field(primary_key=True)
    file: str
    line: int
    fact_id: int | None = None
    imported_at: float


class FactVec(SQLModel, table=True):
    """A fact's embedding for optional semantic recall (schema V12, reviewer/store/vectors.py)."""

    __tablename__ = "fact_vec"

    fact_id: int = Field(primary_key=True)
    model: str
    vec: bytes
