"""The fake Messages API is only useful if the real SDK reads it as it reads the real API.

Every test drives the real anthropic SDK, against the HTTP server and the MockTransport.
The last group pins down SDK behaviours the extractor must handle (malformed answers are
not always anthropic exceptions).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx2
import pytest
from fakeapi import (
    Error,
    Facts,
    FakeMessagesAPI,
    Hang,
    MaxTokens,
    Raw,
    Refusal,
    StreamError,
    Text,
    ToolUse,
    lane_of,
    messages_text,
    mock_transport,
    requests_text,
    system_text,
)

MODEL = "claude-haiku-4-5"
FACT = {
    "fact": "The build tool is zorp.",
    "category": "environment",
    "files": ["zorp.toml"],
    "confidence": 0.9,
    "evidence": "we build with zorp",
}
FACTS_SCHEMA = {
    "type": "object",
    "properties": {"facts": {"type": "array", "items": {"type": "object"}}},
    "required": ["facts"],
}
TOOL = {"name": "record_facts", "description": "Record facts.", "input_schema": FACTS_SCHEMA}


def extract_kwargs(**extra: Any) -> dict[str, Any]:
    """A request shaped like the extractor's: forced record_facts tool."""
    return {
        "model": MODEL,
        "max_tokens": 1024,
        "system": "Extract durable facts.",
        "messages": [{"role": "user", "content": "we build with zorp"}],
        "tools": [TOOL],
        "tool_choice": {"type": "tool", "name": "record_facts"},
        **extra,
    }


def chat_kwargs(**extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-opus-5-5",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "hello"}],
        **extra,
    }


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as server:
        yield server


def client_for(api: FakeMessagesAPI, **kwargs: Any) -> anthropic.Anthropic:
    kwargs.setdefault("max_retries", 0)
    kwargs.setdefault("timeout", 5.0)
    return anthropic.Anthropic(api_key="test", base_url=api.url, **kwargs)


def mock_client(*behaviours: Any, **kwargs: Any) -> tuple[anthropic.Anthropic, Any]:
    transport = mock_transport(*behaviours)
    kwargs.setdefault("max_retries", 0)
    kwargs.setdefault("timeout", 5.0)
    client = anthropic.Anthropic(
        api_key="test", http_client=httpx2.Client(transport=transport), **kwargs
    )
    return client, transport


# --------------------------------------------------------------------------- server


def test_forced_tool_returns_parsed_tool_input(api: FakeMessagesAPI) -> None:
    api.script(Facts([FACT]), lane="extract")
    msg = client_for(api).messages.create(**extract_kwargs())
    assert msg.stop_reason == "tool_use"
    assert msg.model == MODEL
    assert msg.id.startswith("msg_")
    assert msg.usage.input_tokens > 0 and msg.usage.output_tokens > 0
    (block,) = msg.content
    assert block.type == "tool_use" and block.name == "record_facts"
    assert block.id.startswith("toolu_")
    assert block.input == {"facts": [FACT]}
    (req,) = api.requests
    assert (req.method, req.path, req.lane, req.status) == ("POST", "/v1/messages", "extract", 200)
    # anthropic 2.14 sends api_key as "Authorization: Bearer"; Claude Code sends x-api-key.
    assert req.headers["authorization"] == "<present>"
    assert req.headers["anthropic-version"]
    assert req.body["tool_choice"] == {"type": "tool", "name": "record_facts"}
    assert system_text(req) == "Extract durable facts."
    assert api.pending() == 0


def test_default_answers_per_lane(api: FakeMessagesAPI) -> None:
    client = client_for(api)
    assert client.messages.create(**extract_kwargs()).content[0].input == {"facts": []}
    chat = client.messages.create(
        **chat_kwargs(tools=[{"name": "Bash", "input_schema": {"type": "object"}}])
    )
    assert [b.type for b in chat.content] == ["text"] and chat.content[0].text == "OK"
    assert chat.stop_reason == "end_turn"
    assert [r.lane for r in api.messages()] == ["extract", "chat"]


def test_lanes_are_independent_and_consumed_in_order(api: FakeMessagesAPI) -> None:
    api.script(Facts([FACT]), Facts([]), lane="extract")
    api.script(Text("first"), Text("second"), lane="chat")
    client = client_for(api)
    assert client.messages.create(**chat_kwargs()).content[0].text == "first"
    assert client.messages.create(**extract_kwargs()).content[0].input == {"facts": [FACT]}
    assert client.messages.create(**chat_kwargs()).content[0].text == "second"
    assert client.messages.create(**extract_kwargs()).content[0].input == {"facts": []}
    assert client.messages.create(**chat_kwargs()).content[0].text == "OK"  # default
    assert api.pending() == 0


def test_streaming_tool_use(api: FakeMessagesAPI) -> None:
    api.script(Facts([FACT, dict(FACT, fact="Tests run with pytest.")]), lane="extract")
    with client_for(api).messages.stream(**extract_kwargs()) as stream:
        msg = stream.get_final_message()
    assert msg.stop_reason == "tool_use"
    assert msg.content[0].input["facts"][0] == FACT
    assert len(msg.content[0].input["facts"]) == 2
    assert msg.usage.output_tokens > 1
    assert api.requests[0].stream


def test_streaming_text_deltas(api: FakeMessagesAPI) -> None:
    long = "The quick brown fox jumps over the lazy dog. " * 5
    api.script(Text(long), lane="chat")
    with client_for(api).messages.stream(**chat_kwargs()) as stream:
        pieces = list(stream.text_stream)
        msg = stream.get_final_message()
    assert len(pieces) > 1 and "".join(pieces) == long
    assert msg.content[0].text == long and msg.stop_reason == "end_turn"


def test_sse_wire_format(api: FakeMessagesAPI) -> None:
    """The raw event sequence, as Claude Code's own SDK parses it."""
    api.script(ToolUse("Bash", {"command": "ls"}, text="Listing."), lane="chat")
    with httpx2.Client() as http:
        resp = http.post(
            f"{api.url}/v1/messages?beta=true",
            json=chat_kwargs(stream=True),
            headers={"x-api-key": "k", "anthropic-version": "2023-06-01"},
        )
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/event-stream")
    events = [
        line[len("event: ") :] for line in resp.text.splitlines() if line.startswith("event: ")
    ]
    assert events[0] == "message_start" and events[-2:] == ["message_delta", "message_stop"]
    assert events.count("content_block_start") == events.count("content_block_stop") == 2
    datas = [json.loads(line[6:]) for line in resp.text.splitlines() if line.startswith("data: ")]
    kinds = {d["delta"]["type"] for d in datas if d["type"] == "content_block_delta"}
    assert kinds == {"text_delta", "input_json_delta"}
    (delta,) = [d for d in datas if d["type"] == "message_delta"]
    assert delta["delta"]["stop_reason"] == "tool_use" and delta["usage"]["output_tokens"] > 0
    assert datas[0]["message"]["model"] == "claude-opus-5-5"
    assert api.requests[0].query == {"beta": ["true"]}


def test_structured_output_answers_json_text(api: FakeMessagesAPI) -> None:
    api.script(Facts([FACT]), lane="extract")
    kwargs = chat_kwargs(output_config={"format": {"type": "json_schema", "schema": FACTS_SCHEMA}})
    assert lane_of(kwargs) == "extract"
    msg = client_for(api).messages.create(**kwargs)
    assert msg.stop_reason == "end_turn"
    assert json.loads(msg.content[0].text) == {"facts": [FACT]}


def test_429_is_retried_after_retry_after(api: FakeMessagesAPI) -> None:
    api.script(Error(429, retry_after=0.2), Facts([FACT]), lane="extract")
    start = time.monotonic()
    msg = client_for(api, max_retries=2).messages.create(**extract_kwargs())
    assert time.monotonic() - start >= 0.2
    assert msg.content[0].input == {"facts": [FACT]}
    assert [r.status for r in api.requests] == [429, 200]
    assert api.requests[1].headers["x-stainless-retry-count"] == "1"


def test_429_exhausts_retries(api: FakeMessagesAPI) -> None:
    api.script(*[Error(429, retry_after=0.05)] * 2, lane="extract")
    with pytest.raises(anthropic.RateLimitError) as info:
        client_for(api, max_retries=1).messages.create(**extract_kwargs())
    assert info.value.status_code == 429
    assert info.value.body["error"]["type"] == "rate_limit_error"
    assert info.value.response.headers["retry-after"] == "0.05"
    assert len(api.requests) == 2


def test_529_raises_overloaded_after_retries(api: FakeMessagesAPI) -> None:
    api.script(*[Error(529, retry_after=0.05)] * 2, lane="extract")
    with pytest.raises(anthropic.OverloadedError) as info:
        client_for(api, max_retries=1).messages.create(**extract_kwargs())
    assert isinstance(info.value, anthropic.InternalServerError)
    assert info.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "fake error"},
        "request_id": info.value.response.headers["request-id"],
    }
    assert len(api.requests) == 2


@pytest.mark.parametrize(
    ("status", "exc"),
    [
        (400, anthropic.BadRequestError),
        (401, anthropic.AuthenticationError),
        (403, anthropic.PermissionDeniedError),
        (404, anthropic.NotFoundError),
        (500, anthropic.InternalServerError),
    ],
)
def test_error_statuses_map_to_sdk_exceptions(
    api: FakeMessagesAPI, status: int, exc: type[Exception]
) -> None:
    api.script(Error(status, message="nope"), lane="extract")
    with pytest.raises(exc) as info:
        client_for(api).messages.create(**extract_kwargs())
    assert info.value.status_code == status
    assert "nope" in str(info.value)


def test_401_is_not_retried(api: FakeMessagesAPI) -> None:
    api.script(Error(401), lane="extract")
    with pytest.raises(anthropic.AuthenticationError):
        client_for(api, max_retries=2).messages.create(**extract_kwargs())
    assert len(api.requests) == 1


def test_hang_times_out(api: FakeMessagesAPI) -> None:
    api.script(Hang(3), lane="extract")
    start = time.monotonic()
    with pytest.raises(anthropic.APITimeoutError):
        client_for(api, timeout=0.3).messages.create(**extract_kwargs())
    assert time.monotonic() - start < 2


def test_hang_then_answer(api: FakeMessagesAPI) -> None:
    api.script(Hang(0.2, then=Facts([FACT])), lane="extract")
    msg = client_for(api, timeout=3).messages.create(**extract_kwargs())
    assert msg.content[0].input == {"facts": [FACT]}


def test_stop_unblocks_a_hanging_request() -> None:
    api = FakeMessagesAPI(Hang(30)).start()
    client = client_for(api, timeout=0.2)
    with pytest.raises(anthropic.APITimeoutError):
        client.messages.create(**extract_kwargs())
    start = time.monotonic()
    api.stop()
    assert time.monotonic() - start < 2


def test_max_tokens_truncates_tool_input(api: FakeMessagesAPI) -> None:
    facts = [dict(FACT, fact=f"Fact number {i}.") for i in range(4)]
    api.script(MaxTokens(facts), MaxTokens(facts), lane="extract")
    client = client_for(api)
    msg = client.messages.create(**extract_kwargs())
    assert msg.stop_reason == "max_tokens"
    assert msg.content[0].input == {"facts": facts[:2]}
    with client.messages.stream(**extract_kwargs()) as stream:
        streamed = stream.get_final_message()
    assert streamed.stop_reason == "max_tokens"
    assert streamed.content[0].input != {"facts": facts}  # partial JSON, cut mid-way


def test_refusal(api: FakeMessagesAPI) -> None:
    api.script(Refusal(), Refusal("I can't"), lane="extract")
    client = client_for(api)
    msg = client.messages.create(**extract_kwargs())
    assert msg.stop_reason == "refusal" and msg.content == []
    assert msg.stop_details is not None and msg.stop_details.type == "refusal"
    with client.messages.stream(**extract_kwargs()) as stream:
        streamed = stream.get_final_message()
    assert streamed.stop_reason == "refusal" and streamed.content[0].text == "I can't"


def test_error_event_mid_stream(api: FakeMessagesAPI) -> None:
    api.script(StreamError(after_text="partial"), lane="chat")
    with (
        pytest.raises(anthropic.APIStatusError) as info,
        client_for(api).messages.stream(**chat_kwargs()) as stream,
    ):
        stream.get_final_message()
    assert "Overloaded" in str(info.value)


def test_raw_wrong_shape_and_not_json(api: FakeMessagesAPI) -> None:
    """What the SDK does with garbage: the extractor must catch more than APIError."""
    api.script(
        Raw(200, b"not json"),
        Raw(200, b'{"foo": 1}'),
        Raw(200, b"<html>", "text/html"),
        lane="extract",
    )
    client = client_for(api)
    with pytest.raises(ValueError):  # json.JSONDecodeError, *not* an anthropic error
        client.messages.create(**extract_kwargs())
    loose = client.messages.create(**extract_kwargs())  # not validated by default
    assert loose.content is None and loose.stop_reason is None
    assert client.messages.create(**extract_kwargs()) == "<html>"  # a str!


def test_strict_validation_rejects_wrong_shape(api: FakeMessagesAPI) -> None:
    api.script(Raw(200, b'{"type": "message"}'), Raw(200, b"<html>", "text/html"), lane="extract")
    client = client_for(api, _strict_response_validation=True)
    for _ in range(2):
        with pytest.raises(anthropic.APIResponseValidationError):
            client.messages.create(**extract_kwargs())


def test_count_tokens_and_probes(api: FakeMessagesAPI) -> None:
    client = client_for(api)
    counted = client.messages.count_tokens(
        model=MODEL, messages=[{"role": "user", "content": "hello there " * 20}]
    )
    assert counted.input_tokens > 10
    with httpx2.Client() as http:
        assert http.head(f"{api.url}/api/hello").status_code == 200
        assert http.get(f"{api.url}/v1/models").json()["data"][0]["id"] == MODEL
        missing = http.get(f"{api.url}/nope")
        assert missing.status_code == 404 and missing.json()["type"] == "error"
    assert [(r.method, r.path) for r in api.requests] == [
        ("POST", "/v1/messages/count_tokens"),
        ("HEAD", "/api/hello"),
        ("GET", "/v1/models"),
        ("GET", "/nope"),
    ]
    assert api.messages() == []


def test_requests_text_sees_everything_but_the_key(api: FakeMessagesAPI) -> None:
    client = anthropic.Anthropic(api_key="sk-ant-api03-SECRETKEY", base_url=api.url, max_retries=0)
    client.messages.create(
        **chat_kwargs(
            system=[{"type": "text", "text": "sys \u00e9"}],
            messages=[{"role": "user", "content": "pw=h\u00fcnter2"}],
        )
    )
    text = requests_text(api)
    assert "pw=h\u00fcnter2" in text and "sys \u00e9" in text
    assert "SECRETKEY" not in text
    assert messages_text(api.requests[0]) == "user\npw=h\u00fcnter2"


def test_system_text_includes_system_role_messages() -> None:
    body = {
        "system": [{"type": "text", "text": "top"}],
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "system",
                "content": [{"type": "text", "text": "SessionStart hook additional context: X"}],
            },
        ],
    }
    assert system_text(body) == "top\nSessionStart hook additional context: X"


# --------------------------------------------------------------------------- MockTransport


def test_mock_forced_tool_and_stream() -> None:
    client, transport = mock_client(Facts([FACT]), Facts([FACT]))
    assert client.messages.create(**extract_kwargs()).content[0].input == {"facts": [FACT]}
    with client.messages.stream(**extract_kwargs()) as stream:
        assert stream.get_final_message().content[0].input == {"facts": [FACT]}
    assert [r.lane for r in transport.requests] == ["extract", "extract"]
    assert transport.requests[0].headers["authorization"] == "<present>"
    assert transport.core.pending() == 0


def test_mock_positional_behaviours_serve_any_lane() -> None:
    client, _ = mock_client(Text("hi"), Facts([FACT]))
    assert client.messages.create(**extract_kwargs()).content[0].text == "hi"
    assert client.messages.create(**chat_kwargs()).content[0].name == "record_facts"
    assert client.messages.create(**chat_kwargs()).content[0].text == "OK"


def test_mock_429_retry_and_529() -> None:
    client, transport = mock_client(
        Error(429, retry_after=0.05),
        Facts([FACT]),
        Error(529, retry_after=0.05),
        Error(529, retry_after=0.05),
        max_retries=1,
    )
    assert client.messages.create(**extract_kwargs()).content[0].input == {"facts": [FACT]}
    with pytest.raises(anthropic.OverloadedError):
        client.messages.create(**extract_kwargs())
    assert [r.status for r in transport.requests] == [429, 200, 529, 529]


def test_mock_timeout() -> None:
    client, _ = mock_client(Hang(5), timeout=0.1)
    start = time.monotonic()
    with pytest.raises(anthropic.APITimeoutError):
        client.messages.create(**extract_kwargs())
    assert time.monotonic() - start < 1.5


def test_mock_errors() -> None:
    client, _ = mock_client(Error(401), Raw(200, b"{", "application/json"))
    with pytest.raises(anthropic.AuthenticationError):
        client.messages.create(**extract_kwargs())
    with pytest.raises(ValueError):
        client.messages.create(**extract_kwargs())


@pytest.mark.asyncio
async def test_mock_async_client() -> None:
    transport = mock_transport(Facts([FACT]), Text("streamed"))
    client = anthropic.AsyncAnthropic(
        api_key="test", max_retries=0, http_client=httpx2.AsyncClient(transport=transport)
    )
    msg = await client.messages.create(**extract_kwargs())
    assert msg.content[0].input == {"facts": [FACT]}
    async with client.messages.stream(**chat_kwargs()) as stream:
        assert (await stream.get_final_message()).content[0].text == "streamed"
