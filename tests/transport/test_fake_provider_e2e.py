"""End to end through the shared fake provider server (core's wires, JSON and SSE).

The OpenAI Responses wire is exercised by ``lionagi-provider-openai``'s own tests.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import (
    ProviderConnectionError,
    ProviderProtocolError,
    ProviderRateLimitError,
    ProviderUnauthorizedError,
    StreamChunk,
)
from lionagi.service.http import ChatCompletionsProjector

fake_server = pytest.importorskip("lionagi.service_testing.fake_server")

# Each wire names its projector: the dialect is declared by the endpoint class, never guessed.
WIRES = [
    ("chat/completions", "bearer", ChatCompletionsProjector),
]


@pytest.fixture
async def fake() -> Any:
    async with fake_server.FakeProviderServer() as server:
        yield server


def request_for(path: str) -> dict[str, Any]:
    return {
        "model": "fake-model",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "hi"}],
    }


async def stream(ep: Any, path: str, behaviour: str, **headers: str) -> list[StreamChunk]:
    extra = {"x-fake-behaviour": behaviour, **headers}
    return [c async for c in ep.stream(request_for(path), extra_headers=extra)]


async def test_openai_chat_json(fake, make_endpoint):
    ep = make_endpoint(fake.base_url + "/v1")
    body = await ep.call(request_for("chat/completions"), extra_headers={"x-fake-text": "pong"})
    assert body["choices"][0]["message"]["content"] == "pong"
    assert fake.requests[0].headers["authorization"] == "[REDACTED]"


@pytest.mark.parametrize(("path", "auth", "projector"), WIRES)
async def test_text_stream_ends_with_one_result(fake, make_endpoint, path, auth, projector):
    ep = make_endpoint(fake.base_url + "/v1", endpoint=path, auth_type=auth, projector=projector)
    chunks = await stream(ep, path, "usage", **{"x-fake-text": "one two three"})
    text = "".join(c.content or "" for c in chunks if c.type == "text")
    assert text == "one two three"
    results = [c for c in chunks if c.type == "result"]
    assert len(results) == 1
    assert chunks[-1] is results[0]
    assert results[0].metadata["usage"]
    assert fake.requests[-1].json["stream"] is True


@pytest.mark.parametrize(("path", "auth", "projector"), WIRES)
async def test_thinking_and_tool_streams(fake, make_endpoint, path, auth, projector):
    ep = make_endpoint(fake.base_url + "/v1", endpoint=path, auth_type=auth, projector=projector)
    thinking = await stream(ep, path, "thinking")
    assert any(c.type == "thinking" and c.content for c in thinking)
    tool_request = {
        **request_for(path),
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "run",
                    "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}},
                },
            }
        ],
    }
    chunks = [c async for c in ep.stream(tool_request, extra_headers={"x-fake-behaviour": "tool"})]
    tools = [c for c in chunks if c.type == "tool_use"]
    assert len(tools) == 1
    assert tools[0].tool_id
    assert tools[0].tool_name
    assert isinstance(tools[0].tool_input, dict)


@pytest.mark.parametrize(("path", "auth", "projector"), WIRES)
async def test_in_stream_error_is_one_error_chunk(fake, make_endpoint, path, auth, projector):
    ep = make_endpoint(fake.base_url + "/v1", endpoint=path, auth_type=auth, projector=projector)
    chunks = await stream(ep, path, "stream_error")
    errors = [c for c in chunks if c.type == "error"]
    assert len(errors) == 1
    assert errors[0].is_error
    assert chunks[-1] is errors[0]


async def test_statuses_and_faults(fake, make_endpoint, secret):
    ep = make_endpoint(fake.base_url + "/v1")
    with pytest.raises(ProviderUnauthorizedError) as info:
        await stream(ep, "chat/completions", "401")
    assert secret[:20] not in str(info.value)
    with pytest.raises(ProviderRateLimitError) as rate:
        await ep.call(request_for("chat/completions"), extra_headers={"x-fake-behaviour": "429"})
    assert rate.value.retry_after == 1.0
    with pytest.raises(ProviderConnectionError):
        await stream(ep, "chat/completions", "disconnect_after")
    with pytest.raises(ProviderProtocolError):
        await stream(ep, "chat/completions", "malformed")


async def test_keep_alive_reuses_one_connection_across_streams(fake, make_endpoint):
    ep = make_endpoint(fake.base_url + "/v1")
    for _ in range(3):
        chunks = await stream(ep, "chat/completions", "text")
        assert chunks[-1].type == "result"
    pool = ep._http_client()._transport._pool  # private: the only way to see pooled connections
    assert len(pool.connections) == 1
