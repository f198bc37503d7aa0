"""Decisions reach the store in order, off the UI thread.

One background thread owns the `Store` (opening it costs a connection and migrations
check, which must not delay the first paint) and runs every write in the order the person
made them, so an undo always lands after the decision it undoes. The screen has already
shown the new state; a failed write is reported and the app reloads from the database.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from reviewer.store.facts import Snapshot, Store

T = TypeVar("T")
Snapshots = list[tuple[int, "Snapshot"]]


class StoreWriter:
    def __init__(self, db_path: Path | None, on_error: Callable[[BaseException], None]) -> None:
        self._db_path = db_path
        self._on_error = on_error
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mem-review-store")
        self._store: Store | None = None
        self._last: Future[Any] | None = None
        self._closed = False

    def start(self) -> Future[None]:
        """Open the store in the background (call after the first paint)."""
        return self._submit(lambda store: None)

    def _get(self) -> Store:
        if self._store is None:
            from reviewer.store.facts import Store

            self._store = Store(self._db_path)
        return self._store

    def _submit(self, fn: Callable[[Store], T]) -> Future[T]:
        def run() -> T:
            try:
                return fn(self._get())
            except BaseException as exc:
                self._on_error(exc)
                raise

        future = self._pool.submit(run)
        self._last = future
        return future

    # ---- decisions (each returns the store's before-snapshots, for undo) -----------

    def approve(self, ids: list[int]) -> Future[Snapshots]:
        return self._submit(lambda s: s.approve(ids, actor="tui"))

    def reject(self, ids: list[int], reason: str) -> Future[Snapshots]:
        return self._submit(lambda s: s.reject(ids, reason, actor="tui"))

    def edit(
        self, fact_id: int, text: str, category: str,
        reanchor: tuple[str | None, dict[str, str | None]] | None = None,
    ) -> Future[Snapshots]:
        def run(s: Store) -> Snapshots:
            before = s.edit(fact_id, text, category, actor="tui")
            if reanchor is not None:
                s.verify(fact_id, reanchor[0], reanchor[1], actor="tui")
            return before

        return self._submit(run)

    def merge(
        self, keep_id: int, text: str, category: str, others: list[int], reason: str
    ) -> Future[Snapshots]:
        """One decision for undo: the kept fact's edit and the others' rejection."""
        def run(s: Store) -> Snapshots:
            before = s.edit(keep_id, text, category, actor="tui")
            return before + s.reject(others, reason, actor="tui")

        return self._submit(run)

    def verify(
        self, fact_id: int, commit_sha: str | None, anchors: dict[str, str | None],
        files: list[str] | None = None,
    ) -> Future[Snapshots]:
        return self._submit(
            lambda s: s.verify(fact_id, commit_sha, anchors, files=files, actor="tui")
        )

    def verify_many(
        self, items: list[tuple[int, str | None, dict[str, str | None]]]
    ) -> Future[Snapshots]:
        def run(s: Store) -> Snapshots:
            before: Snapshots = []
            for fact_id, commit_sha, anchors in items:
                before += s.verify(fact_id, commit_sha, anchors, actor="tui")
            return before

        return self._submit(run)

    def set_personal(self, ids: list[int], personal: bool) -> Future[None]:
        return self._submit(lambda s: s.set_personal(ids, personal, actor="tui"))

    def take_shared(self, stage: Callable[[Store], tuple[int, str, str]]) -> Future[int]:
        """A teammate's fact, staged as this person's candidate by `stage`, then approved
        by the person (their key press in the team view); a fact of theirs with the same
        share id takes the file's wording."""
        def run(s: Store) -> int:
            fact_id, text, category = stage(s)
            current = s.conn.execute("SELECT text, category FROM fact WHERE id = ?",
                                     (fact_id,)).fetchone()
            if current is not None and (current[0], current[1]) != (text, category):
                s.edit(fact_id, text, category, actor="tui")
            else:
                s.approve([fact_id], actor="tui")
            return fact_id

        return self._submit(run)

    def supersede(self, new_id: int, old_id: int) -> Future[Snapshots]:
        return self._submit(lambda s: s.supersede(new_id, old_id, actor="tui"))

    def restore(self, decision: Future[Snapshots]) -> Future[None]:
        """Undo a decision: runs after it (one thread), with the snapshots it returned."""
        return self._submit(lambda s: s.restore(decision.result(), actor="tui"))

    # ---- lifecycle ----------------------------------------------------------------

    def busy(self) -> bool:
        """Whether a decision is still on its way to the store."""
        return self._last is not None and not self._last.done()

    async def drain(self) -> None:
        """Wait until every write so far is on disk (errors were already reported)."""
        last = self._last
        if last is None:
            return
        with contextlib.suppress(Exception):  # already reported by `_on_error`
            await asyncio.wrap_future(last)

    def close(self) -> None:
        """Finish the queued writes, then release the store."""
        if self._closed:
            return
        self._closed = True
        self._pool.shutdown(wait=True)
        if self._store is not None:
            self._store.close()
