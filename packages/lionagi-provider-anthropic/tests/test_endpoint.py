"""The catalog row, the version header, the typed request and the stream over a real socket."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from lionagi.providers.anthropic import (
    ANTHROPIC_VERSION,
    DEFAULT_MAX_TOKENS,
    MODEL_POLICIES,
    PROVIDER_SPECS,
    AnthropicMessagesEndpoint,
)
from lionagi.service import (
    EndpointConfigurationError,
    ProviderProtocolError,
    ProviderStreamAuthError,
    ProviderStreamError,
    ProviderStreamServerError,
    StreamChunk,
    match_endpoint,
    parse_model_spec,
)
from lionagi.service_testing import FakeProviderServer

Make = Callable[..., AnthropicMessagesEndpoint]


def user(text: str = "hi", **extra: Any) -> dict[str, Any]:
    return {"model": "claude-fake", "messages": [{"role": "user", "content": text}], **extra}


def test_catalog_row() -> None:
    [spec] = PROVIDER_SPECS
    assert (spec.provider, spec.endpoint, spec.endpoint_aliases) == (
        "anthropic",
        "messages",
        ("chat",),
    )
    assert (spec.base_url, spec.auth_type, spec.api_key_env) == (
        "https://api.anthropic.com/v1",
        "x-api-key",
        "ANTHROPIC_API_KEY",
    )
    assert spec.request_defaults == {"max_tokens": DEFAULT_MAX_TOKENS}
    ep = match_endpoint("anthropic", "chat", api_key="k")
    assert type(ep) is AnthropicMessagesEndpoint
    assert ep.config.base_url == "https://api.anthropic.com/v1"
    assert [p.provider for p in MODEL_POLICIES] == ["anthropic"]


def test_every_request_names_the_api_version() -> None:
    ep = match_endpoint("anthropic", "messages", api_key="k")
    payload, headers = ep.create_payload(user())
    assert payload["max_tokens"] == DEFAULT_MAX_TOKENS
    assert headers["anthropic-version"] == ANTHROPIC_VERSION == "2023-06-01"
    assert headers["x-api-key"] == "k"
    assert ep.copy().config.default_headers == {"anthropic-version": ANTHROPIC_VERSION}


def test_a_callers_version_header_wins_and_others_are_kept() -> None:
    custom = {"Anthropic-Version": "2099-01-01", "anthropic-beta": "x"}
    ep = match_endpoint("anthropic", "messages", api_key="k", default_headers=custom)
    _, headers = ep.create_payload(user())
    assert headers["Anthropic-Version"] == "2099-01-01"
    assert "anthropic-version" not in headers
    beta = match_endpoint(
        "anthropic", "messages", api_key="k", default_headers={"anthropic-beta": "b"}
    )
    _, headers = beta.create_payload(user())
    assert (headers["anthropic-version"], headers["anthropic-beta"]) == (ANTHROPIC_VERSION, "b")


def test_hand_built_endpoint_names_the_version_too() -> None:
    config = {"name": "m", "provider": "anthropic", "endpoint": "messages", "api_key": "k"}
    _, headers = AnthropicMessagesEndpoint(config, auth_type="x-api-key").create_payload(user())
    assert headers["anthropic-version"] == ANTHROPIC_VERSION


def test_typed_request_fields_pass() -> None:
    ep = match_endpoint("anthropic", "messages", api_key="k")
    request = {
        "model": "claude-fake",
        "system": [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "weather?"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "t", "signature": "s"},
                    {"type": "tool_use", "id": "toolu_1", "name": "w", "input": {"c": "Oslo"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
                    {"type": "image", "source": {"type": "url", "url": "https://x/i.png"}},
                    {
                        "type": "document",
                        "source": {"type": "text", "data": "d", "media_type": "text/plain"},
                    },
                ],
            },
        ],
        "max_tokens": 2048,
        "temperature": 0.5,
        "top_p": 0.9,
        "top_k": 5,
        "stop_sequences": ["END"],
        "tools": [
            {"name": "w", "description": "weather", "input_schema": {"type": "object"}},
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 2},
        ],
        "tool_choice": {"type": "tool", "name": "w"},
        "metadata": {"user_id": "u-1"},
        "service_tier": "auto",
        "container": "container_1",
        "mcp_servers": [{"type": "url", "url": "https://mcp.example/sse", "name": "m"}],
        "extra_body": {"brand_new_field": True},
    }
    payload, _ = ep.create_payload(request)
    assert payload["tools"][1] == {
        "type": "web_search_20250305",
        "name": "web_search",
        "max_uses": 2,
    }
    assert payload["tool_choice"] == {"type": "tool", "name": "w"}
    assert payload["messages"][2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "sunny",
    }
    assert payload["brand_new_field"] is True
    assert payload["max_tokens"] == 2048


@pytest.mark.parametrize(
    ("extra", "field", "says"),
    [
        ({"max_token": 5}, "max_token", "did you mean 'max_tokens'"),
        ({"thinking": {"type": "enabled"}}, "thinking", "budget_tokens is required"),
        (
            {"thinking": {"type": "enabled", "budget_tokens": 8192}},
            "thinking.budget_tokens",
            "less than max_tokens (4096)",
        ),
        ({"tool_choice": {"type": "tool"}}, "tool_choice", "name is required"),
        ({"temperature": 1.5}, "temperature", "less than or equal to 1"),
        ({"tools": [{"name": "f", "input_shema": {}}]}, "tools.0", ""),
        ({"metadata": {"user": "x"}}, "metadata.user", "unknown field of"),
    ],
)
def test_bad_request_fields_are_refused_naming_the_field(
    extra: dict[str, Any], field: str, says: str
) -> None:
    ep = match_endpoint("anthropic", "messages", api_key="k")
    with pytest.raises(EndpointConfigurationError) as info:
        ep.create_payload(user(**extra))
    assert info.value.field.startswith(field)
    assert says in str(info.value)


def test_bad_role_and_block_are_refused() -> None:
    ep = match_endpoint("anthropic", "messages", api_key="k")
    with pytest.raises(EndpointConfigurationError, match=r"messages\.0\.role"):
        ep.create_payload({"model": "m", "messages": [{"role": "bot", "content": "x"}]})
    block = {"role": "user", "content": [{"type": "hologram", "text": "x"}]}
    with pytest.raises(EndpointConfigurationError, match=r"messages\.0\.content"):
        ep.create_payload({"model": "m", "messages": [block]})


def test_an_effort_suffix_is_refused() -> None:
    assert parse_model_spec("anthropic/claude-sonnet-4-5").model == "anthropic/claude-sonnet-4-5"
    with pytest.raises(Exception, match="effort"):
        parse_model_spec("anthropic/claude-sonnet-4-5-high")


async def stream(ep: AnthropicMessagesEndpoint, behaviour: str, **kw: Any) -> list[StreamChunk]:
    headers = {"x-fake-behaviour": behaviour, **kw.pop("headers", {})}
    try:
        return [c async for c in ep.stream(user(**kw), extra_headers=headers)]
    finally:
        await ep.aclose()


async def test_text_stream_over_the_fake_server(
    fake: FakeProviderServer, messages_endpoint: Make
) -> None:
    chunks = await stream(
        messages_endpoint(fake), "usage", headers={"x-fake-text": "one two three"}
    )
    assert "".join(c.content or "" for c in chunks if c.type == "text") == "one two three"
    assert [c.type for c in chunks].count("result") == 1
    result = chunks[-1]
    assert result.type == "result"
    usage = result.metadata["usage"]
    assert usage["input_tokens"] > 0
    assert usage["output_tokens"] > 0
    assert "cache_read_input_tokens" in usage
    assert result.metadata["finish_reason"] == "end_turn"
    [seen] = fake.requests
    assert seen.path == "/v1/messages"
    assert seen.json["stream"] is True
    assert seen.json["max_tokens"] == DEFAULT_MAX_TOKENS
    assert seen.headers["anthropic-version"] == ANTHROPIC_VERSION


async def test_thinking_and_tool_streams(fake: FakeProviderServer, messages_endpoint: Make) -> None:
    thinking = await stream(messages_endpoint(fake), "thinking")
    assert "".join(c.content or "" for c in thinking if c.type == "thinking")
    tool = {
        "name": "run",
        "input_schema": {"type": "object", "properties": {"cmd": {"type": "string"}}},
    }
    chunks = await stream(messages_endpoint(fake), "tool", tools=[tool])
    [use] = [c for c in chunks if c.type == "tool_use"]
    assert use.tool_id
    assert use.tool_id.startswith("toolu_")
    assert use.tool_name == "run"
    assert isinstance(use.tool_input, dict)
    assert use.tool_input
    assert chunks[-1].metadata["finish_reason"] == "tool_use"


async def test_in_stream_error_is_one_error_chunk(
    fake: FakeProviderServer, messages_endpoint: Make
) -> None:
    chunks = await stream(messages_endpoint(fake), "stream_error")
    errors = [c for c in chunks if c.type == "error"]
    assert len(errors) == 1
    assert chunks[-1] is errors[0]
    assert errors[0].metadata["code"] == "overloaded_error"


async def test_one_shot_message(fake: FakeProviderServer, messages_endpoint: Make) -> None:
    ep = messages_endpoint(fake)
    try:
        body = await ep.call(user(), extra_headers={"x-fake-text": "pong"})
    finally:
        await ep.aclose()
    assert body["content"][0] == {"type": "text", "text": "pong"}
    assert "stream" not in fake.requests[0].json


# -- socket-level grammar cases (moved from core's transport tests) --------------------------------


def sse(event: dict[str, Any], *, newline: bool = True) -> bytes:
    text = f"event: {event['type']}\ndata: {json.dumps(event)}"
    return (text + "\n\n" if newline else text).encode()


START = {"type": "message_start", "message": {"model": "claude", "usage": {"input_tokens": 1}}}


async def raw_stream(body: bytes) -> list[StreamChunk]:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    ep = AnthropicMessagesEndpoint(
        match_endpoint(
            "anthropic",
            "messages",
            api_key="k",
            base_url="http://127.0.0.1:9/v1",
            allow_local_network=True,
        ).config,
        transport=httpx.MockTransport(handler),
    )
    try:
        return [c async for c in ep.stream(user())]
    finally:
        await ep.aclose()


async def test_last_event_without_final_newline_is_parsed() -> None:
    block = {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}
    text = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}
    body = b"".join(
        sse(e) for e in (START, block, text, {"type": "content_block_stop", "index": 0})
    )
    chunks = await raw_stream(body + sse({"type": "message_stop"}, newline=False))
    assert [c.type for c in chunks] == ["text", "result"]
    assert chunks[-1].metadata["model"] == "claude"


async def test_truncated_stream_is_a_protocol_error() -> None:
    with pytest.raises(ProviderProtocolError, match="ended before completion"):
        await raw_stream(sse(START))


@pytest.mark.parametrize(
    ("kind", "message", "expected", "retryable"),
    [
        # The in-stream forms of a 403 and a 504: an event after the 200 carries no status.
        (
            "permission_error",
            "Your API key does not have permission to use the specified resource.",
            ProviderStreamAuthError,
            False,
        ),
        ("timeout_error", "Request timed out", ProviderStreamServerError, True),
    ],
)
async def test_an_error_event_is_typed_by_its_error_type_alone(
    kind: str, message: str, expected: type[ProviderStreamError], retryable: bool
) -> None:
    event = {"type": "error", "error": {"type": kind, "message": message}}
    [chunk] = await raw_stream(sse(START) + sse(event))
    endpoint = AnthropicMessagesEndpoint(
        match_endpoint("anthropic", "messages", api_key="k").config
    )
    error = endpoint.stream_error(chunk)
    assert type(error) is expected
    assert (error.code, error.provider, error.retryable) == (kind, "anthropic", retryable)
    assert str(error) == message


async def test_error_event_is_one_error_chunk_and_later_events_are_not_read() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    chunks = await raw_stream(sse(START) + sse(error) + sse(START))
    assert [(c.type, c.is_error) for c in chunks] == [("error", True)]
