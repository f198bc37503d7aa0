"""The detail pane: everything a person needs to judge one fact, without leaving the list.

Shown in two steps so moving through the list stays instant: the row's own fields at
once (no disk, no pygments), then, after a short debounce in a thread, the evidence in
its transcript context, highlighted, the cited files' anchors and diffs, and the
history. The full content is cached per fact version.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.cache import LRUCache
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static
from textual.worker import get_current_worker

from reviewer.freshness.anchors import ABSENT
from reviewer.sanitize.lookalike import review_flags
from reviewer.tui.reading import Reading, line_spans
from reviewer.tui.rows import FactDetail, FactRow, HistoryRow
from reviewer.tui.safe_text import clip, printable
from reviewer.tui.ui_loop import UiLoop

DEBOUNCE_SECONDS = 0.03
MAX_FACT = 4_000
MAX_EVIDENCE = 1_500
FILE_STATE_STYLE = {
    "fresh": "$text-success", "changed": "$text-warning", "moved": "$text-warning",
    "deleted": "$text-error", "missing": "$text-error", "unknown": "$text-muted",
}


def when(ts: float | None) -> str:
    if not ts:
        return "—"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def heading(title: str) -> Content:
    return Content.styled(f"── {title} ", "bold $text-secondary")


GRADE_NOTE = {
    "part": "the lines it names changed",
    "elsewhere": "only other parts of its files changed; the lines it names are as they were",
    "unknown": "it names nothing to find in its files, so any change counts",
}


def summary(row: FactRow, grade: str | None = None) -> list[Content]:
    """The part shown at once: status, category, confidence, flags, the fact itself."""
    status_style = {
        "pending": "bold $text-warning", "approved": "bold $text-success",
        "rejected": "bold $text-error",
    }.get(row.status, "bold")
    head = Content.assemble(
        (f"#{row.id} ", "$text-muted"),
        (row.status, status_style),
        (f" · {row.category.replace('_', ' ')}", "$text-accent"),
        f" · confidence {row.confidence:.2f}",
    )
    if row.status == "rejected" and row.reject_reason:
        head = head + Content.styled(f" · {printable(row.reject_reason)}", "$text-error")
    lines = [head, Content.styled(printable(clip(row.text, MAX_FACT)), "bold")]
    notes: list[Content] = []
    if row.stale:
        how = f"; {GRADE_NOTE[grade]}" if grade in GRADE_NOTE else ""
        notes.append(Content.styled(
            f"⟳ stale: the code changed since capture ({row.verdict or 'changed'}{how}) — "
            "v see the diff and decide", "$text-muted" if grade == "elsewhere"
            else "$text-error"))
    if not row.grounded:
        notes.append(Content.styled(
            "? ungrounded: the verifier found no support for it in the transcript",
            "$text-warning"))
    if row.missing:
        notes.append(Content.styled(
            "! cited file missing: " + printable(", ".join(row.missing)), "$text-warning"))
    for flag in review_flags(row.text):  # orders to the model, lookalike letters
        notes.append(Content.styled("⚠ look twice: " + printable(flag), "bold $text-error"))
    if row.times_seen > 1 or row.used:
        notes.append(Content.styled(
            f"seen in {row.times_seen} session{'s' if row.times_seen != 1 else ''} · injected "
            f"{row.used} time{'s' if row.used != 1 else ''}", "$text-muted"))
    return lines + notes


# What each of the verifier's checks (capture/verify/) means, for a person.
CHECK_TEXT = {
    "not_found": "the quote is not in the transcript",
    "too_short": "the quote is too short to support anything",
    "elision": "the quote's “…” leaves words out",
    "stitched": "the quote is stitched from distant turns",
    "negation_flip": "a negation differs between the fact and the transcript",
    "number_mismatch": "a number differs from, or is absent near, the quote",
    "identifier_mismatch": "a name in the quote differs from the transcript",
    "identifier_missing": "a name in the fact is not near the quote",
    "tool_line": "the quote is only a tool-call line",
    "summary_only": "only a compaction summary says so",
    "corrected_later": "the quote was corrected later in the session",
}


def verdict_line(row: FactRow, detail: FactDetail) -> Content:
    """The verifier's verdict and who said the quote, shown beside the evidence."""
    who = detail.speaker or detail.said_by
    said = f" · said by {who}" if who else ""
    if detail.said_by and detail.speaker and detail.said_by != detail.speaker:
        said += f" (the model said {detail.said_by})"
    if row.grounded:
        hint = detail.hint or ""
        if hint and not hint.startswith("speaker:"):  # the speaker is said just above
            return Content.assemble(("✓ supported", "$text-success"), said,
                                    ("\n⚠ ", "$text-warning"), printable(hint))
        return Content.assemble(("✓ supported", "$text-success"), said)
    why = CHECK_TEXT.get(detail.check or "", detail.check or "not verified")
    return Content.assemble(("✗ not supported: ", "$text-warning"), printable(why), said)


def _history_line(h: HistoryRow) -> Content:
    after = h.after or {}
    what = h.action
    if h.action == "rejected":
        what = f"rejected ({after.get('reject_reason') or '?'})"
    elif h.action == "edited":
        what = f"edited: {clip(str(after.get('text', '')), 80)}"
    elif h.action == "verified":
        what = f"re-verified at {str(after.get('commit_sha') or '—')[:10]}"
    elif h.action == "superseded":
        what = str(after.get("reject_reason") or "superseded")
    elif h.action == "undo":
        what = f"undone → {after.get('status', '?')}"
    elif h.action == "seen_again":
        what = f"seen again (job {after.get('job_id', '?')})"
    return Content.assemble(
        (when(h.at), "$text-muted"), " ", (f"{h.actor:<6}", "$text-accent"), " ",
        printable(what),
    )


def full(
    row: FactRow, detail: FactDetail | None, history: list[HistoryRow],
    diffs: dict[str, Content], context: tuple[Content, bool] | None,
    grade: str | None = None, unread: dict[str, str] | None = None,
) -> list[Content]:
    """Every section of the pane for one fact (built off the UI thread)."""
    parts = summary(row, grade)
    found = context is not None and context[1]
    if context is not None:
        parts += [Content(""), heading("Evidence in the transcript"), context[0]]
    if detail is not None and detail.evidence and not found:
        # The quote is not in the excerpt (or there is none): show it on its own.
        title = "Evidence (not found verbatim in the excerpt)" if context else "Evidence"
        parts += [Content(""), heading(title),
                  Content.styled("“" + printable(clip(detail.evidence, MAX_EVIDENCE)) + "”",
                                 "italic")]
    if detail is not None and (detail.evidence or detail.check):
        parts.append(verdict_line(row, detail))
    if detail is not None and detail.supersedes is not None:
        old_id, old_text = detail.supersedes
        parts += [Content(""), heading(f"Supersedes #{old_id} (accepting retires it)"),
                  Content.styled(printable(clip(old_text, MAX_FACT)), "$text-muted")]
    if row.files:
        parts += [Content(""), heading("Files")]
        for path in row.files:
            sha = row.anchors.get(path)
            gone = sha == ABSENT  # a person verified the fact with this file gone
            state = row.file_states.get(path) or (
                "fresh" if gone and row.verdict == "fresh"
                else "missing" if path in row.missing or not sha
                else "fresh" if row.verdict == "fresh" else "unknown"
            )
            anchor = ("  (verified gone)" if gone else f"  @ {sha[:10]}" if sha
                      else "  (not anchored)")
            line = Content.assemble(
                (f"{state:<8} ", FILE_STATE_STYLE.get(state, "")),
                printable(path),
                (anchor, "$text-muted"),
            )
            if path in row.renamed:
                line = line + Content.styled(f"  → {printable(row.renamed[path])}",
                                             "$text-warning")
            parts.append(line)
            if unread and path in unread:  # a FIFO, a device, 2 GB, outside: never read
                parts.append(Content.styled(f"         not read: {printable(unread[path])}",
                                            "$text-warning"))
    for path, diff in diffs.items():
        parts += [Content(""), heading(f"Diff of {printable(path)} since capture"), diff]
    parts += [Content(""), heading("Provenance")]
    prov = [
        f"session {row.session_id or '—'}",
        f"branch {row.branch or '—'}",
        f"commit {(row.commit_sha or '—')[:10]}",
        f"captured {when(row.created_at)}",
    ]
    if row.verified_at:
        prov.append(f"re-verified {when(row.verified_at)}")
    if detail is not None:
        prov.append(f"source {detail.source or '—'}" + (f" ({detail.model})" if detail.model
                                                        else ""))
    parts.append(Content.styled(printable(" · ".join(prov)), "$text-muted"))
    if history:
        parts += [Content(""), heading("History")]
        parts += [_history_line(h) for h in history]
    return parts


def quote_line(content: Content, width: int) -> int | None:
    """The wrapped line (at `width`) where the highlighted evidence quote starts."""
    from reviewer.tui.highlight import EVIDENCE_STYLE

    start = next((s.start for s in content.spans if str(s.style) == EVIDENCE_STYLE), None)
    if start is None or width <= 0:
        return None
    before = content.plain[:start]
    head, _, tail = before.rpartition("\n")
    lines = len(Content(head).wrap(width)) if head or before.startswith("\n") else 0
    return lines + (len(Content(tail).wrap(width)) - 1 if tail else 0)


class DetailPane(VerticalScroll, can_focus=False):
    """Shows the selected fact; `loader` builds its full content (called in a thread)."""

    def __init__(self, loader: Callable[[FactRow], list[Content]], *, id: str | None = None):
        super().__init__(id=id)
        self._loader = loader
        self._row: FactRow | None = None
        self._cache: LRUCache[tuple[Any, ...], Content] = LRUCache(maxsize=256)
        self.placeholder = Content("")
        self.body = Static(self.placeholder, id="detail-body", markup=False)
        self.ui = UiLoop()
        self._readings: LRUCache[tuple[int, int], Reading] = LRUCache(maxsize=4096)
        self._layouts: LRUCache[tuple[Any, ...], tuple[int, str, list[tuple[int, int]]]] = (
            LRUCache(maxsize=64))

    def on_mount(self) -> None:
        self.ui.capture()

    def compose(self) -> ComposeResult:
        yield self.body

    @staticmethod
    def key(row: FactRow) -> tuple[Any, ...]:
        return (row.id, row.version, row.verdict, row.stale, row.used)

    def show(self, row: FactRow | None) -> None:
        self._row = row
        self.scroll_home(animate=False, immediate=True)
        if row is None:
            self.body.update(self.placeholder)
            return
        self._note_visible()  # the fact opens at the top: its first lines are in view
        cached = self._cache.get(self.key(row))
        if cached is not None:
            self.body.update(cached)
            return
        self.body.update(Content("\n").join(summary(row)))
        self._load(row, self.key(row))

    # ---- all of a fact seen before it is approved (reviewer/tui/reading.py) -------------

    def _layout(self, row: FactRow) -> tuple[int, str, list[tuple[int, int]]]:
        """(wrapped lines above the fact's text, the text as shown, each line's span)."""
        width = self.scrollable_content_region.width
        key = (row.id, row.version, row.status, width)
        cached = self._layouts.get(key)
        if cached is None:
            text = printable(clip(row.text, MAX_FACT))
            head = len(summary(row)[0].wrap(width)) if width > 0 else 1
            cached = self._layouts[key] = (head, text, line_spans(text, width))
        return cached

    def _reading(self, row: FactRow) -> Reading:
        key = (row.id, row.version)
        reading = self._readings.get(key)
        if reading is None:
            reading = Reading(len(printable(clip(row.text, MAX_FACT))))
            self._readings[key] = reading
        return reading

    def _note_visible(self) -> None:
        row, height = self._row, self.scrollable_content_region.height
        if row is None or height <= 0:
            return
        head, _, spans = self._layout(row)
        top = int(self.scroll_y)
        reading = self._reading(row)
        for i, (start, end) in enumerate(spans):
            if top <= head + i < top + height:
                reading.mark(start, end)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._note_visible()

    def on_resize(self) -> None:
        self._note_visible()

    def fully_seen(self, row: FactRow) -> bool:
        """Whether every character of this version of the fact has been on screen (a fact
        longer than the pane shows whole never is: edit shows all of it).

        What is in view now counts as seen: the pane is asked at the key press, not only
        when it scrolled or resized, so a press before those events arrive still sees it."""
        if self._row is not None and self._row.id == row.id:
            self._note_visible()
        return len(row.text) <= MAX_FACT and self._reading(row).whole

    def reveal_unseen(self, row: FactRow) -> bool:
        """Scroll the selected fact's first unseen line into view; False if it is not the
        one shown or nothing is left to show."""
        if self._row is None or self._row.id != row.id:
            return False
        first = self._reading(row).first_unseen()
        if first is None:
            return False
        head, _, spans = self._layout(row)
        line = next((i for i, (_, end) in enumerate(spans) if end > first), 0)
        self.scroll_to(y=max(0, head + line - 1), animate=False, immediate=True)
        self._note_visible()
        return True

    def forget(self, fact_id: int | None = None) -> None:
        """Drop cached content (a fact's history changed after a write)."""
        if fact_id is None:
            self._cache.clear()
            return
        for key in [k for k in list(self._cache.keys()) if k[0] == fact_id]:
            self._cache.discard(key)

    def reload(self) -> None:
        if self._row is not None:
            self.forget(self._row.id)
            self._load(self._row, self.key(self._row), debounce=False)

    @work(thread=True, exclusive=True, group="detail", exit_on_error=False)
    def _load(self, row: FactRow, key: tuple[Any, ...], debounce: bool = True) -> None:
        worker = get_current_worker()
        if debounce:
            time.sleep(DEBOUNCE_SECONDS)
        if worker.is_cancelled:
            return
        try:
            content = Content("\n").join(self._loader(row))
        except Exception as exc:  # the summary stays up; the rest is a courtesy
            from reviewer.log import log

            log("tui", f"detail for fact {row.id} failed: {type(exc).__name__}: {exc}")
            return
        if not worker.is_cancelled:
            self.ui.soon(self._loaded, row, key, content)

    def _loaded(self, row: FactRow, key: tuple[Any, ...], content: Content) -> None:
        self._cache[key] = content
        if self._row is row and self.key(row) == key:
            self.body.update(content)
            self.call_after_refresh(self._to_quote, row, content)

    def _to_quote(self, row: FactRow, content: Content) -> None:
        """Open at the highlighted quote when it is below the fold (at 80×24 it took
        shift+↓ three times), two lines of its context above it; unless the person has
        scrolled already, or moved on."""
        if self._row is not row or self.scroll_y != 0:
            return
        line = quote_line(content, self.scrollable_content_region.width)
        if line is not None and line >= self.scrollable_content_region.height - 1:
            self.scroll_to(y=max(0, line - 2), animate=False, immediate=True)
