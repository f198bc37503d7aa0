"""The store's schema: the one definition, as SQL, with its migrations.

Kept as SQL rather than derived from the sqlmodel models because the hooks create and
write the database with stdlib `sqlite3` and may not import sqlmodel (0.3–3 s here).
`reviewer/store/models.py` maps onto these tables; `tests/test_schema.py` proves they agree.
Each entry of MIGRATIONS moves the database from version i to i+1 (`PRAGMA user_version`).
"""

from __future__ import annotations

# What a fact may be about (GUIDE §4): the answer shape, the store and the exports agree.
# A fact is one or two sentences. The cap is what keeps "what the person approves is
# what Claude reads": 1,000 characters fit the top of the detail pane whole, so no tail
# can sit below the fold and be injected unseen (issue 19). Enforced at every door.
MAX_FACT_CHARS = 1_000
CATEGORIES = ("decision", "convention", "dead_end", "todo", "gotcha", "environment")

V1 = """
CREATE TABLE job (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    transcript_path TEXT NOT NULL,
    project TEXT NOT NULL,
    cwd TEXT NOT NULL DEFAULT '',
    event TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'queued',
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    permanent_error INTEGER NOT NULL DEFAULT 0,
    start_cursor INTEGER NOT NULL DEFAULT 0,
    end_cursor INTEGER,
    not_before REAL NOT NULL DEFAULT 0,
    claimed_by INTEGER,
    heartbeat REAL,
    model TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL NOT NULL DEFAULT 0,
    facts_new INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX job_state ON job(state, not_before);
CREATE INDEX job_transcript ON job(transcript_path, state);

CREATE TABLE fact (
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    text TEXT NOT NULL,
    norm TEXT NOT NULL,
    category TEXT NOT NULL,
    files TEXT NOT NULL DEFAULT '[]',
    confidence REAL NOT NULL DEFAULT 0.5,
    evidence TEXT NOT NULL DEFAULT '',
    context TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'pending',
    reject_reason TEXT,
    grounded INTEGER NOT NULL DEFAULT 0,
    missing_files TEXT NOT NULL DEFAULT '[]',
    session_id TEXT,
    job_id INTEGER,
    source TEXT NOT NULL DEFAULT 'model',
    times_seen INTEGER NOT NULL DEFAULT 1,
    commit_sha TEXT,
    branch TEXT,
    anchors TEXT NOT NULL DEFAULT '{}',
    model TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    decided_at REAL,
    verified_at REAL,
    UNIQUE (job_id, norm)
);
CREATE INDEX fact_project_status ON fact(project, status);
CREATE INDEX fact_project_norm ON fact(project, norm);

CREATE TABLE fact_history (
    id INTEGER PRIMARY KEY,
    fact_id INTEGER NOT NULL REFERENCES fact(id),
    at REAL NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    before TEXT,
    after TEXT
);
CREATE INDEX fact_history_fact ON fact_history(fact_id);

CREATE TABLE injection (
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    session_id TEXT NOT NULL,
    fact_id INTEGER NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    at REAL NOT NULL
);
CREATE INDEX injection_fact ON injection(fact_id);
CREATE INDEX injection_session ON injection(session_id);

CREATE TABLE hash_cache (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    blob_sha TEXT NOT NULL
);
"""

# Verdicts remembered between processes (reviewer/freshness/verdict_memo.py). `fact_rev` moves on
# every change a verdict depends on, by trigger, so no writer can forget to invalidate:
# per project, `live` on any change of its facts, `approved` only when an approved fact
# is added, removed, or changes status, anchors, commit or project (a worker storing
# pending candidates leaves the SessionStart hook's memo standing).
V2 = """
CREATE TABLE fact_rev (
    project TEXT NOT NULL,
    scope TEXT NOT NULL,
    rev INTEGER NOT NULL,
    PRIMARY KEY (project, scope)
);
CREATE TRIGGER fact_rev_insert AFTER INSERT ON fact
BEGIN
    INSERT INTO fact_rev (project, scope, rev) VALUES (new.project, 'live', 1)
        ON CONFLICT (project, scope) DO UPDATE SET rev = rev + 1;
    INSERT INTO fact_rev (project, scope, rev) SELECT new.project, 'approved', 1
        WHERE new.status = 'approved'
        ON CONFLICT (project, scope) DO UPDATE SET rev = rev + 1;
END;
CREATE TRIGGER fact_rev_delete AFTER DELETE ON fact
BEGIN
    INSERT INTO fact_rev (project, scope, rev) VALUES (old.project, 'live', 1)
        ON CONFLICT (project, scope) DO UPDATE SET rev = rev + 1;
    INSERT INTO fact_rev (project, scope, rev) SELECT old.project, 'approved', 1
        WHERE old.status = 'approved'
        ON CONFLICT (project, scope) DO UPDATE SET rev = rev + 1;
END;

CREATE TABLE verdict_memo (
    project TEXT NOT NULL,
    scope TEXT NOT NULL,
    fact_rev INTEGER NOT NULL,
    files_key TEXT NOT NULL,
    verdicts TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (project, scope)
);
"""

# The update trigger (a first version shipped in V2 on development stores only): a
# renumbered fact must move the revision too (a memo keys verdicts by id), and a write
# that names a column without changing it (the store writes whole rows) must not.
V3 = """
DROP TRIGGER IF EXISTS fact_rev_update;
CREATE TRIGGER fact_rev_update AFTER UPDATE OF id, project, status, anchors, commit_sha ON fact
WHEN old.id IS NOT new.id OR old.project IS NOT new.project OR old.status IS NOT new.status
    OR old.anchors IS NOT new.anchors OR old.commit_sha IS NOT new.commit_sha
BEGIN
    INSERT INTO fact_rev (project, scope, rev)
        SELECT p, 'live', 1 FROM (SELECT old.project AS p UNION SELECT new.project) WHERE 1
        ON CONFLICT (project, scope) DO UPDATE SET rev = rev + 1;
    INSERT INTO fact_rev (project, scope, rev)
        SELECT p, 'approved', 1 FROM (SELECT old.project AS p UNION SELECT new.project)
        WHERE 'approved' IN (old.status, new.status)
        ON CONFLICT (project, scope) DO UPDATE SET rev = rev + 1;
END;
"""

# Full-text search over facts for `recall` (reviewer/claude_code/recall.py): an
# external-content FTS5 index (the text lives once, in `fact`), kept in step by triggers
# so no writer can forget it and no reader ever rebuilds it. Porter stemming lets
# "installs" find "install". `files` is indexed too, so a path's words match.
V4_FACT_SEARCH = """
CREATE VIRTUAL TABLE fact_fts USING fts5(
    text, files, content='fact', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
INSERT INTO fact_fts(fact_fts) VALUES ('rebuild');
CREATE TRIGGER fact_fts_insert AFTER INSERT ON fact
BEGIN
    INSERT INTO fact_fts (rowid, text, files) VALUES (new.id, new.text, new.files);
END;
CREATE TRIGGER fact_fts_delete AFTER DELETE ON fact
BEGIN
    INSERT INTO fact_fts (fact_fts, rowid, text, files)
        VALUES ('delete', old.id, old.text, old.files);
END;
CREATE TRIGGER fact_fts_update AFTER UPDATE OF id, text, files ON fact
WHEN old.id IS NOT new.id OR old.text IS NOT new.text OR old.files IS NOT new.files
BEGIN
    INSERT INTO fact_fts (fact_fts, rowid, text, files)
        VALUES ('delete', old.id, old.text, old.files);
    INSERT INTO fact_fts (rowid, text, files) VALUES (new.id, new.text, new.files);
END;
"""


# The verifier's verdict on a candidate's evidence (capture/verify/): which check failed
# (NULL when supported), where the quote was found (turn index, speaker), who the model
# said was speaking, and the existing fact this one supersedes (approving it retires that).
V5_VERIFIER = """
ALTER TABLE fact ADD COLUMN verify_check TEXT;
ALTER TABLE fact ADD COLUMN evidence_turn INTEGER;
ALTER TABLE fact ADD COLUMN evidence_speaker TEXT;
ALTER TABLE fact ADD COLUMN evidence_source TEXT;
ALTER TABLE fact ADD COLUMN supersedes INTEGER;
"""


# The hash cache vouches for a file by what an ordinary tool cannot set back: a rewrite
# that keeps size and mtime (`touch -d`, `cp -p`, a build restoring times) still moves the
# ctime, and a replacement moves the inode. Old rows cannot be vouched for: the cache
# starts empty (it is only a cache).
V6_HASH_CACHE_KEYS = """
DROP TABLE IF EXISTS hash_cache;
CREATE TABLE hash_cache (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    blob_sha TEXT NOT NULL
);
"""

# Sharing through git (reviewer/sharing/): a fact's stable id for its file in the project's
# `.mem-review/facts/`, assigned at first share; who approved it, as git names them; and a
# person's "keep this to myself" flag. Self-contained: renumber freely at merge.
V7_SHARING = """
ALTER TABLE fact ADD COLUMN share_id TEXT;
ALTER TABLE fact ADD COLUMN approver TEXT;
ALTER TABLE fact ADD COLUMN personal INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX fact_share_id ON fact(share_id) WHERE share_id IS NOT NULL;
"""


# When the current streak of transient failures began (NULL: none). A job fails for
# transient errors only once they have lasted a day, not after a count of tries: an
# outage answered with `retry-after: 0` must not burn every try in seconds.
V8_JOB_FIRST_FAILED_AT = """
ALTER TABLE job ADD COLUMN first_failed_at REAL;
"""

# Claude Code's own memory (reviewer/claude_code/native_memory.py): each memory folder's
# last swept fingerprint (the hooks compare it with a stat), and each note statement
# already imported (by content hash), so a note becomes pending once, never twice.
# Self-contained: renumber freely at merge.
V9_NATIVE_MEMORY = """
CREATE TABLE native_folder (
    folder TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    signature TEXT NOT NULL DEFAULT '',
    swept_at REAL
);
CREATE INDEX native_folder_project ON native_folder(project);
CREATE TABLE native_note (
    project TEXT NOT NULL,
    hash TEXT NOT NULL,
    file TEXT NOT NULL,
    line INTEGER NOT NULL,
    fact_id INTEGER,
    imported_at REAL NOT NULL,
    PRIMARY KEY (project, hash)

);
"""


# Trust from the remote (reviewer/sharing/remote_trust.py): the URL recorded when sharing
# was set up, and the blobs its default branch held when last verified. The store is what
# the sandbox protects, so no ref, config or object the agent can write decides trust.
V10_REMOTE_TRUST = """
CREATE TABLE share_remote (
    project TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    recorded_at REAL NOT NULL,
    branch TEXT,
    commit_sha TEXT,
    verified_at REAL,
    last_error TEXT
);
CREATE TABLE share_trust (
    project TEXT NOT NULL,
    path TEXT NOT NULL,
    blob TEXT NOT NULL,
    PRIMARY KEY (project, path)
);
"""


# The verifier's suspicion about a supported quote (capture/verify/verdict.py HINTS, issue 21):
# "corrected_later: turn 12: “No, …”", shown beside the evidence, never a verdict.
# Self-contained: renumber freely at merge.
V11_VERIFY_HINT = """
ALTER TABLE fact ADD COLUMN verify_hint TEXT;
"""

# Optional semantic recall (reviewer/store/vectors.py, the `semantic` extra): one embedding
# per approved fact, written by the worker/TUI side only, never by a hook. Triggers drop a
# vector when its fact goes or its text changes (and, V14, when it stops being approved).
# Self-contained: renumber freely at merge.
V12_FACT_VECTORS = """
CREATE TABLE fact_vec (
    fact_id INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    vec BLOB NOT NULL
);
CREATE INDEX fact_vec_model ON fact_vec(model);
CREATE TRIGGER fact_vec_delete AFTER DELETE ON fact
BEGIN
    DELETE FROM fact_vec WHERE fact_id = old.id;
END;
CREATE TRIGGER fact_vec_update AFTER UPDATE OF id, text ON fact
WHEN old.id IS NOT new.id OR old.text IS NOT new.text
BEGIN
    DELETE FROM fact_vec WHERE fact_id = old.id;
END;
"""

# Identifier parts for recall (reviewer/claude_code/recall.py): the word index keeps
# `TranscriptSelection` one token, so "selection hook" cannot reach it. A case-sensitive
# trigram index over the same text answers GLOB patterns such as `*[a-z0-9]Selection*`
# (a word inside a CamelCase identifier) from the index. Kept in step by triggers like
# fact_fts, so every writer, hooks included, keeps it without knowing it exists.
# Self-contained: renumber freely at merge.
V13_FACT_PARTS = """
CREATE VIRTUAL TABLE fact_tri USING fts5(
    text, content='fact', content_rowid='id', tokenize='trigram case_sensitive 1'
);
INSERT INTO fact_tri(fact_tri) VALUES ('rebuild');
CREATE TRIGGER fact_tri_insert AFTER INSERT ON fact
BEGIN
    INSERT INTO fact_tri (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER fact_tri_delete AFTER DELETE ON fact
BEGIN
    INSERT INTO fact_tri (fact_tri, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER fact_tri_update AFTER UPDATE OF id, text ON fact
WHEN old.id IS NOT new.id OR old.text IS NOT new.text
BEGIN
    INSERT INTO fact_tri (fact_tri, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO fact_tri (rowid, text) VALUES (new.id, new.text);
END;
"""

# Vectors only for approved facts (V12 shipped without this): a fact that stops being
# approved loses its vector; approving it again (undo) embeds it again (store/facts.py).
# Self-contained: renumber freely at merge.
V14_FACT_VEC_APPROVED = """
DELETE FROM fact_vec WHERE fact_id IN (SELECT id FROM fact WHERE status IS NOT 'approved');
CREATE TRIGGER fact_vec_unapproved AFTER UPDATE OF status ON fact
WHEN new.status IS NOT 'approved'
BEGIN
    DELETE FROM fact_vec WHERE fact_id = new.id;
END;
"""

# Recall's word search (reviewer/claude_code/recall.py) keeps only this project's approved
# facts among every fact the question's words match: a covering index answers that per
# match from a few small pages instead of the wide fact row (text, evidence, anchors).
# Measured on the recall eval's 10,000-fact stores: the search 1.7 to 1.2 ms.
# Self-contained: renumber freely at merge.
V15_FACT_ID_STATUS = """
CREATE INDEX fact_id_project_status ON fact(id, project, status);
"""

# Recall's word search over each fact's evidence (the transcript's quotes it was extracted
# from, reviewer/claude_code/recall.py): a question written from what happened in a session
# uses the session's words, which the fact may restate in others. Its own index, so the
# fact text's BM25 is untouched; kept in step by triggers like fact_fts.
# Self-contained: renumber freely at merge.
V16_FACT_EVIDENCE_SEARCH = """
CREATE VIRTUAL TABLE fact_ev USING fts5(
    evidence, content='fact', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
INSERT INTO fact_ev(fact_ev) VALUES ('rebuild');
CREATE TRIGGER fact_ev_insert AFTER INSERT ON fact
BEGIN
    INSERT INTO fact_ev (rowid, evidence) VALUES (new.id, new.evidence);
END;
CREATE TRIGGER fact_ev_delete AFTER DELETE ON fact
BEGIN
    INSERT INTO fact_ev (fact_ev, rowid, evidence) VALUES ('delete', old.id, old.evidence);
END;
CREATE TRIGGER fact_ev_update AFTER UPDATE OF id, evidence ON fact
WHEN old.id IS NOT new.id OR old.evidence IS NOT new.evidence
BEGIN
    INSERT INTO fact_ev (fact_ev, rowid, evidence) VALUES ('delete', old.id, old.evidence);
    INSERT INTO fact_ev (rowid, evidence) VALUES (new.id, new.evidence);
END;
"""

MIGRATIONS: list[str] = [
    V1, V2, V3, V4_FACT_SEARCH, V5_VERIFIER, V6_HASH_CACHE_KEYS, V7_SHARING,
    V8_JOB_FIRST_FAILED_AT, V9_NATIVE_MEMORY, V10_REMOTE_TRUST,
    V11_VERIFY_HINT, V12_FACT_VECTORS, V13_FACT_PARTS, V14_FACT_VEC_APPROVED,
    V15_FACT_ID_STATUS, V16_FACT_EVIDENCE_SEARCH,
]
VERSION = len(MIGRATIONS)

JOB_STATES = ("queued", "running", "done", "failed")
FACT_STATUSES = ("pending", "approved", "rejected")
