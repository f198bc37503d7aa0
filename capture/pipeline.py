"""One queued job from transcript to pending candidates: the capture loop's middle.

condense → redact → extract (Haiku, or the offline rules) → redact again → ground →
dedupe → anchor → store, all or nothing. Every way a job can end is an `Outcome`, and
the queue row says so too: done (facts stored), queued again (a transient error, a
missing key, the spend cap) or failed (only when retrying cannot help).

Only stdlib at import time (`preview` must be fast); the store and the SDK load when a
job is processed.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from capture.condense import excerpt, find_turn, fits_whole, split_windows
from capture.fill import fill, has_room
from capture.fit import budget_for, fit
from capture.transcript import Turn, read_turns
from reviewer.config import Config
from reviewer.sanitize.detect import collecting, redact, remembering
from reviewer.sanitize.visible import has_invisible
from reviewer.sanitize.visible import strip as strip_invisible

if TYPE_CHECKING:
    import datetime as dt
    import sqlite3
    from collections.abc import Sequence

    from capture.candidate import Candidate
    from capture.held import Held
    from reviewer.store import db, queue
    from reviewer.store.facts import NewFact, Store


class _OnFirstUse:
    """A module imported when first used. `preview` (and `sent_windows`) need neither the
    store nor dates: importing them up front was a third of `preview`'s import time."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        import importlib

        return getattr(importlib.import_module(self._name), attr)


if not TYPE_CHECKING:
    db = _OnFirstUse("reviewer.store.db")
    queue = _OnFirstUse("reviewer.store.queue")
    dt = _OnFirstUse("datetime")

SPEND_CAP = "daily spend cap reached"
# A job fails for transient errors only once they have lasted this long since the first
# failure of the current streak (an outage of hours must not lose a session), not after a
# count of tries; a server's `retry-after` may lengthen a wait, never shorten it.
GIVE_UP_SECONDS = 86400.0
MAX_RETRY_AFTER = 6 * 3600.0
MAX_JOB_CHARS = 4 << 20
JOB_CHARS_ENV = "MEM_REVIEW_MAX_JOB_CHARS"  # a larger hint is not believed (a `retry-after: 1e12`)
PAUSE_ENV = "MEM_REVIEW_TEST_PAUSE"  # tests only: see `pause_for_tests`
PAUSE_STAGES = ("read", "store")
_TEMP_ID = 1 << 40  # ids for this job's own new facts in the dedupe index (above any row id)


@dataclass
class Outcome:
    """How a job ended. `state` is the job's state afterwards (done | queued | failed)."""

    job_id: int
    state: str
    new_ids: list[int] = field(default_factory=list)
    seen_again: list[int] = field(default_factory=list)
    suppressed: int = 0
    dropped: list[str] = field(default_factory=list)
    error: str | None = None
    stop: bool = False  # the worker should take no more jobs this run (no key, spend cap)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


@dataclass
class _Sent:
    """What left (or would leave) the machine: the windows, and the redacted turns they
    were made of before `capture.fit` shortened any, with what `capture.fill` restored
    (grounding and excerpts use these)."""

    turns: list[Turn]
    windows: list[str]
    end_offset: int
    long_lines: int = 0  # lines over the reader's cap, skipped unread
    more: bool = False  # stopped at job_chars(): the rest of the file is a follow-up job
    # What tools were given and gave back (never sent): where the verifier looks for a
    # quote the conversation lacks. Not redacted: nothing of it is stored or shown.
    tool_texts: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n\n".join(self.windows)


def _prepare(
    path: str, start: int, window_chars: int, send_ratio: int, *, tool_texts: bool = False
) -> _Sent:
    """Read and condense, drop the characters a terminal does not show (the model must
    read what a person can: reviewer/sanitize/visible.py; also rejoins a token split by a
    zero-width character), then redact each turn BEFORE windows are cut (a secret is never
    split by an elision), fit them to 1/send_ratio of the bytes read, fill a short
    session's room under its floor with what condensation dropped (redacted the same way
    first), and redact each window again for good measure. OSError propagates."""
    # The turns only: `condense_file` would also render the whole text and cut windows
    # of the unfitted turns, work thrown away here (a third of `preview`'s own time).
    read, stats, end = read_turns(path, start, max_chars=job_chars(), tool_texts=tool_texts,
                                  held=True)
    turns, windows = redacted_windows(_visible(read), budget_for(stats.bytes_read, send_ratio),
                                      window_chars, stats.held)
    return _Sent(turns, windows, end, stats.long_lines, stats.more, stats.tool_texts)


def _visible(turns: list[Turn]) -> list[Turn]:
    """Each turn as a terminal shows it (the model reads what a person can)."""
    return [
        dataclasses.replace(t, text=strip_invisible(t.text)) if has_invisible(t.text) else t
        for t in turns
    ]


def _clean(turns: list[Turn]) -> list[Turn]:
    """Each turn as a terminal shows it, its secrets redacted (what every sent turn is)."""
    return redact_turns(_visible(turns))


def redacted_windows(
    turns: list[Turn], budget: int | None, window_chars: int, held: Sequence[Held] = ()
) -> tuple[list[Turn], list[str]]:
    """Each turn redacted (before any is cut: an elision never splits a secret), fitted
    to `budget`, a short session's room under its floor filled with what condensation
    dropped (`held`, cleaned the same way first), cut into windows, each window redacted
    again (for what only adjacent turns show). Returns the redacted turns (with what was
    restored) and the windows."""
    clean: set[str] = set()
    windows = untouched_windows(turns, budget, window_chars, clean, held)
    if windows is not None:
        return turns, windows
    turns = redact_turns(turns)
    sent, turns = fill(fit(turns, budget), turns, list(held), budget, _clean)
    return turns, [w if w in clean else redact(w) for w in split_windows(sent, window_chars)]


def untouched_windows(
    turns: list[Turn], budget: int | None, window_chars: int, clean: set[str],
    held: Sequence[Held] = (),
) -> list[str] | None:
    """The windows, in one pass of the detector instead of two, when redaction changes
    nothing (most sessions); None otherwise, and `clean` holds the windows it left as they
    are (redacting one again would give it back: `redact` is a function of its text alone
    while no job's memory is collecting).

    `_prepare` redacts each turn, fits, cuts windows and redacts each window. When no
    window cuts a turn, the windows of the unredacted turns are those of the redacted ones
    as soon as every turn comes back unchanged: each turn sent whole is checked inside its
    window (as `redact_turns` checks it inside its group: a text redaction leaves
    unchanged has no secret in any of its turns), the turns fitting dropped or shortened
    by `redact_turns`, whole; then the windows need no second pass, already checked. Under a
    job's memory (`collecting`) the two passes stay: what the turns' pass remembers is
    redacted in the windows."""
    if remembering():
        return None
    sent = fit(turns, budget)
    if has_room(sent, held, budget):
        return None  # a short session's room gets what condensation dropped: two passes
    if not fits_whole(sent, window_chars):
        return None  # a window cuts a turn: only the turns' own pass sees all of it
    windows = split_windows(sent, window_chars)
    for w in windows:
        if redact(w) != w:
            return None
        clean.add(w)
    whole = {id(t) for t in sent}  # a turn fitting shortened is a new object: not whole
    left = [t for t in turns if id(t) not in whole]
    if any(a is not b for a, b in zip(redact_turns(left), left, strict=True)):
        return None
    return windows


def job_chars() -> int:
    """Conversation text one job holds at most (MEM_REVIEW_MAX_JOB_CHARS, default 4 Mi
    characters, ~200 transcripts' worth): grounding indexes cost ~40 bytes a character,
    so a giant transcript is done in several jobs, each bounded, not in one."""
    try:
        value = int(os.environ.get(JOB_CHARS_ENV, "") or MAX_JOB_CHARS)
    except ValueError:
        return MAX_JOB_CHARS
    return value if value > 0 else MAX_JOB_CHARS


_GROUP = 128  # turns redacted together at first; a group with a secret is halved


def redact_turns(turns: list[Turn]) -> list[Turn]:
    """Each turn with `redact(turn.text)`, at a fraction of the cost.

    Redaction costs mostly per call (every rule scans every text), and a session is
    hundreds of short turns nearly all without a secret. So turns go in groups joined by
    a blank line: a group that redaction leaves unchanged has no secret in any of its
    turns (a line break is what a turn's start and end look like to every rule), and a
    group where something was found is halved until each turn that holds a secret is
    redacted alone. Same result as one call per turn (tests/test_condense_value.py checks
    it on the whole secret corpus).
    """
    out: list[Turn] = []
    for i in range(0, len(turns), _GROUP):
        out.extend(_redact_group(turns[i : i + _GROUP]))
    return out


def _redact_group(group: list[Turn]) -> list[Turn]:
    if len(group) == 1:
        t = group[0]
        red = redact(t.text)
        return [t if red == t.text else dataclasses.replace(t, text=red)]
    joined = "\n\n".join(t.text for t in group)
    if redact(joined) == joined:
        return group
    mid = len(group) // 2
    return _redact_group(group[:mid]) + _redact_group(group[mid:])


def sent_windows(path: str | os.PathLike[str], cfg: Config | None = None) -> list[str]:
    """Exactly the windows `process` would send for this whole file."""
    if cfg is None:
        from reviewer.config import load

        cfg = load()
    return _prepare(os.fspath(path), 0, cfg.window_chars, cfg.send_ratio).windows


def preview_text(path: str | os.PathLike[str], *, window_chars: int | None = None) -> str:
    """Exactly the windows `process` would send for this whole file, with separators."""
    from reviewer.config import load

    cfg = load()
    if window_chars is not None:
        cfg = dataclasses.replace(cfg, window_chars=window_chars)
    windows = sent_windows(path, cfg)
    if not windows:
        return "(nothing to send: no conversation in this transcript)\n"
    total = len(windows)
    parts = []
    for i, window in enumerate(windows, start=1):
        parts.append(f"───── window {i} of {total} · {len(window):,} characters ─────\n")
        parts.append(window.rstrip("\n") + "\n")
    return "\n".join(parts)


# --------------------------------------------------------------------------- test hook


def pause_for_tests(stage: str) -> None:
    """Tests only: with MEM_REVIEW_TEST_PAUSE=<stage>, write `paused-<stage>` (holding the
    pid) in the data dir and sleep, so a test can SIGKILL the worker at exactly that stage
    (tests/test_faults.py). Otherwise one environment lookup, nothing else.

    Stages: `read` (the transcript is read and condensed, nothing written yet), `store`
    (the job's facts are inserted in the open transaction, just before COMMIT).
    """
    if os.environ.get(PAUSE_ENV) != stage:
        return
    import time

    from reviewer import paths

    (paths.home() / f"paused-{stage}").write_text(str(os.getpid()))
    time.sleep(3600)


def _pause_before_commit(store: Store) -> None:
    """Arm the `store` pause: it fires inside the store's transaction, before COMMIT."""
    if os.environ.get(PAUSE_ENV) != "store":
        return
    from sqlalchemy import event

    event.listen(store.engine, "commit", lambda _conn: pause_for_tests("store"))


# --------------------------------------------------------------------------- processing


def process(
    store: Store,
    conn: sqlite3.Connection,
    job: queue.Claimed,
    cfg: Config,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    http_client: Any = None,
    extractor: str | None = None,
) -> Outcome:
    """Run one claimed job to its end; the queue row is updated whatever happens.

    Unexpected exceptions propagate (the worker requeues the job and logs the traceback).
    """
    from capture.extractors import UnknownExtractor, choose, resolve

    try:
        waits = resolve(cfg, extractor, api_key=api_key).waiting
        chosen = choose(
            cfg, extractor, api_key=api_key, base_url=base_url, http_client=http_client
        )
    except UnknownExtractor as exc:
        queue.fail(conn, job.id, str(exc))
        return Outcome(job.id, "failed", error=str(exc))
    # Every value redacted from here on is remembered: a careless model may repeat one
    # without the words that gave it away, and the store's door hides it there too.
    with collecting() as found:
        return _process(store, conn, job, cfg, chosen, found, waits=waits)


def _process(
    store: Store, conn: sqlite3.Connection, job: queue.Claimed, cfg: Config, chosen: Any,
    found: set[str], *, waits: bool = False,
) -> Outcome:
    from capture.extractors.base import ExtractionError, Request

    try:
        sent = _prepare(job.transcript_path, job.start_cursor, cfg.window_chars, cfg.send_ratio,
                        tool_texts=True)
    except OSError as exc:
        reason = f"transcript unreadable: {job.transcript_path}: {exc.strerror or exc}"
        queue.fail(conn, job.id, reason)
        return Outcome(job.id, "failed", error=reason)
    pause_for_tests("read")
    if sent.long_lines:
        from capture.transcript import max_line_bytes
        from reviewer.log import log

        log("worker", f"job {job.id}: skipped {sent.long_lines} line(s) longer than "
            f"{max_line_bytes():,} bytes in {job.transcript_path}")

    if not sent.windows:  # nothing new since the last capture of this file
        store.record_extraction(job.id, [], [], redacted=found, end_cursor=sent.end_offset)
        return Outcome(job.id, "done")

    if waits:
        return _stage_and_wait(store, conn, job, sent, chosen, found)
    why_not = chosen.unavailable()
    if why_not:
        queue.requeue(conn, job.id, why_not, delay=0, count_attempt=False)
        return Outcome(job.id, "queued", error=why_not, stop=True)
    if chosen.paid and cfg.daily_spend_cap_usd > 0:
        estimate = chosen.estimate_cost(sent.windows)
        if estimate > cfg.daily_spend_cap_usd:  # would never fit: say so, don't loop
            reason = (
                f"this session would cost about ${estimate:.2f}, over the daily spend cap "
                f"(${cfg.daily_spend_cap_usd:.2f}); raise the cap or use the rules extractor"
            )
            queue.fail(conn, job.id, reason)
            return Outcome(job.id, "failed", error=reason)
        spent = spent_today(conn)
        if spent >= cfg.daily_spend_cap_usd or (
            spent > 0 and spent + estimate > cfg.daily_spend_cap_usd
        ):
            delay = max(1.0, next_midnight() - db.now())
            queue.requeue(conn, job.id, SPEND_CAP, delay=delay, count_attempt=False)
            return Outcome(job.id, "queued", error=SPEND_CAP, stop=True)
    existing: list[str | tuple[int, str]] = []
    rejected: list[tuple[str, str]] = []
    if chosen.uses_known:
        # A person's edits and reject reasons are stored as typed: redact them too, they
        # leave the machine with the request. Ids go along: a candidate may supersede one.
        existing = [
            (fact_id, redact(text))
            for fact_id, text, status in store.known(job.project)
            if status in ("approved", "pending")
        ]
        rejected = [
            (redact(text), redact(reason))
            for text, reason in store.rejected_with_reasons(job.project)
        ]
        rejected += _team_rejections(job.project, {text for text, _ in rejected})
    try:
        result = chosen.extract(Request(sent.windows, sent.turns, existing, rejected))
    except ExtractionError as exc:
        return _extraction_failed(conn, job, cfg, exc)

    tin, tout, cost = result.input_tokens, result.output_tokens, result.cost_usd
    out = Outcome(
        job.id, "done", dropped=list(result.dropped), input_tokens=tin, output_tokens=tout,
        cost_usd=cost,
    )
    given = {item[0] for item in existing if isinstance(item, tuple)}
    new = _triage(store, job, sent, result.candidates, chosen.source, result.model, out, given)
    jin, jout, jcost = _judge(conn, job, cfg, chosen, new, out)
    tin, tout, cost = tin + jin, tout + jout, cost + jcost
    out.input_tokens, out.output_tokens, out.cost_usd = tin, tout, cost
    for nf in new:  # each new fact carries its share of what the job cost
        nf.input_tokens, nf.output_tokens = tin // len(new), tout // len(new)
    _pause_before_commit(store)
    out.new_ids = store.record_extraction(
        job.id,
        new,
        out.seen_again,
        redacted=found,
        end_cursor=sent.end_offset,
        model=result.model,
        input_tokens=tin,
        output_tokens=tout,
        cost_usd=cost,
    )
    if sent.more:
        _follow_up(conn, job, sent.end_offset)
    return out


JUDGE_ENV = "MEM_REVIEW_JUDGE"  # "0": leave the verifier's suspicions unjudged


def _judge(
    conn: sqlite3.Connection, job: queue.Claimed, cfg: Config, chosen: Any,
    new: list[NewFact], out: Outcome,
) -> tuple[int, int, float]:
    """Settle the verifier's suspicions (hints) with one model request through the same
    extractor (`capture.judge`), when it offers one and the spend cap has room for it.
    Returns what it cost (input tokens, output tokens, USD); a failure settles nothing."""
    judge = getattr(chosen, "judge", None)
    if judge is None or os.environ.get(JUDGE_ENV) == "0":
        return 0, 0, 0.0
    from capture.extractors.base import ExtractionError
    from capture.judge import MAX_SUSPECTS, Suspect, settle
    from reviewer.log import log

    # Only suspicions: a candidate already known ungrounded (its quote not found, a
    # value changed) is settled by what the checks know, whatever a hint beside it says.
    suspected = [i for i, nf in enumerate(new) if nf.hint and nf.grounded]
    suspects = []
    for i in suspected[:MAX_SUSPECTS]:
        nf = new[i]
        name, _, detail = nf.hint.partition(": ")
        suspects.append(Suspect(i, nf.text, nf.evidence, name, detail, nf.context))
    if not suspects:
        return 0, 0, 0.0
    if len(suspected) > MAX_SUSPECTS:
        log("worker", f"job {job.id}: {len(suspected) - MAX_SUSPECTS} suspicion(s) left "
            f"unjudged: one request judges at most {MAX_SUSPECTS}")
    if chosen.paid and cfg.daily_spend_cap_usd > 0:
        estimate = chosen.estimate_judge_cost(len(suspects))
        if spent_today(conn) + out.cost_usd + estimate > cfg.daily_spend_cap_usd:
            log("worker", f"job {job.id}: {len(suspects)} suspicion(s) left unjudged: "
                "the daily spend cap has no room")
            return 0, 0, 0.0
    try:
        res = judge(suspects)
    except ExtractionError as exc:
        log("worker", f"job {job.id}: suspicions left unjudged: {redact(f'{exc.kind}: {exc}')}")
        return 0, 0, 0.0
    for s in suspects:
        new[s.id].hint = settle(new[s.id].hint, res.judgments.get(s.id))
    if res.dropped:
        log("worker", f"job {job.id}: judge: " + "; ".join(res.dropped)[:500])
    return res.input_tokens, res.output_tokens, res.cost_usd


def _stage_and_wait(
    store: Store, conn: sqlite3.Connection, job: queue.Claimed, sent: _Sent, rules: Any,
    found: set[str] | None = None,
) -> Outcome:
    """No model can run (issue 21): the rules stage what they find now, and the job stays
    queued for a model, which reads the whole session once it can (the rules' facts are
    then among the known facts it is told of, and same-text repeats merge). Each pass
    stages only what is new: the store keeps one fact per (job, text), and a repeat of a
    staged fact is not counted as seen again."""
    from capture.extractors.base import Request
    from reviewer.store import waiting

    result = rules.extract(Request(sent.windows, sent.turns))
    out = Outcome(job.id, "queued")
    new = _triage(store, job, sent, result.candidates, rules.source, result.model, out)
    out.new_ids = store.record_extraction(job.id, new, redacted=found or (),
                                          end_cursor=sent.end_offset, model=result.model,
                                          finish=False)
    out.seen_again = []
    out.error = waiting.reason(waiting.staged(conn, job.id))
    queue.requeue(conn, job.id, out.error, delay=waiting.RECHECK_SECONDS, count_attempt=False)
    return out


def _follow_up(conn: sqlite3.Connection, job: queue.Claimed, end: int) -> None:
    """The job stopped at job_chars(): queue the rest of the file (it starts at `end`)."""
    from reviewer.log import log

    follow = queue.enqueue(conn, session_id=job.session_id, transcript_path=job.transcript_path,
                           project=job.project, cwd=job.cwd, event=job.event)
    log("worker", f"job {job.id}: read {job_chars():,} characters of conversation, up to "
        f"byte {end:,}; job {follow} takes the rest of {job.transcript_path}")


def _extraction_failed(
    conn: sqlite3.Connection, job: queue.Claimed, cfg: Config, exc: Any
) -> Outcome:
    """Record what the failed attempt cost, then fail (permanent) or requeue (transient)."""
    from capture.extractors.base import cost_usd

    tin = tout = 0
    cost = 0.0
    if exc.partial is not None and (exc.partial.input_tokens or exc.partial.output_tokens):
        tin, tout = exc.partial.input_tokens, exc.partial.output_tokens
        cost = exc.partial.cost_usd or cost_usd(exc.partial.model, tin, tout)
        conn.execute(
            "UPDATE job SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, "
            "cost_usd = cost_usd + ?, model = ? WHERE id = ?",
            (tin, tout, cost, exc.partial.model, job.id),
        )
    message = redact(f"{exc.kind}: {exc}")  # an error body may quote the request
    if exc.kind == "unavailable":  # like `unavailable()`, found mid-run (a lapsed sign-in)
        queue.requeue(conn, job.id, message, delay=0, count_attempt=False)
        return Outcome(job.id, "queued", error=message, stop=True, input_tokens=tin,
                       output_tokens=tout, cost_usd=cost)
    if exc.permanent:
        queue.fail(conn, job.id, message)
        return Outcome(
            job.id, "failed", error=message, input_tokens=tin, output_tokens=tout, cost_usd=cost
        )
    state, message = transient_failure(conn, job, cfg, message, exc.retry_after)
    return Outcome(
        job.id, state, error=message, input_tokens=tin, output_tokens=tout, cost_usd=cost
    )


def transient_failure(
    conn: sqlite3.Connection, job: queue.Claimed, cfg: Config, message: str,
    retry_after: float | None = None,
) -> tuple[str, str]:
    """Requeue after a transient failure, or fail the job once the streak has lasted
    GIVE_UP_SECONDS. Returns (state, message)."""
    now = db.now()
    since = job.first_failed_at
    if since is not None and now - since >= GIVE_UP_SECONDS:
        message = (
            f"gave up after {(now - since) / 3600:.0f} h of transient errors "
            f"({job.attempts} attempts); last error {message}"
        )
        queue.fail(conn, job.id, message)
        return "failed", message
    queue.requeue(conn, job.id, message, delay=delay_for(cfg, job.attempts, retry_after),
                  transient=True)
    return "queued", message


def delay_for(cfg: Config, attempts: int, retry_after: float | None) -> float:
    """The wait before the next try: the backoff, or the server's hint if that is longer."""
    hint = min(MAX_RETRY_AFTER, retry_after) if retry_after and retry_after > 0 else 0.0
    return max(backoff(cfg, attempts), hint)


def backoff(cfg: Config, attempts: int) -> float:
    """Exponential from a floor (`retry_base_seconds`, at least 1 s), capped at the
    queue's maximum."""
    base = max(1.0, cfg.retry_base_seconds)
    return min(queue.MAX_BACKOFF, base * 2 ** min(32, max(0, attempts - 1)))


def _triage(
    store: Store,
    job: queue.Claimed,
    sent: _Sent,
    cands: list[Candidate],
    source: str,
    model: str,
    out: Outcome,
    given_ids: set[int] | None = None,
) -> list[NewFact]:
    """Turn candidates into rows to store; fill `out.seen_again` / `suppressed` / `dropped`.

    Each candidate's evidence goes through the verifier (capture/verify/) against the
    redacted turns (the model may quote what fitting later shortened): `grounded` is its
    verdict, `check` says which check failed. A `supersedes` link must name one of the
    facts given to the model (`given_ids`), else it is dropped with a reason.
    """
    from capture.candidate import check_supersedes
    from capture.ground import missing_files
    from capture.verify import verify
    from reviewer.freshness import cited
    from reviewer.freshness.anchors import git_head
    from reviewer.log import log
    from reviewer.store.dedupe import FactIndex, fact_key
    from reviewer.store.facts import NewFact
    from reviewer.store.schema import MAX_FACT_CHARS

    known = store.known(job.project)
    index = FactIndex.build(known)
    live = {i for i, _, status in known if status in ("approved", "pending")}
    out.dropped.extend(check_supersedes(cands, live & given_ids if given_ids else set()))
    commit, branch = git_head(job.project)
    new: list[NewFact] = []
    for cand in cands:
        text = " ".join(redact(cand.fact).split())
        evidence = redact(cand.evidence).strip()
        if not text:
            out.dropped.append("empty fact after redaction")
            continue
        if len(text) > MAX_FACT_CHARS:  # the store refuses it: dropped here with a reason
            out.dropped.append(f"fact over {MAX_FACT_CHARS:,} characters: {text[:80]}")
            continue
        decision = index.classify(text)
        if decision.kind == "suppressed":
            out.suppressed += 1
            continue
        if decision.kind == "seen_again":
            # An approved match is also how injected memory coming back is caught: it
            # must never become a new candidate, only count as seen again.
            if decision.match_id is not None and decision.match_id < _TEMP_ID:
                out.seen_again.append(decision.match_id)
            else:
                out.dropped.append(f"repeats a fact of this session: {text[:80]}")
            continue
        files = _clean_files(cand.files, job.project)
        missing = missing_files(files, job.project)
        anchors, unread = cited.anchor(job.project, [f for f in files if f not in missing])
        for f, why in unread.items():  # a FIFO, a device, 2 GB: never read, counted missing
            log("worker", f"job {job.id}: cited file {f[:200]!r} not read: {why}")
            missing.append(f)
        anchors.update(dict.fromkeys(missing))
        anchors = {f: anchors[f] for f in files}
        verdict = verify(text, evidence, sent.turns, confidence=cand.confidence,
                         said_by=cand.source, tool_texts=sent.tool_texts)
        at = verdict.turn
        if at is None and evidence:
            at = find_turn(sent.turns, evidence)
        context = redact(excerpt(sent.turns, at)) if at is not None else ""
        new.append(
            NewFact(
                project=job.project,
                text=text,
                norm=fact_key(text),
                category=cand.category,
                files=files,
                confidence=cand.confidence,
                evidence=evidence,
                context=context,
                grounded=verdict.supported,
                check=verdict.check,
                hint=f"{verdict.hint}: {verdict.hint_detail}" if verdict.hint else None,
                evidence_turn=verdict.turn,
                evidence_speaker=verdict.speaker,
                evidence_source=cand.source,
                supersedes=cand.supersedes,
                missing_files=missing,
                session_id=job.session_id,
                job_id=job.id,
                source=source,
                commit_sha=commit,
                branch=branch,
                anchors=anchors,
                model=model,
            )
        )
        index.add(_TEMP_ID + len(new), text, "pending")  # later repeats in this job merge into it
    return new


def _clean_files(files: list[str], project: str) -> list[str]:
    """Paths relative to the project: strip `./`, make absolute paths inside it relative."""
    root = os.path.normpath(project)
    out: list[str] = []
    for given in files:
        name = redact(given).strip()
        if os.path.isabs(name):
            norm = os.path.normpath(name)
            if os.path.commonpath([root, norm]) == root and norm != root:
                name = os.path.relpath(norm, root)
        while name.startswith("./"):
            name = name[2:]
        if name and name not in out:
            out.append(name)
    return out


# --------------------------------------------------------------------------- spend


def today_start(now: float | None = None) -> float:
    """Local midnight that began today, as epoch seconds."""
    day = dt.datetime.fromtimestamp(db.now() if now is None else now).date()
    return dt.datetime.combine(day, dt.time()).timestamp()


def next_midnight(now: float | None = None) -> float:
    day = dt.datetime.fromtimestamp(db.now() if now is None else now).date()
    return dt.datetime.combine(day + dt.timedelta(days=1), dt.time()).timestamp()


def spent_today(conn: sqlite3.Connection) -> float:
    """Estimated USD spent on jobs touched since local midnight."""
    row = conn.execute(
        "SELECT COALESCE(SUM(cost_usd), 0) FROM job WHERE updated_at >= ?", (today_start(),)
    ).fetchone()
    return float(row[0])


# --------------------------------------------------------------------------- synchronous


def claim_job(conn: sqlite3.Connection, job_id: int) -> queue.Claimed | None:
    """Claim one given queued job (same cursor rule as `queue.claim`)."""
    return queue.claim(conn, os.getpid(), job_id=job_id)


def capture_now(
    transcript_path: str | os.PathLike[str],
    *,
    project: str,
    session_id: str | None = None,
    extractor: str = "rules",
    cwd: str | None = None,
    store: Store | None = None,
    api_key: str | None = None,
    base_url: str | None = None,
    http_client: Any = None,
) -> list[int]:
    """Queue one transcript and process it here and now; returns the new fact ids.

    For `mem-review demo` and tests. Raises UserError when the job cannot be done.
    """
    from reviewer.config import load
    from reviewer.errors import UserError
    from reviewer.store.facts import Store

    path = os.path.abspath(os.fspath(transcript_path))
    own = store is None
    store = store or Store()
    conn = db.connect(store.path)
    try:
        job_id = queue.enqueue(
            conn,
            session_id=session_id or Path(path).stem,
            transcript_path=path,
            project=project,
            cwd=cwd or project,
            event="capture",
        )
        job = claim_job(conn, job_id)
        if job is None:
            raise UserError(f"{path}: its job {job_id} is already being processed")
        out = process(
            store,
            conn,
            job,
            load(),
            api_key=api_key,
            base_url=base_url,
            http_client=http_client,
            extractor=extractor,
        )
    finally:
        conn.close()
        if own:
            store.close()
    if out.state != "done":
        raise UserError(f"{path}: {out.error}")
    return out.new_ids


def _team_rejections(project: str, known: set[str]) -> list[tuple[str, str]]:
    """What teammates rejected, from the project's `.mem-review/rejections/` (only files
    that count under the sharing trust rule): the extractor skips those too."""
    from reviewer.sharing import reading

    try:
        shared = reading.rejections(project)
    except Exception as exc:  # advisory: extraction goes on with the person's own list
        from reviewer.log import log

        log("pipeline", f"shared rejections unreadable: {type(exc).__name__}: {exc}")
        return []
    out = []
    for rej in shared[:MAX_TEAM_REJECTIONS]:
        text = redact(rej.text)
        if text not in known:
            known.add(text)
            out.append((text, redact(rej.reason)))
    return out


MAX_TEAM_REJECTIONS = 200
