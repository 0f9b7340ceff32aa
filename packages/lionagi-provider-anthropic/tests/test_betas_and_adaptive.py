"""Requests the API takes that were refused before sending, and a signature the stream dropped.

Over a loopback server, on both send paths (``iModel`` and an endpoint's own ``call()`` /
``stream()``):

- the interleaved-thinking beta (``anthropic-beta: interleaved-thinking-2025-05-14``) lets
  ``thinking.budget_tokens`` exceed ``max_tokens`` (the budget covers the whole turn); without
  it the budget is still refused naming the field;
- the MCP connector's ``{"type": "mcp_toolset", "mcp_server_name": ...}`` tool has no ``name``
  and was refused as a server tool missing one;
- adaptive thinking gets the sampling rules the API applies to it (``temperature``, ``top_p``)
  and keeps what the API documents it allows (forced tool use);
- a thinking block whose ``content_block_start`` already carries its signature keeps it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from anthropic_loopback import API_KEY, HI, Make, call, imodel, request

from lionagi.service import EndpointConfigurationError, EventStatus, StreamChunk, iModel
from lionagi.service_testing import FakeProviderServer, scripted_stream_server

# Above the catalog's max_tokens default (4096): only the interleaved beta allows it.
BIG_BUDGET = {"type": "enabled", "budget_tokens": 8192}
INTERLEAVED = "interleaved-thinking-2025-05-14"
TOOL = {"name": "lookup", "description": "look up", "input_schema": {"type": "object"}}
SERVER = {"type": "url", "url": "https://mcp.example/sse", "name": "calendar"}


# -- interleaved thinking: the budget may exceed max_tokens ---------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("anthropic-beta", INTERLEAVED),
        # Any case; a list with other betas, spaced as callers write it.
        ("Anthropic-Beta", f"files-api-2025-04-14, {INTERLEAVED}"),
        ("ANTHROPIC-BETA", f"mcp-client-2025-11-20,{INTERLEAVED.upper()}"),
    ],
)
async def test_interleaved_beta_lets_the_budget_exceed_max_tokens_on_the_endpoint(
    fake: FakeProviderServer, messages_endpoint: Make, name: str, value: str
) -> None:
    # Per call, in extra_headers of the endpoint's own call().
    body = await call(
        messages_endpoint(fake), request(thinking=BIG_BUDGET), extra_headers={name: value}
    )
    assert body["type"] == "message"
    # In the endpoint config's default_headers, streamed.
    endpoint = messages_endpoint(fake, default_headers={name: value})
    try:
        chunks = [c async for c in endpoint.stream(request(thinking=BIG_BUDGET))]
    finally:
        await endpoint.aclose()
    assert chunks[-1].type == "result"
    for seen in fake.requests:
        assert seen.json["thinking"] == BIG_BUDGET
        assert seen.json["max_tokens"] == 4096
        assert seen.headers[name.lower()] == value


async def test_interleaved_beta_lets_the_budget_exceed_max_tokens_through_imodel(
    fake: FakeProviderServer,
) -> None:
    async with imodel(fake, default_headers={"anthropic-beta": INTERLEAVED}) as model:
        event = await model.invoke(messages=HI, thinking=BIG_BUDGET, max_tokens=2048)
    assert event.status is EventStatus.COMPLETED
    [seen] = fake.requests
    assert (seen.json["thinking"], seen.json["max_tokens"]) == (BIG_BUDGET, 2048)
    assert seen.headers["anthropic-beta"] == INTERLEAVED


@pytest.mark.parametrize(
    "headers",
    [{}, {"anthropic-beta": "mcp-client-2025-11-20, files-api-2025-04-14"}],
    ids=["no beta", "other betas"],
)
async def test_without_the_interleaved_beta_the_budget_is_refused_on_both_paths(
    fake: FakeProviderServer, messages_endpoint: Make, headers: dict[str, str]
) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        await call(
            messages_endpoint(fake), request(thinking=BIG_BUDGET), extra_headers=headers or None
        )
    assert info.value.field == "thinking.budget_tokens"
    assert "less than max_tokens (4096)" in str(info.value)
    assert "interleaved-thinking" in str(info.value)  # says how to lift it
    async with imodel(fake, default_headers=headers) as model:
        with pytest.raises(EndpointConfigurationError) as info:
            await model.invoke(messages=HI, thinking=BIG_BUDGET)
    assert info.value.field == "thinking.budget_tokens"
    assert fake.requests == []  # refused before sending
    # A budget that fits is sent without any beta.
    async with imodel(fake) as model:
        event = await model.invoke(messages=HI, thinking={"type": "enabled", "budget_tokens": 1024})
    assert event.status is EventStatus.COMPLETED


# -- the MCP connector's toolset ------------------------------------------------------------------


async def test_an_mcp_toolset_is_sent_as_written(
    fake: FakeProviderServer, messages_endpoint: Make
) -> None:
    toolset = {
        "type": "mcp_toolset",
        "mcp_server_name": "calendar",
        "default_config": {"enabled": False, "defer_loading": True},
        "configs": {"search_events": {"enabled": True}},
        "cache_control": {"type": "ephemeral"},
    }
    tools = [TOOL, toolset]
    beta = {"anthropic-beta": "mcp-client-2025-11-20"}
    body = await call(
        messages_endpoint(fake),
        request(mcp_servers=[SERVER], tools=tools, tool_choice={"type": "any"}),
        extra_headers=beta,
    )
    assert body["type"] == "message"
    async with imodel(fake, default_headers=beta) as model:
        event = await model.invoke(messages=HI, mcp_servers=[SERVER], tools=[toolset])
    assert event.status is EventStatus.COMPLETED
    first, second = fake.requests
    assert first.json["tools"] == tools
    assert first.json["tool_choice"] == {"type": "any"}
    assert second.json["tools"] == [toolset]
    assert second.json["mcp_servers"] == [SERVER]


async def test_the_older_mcp_servers_form_is_still_sent(fake: FakeProviderServer) -> None:
    # mcp-client-2025-04-04: the server carries its own tool_configuration, no toolset.
    server = {**SERVER, "tool_configuration": {"enabled": True, "allowed_tools": ["a"]}}
    async with imodel(fake) as model:
        event = await model.invoke(messages=HI, mcp_servers=[server])
    assert event.status is EventStatus.COMPLETED
    assert fake.requests[0].json["mcp_servers"] == [server]


@pytest.mark.parametrize(
    ("toolset", "says"),
    [
        ({"type": "mcp_toolset"}, "Field required"),
        ({"type": "mcp_toolset", "mcp_server_name": ""}, "at least 1 character"),
        ({"type": "mcp_toolset", "mcp_server_name": 7}, "valid string"),
        ({"type": "mcp_toolset", "mcp_server_name": "calender"}, "'calendar'"),
    ],
)
async def test_a_toolset_without_a_server_of_the_request_is_refused(
    fake: FakeProviderServer, toolset: dict[str, Any], says: str
) -> None:
    async with imodel(fake) as model:
        with pytest.raises(EndpointConfigurationError) as info:
            await model.invoke(messages=HI, mcp_servers=[SERVER], tools=[TOOL, toolset])
    assert info.value.field == "tools.1.mcp_toolset.mcp_server_name"
    assert says in str(info.value)
    assert fake.requests == []


async def test_a_server_tool_other_than_the_toolset_still_needs_its_name(
    fake: FakeProviderServer,
) -> None:
    async with imodel(fake) as model:
        with pytest.raises(EndpointConfigurationError) as info:
            await model.invoke(messages=HI, tools=[{"type": "web_search_20250305"}])
    assert info.value.field == "tools.0.server.name"


# -- adaptive thinking ----------------------------------------------------------------------------

ADAPTIVE = {"type": "adaptive"}


@pytest.mark.parametrize(
    ("fields", "field", "says"),
    [
        ({"temperature": 0.5}, "temperature", "must be 1 or unset while thinking is adaptive"),
        ({"top_p": 0.9}, "top_p", "from 0.95 to 1 or unset while thinking is adaptive"),
    ],
)
async def test_adaptive_thinking_refuses_the_sampling_the_api_refuses(
    fake: FakeProviderServer, fields: dict[str, Any], field: str, says: str
) -> None:
    async with imodel(fake) as model:
        with pytest.raises(EndpointConfigurationError) as info:
            await model.invoke(messages=HI, thinking=ADAPTIVE, **fields)
    assert info.value.field == field
    assert says in str(info.value)
    assert fake.requests == []


async def test_adaptive_thinking_sends_forced_tool_use_and_allowed_sampling(
    fake: FakeProviderServer, messages_endpoint: Make
) -> None:
    # Anthropic documents forced tool use as supported with adaptive thinking (only manual
    # thinking refuses it), so it is sent, not refused.
    fields = {"tools": [TOOL], "tool_choice": {"type": "tool", "name": "lookup"}}
    body = await call(
        messages_endpoint(fake), request(thinking=ADAPTIVE, temperature=1, top_p=0.95, **fields)
    )
    assert body["type"] == "message"
    [seen] = fake.requests
    assert seen.json["tool_choice"] == {"type": "tool", "name": "lookup"}
    assert (seen.json["thinking"], seen.json["temperature"], seen.json["top_p"]) == (
        ADAPTIVE,
        1,
        0.95,
    )


# -- a thinking block that starts signed ----------------------------------------------------------


def _event(body: dict[str, Any]) -> bytes:
    return f"event: {body['type']}\ndata: {json.dumps(body)}\n\n".encode()


async def test_a_signature_in_content_block_start_is_kept() -> None:
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x"}
    signed = {"type": "thinking", "thinking": "weighed it", "signature": "sig-start"}
    unsigned = {"type": "thinking", "thinking": "", "signature": ""}
    writes = [
        _event({"type": "message_start", "message": {**message, "usage": {"input_tokens": 3}}}),
        _event({"type": "content_block_start", "index": 0, "content_block": signed}),
        _event({"type": "content_block_stop", "index": 0}),
        _event({"type": "content_block_start", "index": 1, "content_block": unsigned}),
        _event(
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "signature_delta", "signature": "sig-delta"},
            }
        ),
        _event({"type": "content_block_stop", "index": 1}),
        _event({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}}),
        _event({"type": "message_stop"}),
    ]
    async with scripted_stream_server(writes) as server:
        model = iModel(
            model="anthropic/claude-x",
            api_key=API_KEY,
            base_url=server.url,
            allow_local_network=True,
        )
        async with model:
            chunks: list[StreamChunk] = [c async for c in model.stream(messages=HI)]
    thinking = [(c.content, c.metadata) for c in chunks if c.type == "thinking"]
    assert thinking == [
        ("weighed it", {}),
        ("", {"signature": "sig-start"}),  # was dropped: the block could not be sent back
        ("", {"signature": "sig-delta"}),  # an empty start signature adds nothing
    ]
    assert chunks[-1].type == "result"
