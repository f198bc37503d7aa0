"""A fake Anthropic Messages API that speaks the real wire format.

Tests run the real anthropic SDK (and the real Claude Code CLI) against this, so what the
code under test sees is what it would see from api.anthropic.com: JSON and SSE answers,
error bodies with their status codes and headers, hangs, and malformed output.

Two front ends share one core (:class:`FakeCore`):

- :class:`FakeMessagesAPI`: a real HTTP server on 127.0.0.1 in a daemon thread, for the
  worker and the end-to-end tests (``with FakeMessagesAPI() as api: ... api.url``).
- :func:`mock_transport`: an ``httpx2.MockTransport`` for in-process unit tests
  (``anthropic.Anthropic(http_client=httpx2.Client(transport=mock_transport(...)))``).

Behaviours are scripted per *lane* and consumed in order; an empty lane answers with its
default. A request whose ``tool_choice`` (or tool list, or json_schema output format) names
``record_facts`` is the extractor's and goes to the ``extract`` lane (default
``Facts([])``); so does Claude Code run as the extractor (``claude -p --json-schema``),
whose request offers a ``StructuredOutput`` tool with the answer schema, and which ``Facts``
then answers by calling that tool. Everything else, such as Claude Code's own chat turns,
goes to the ``chat`` lane (default ``Text("OK")``). Behaviours passed positionally go to a
shared queue that is consumed first by any lane, which is what single-client unit tests
want.
"""

from __future__ import annotations

import gzip
import itertools
import json
import math
import sys
import threading
import time
import uuid
import zlib
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2

EXTRACT_TOOL = "record_facts"
# The worker's judgment of the verifier's suspicions (capture/judge.py) has its own lane,
# so it never takes a behaviour scripted for the extractor or for Claude Code's turns.
JUDGE_TOOL = "record_judgments"
# Claude Code's `--json-schema` tool (2.1.332): offered, not forced; the answer is its input.
STRUCTURED_TOOL = "StructuredOutput"
LANES = ("extract", "chat", "judge")
DEFAULT_MODEL = "claude-haiku-4-5"

ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


# --------------------------------------------------------------------------- behaviours


@dataclass
class Facts:
    """The extractor's answer: a ``record_facts`` tool_use block (or JSON text for
    structured-output requests)."""

    facts: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Text:
    """A plain assistant text answer, stop_reason ``end_turn``."""

    text: str = "OK"


@dataclass
class ToolUse:
    """A tool call of any name (e.g. to make Claude Code run ``Bash``); optional text first."""

    name: str
    input: dict[str, Any]
    text: str | None = None


def deferred_tool(name: str, input: dict[str, Any], text: str | None = None) -> list[ToolUse]:
    """How a model calls an MCP tool in current Claude Code, which defers them (GUIDE §6a):
    first the built-in ``ToolSearch`` with ``select:<name>``, then the tool itself."""
    return [ToolUse("ToolSearch", {"query": f"select:{name}"}), ToolUse(name, input, text)]


@dataclass
class Error:
    """An Anthropic error body ``{"type": "error", "error": {...}}`` with its status."""

    status: int
    type: str | None = None
    message: str = "fake error"
    retry_after: float | None = None

    @property
    def error_type(self) -> str:
        return self.type or ERROR_TYPES.get(self.status, "api_error")


@dataclass
class Hang:
    """Sleep before answering (``then``, or the lane's next behaviour/default) — for
    client timeouts. Through :func:`mock_transport` it raises ``httpx2.ReadTimeout``
    when the request's read timeout is shorter than ``seconds``."""

    seconds: float
    then: Behaviour | None = None


@dataclass
class Raw:
    """Any status and body, verbatim: for non-JSON or wrongly shaped answers."""

    status: int = 200
    body: bytes = b"not json"
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class MaxTokens:
    """stop_reason ``max_tokens`` with output cut short: a truncated ``record_facts`` input
    (streaming: partial JSON cut mid-way; non-streaming: the first half of the facts), or
    a truncated text when ``text`` is given."""

    facts: list[dict[str, Any]] = field(default_factory=list)
    text: str | None = None


@dataclass
class Refusal:
    """stop_reason ``refusal`` (streaming classifiers intervened); ``text`` is what came
    before, often nothing."""

    text: str = ""
    category: str | None = None


@dataclass
class StreamError:
    """A streaming request that starts fine (HTTP 200) then gets an ``error`` SSE event,
    as the real API does when it overloads mid-stream. Non-streaming: a plain error."""

    type: str = "overloaded_error"
    message: str = "Overloaded"
    after_text: str = ""


Behaviour = Facts | Text | ToolUse | Error | Hang | Raw | MaxTokens | Refusal | StreamError


# --------------------------------------------------------------------------- requests


@dataclass
class RecordedRequest:
    """One request as the fake API received it (the API key value is never kept)."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    raw: bytes
    time: float
    lane: str | None = None
    status: int | None = None

    @property
    def is_messages(self) -> bool:
        return self.method == "POST" and self.path == "/v1/messages"

    @property
    def stream(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))


SECRET_HEADERS = ("x-api-key", "authorization", "proxy-authorization", "cookie")


def _clean_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        out[key] = "<present>" if key in SECRET_HEADERS and value else value
    return out


def _decode_body(raw: bytes, encoding: str) -> bytes:
    enc = encoding.lower().strip()
    if enc == "gzip":
        return gzip.decompress(raw)
    if enc == "deflate":
        return zlib.decompress(raw)
    return raw


def _parse_json(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None


def lane_of(body: Any) -> str:
    """``extract`` for the extractor's requests (they name ``record_facts`` in tool_choice,
    tools, or a json_schema with a ``facts`` property), else ``chat``."""
    if not isinstance(body, dict):
        return "chat"
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("name") == EXTRACT_TOOL:
        return "extract"
    if isinstance(choice, dict) and choice.get("name") == JUDGE_TOOL:
        return "judge"
    tools = body.get("tools") or []
    if isinstance(tools, list) and any(
        isinstance(t, dict) and t.get("name") == EXTRACT_TOOL for t in tools
    ):
        return "extract"
    if "judgments" in _structured_properties(body):  # the judgment through Claude Code
        return "judge"
    if _json_schema(body) is not None:
        schema = _json_schema(body) or {}
        if "facts" in (schema.get("properties") or {}):
            return "extract"
    if _structured_tool(body) is not None:
        return "extract"
    return "chat"


def _structured_properties(body: dict[str, Any]) -> dict[str, Any]:
    """The properties of Claude Code's ``StructuredOutput`` tool's schema, if offered."""
    tools = body.get("tools") or []
    for tool in tools if isinstance(tools, list) else []:
        if isinstance(tool, dict) and tool.get("name") == STRUCTURED_TOOL:
            schema = tool.get("input_schema") or {}
            props = schema.get("properties") if isinstance(schema, dict) else None
            return props if isinstance(props, dict) else {}
    return {}


def _structured_tool(body: dict[str, Any]) -> dict[str, Any] | None:
    """Claude Code's ``StructuredOutput`` tool when its schema is the answer's (``facts``)."""
    if "facts" not in _structured_properties(body):
        return None
    tools = body["tools"]
    return next(t for t in tools if isinstance(t, dict) and t.get("name") == STRUCTURED_TOOL)


def _answer_tool(body: dict[str, Any]) -> str:
    """The tool an extract answer calls: ``record_facts``, or Claude Code's
    ``StructuredOutput`` when that is what the request offers instead."""
    tools = body.get("tools") or []
    offers_ours = isinstance(tools, list) and any(
        isinstance(t, dict) and t.get("name") == EXTRACT_TOOL for t in tools
    )
    if not offers_ours and _structured_tool(body) is not None:
        return STRUCTURED_TOOL
    return EXTRACT_TOOL


def _json_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The structured-output schema (``output_config.format`` or the older
    ``output_format``), if the request asked for one."""
    for fmt in (
        (body.get("output_config") or {}).get("format")
        if isinstance(body.get("output_config"), dict)
        else None,
        body.get("output_format"),
    ):
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            schema = fmt.get("schema")
            return schema if isinstance(schema, dict) else {}
    return None


def _text_of(value: Any) -> str:
    """All strings inside a JSON value, joined: what a request carried, for searching."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(_text_of(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(_text_of(v) for v in value)
    return ""


def _blocks_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return ""


def system_text(request: RecordedRequest | dict[str, Any]) -> str:
    """All system text of a messages request: the top-level ``system`` (string or blocks)
    and every ``role: "system"`` message. Claude Code 2.1.332 sends the environment and
    SessionStart ``additionalContext`` as a system-role *message*
    (``SessionStart hook additional context: ...``), not in ``system``."""
    body = request.body if isinstance(request, RecordedRequest) else request
    if not isinstance(body, dict):
        return ""
    parts = [_blocks_text(body.get("system"))]
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "system":
            parts.append(_blocks_text(message.get("content")))
    return "\n".join(p for p in parts if p)


def messages_text(request: RecordedRequest | dict[str, Any]) -> str:
    """Every string in a request's ``messages`` (text, tool inputs and results)."""
    body = request.body if isinstance(request, RecordedRequest) else request
    return _text_of(body.get("messages")) if isinstance(body, dict) else ""


def requests_text(api: FakeCore | FakeMessagesAPI | FakeTransport) -> str:
    """Everything the fake API received (raw bodies, decoded; header values), for
    "no secret reached the API" assertions."""
    core = api.core if not isinstance(api, FakeCore) else api
    parts: list[str] = []
    for req in core.requests:
        parts.append(f"{req.method} {req.path}")
        parts.extend(f"{k}: {v}" for k, v in req.headers.items())
        parts.append(req.raw.decode("utf-8", "replace"))
        if req.body is not None:
            # Also the decoded strings, so \uXXXX escapes in the JSON don't hide anything.
            parts.append(_text_of(req.body))
    return "\n".join(parts)


# --------------------------------------------------------------------------- responses


@dataclass
class Reply:
    """A planned HTTP answer: status, headers, and body chunks (SSE events are chunks)."""

    status: int
    headers: dict[str, str]
    chunks: list[bytes]
    delay: float = 0.0
    stream: bool = False

    @property
    def body(self) -> bytes:
        return b"".join(self.chunks)


_counter = itertools.count(1)


def _new_id(prefix: str) -> str:
    return f"{prefix}_fake{next(_counter):06d}{uuid.uuid4().hex[:14]}"


def _tokens(text: str) -> int:
    """A rough token count (4 chars a token), never 0: usage must look plausible."""
    return max(1, math.ceil(len(text) / 4))


def _json_bytes(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode()


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def _base_headers(content_type: str = "application/json") -> dict[str, str]:
    return {"content-type": content_type, "request-id": _new_id("req")}


def error_reply(err: Error) -> Reply:
    headers = _base_headers()
    if err.retry_after is not None:
        ra = err.retry_after
        headers["retry-after"] = str(int(ra)) if float(ra).is_integer() else str(ra)
    body = {
        "type": "error",
        "error": {"type": err.error_type, "message": err.message},
        "request_id": headers["request-id"],
    }
    return Reply(err.status, headers, [_json_bytes(body)])


@dataclass
class _Planned:
    """Content blocks plus stop reason: what the behaviour wants the model to have said."""

    blocks: list[dict[str, Any]]
    stop_reason: str
    # For streaming: per-block partial JSON override (truncated tool input).
    partial_json: dict[int, str] = field(default_factory=dict)
    stop_details: dict[str, Any] | None = None


def _plan(behaviour: Behaviour, body: dict[str, Any]) -> _Planned:
    structured = _json_schema(body) is not None and not (
        isinstance(body.get("tool_choice"), dict)
        and body["tool_choice"].get("name") == EXTRACT_TOOL
    )
    if isinstance(behaviour, Facts):
        payload = {"facts": behaviour.facts}
        if structured:
            return _Planned([{"type": "text", "text": json.dumps(payload)}], "end_turn")
        name = _answer_tool(body)
        block = {"type": "tool_use", "id": _new_id("toolu"), "name": name, "input": payload}
        return _Planned([block], "tool_use")
    if isinstance(behaviour, Text):
        return _Planned([{"type": "text", "text": behaviour.text}], "end_turn")
    if isinstance(behaviour, ToolUse):
        blocks: list[dict[str, Any]] = []
        if behaviour.text:
            blocks.append({"type": "text", "text": behaviour.text})
        blocks.append(
            {
                "type": "tool_use",
                "id": _new_id("toolu"),
                "name": behaviour.name,
                "input": behaviour.input,
            }
        )
        return _Planned(blocks, "tool_use")
    if isinstance(behaviour, MaxTokens):
        if behaviour.text is not None:
            cut = behaviour.text[: max(1, len(behaviour.text) // 2)]
            return _Planned([{"type": "text", "text": cut}], "max_tokens")
        full = json.dumps({"facts": behaviour.facts})
        partial = full[: max(1, len(full) // 2)]
        if structured:
            return _Planned([{"type": "text", "text": partial}], "max_tokens")
        half = {"facts": behaviour.facts[: len(behaviour.facts) // 2]}
        name = _answer_tool(body)
        block = {"type": "tool_use", "id": _new_id("toolu"), "name": name, "input": half}
        return _Planned([block], "max_tokens", partial_json={0: partial})
    if isinstance(behaviour, Refusal):
        blocks = [{"type": "text", "text": behaviour.text}] if behaviour.text else []
        details = {"type": "refusal", "category": behaviour.category, "explanation": None}
        return _Planned(blocks, "refusal", stop_details=details)
    raise TypeError(f"not a content behaviour: {behaviour!r}")


def _usage(body: dict[str, Any], output: str) -> dict[str, Any]:
    return {
        "input_tokens": _tokens(_text_of(body.get("system")) + _text_of(body.get("messages"))),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": _tokens(output),
        "service_tier": "standard",
    }


def _chunks(text: str, size: int = 24) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def message_reply(behaviour: Behaviour, body: dict[str, Any]) -> Reply:
    """The answer to POST /v1/messages for a content behaviour, JSON or SSE."""
    if isinstance(behaviour, StreamError) and not body.get("stream"):
        return error_reply(
            Error(
                529 if behaviour.type == "overloaded_error" else 500,
                behaviour.type,
                behaviour.message,
            )
        )
    model = body.get("model") or DEFAULT_MODEL
    msg_id = _new_id("msg")
    if isinstance(behaviour, StreamError):
        planned = _Planned(
            [{"type": "text", "text": behaviour.after_text}] if behaviour.after_text else [],
            "end_turn",
        )
    else:
        planned = _plan(behaviour, body)
    output = _text_of(planned.blocks)
    usage = _usage(body, output)

    if not body.get("stream"):
        message = {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": planned.blocks,
            "stop_reason": planned.stop_reason,
            "stop_sequence": None,
            "stop_details": planned.stop_details,
            "usage": usage,
        }
        return Reply(200, _base_headers(), [_json_bytes(message)])

    events: list[bytes] = []
    start_usage = dict(usage, output_tokens=1)
    events.append(
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                },
            },
        )
    )
    events.append(_sse("ping", {"type": "ping"}))
    for index, block in enumerate(planned.blocks):
        if block["type"] == "text":
            events.append(
                _sse(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {"type": "text", "text": ""},
                    },
                )
            )
            for piece in _chunks(block["text"]):
                events.append(
                    _sse(
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "text_delta", "text": piece},
                        },
                    )
                )
        else:
            start = dict(block, input={})
            events.append(
                _sse(
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": start},
                )
            )
            partial = planned.partial_json.get(index, json.dumps(block["input"]))
            for piece in _chunks(partial, 40):
                events.append(
                    _sse(
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "input_json_delta", "partial_json": piece},
                        },
                    )
                )
        events.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    if isinstance(behaviour, StreamError):
        events.append(
            _sse(
                "error",
                {"type": "error", "error": {"type": behaviour.type, "message": behaviour.message}},
            )
        )
        return Reply(200, _base_headers("text/event-stream; charset=utf-8"), events, stream=True)
    delta: dict[str, Any] = {"stop_reason": planned.stop_reason, "stop_sequence": None}
    if planned.stop_details is not None:
        delta["stop_details"] = planned.stop_details
    events.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": delta,
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        )
    )
    events.append(_sse("message_stop", {"type": "message_stop"}))
    headers = _base_headers("text/event-stream; charset=utf-8")
    headers["cache-control"] = "no-cache"
    return Reply(200, headers, events, stream=True)


# --------------------------------------------------------------------------- core


class FakeCore:
    """Scripts, defaults and the request log; turns a request into a :class:`Reply`."""

    def __init__(
        self,
        *behaviours: Behaviour,
        extract: Iterable[Behaviour] = (),
        chat: Iterable[Behaviour] = (),
        default_extract: Behaviour | None = None,
        default_chat: Behaviour | None = None,
        judge: Iterable[Behaviour] = (),
    ) -> None:
        self._lock = threading.Lock()
        self.shared: deque[Behaviour] = deque(behaviours)
        self.lanes: dict[str, deque[Behaviour]] = {
            "extract": deque(extract), "chat": deque(chat), "judge": deque(judge)}
        self.defaults: dict[str, Behaviour] = {
            "extract": default_extract or Facts([]),
            "chat": default_chat or Text("OK"),
            "judge": Text("OK"),  # no judgments: every suspicion stays as the verifier wrote it
        }
        self.requests: list[RecordedRequest] = []
        self.closing = threading.Event()

    @property
    def core(self) -> FakeCore:
        return self

    def script(self, *behaviours: Behaviour, lane: str | None = None) -> None:
        """Queue behaviours on a lane (``None``: the shared queue any lane takes first)."""
        with self._lock:
            if lane is None:
                self.shared.extend(behaviours)
            else:
                self.lanes[lane].extend(behaviours)

    def next_behaviour(self, lane: str) -> Behaviour:
        with self._lock:
            # The judge lane takes from the shared queue only a judgment scripted there:
            # tests written before it existed script answers for the other lanes only.
            if self.shared and (lane != "judge" or (
                    isinstance(self.shared[0], ToolUse) and self.shared[0].name == JUDGE_TOOL)):
                return self.shared.popleft()
            if self.lanes[lane]:
                return self.lanes[lane].popleft()
            return self.defaults[lane]

    def pending(self) -> int:
        """How many scripted behaviours are still unused (tests assert 0 at the end)."""
        with self._lock:
            return len(self.shared) + sum(len(q) for q in self.lanes.values())

    def messages(self, lane: str | None = None) -> list[RecordedRequest]:
        """The POST /v1/messages requests received so far, optionally of one lane."""
        with self._lock:
            reqs = list(self.requests)
        return [r for r in reqs if r.is_messages and (lane is None or r.lane == lane)]

    def record(
        self, method: str, target: str, headers: Iterable[tuple[str, str]], raw: bytes
    ) -> RecordedRequest:
        parts = urlsplit(target)
        req = RecordedRequest(
            method=method,
            path=parts.path,
            query=parse_qs(parts.query),
            headers=_clean_headers(headers),
            body=_parse_json(raw),
            raw=raw,
            time=time.time(),
        )
        with self._lock:
            self.requests.append(req)
        return req

    def handle(self, req: RecordedRequest) -> tuple[Reply, Hang | None]:
        """Plan the reply; a Hang is returned separately so each front end waits its way."""
        reply, hang = self._handle(req)
        req.status = reply.status
        return reply, hang

    def _handle(self, req: RecordedRequest) -> tuple[Reply, Hang | None]:
        if req.method in ("HEAD", "OPTIONS"):
            return Reply(200, _base_headers(), []), None
        if req.path == "/v1/messages/count_tokens" and req.method == "POST":
            body = req.body if isinstance(req.body, dict) else {}
            tokens = _tokens(
                _text_of(body.get("system"))
                + _text_of(body.get("messages"))
                + _text_of(body.get("tools"))
            )
            return Reply(200, _base_headers(), [_json_bytes({"input_tokens": tokens})]), None
        if req.path.startswith("/v1/models") and req.method == "GET":
            model = {
                "type": "model",
                "id": DEFAULT_MODEL,
                "display_name": "Claude Haiku 4.5",
                "created_at": "2025-10-01T00:00:00Z",
            }
            listing = {
                "data": [model],
                "has_more": False,
                "first_id": DEFAULT_MODEL,
                "last_id": DEFAULT_MODEL,
            }
            return Reply(200, _base_headers(), [_json_bytes(listing)]), None
        if not req.is_messages:
            if req.method == "GET" and req.path in ("/", ""):
                return Reply(200, _base_headers(), [b"{}"]), None
            if req.method == "POST":
                # Claude Code side channels (event logging etc.): accept and ignore.
                return Reply(200, _base_headers(), [b"{}"]), None
            return error_reply(Error(404, message=f"Not found: {req.path}")), None
        if not isinstance(req.body, dict):
            return error_reply(Error(400, message="request body is not a JSON object")), None

        req.lane = lane_of(req.body)
        behaviour = self.next_behaviour(req.lane)
        hang: Hang | None = None
        if isinstance(behaviour, Hang):
            hang = behaviour
            behaviour = behaviour.then or self.next_behaviour(req.lane)
            while isinstance(behaviour, Hang):  # nested hangs add up
                hang = Hang(hang.seconds + behaviour.seconds)
                behaviour = behaviour.then or self.next_behaviour(req.lane)
        if isinstance(behaviour, Error):
            return error_reply(behaviour), hang
        if isinstance(behaviour, Raw):
            headers = _base_headers(behaviour.content_type)
            headers.update(behaviour.headers)
            return Reply(behaviour.status, headers, [behaviour.body]), hang
        return message_reply(behaviour, req.body), hang


# --------------------------------------------------------------------------- HTTP server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def _read_body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
            raw = bytes(data)
        else:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        return _decode_body(raw, self.headers.get("content-encoding", ""))

    def _serve(self) -> None:
        core = self.server.core
        raw = self._read_body() if self.command not in ("GET", "HEAD") else b""
        req = core.record(self.command, self.path, self.headers.items(), raw)
        reply, hang = core.handle(req)
        if hang is not None and core.closing.wait(hang.seconds):
            self.close_connection = True
            return
        try:
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if reply.stream:
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                for chunk in reply.chunks:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
            else:
                body = reply.body
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (timeout): that's fine

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = do_OPTIONS = do_PATCH = _serve


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, core: FakeCore) -> None:
        self.core = core
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients hanging up (timeouts, killed CLIs) are normal here; report the rest."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class FakeMessagesAPI(FakeCore):
    """The fake API as a real HTTP server on 127.0.0.1 (use as a context manager).

    ``url`` is the base URL for ``ANTHROPIC_BASE_URL`` / ``base_url=``; ``requests`` is
    every request received, in order.
    """

    def __init__(self, *behaviours: Behaviour, **kwargs: Any) -> None:
        super().__init__(*behaviours, **kwargs)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeMessagesAPI is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeMessagesAPI:
        self.closing.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-anthropic-api",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.closing.set()  # wakes hanging handlers
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeMessagesAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# --------------------------------------------------------------------------- MockTransport


class FakeTransport(httpx2.MockTransport):
    """An ``httpx2.MockTransport`` backed by a :class:`FakeCore` (``.core``, ``.requests``)."""

    def __init__(self, core: FakeCore) -> None:
        self.core = core
        super().__init__(self._handle)

    @property
    def requests(self) -> list[RecordedRequest]:
        return self.core.requests

    def script(self, *behaviours: Behaviour, lane: str | None = None) -> None:
        self.core.script(*behaviours, lane=lane)

    def _handle(self, request: httpx2.Request) -> httpx2.Response:
        raw = _decode_body(request.content, request.headers.get("content-encoding", ""))
        target = request.url.raw_path.decode()
        req = self.core.record(request.method, target, request.headers.multi_items(), raw)
        reply, hang = self.core.handle(req)
        if hang is not None:
            timeout = (request.extensions.get("timeout") or {}).get("read")
            if timeout is not None and timeout < hang.seconds:
                time.sleep(timeout)
                raise httpx2.ReadTimeout("fake API hung past the read timeout", request=request)
            time.sleep(hang.seconds)
        return httpx2.Response(reply.status, headers=reply.headers, content=reply.body)


def mock_transport(*behaviours: Behaviour, **kwargs: Any) -> FakeTransport:
    """In-process fake API for unit tests: positional behaviours are answered in order to
    whatever messages requests come; ``extract=``/``chat=``/``default_*=`` as in
    :class:`FakeCore`. Pass to ``httpx2.Client(transport=...)``."""
    return FakeTransport(FakeCore(*behaviours, **kwargs))
