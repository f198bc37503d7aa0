"""What leaves the machine, per real session: bytes sent vs bytes of the transcript, and
what the extraction would cost at Haiku 4.5 prices.

Bytes: the windows the worker would send (condensed, redacted, fitted to `send_ratio`:
`capture.pipeline.sent_windows`; the preview's headers are not sent) over what the send
budget allows the file (1/send_ratio of its size as configured by default, at least
`capture.fit.MIN_BUDGET`), for every real transcript in
../shared/transcripts, and every human prompt (counted by the transcript reader) must be
found in them. The fixed part of each request (system prompt, tool schema) is the same
for every session and is counted in the cost row.

Cost: each window is wrapped as the extractor wraps it (`capture.extractors.prompt.build_messages`:
system prompt, tool schema, the window, the known/rejected fact lists), its input tokens
estimated, plus an assumed answer of OUTPUT_TOKENS per request. There is no offline
Claude tokenizer, so tokens are estimated as max(characters / 3.5, word pieces), where
word pieces are runs of letters (one per 6 letters), of up to 3 digits, of punctuation
and of multi-character whitespace: on English prose and code that over-counts slightly,
which suits a budget.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from bench.common import BIG_TRANSCRIPT, TRANSCRIPTS, Result, Stat, error, missing
from bench.rows import Ctx, has_module
from bench.rows.preview import NEEDS, preview_function

PRICE_IN, PRICE_OUT = 1.0, 5.0  # USD per million tokens, Haiku 4.5
OUTPUT_TOKENS = 1_000  # assumed answer per request: ~10 facts with evidence
NOT_SESSIONS = ("fasthooks/sample_hook_logs.jsonl",)  # hook payload log, not a transcript
_PIECES = re.compile(r"[^\W\d_]+|\d{1,3}|[^\w\s]+|\s{2,}|_+")


def estimate_tokens(text: str) -> int:
    pieces = 0
    for m in _PIECES.finditer(text):
        s = m.group()
        pieces += math.ceil(len(s) / 6) if s[0].isalpha() else 1
    return max(math.ceil(len(text) / 3.5), pieces)


def real_transcripts() -> list[Path]:
    out = []
    for p in sorted(TRANSCRIPTS.rglob("*.jsonl")):
        rel = p.relative_to(TRANSCRIPTS).as_posix()
        if rel.startswith("derived/") or rel in NOT_SESSIONS:
            continue
        out.append(p)
    return out


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _prompts_kept(path: Path, preview: str) -> tuple[int, int, list[str], dict[str, int]]:
    """(prompts found in the preview, prompts, the lost ones, bytes per kind of turn)."""
    from capture.transcript import read_turns

    redact = _redactor()
    turns, _, _ = read_turns(path)
    kinds: dict[str, int] = {}
    for t in turns:
        kinds[t.kind] = kinds.get(t.kind, 0) + len(t.text.encode("utf-8"))
    prompts = [t.text for t in turns if t.kind == "prompt"]
    hay = _norm(preview)
    lost = [p for p in prompts if _norm(redact(p))[:200] not in hay]
    return len(prompts) - len(lost), len(prompts), [p[:60] for p in lost], kinds


def _redactor() -> Any:
    if has_module("reviewer.sanitize.redact"):
        from reviewer.sanitize.redact import redact

        return redact
    return lambda s: s


def _request_tokens(window: str, index: int, total: int, full_lists: bool) -> int:
    from capture.extractors.prompt import MAX_LIST_CHARS, TOOL, build_messages

    existing: list[str] = []
    rejected: list[tuple[str, str]] = []
    if full_lists:  # a project with more facts than the lists show: both lists at budget
        fact = "The billing worker retries webhooks five times before it marks them failed."
        existing = [fact] * (MAX_LIST_CHARS // 2 // (len(fact) + 3) + 1)
        rejected = [(fact, "not durable")] * (MAX_LIST_CHARS // 2 // (len(fact) + 35) + 1)
    system, messages = build_messages(window, index=index, total=total, existing=existing,
                                      rejected=rejected)
    sys_text = system if isinstance(system, str) else "".join(b["text"] for b in system)
    return (estimate_tokens(sys_text) + estimate_tokens(messages[0]["content"])
            + estimate_tokens(json.dumps(TOOL)) + 30)  # + roles and framing


def _windows(path: Path) -> list[str]:
    if _sent_function() is not None:
        from capture.pipeline import sent_windows

        return sent_windows(path)
    from capture.condense import condense_file
    from reviewer.config import Config

    redact = _redactor()
    return [redact(w) for w in condense_file(path, window_chars=Config().window_chars).windows]


def session_cost(path: Path, full_lists: bool) -> tuple[float, int, int]:
    """(USD, input tokens, requests) to extract one whole session."""
    windows = _windows(path)
    tokens = sum(_request_tokens(w, i + 1, len(windows), full_lists) for i, w in enumerate(windows))
    usd = (tokens * PRICE_IN + len(windows) * OUTPUT_TOKENS * PRICE_OUT) / 1e6
    return usd, tokens, len(windows)


def _allowed(size: int) -> int:
    """What the worker may send of a transcript of `size` bytes: 1/send_ratio of it (the
    default config's), or the floor under a short session's budget (`capture.fit.budget_for`:
    issue 21 chose it, under a cent, over losing a short dense session's findings); its
    money is the cost row's to judge."""
    ratio = _ratio()
    try:
        from capture.fit import budget_for
    except ImportError:  # before the floor existed
        return size // ratio
    return budget_for(size, ratio) or size


def _ratio() -> int:
    try:
        from reviewer.config import Config
    except ImportError:
        return 40
    return Config().send_ratio or 40


def _title() -> str:
    try:
        from capture.fit import MIN_BUDGET
    except ImportError:
        MIN_BUDGET = 8192
    return (f"bytes sent / send budget (1/{_ratio()}, at least {MIN_BUDGET // 1024} KiB), "
            "worst real session")


def run_bytes(ctx: Ctx) -> list[Result]:
    key, title = "bytes", _title()
    budget = "≤ 100%, all prompts"
    found = _sent_function() or preview_function()
    if found is None:
        return [missing(key, title, budget, NEEDS)]
    fn, how = found
    per: dict[str, dict[str, Any]] = {}
    notes = [f"text as sent: {how}"]
    all_kept = True
    for path in real_transcripts():
        rel = path.relative_to(TRANSCRIPTS).as_posix()
        text = fn(path)
        sent, size = len(text.encode("utf-8")), path.stat().st_size
        kept, total, lost, kinds = _prompts_kept(path, text)
        all_kept &= kept == total
        allowed = _allowed(size)
        per[rel] = {"bytes": size, "sent": sent, "ratio": sent / size, "allowed": allowed,
                    "of_budget": sent / allowed, "prompts": total, "prompts_kept": kept,
                    "lost": lost, "text_bytes_by_kind": kinds}
        shown = f"1/{size / sent:.0f}" if sent else "nothing"
        over = " OVER" if sent > allowed else ""
        parts = ", ".join(f"{k} {v:,}" for k, v in sorted(kinds.items(), key=lambda x: -x[1]))
        notes.append(f"{rel}: {size:,} B → {sent:,} B ({shown}{over}); prompts {kept}/{total}"
                     + (f"; LOST {lost}" if lost else "") + (f"; text B: {parts}" if parts else ""))
    if not per:
        return [error(key, title, budget, f"no transcripts under {TRANSCRIPTS}")]
    worst = max(per.values(), key=lambda r: r["of_budget"])
    total = sum(r["bytes"] for r in per.values()) / max(1, sum(r["sent"] for r in per.values()))
    notes.insert(1, f"judged on the session nearest its budget; all sessions together: "
                 f"1/{total:.0f} of their bytes")
    res = Result(key, title, "", kind="max", value=Stat([worst["of_budget"]], "%"),
                 limit=1.0, budget=budget, notes=notes, extra={"sessions": per})
    res.judge()
    if not all_kept and res.status == "PASS":
        res.status = "FAIL"
    if not all_kept:
        res.notes.insert(0, "some human prompts are missing from what would be sent")
    return [res]


def _sent_function() -> tuple[Any, str] | None:
    """The windows as sent, joined, once `capture.pipeline.sent_windows` exists."""
    if not has_module("capture.pipeline"):
        return None
    try:
        from capture.pipeline import sent_windows
    except ImportError:
        return None

    def sent(path: Path) -> str:
        return "\n\n".join(sent_windows(path))

    return sent, "capture.pipeline.sent_windows"


# Per extraction of the 3.2 MB session. $0.02 until session 7, when condensation began to
# send what tool results carry and the send budget went from 1/40 to 1/25 (issue 21):
# on the tuning sets 8 more of set 3's 48 facts reached the model, for $0.003 more here.
COST_LIMIT = 0.025


def run_cost(ctx: Ctx) -> list[Result]:
    size = BIG_TRANSCRIPT.stat().st_size if BIG_TRANSCRIPT.is_file() else 0
    key = "cost"
    title = f"extraction cost, {size / 1e6:.1f} MB session, Haiku 4.5"
    budget = f"≤ ${COST_LIMIT:g}"
    if not (has_module("capture.condense") and has_module("capture.extractors.prompt")):
        return [missing(key, title, budget, "capture/condense.py or capture/extractors/prompt.py")]
    if not size:
        return [error(key, title, budget, f"{BIG_TRANSCRIPT} not found")]
    notes = [f"input tokens estimated (max of chars/3.5 and word pieces); output assumed "
             f"{OUTPUT_TOKENS:,} tokens per request; ${PRICE_IN:g}/${PRICE_OUT:g} per M"]
    if not has_module("reviewer.sanitize.redact"):
        notes.append("reviewer/sanitize/redact.py not landed: windows not redacted")
    per: dict[str, dict[str, Any]] = {}
    for path in real_transcripts():
        rel = path.relative_to(TRANSCRIPTS).as_posix()
        usd, tokens, requests = session_cost(path, full_lists=False)
        usd_full, tokens_full, _ = session_cost(path, full_lists=True)
        per[rel] = {"usd": usd, "input_tokens": tokens, "requests": requests,
                    "usd_with_full_fact_lists": usd_full, "input_tokens_full": tokens_full}
        notes.append(f"{rel}: ${usd:.4f} ({tokens:,} in, {requests} req); with full "
                     f"known/rejected lists ${usd_full:.4f}")
    big = per[BIG_TRANSCRIPT.relative_to(TRANSCRIPTS).as_posix()]
    res = Result(key, title, "", kind="max", value=Stat([big["usd"]], "$"), limit=COST_LIMIT,
                 budget=budget, notes=notes, extra={"sessions": per})
    res.judge()
    full = Result("cost-full", title + ", with full fact lists", "INFO", kind="max",
                  value=Stat([big["usd_with_full_fact_lists"]], "$"), limit=COST_LIMIT,
                  budget="(reported)",
                  notes=["a project whose known and rejected facts fill both prompt lists "
                         "(24,000 chars)"])
    return [res, full]
