"""The API extractor: ask Claude (Haiku by default) for candidate facts, window by window.

Only the worker imports this module (it imports the anthropic SDK); hooks never do.
Every failure surfaces as one ExtractionError whose `permanent` flag tells the worker
whether retrying the job later can help, and whose `partial` result keeps the tokens
already spent so the spend is recorded either way.
"""

from __future__ import annotations

import email.utils
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from capture.candidate import AnswerShapeError, Candidate, parse_candidates
from capture.extractors.base import (
    DEFAULT_MODEL,
    ExtractionError,
    ExtractionResult,
    Request,
    cost_usd,
)
from capture.extractors.prompt import TOOL, TOOL_NAME, build_messages
from capture.judge import MAX_SUSPECTS, JudgeResult, Suspect
from reviewer.store.dedupe import fact_key

if TYPE_CHECKING:
    from reviewer.config import Config

NO_KEY = "ANTHROPIC_API_KEY is not set"

@dataclass
class _Answer:
    candidates: list[Candidate]
    dropped: list[str]
    model: str
    input_tokens: int
    output_tokens: int


def _retry_after(headers: Any) -> float | None:
    """Seconds to wait from `retry-after-ms` / `retry-after` (seconds or HTTP date)."""
    if headers is None:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms is not None:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    parsed = email.utils.parsedate_tz(raw)
    if parsed is None:
        return None
    return max(0.0, email.utils.mktime_tz(parsed) - time.time())


def _api_message(exc: Any) -> str:
    msg = getattr(exc, "api_message", None) or getattr(exc, "message", None) or str(exc)
    return " ".join(str(msg).split())[:300]


def _map_error(exc: BaseException) -> ExtractionError:
    """Translate an SDK exception into the worker's vocabulary."""
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):
        return ExtractionError("request timed out", kind="timeout", permanent=False)
    if isinstance(exc, anthropic.APIConnectionError):
        return ExtractionError(
            f"connection failed: {_api_message(exc)}", kind="connection", permanent=False
        )
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        msg = f"HTTP {status}: {_api_message(exc)}"
        after = _retry_after(exc.response.headers)
        if isinstance(exc, (anthropic.AuthenticationError, anthropic.PermissionDeniedError)):
            return ExtractionError(msg, kind="auth", permanent=True, status=status)
        if isinstance(exc, anthropic.NotFoundError):
            return ExtractionError(
                msg + " (unknown model?)", kind="invalid_request", permanent=True, status=status
            )
        if isinstance(exc, anthropic.RateLimitError):
            return ExtractionError(
                msg, kind="rate_limit", permanent=False, retry_after=after, status=status
            )
        if isinstance(exc, anthropic.OverloadedError):
            return ExtractionError(
                msg, kind="overloaded", permanent=False, retry_after=after, status=status
            )
        if status >= 500 or status in (408, 409):
            return ExtractionError(
                msg, kind="server", permanent=False, retry_after=after, status=status
            )
        # 400, 402 (billing), 413 (window too large), 422 ...: the same request fails again.
        return ExtractionError(msg, kind="invalid_request", permanent=True, status=status)
    if isinstance(exc, anthropic.APIResponseValidationError):
        return ExtractionError(f"unusable response: {exc}", kind="bad_answer", permanent=False)
    if isinstance(exc, ValueError):  # the SDK could not decode the response body
        return ExtractionError(f"response is not JSON: {exc}", kind="bad_answer", permanent=False)
    return ExtractionError(f"{type(exc).__name__}: {exc}", kind="server", permanent=False)


def _bad(message: str) -> ExtractionError:
    return ExtractionError(message, kind="bad_answer", permanent=False)


def _read_answer(response: Any, requested_model: str) -> _Answer:
    """Validate one Messages API response; raise a bad_answer error if unusable."""
    usage = getattr(response, "usage", None)
    content = getattr(response, "content", None)
    if usage is None or not isinstance(content, list):
        raise _bad(f"response is not a message ({type(response).__name__})")
    # Cached prefix tokens are input too; count them so the spend is never under-reported.
    input_tokens = sum(
        getattr(usage, name, None) or 0
        for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    output_tokens = getattr(usage, "output_tokens", None) or 0
    model = getattr(response, "model", None) or requested_model
    spent = _Answer([], [], model, int(input_tokens), int(output_tokens))

    def fail(message: str) -> ExtractionError:
        err = _bad(message)
        err.partial = ExtractionResult([], [], model, spent.input_tokens, spent.output_tokens, 1)
        return err

    stop = getattr(response, "stop_reason", None)
    if stop == "max_tokens":
        raise fail("answer cut off at max_tokens")
    if stop == "refusal":
        raise fail("model refused to answer")
    if stop in ("pause_turn", "model_context_window_exceeded"):
        raise fail(f"answer incomplete (stop_reason {stop})")

    calls = [
        b
        for b in content
        if getattr(b, "type", None) == "tool_use" and getattr(b, "name", None) == TOOL_NAME
    ]
    if not calls:
        raise fail(f"no {TOOL_NAME} call in the answer (stop_reason {stop})")
    for call in calls:
        try:
            found, dropped = parse_candidates(getattr(call, "input", None))
        except AnswerShapeError as exc:
            raise fail(f"{TOOL_NAME} input has the wrong shape: {exc}") from None
        spent.candidates.extend(found)
        spent.dropped.extend(dropped)
    return spent


def extract(
    windows: Sequence[str],
    *,
    api_key: str,
    model: str = DEFAULT_MODEL,
    base_url: str | None = None,
    existing: Iterable[str | tuple[int, str]] = (),
    rejected: Iterable[tuple[str, str]] = (),
    timeout: float = 60,
    max_retries: int = 2,
    http_client: Any = None,
    max_tokens: int = 4096,
) -> ExtractionResult:
    """Extract candidate facts from transcript windows (already condensed and redacted).

    Windows are sent one by one; facts found in earlier windows are passed to later ones
    as existing facts, and repeats across windows (same fact key) are merged. The SDK
    retries transient failures itself (`max_retries`); what is left is raised as
    ExtractionError with `partial` holding the earlier windows' result.
    """
    import anthropic

    todo = [w for w in windows if w.strip()]
    existing_list = [e for e in existing if (e[1] if isinstance(e, tuple) else e).strip()]
    rejected_list = [(f, r) for f, r in rejected]
    result = ExtractionResult(candidates=[], dropped=[], model=model)
    if not todo:
        return result

    client = anthropic.Anthropic(
        api_key=api_key,
        base_url=base_url,
        timeout=timeout,
        max_retries=max_retries,
        http_client=http_client,
    )
    seen: dict[str, Candidate] = {}
    try:
        for i, window in enumerate(todo, start=1):
            # This job's facts first: they are the likeliest repeats and must survive
            # the prompt's list budget.
            known: list[str | tuple[int, str]] = [c.fact for c in result.candidates]
            known += existing_list
            system, messages = build_messages(
                window, index=i, total=len(todo), existing=known, rejected=rejected_list
            )
            try:
                response = client.messages.create(
                    model=model,
                    max_tokens=max_tokens,
                    system=system,
                    messages=messages,
                    tools=[TOOL],
                    tool_choice={"type": "tool", "name": TOOL_NAME},
                )
                answer = _read_answer(response, model)
            except ExtractionError as exc:
                if exc.partial is not None:  # tokens were spent on an unusable answer
                    result.input_tokens += exc.partial.input_tokens
                    result.output_tokens += exc.partial.output_tokens
                    result.requests += exc.partial.requests
                    result.model = exc.partial.model
                exc.partial = result
                raise
            except anthropic.AnthropicError as exc:
                err = _map_error(exc)
                err.partial = result
                raise err from exc
            except ValueError as exc:  # the SDK could not decode the body as JSON
                err = _map_error(exc)
                err.partial = result
                raise err from exc

            result.requests += 1
            result.model = answer.model
            result.input_tokens += answer.input_tokens
            result.output_tokens += answer.output_tokens
            result.dropped.extend(f"window {i}: {d}" for d in answer.dropped)
            for cand in answer.candidates:
                key = fact_key(cand.fact)
                prior = seen.get(key)
                if prior is None:
                    seen[key] = cand
                    result.candidates.append(cand)
                else:
                    result.dropped.append(f"window {i}: repeats an earlier fact: {cand.fact}")
    finally:
        if http_client is None:  # an injected client belongs to the caller
            client.close()
    return result


JUDGE_PROMPT_TOKENS = 600
JUDGE_TOKENS_EACH = 700  # a suspect's fact, quote, suspicion and context, at most
JUDGE_ANSWER_TOKENS_EACH = 80


def estimate_judge_cost(model: str, n: int) -> float:
    """A deliberate over-estimate of one judgment request for `n` suspects."""
    return cost_usd(model, JUDGE_PROMPT_TOKENS + n * JUDGE_TOKENS_EACH,
                    JUDGE_ANSWER_TOKENS_EACH * n)


# A deliberate over-estimate, so the cap is never overshot by one big job: ~3.5 characters
# a token for the window, the prompt and known facts on top, and a full answer each window.
CHARS_PER_TOKEN = 3.5
PROMPT_TOKENS_PER_WINDOW = 4_000
ANSWER_TOKENS_PER_WINDOW = 1_500


def estimate_cost(model: str, windows: Sequence[str]) -> float:
    tokens_in = sum(len(w) for w in windows) / CHARS_PER_TOKEN
    tokens_in += PROMPT_TOKENS_PER_WINDOW * len(windows)
    return cost_usd(model, int(tokens_in), ANSWER_TOKENS_PER_WINDOW * len(windows))


class ApiExtractor:
    """The Messages API through the anthropic SDK; needs `ANTHROPIC_API_KEY`."""

    name = "api"
    source = "model"
    paid = True
    uses_known = True

    def __init__(
        self,
        cfg: Config,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        http_client: Any = None,
    ) -> None:
        self.cfg = cfg
        self.model = cfg.model
        self.api_key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        self.base_url = base_url
        self.http_client = http_client

    def unavailable(self) -> str | None:
        return None if self.api_key else NO_KEY

    def estimate_cost(self, windows: Sequence[str]) -> float:
        return estimate_cost(self.model, windows)

    def estimate_judge_cost(self, n: int) -> float:
        return estimate_judge_cost(self.model, n)

    def judge(self, suspects: Sequence[Suspect]) -> JudgeResult:
        """One request settling the verifier's suspicions (`capture.judge`); raises
        ExtractionError like `extract`."""
        import anthropic

        from capture.judge import SYSTEM, TOOL, build_message, read_answer

        assert self.api_key, "unavailable() said why"
        asked = list(suspects[:MAX_SUSPECTS])
        client = anthropic.Anthropic(api_key=self.api_key, base_url=self.base_url,
                                     timeout=self.cfg.api_timeout,
                                     max_retries=self.cfg.max_retries,
                                     http_client=self.http_client)
        try:
            response = client.messages.create(
                model=self.model, max_tokens=256 + 120 * len(asked), system=SYSTEM,
                messages=[{"role": "user", "content": build_message(asked)}], tools=[TOOL],
                tool_choice={"type": "tool", "name": TOOL["name"]})
        except anthropic.AnthropicError as exc:
            raise _map_error(exc) from exc
        except ValueError as exc:
            raise _map_error(exc) from exc
        finally:
            if self.http_client is None:
                client.close()
        usage = getattr(response, "usage", None)
        tin = sum(getattr(usage, k, None) or 0 for k in (
            "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
        tout = getattr(usage, "output_tokens", None) or 0
        model = getattr(response, "model", None) or self.model
        result = JudgeResult(model=model, input_tokens=int(tin), output_tokens=int(tout),
                             cost_usd=cost_usd(model, int(tin), int(tout)))
        calls = [b for b in getattr(response, "content", None) or []
                 if getattr(b, "type", None) == "tool_use"
                 and getattr(b, "name", None) == TOOL["name"]]
        if not calls:
            result.dropped.append("judge answer has no record_judgments call")
            return result
        result.judgments, result.dropped = read_answer(getattr(calls[0], "input", None), asked)
        return result

    def extract(self, request: Request) -> ExtractionResult:
        assert self.api_key, "unavailable() said why"
        result = extract(
            request.windows,
            api_key=self.api_key,
            model=self.model,
            base_url=self.base_url,
            existing=request.existing,
            rejected=request.rejected,
            timeout=self.cfg.api_timeout,
            max_retries=self.cfg.max_retries,
            http_client=self.http_client,
        )
        result.cost_usd = cost_usd(result.model, result.input_tokens, result.output_tokens)
        return result
