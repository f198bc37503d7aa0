"""Claude Code itself as the extractor: the user's own `claude` CLI asks Haiku, so a
signed-in subscription is enough and no API key is needed (GUIDE §4a).

One `claude -p` run per window, the window on stdin, with no tools, no session file, the
hooks disabled (or the extraction would capture itself) and the answer schema of
`prompt.TOOL` given as `--json-schema`: the CLI offers the model a `StructuredOutput` tool
and prints one JSON result whose `structured_output` is the answer and `total_cost_usd`
what it cost. Seen with 2.1.332 against the fake API (tests/fakeapi.py):

- success: `{"type": "result", "is_error": false, "structured_output": {...},
  "total_cost_usd": ..., "usage": {...}, "modelUsage": {model: {...}}, "num_turns": n}`;
  a model that answers in text is nudged once by the CLI; if it still answers in text the
  run "succeeds" without `structured_output`;
- API errors, after the CLI's own retries (by default they outlast 2 minutes of 401s or
  529s, so `CLAUDE_CODE_MAX_RETRIES` is set to ours): exit 1, `is_error`,
  `api_error_status` 401/402/429/529/..., `api_error_type`, `result` the message; a refused
  connection has `api_error: "connection_failed"`; no credentials at all:
  `result: "Not logged in · Please run /login"` with no status;
- an answer the schema refuses five times: `subtype: error_max_structured_output_retries`;
- an option it does not know (an old CLI): exit 1, nothing on stdout, `error: unknown
  option '--json-schema'` on stderr.

A missing or signed-out CLI is never a failed job: `unavailable()` asks `claude auth status`
first, and the same conditions met mid-run (a lapsed sign-in, a plan's usage limit, a CLI
too old) raise kind "unavailable", which the pipeline leaves queued without counting an
attempt. Stdlib only.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from capture.candidate import AnswerShapeError, Candidate, parse_candidates
from capture.extractors.base import ExtractionError, ExtractionResult, Request, cost_usd
from capture.extractors.prompt import TOOL, TOOL_NAME, build_messages
from capture.judge import MAX_SUSPECTS, JudgeResult, Suspect, build_message, read_answer
from capture.judge import SYSTEM as JUDGE_SYSTEM
from capture.judge import TOOL as JUDGE_TOOL
from reviewer import paths
from reviewer.config import find_claude
from reviewer.store.dedupe import fact_key

if TYPE_CHECKING:
    from reviewer.config import Config

STRUCTURED_TOOL = "StructuredOutput"  # what the CLI calls the --json-schema tool
UNAVAILABLE = "unavailable"  # ExtractionError.kind: the job waits, uncounted
STARTUP_SECONDS = 30.0  # the CLI's own start (about 1 s here) and the schema nudge, bounded
AUTH_CHECK_SECONDS = 30.0
NOT_FOUND = (
    "Claude Code (`claude`) was not found: install it, or name it with MEM_REVIEW_CLAUDE_BIN"
)
SIGN_IN = "Claude Code is not signed in: run `claude` and /login (the job waits until then)"

# Variables of the Claude Code session whose hook started the worker: the extraction is not
# a child of that session (a shared session id, project dir or entrypoint would say it is).
SESSION_VARS = frozenset(
    {
        "AI_AGENT",
        "CLAUDECODE",
        "CLAUDE_CODE_CHILD_NOTES_DIR",
        "CLAUDE_CODE_CHILD_SESSION",
        "CLAUDE_CODE_ENTRYPOINT",
        "CLAUDE_CODE_SESSION_ATTENDED",
        "CLAUDE_CODE_SESSION_ID",
        "CLAUDE_CODE_SSE_PORT",
        "CLAUDE_ENV_FILE",
        "CLAUDE_PID",
        "CLAUDE_PROJECT_DIR",
    }
)
_LOGIN = re.compile(r"not logged in|/login\b|invalid api key|oauth token|authenticat", re.I)
_UNKNOWN_OPTION = re.compile(r"unknown option|unrecognized option", re.I)


def child_env(cfg: Config, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The CLI's environment: the user's own (their sign-in, proxy, provider and
    `CLAUDE_CONFIG_DIR` stay), without our MEM_REVIEW_* knobs and the ended session's
    variables, plus what keeps the run small: our timeout and retries, no CLAUDE.md or
    auto-memory mixed into the transcript, no self-update mid-job."""
    src = os.environ if base is None else base
    env = {
        k: v for k, v in src.items() if not k.startswith("MEM_REVIEW_") and k not in SESSION_VARS
    }
    env.update(
        {
            "CLAUDE_CODE_MAX_RETRIES": str(cfg.max_retries),
            "API_TIMEOUT_MS": str(max(1, int(cfg.api_timeout * 1000))),
            "CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1",
            "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
    )
    return env


def run_timeout(cfg: Config) -> float:
    """Bound on one run: every API attempt the CLI may make, one schema nudge, startup."""
    return STARTUP_SECONDS + cfg.api_timeout * (cfg.max_retries + 2)


def schema() -> dict[str, Any]:
    """The answer schema, exactly the API extractor's tool input (never a copy)."""
    return TOOL["input_schema"]


def build_args(
    binary: str, model: str, system: str, answer_schema: dict[str, Any] | None = None
) -> list[str]:
    """One `claude -p` run answering through `--json-schema` (the facts' schema unless
    another is given: the judgment's, `capture.judge.TOOL`)."""
    return [
        binary,
        "-p",
        "--model",
        model,
        "--output-format",
        "json",
        "--json-schema",
        json.dumps(answer_schema or schema(), separators=(",", ":")),
        "--tools",
        "",
        "--no-session-persistence",
        "--settings",
        json.dumps({"disableAllHooks": True}),
        "--strict-mcp-config",  # none of the user's MCP servers start for this
        "--system-prompt",
        system,
    ]


def prompt_for(
    window: str,
    *,
    index: int,
    total: int,
    existing: Sequence[str | tuple[int, str]],
    rejected: Sequence[tuple[str, str]],
) -> tuple[str, str]:
    """(system prompt, stdin) for one window: `build_messages`, with the answer tool named
    as the CLI offers it. The window itself is never rewritten (evidence is quoted from it):
    only our own words, the system text and the closing instruction, name the tool."""
    system, messages = build_messages(
        window, index=index, total=total, existing=existing, rejected=rejected
    )
    if isinstance(system, list):
        system = "\n\n".join(b.get("text", "") for b in system if isinstance(b, dict))
    system = system.replace(TOOL_NAME, STRUCTURED_TOOL)
    system += (
        f"\n\nHere the answer tool is named {STRUCTURED_TOOL}: call {STRUCTURED_TOOL} exactly "
        "once with the facts object; no other tool exists."
    )
    content = messages[-1]["content"]
    if not isinstance(content, str):
        content = "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
    head, sep, tail = content.rpartition("\n\n")
    if sep and "</transcript>" in head:  # the closing instruction, after window and lists
        content = head + sep + tail.replace(TOOL_NAME, STRUCTURED_TOOL)
    return system, content


# --------------------------------------------------------------------------- the result


def _short(text: object, limit: int = 300) -> str:
    return " ".join(str(text).split())[:limit]


def _spent(data: dict[str, Any], model: str) -> ExtractionResult:
    """Tokens, model and cost of one run, as the CLI reported them."""
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}

    def tokens(key: str) -> int:
        value = usage.get(key)
        ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
        return int(value) if ok and math.isfinite(value) else 0

    # Cached prefix tokens are input too, as the API extractor counts them.
    tin = sum(tokens(k) for k in
              ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    tout = tokens("output_tokens")
    by_model = data.get("modelUsage")
    if isinstance(by_model, dict) and by_model:
        model = model if model in by_model else str(next(iter(by_model)))
    cost = data.get("total_cost_usd")
    if isinstance(cost, bool) or not isinstance(cost, int | float) or not math.isfinite(cost):
        cost = cost_usd(model, tin, tout)
    return ExtractionResult([], [], model, tin, tout, 1, max(0.0, float(cost)))


def _api_error(data: dict[str, Any], message: str) -> ExtractionError:
    """An `is_error` result, mapped like the API extractor maps the SDK's exceptions."""
    status = data.get("api_error_status")
    status = status if isinstance(status, int) and not isinstance(status, bool) else None
    kind = str(data.get("api_error_type") or "")
    if status in (401, 403) or kind in ("authentication_error", "permission_error") or (
        status is None and _LOGIN.search(message)
    ):
        # A subscription sign-in that lapsed is fixed by signing in again: wait for it.
        return ExtractionError(f"Claude Code cannot authenticate: {message}", kind=UNAVAILABLE,
                               permanent=False, status=status)
    if status == 402 or kind == "billing_error":
        # A plan's usage limit or an empty credit balance lifts by itself or by the user's
        # hand, maybe days later: wait for it rather than spend the job's attempts.
        return ExtractionError(f"Claude Code's usage or credit limit is reached: {message}",
                               kind=UNAVAILABLE, permanent=False, status=status)
    if status == 429 or kind == "rate_limit_error":
        return ExtractionError(message, kind="rate_limit", permanent=False, status=status)
    if status == 529 or kind == "overloaded_error":
        return ExtractionError(message, kind="overloaded", permanent=False, status=status)
    if status == 404 or kind == "not_found_error":
        return ExtractionError(message + " (unknown model?)", kind="invalid_request",
                               permanent=True, status=status)
    if status is not None and (status >= 500 or status in (408, 409)):
        return ExtractionError(message, kind="server", permanent=False, status=status)
    if status is not None:  # 400, 413, 422 ...: the same request fails again
        return ExtractionError(message, kind="invalid_request", permanent=True, status=status)
    if data.get("api_error") == "connection_failed" or "connection" in message.lower():
        return ExtractionError(message, kind="connection", permanent=False)
    if data.get("subtype") == "error_max_structured_output_retries":
        return ExtractionError(message, kind="bad_answer", permanent=False)
    return ExtractionError(message, kind="server", permanent=False)


def read_run(
    stdout: str, stderr: str, returncode: int, model: str
) -> tuple[Any, ExtractionResult]:
    """One run's `structured_output` and what it spent, whatever the schema; raise
    ExtractionError (its `partial` holds the spend when the CLI reported any) for an
    error, an old CLI or a run that never answered through the schema."""
    text = stdout.strip()
    data: Any = None
    for attempt in (text, text.splitlines()[-1] if text else ""):
        try:
            data = json.loads(attempt)
            break
        except ValueError:
            continue
    if not isinstance(data, dict):
        last = _short(stderr.strip().splitlines()[-1]) if stderr.strip() else ""
        if _UNKNOWN_OPTION.search(stderr):
            # An older CLI: it will not learn the option by itself; wait for an update.
            raise ExtractionError(f"this Claude Code is too old for extraction ({last}); "
                                  "update it", kind=UNAVAILABLE, permanent=False)
        what = "no output" if not text else f"not a JSON result: {_short(text, 120)}"
        raise ExtractionError(f"claude exited {returncode} with {what}"
                              + (f" ({last})" if last else ""),
                              kind="bad_answer", permanent=False)
    spent = _spent(data, model)

    def fail(err: ExtractionError) -> ExtractionError:
        err.partial = spent
        return err

    if data.get("is_error") or str(data.get("subtype", "success")).startswith("error"):
        errors = data.get("errors")
        said = errors[-1] if isinstance(errors, list) and errors else data.get("result")
        message = _short(said or data.get("subtype") or "unknown error")
        raise fail(_api_error(data, message))
    answer = data.get("structured_output")
    if answer is None:
        raise fail(ExtractionError(
            f"no {STRUCTURED_TOOL} answer after {data.get('num_turns', '?')} turn(s): "
            f"{_short(data.get('result') or '', 120)}", kind="bad_answer", permanent=False))
    return answer, spent


def read_result(
    stdout: str, stderr: str, returncode: int, model: str
) -> tuple[list[Candidate], list[str], ExtractionResult]:
    """Validate one extraction run's output: (candidates, dropped, what it spent), or raise
    ExtractionError whose `partial` holds the spend when the CLI reported any."""
    answer, spent = read_run(stdout, stderr, returncode, model)
    try:
        found, dropped = parse_candidates(answer)
    except AnswerShapeError as exc:
        err = ExtractionError(f"{STRUCTURED_TOOL} answer has the wrong shape: {exc}",
                              kind="bad_answer", permanent=False)
        err.partial = spent
        raise err from None
    return found, dropped, spent


# --------------------------------------------------------------------------- running


def _kill(proc: subprocess.Popen[str]) -> None:
    """Stop the run and anything it started (its own process group), then reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.communicate()


def run_cli(
    args: list[str], stdin: str, *, env: Mapping[str, str], cwd: Path, timeout: float
) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) of one run; a timeout kills it and raises."""
    try:
        proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            cwd=cwd,
            env=dict(env),
            start_new_session=True,  # a timeout kills the CLI's children too
        )
    except OSError as exc:
        raise ExtractionError(f"cannot run {args[0]}: {exc.strerror or exc}", kind=UNAVAILABLE,
                              permanent=False) from None
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc)
        raise ExtractionError(f"Claude Code did not answer within {timeout:.0f} s",
                              kind="timeout", permanent=False) from None
    except BaseException:
        _kill(proc)
        raise
    return out, err, proc.returncode


def _home(env: Mapping[str, str]) -> str | None:
    """Where `auth status` runs: the user's home (no project settings), creating nothing."""
    home = env.get("HOME") or os.path.expanduser("~")
    return home if os.path.isdir(home) else None


def workdir() -> Path:
    """An empty dir of ours to run in: no project's CLAUDE.md, settings or MCP servers."""
    path = paths.ensure_home() / "claude-code"
    path.mkdir(mode=0o700, exist_ok=True)
    return path


class ClaudeCodeExtractor:
    """The user's own Claude Code CLI (`claude -p`), one run per window; needs no API key."""

    name = "claude-code"
    source = "model"
    paid = True  # `total_cost_usd` counts against the daily cap like the API's spend
    uses_known = True

    def __init__(self, cfg: Config, *, binary: str | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        self.cfg = cfg
        self.model = cfg.model
        base = os.environ if env is None else env
        self.binary = binary or find_claude(base)[0]
        self.env = child_env(cfg, base)

    def unavailable(self) -> str | None:
        """Why not now: no CLI, or `claude auth status` says nobody is signed in. Anything
        else it answers (an old CLI without the command, a hang) is left to the run."""
        if not self.binary:
            return NOT_FOUND
        try:
            done = subprocess.run(
                [self.binary, "auth", "status", "--json"],
                capture_output=True, text=True, timeout=AUTH_CHECK_SECONDS, check=False,
                env=self.env, cwd=_home(self.env), stdin=subprocess.DEVNULL,
                encoding="utf-8", errors="replace",
            )
        except subprocess.TimeoutExpired:
            return None
        except OSError as exc:
            return f"cannot run {self.binary}: {exc.strerror or exc}"
        try:
            status = json.loads(done.stdout)
        except ValueError:
            return None
        if isinstance(status, dict) and status.get("loggedIn") is False:
            return SIGN_IN
        return None

    def estimate_cost(self, windows: Sequence[str]) -> float:
        from capture.extractors.api import estimate_cost

        return estimate_cost(self.model, windows)

    def estimate_judge_cost(self, n: int) -> float:
        """The API extractor's over-estimate: the same request goes through the CLI."""
        from capture.extractors.api import estimate_judge_cost

        return estimate_judge_cost(self.model, n)

    def judge(self, suspects: Sequence[Suspect]) -> JudgeResult:
        """One run settling the verifier's suspicions (`capture.judge`), the judgment's
        schema as `--json-schema`; raises ExtractionError like `extract`."""
        if not self.binary:
            raise ExtractionError(NOT_FOUND, kind=UNAVAILABLE, permanent=False)
        asked = list(suspects[:MAX_SUSPECTS])
        system = JUDGE_SYSTEM.replace(JUDGE_TOOL["name"], STRUCTURED_TOOL)
        args = build_args(self.binary, self.model, system, JUDGE_TOOL["input_schema"])
        out, err, code = run_cli(args, build_message(asked), env=self.env, cwd=workdir(),
                                 timeout=run_timeout(self.cfg))
        answer, spent = read_run(out, err, code, self.model)
        result = JudgeResult(model=spent.model, input_tokens=spent.input_tokens,
                             output_tokens=spent.output_tokens, cost_usd=spent.cost_usd)
        result.judgments, result.dropped = read_answer(answer, asked)
        return result

    def extract(self, request: Request) -> ExtractionResult:
        if not self.binary:
            raise ExtractionError(NOT_FOUND, kind=UNAVAILABLE, permanent=False)
        todo = [w for w in request.windows if w.strip()]
        existing = [e for e in request.existing if (e[1] if isinstance(e, tuple) else e).strip()]
        rejected = list(request.rejected)
        result = ExtractionResult(candidates=[], dropped=[], model=self.model)
        seen: set[str] = set()
        cwd = workdir()
        for i, window in enumerate(todo, start=1):
            # This job's facts first (the likeliest repeats), then the known ones with ids.
            known: list[str | tuple[int, str]] = [c.fact for c in result.candidates]
            known += existing
            system, stdin = prompt_for(
                window, index=i, total=len(todo), existing=known, rejected=rejected
            )
            try:
                out, err, code = run_cli(build_args(self.binary, self.model, system), stdin,
                                         env=self.env, cwd=cwd, timeout=run_timeout(self.cfg))
                found, dropped, spent = read_result(out, err, code, self.model)
            except ExtractionError as exc:
                if exc.partial is not None:  # the run spent something on an unusable answer
                    _add(result, exc.partial)
                exc.partial = result
                raise
            _add(result, spent)
            result.dropped.extend(f"window {i}: {d}" for d in dropped)
            for cand in found:
                key = fact_key(cand.fact)
                if key in seen:
                    result.dropped.append(f"window {i}: repeats an earlier fact: {cand.fact}")
                    continue
                seen.add(key)
                result.candidates.append(cand)
        return result


def _add(total: ExtractionResult, run: ExtractionResult) -> None:
    total.requests += run.requests
    total.input_tokens += run.input_tokens
    total.output_tokens += run.output_tokens
    total.cost_usd += run.cost_usd
    total.model = run.model or total.model
