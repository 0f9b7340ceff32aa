"""A tool round trip through ``iModel`` in the Messages API's own shapes, streamed and one-shot.

The tool and ``tool_choice`` reach the wire as written; the streamed ``tool_use`` chunk carries
the call's id, name and whole input (``input_json_delta`` fragments joined); the next turn's
``tool_use`` / ``tool_result`` blocks (with a thinking block and its signature, an error result
with an image) are accepted and sent unchanged.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from lionagi.service import iModel
from lionagi.service_testing import FakeProviderServer, scripted_stream_server

KEY = "sk-ant-tool-round-trip-0123456789"
TOOLS = [
    {
        "name": "get_weather",
        "description": "Current weather",
        "input_schema": {
            "type": "object",
            "properties": {"location": {"type": "string"}},
            "required": ["location"],
        },
        "strict": True,
    }
]
ASK = [{"role": "user", "content": "weather in Paris?"}]
THINKING = {"type": "enabled", "budget_tokens": 2048}


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as fake:
        yield fake


def model(base_url: str) -> iModel:
    return iModel(
        model="anthropic/claude-sonnet-4-5",
        base_url=base_url,
        allow_local_network=True,
        api_key=KEY,
    )


async def test_tool_use_then_tool_result_are_sent_as_written(server: FakeProviderServer) -> None:
    choice = {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True}
    async with model(f"{server.base_url}/scenario/tool/v1") as claude:
        chunks = [c async for c in claude.stream(messages=ASK, tools=TOOLS, tool_choice=choice)]
        sent = server.requests[-1].json
        assert (sent["tools"], sent["tool_choice"]) == (TOOLS, choice)
        [call] = [c for c in chunks if c.type == "tool_use"]
        assert call.tool_id
        assert call.tool_name == "get_weather"
        follow: list[dict[str, Any]] = [
            *ASK,
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me check."},
                    {"type": "tool_use", "id": call.tool_id, "name": "get_weather", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": call.tool_id, "content": "sunny"},
                    {"type": "text", "text": "Thanks."},
                ],
            },
        ]
        answer = await claude.invoke(messages=follow, tools=TOOLS)
    assert answer.execution.error is None
    assert server.requests[-1].json["messages"] == follow
    assert answer.execution.response["content"][0]["text"] == "Tool said: sunny. Done."


async def test_thinking_tool_turn_goes_back_unchanged(server: FakeProviderServer) -> None:
    async with model(f"{server.base_url}/scenario/thinking+tool/v1") as claude:
        first = await claude.invoke(messages=ASK, tools=TOOLS, thinking=THINKING)
        content = first.execution.response["content"]
        assert [block["type"] for block in content] == ["thinking", "tool_use"]
        result = {
            "type": "tool_result",
            "tool_use_id": content[1]["id"],
            "is_error": True,
            "content": [
                {"type": "text", "text": "camera offline"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"},
                },
            ],
        }
        follow = [
            *ASK,
            {"role": "assistant", "content": content},
            {"role": "user", "content": [result]},
        ]
        chunks = [c async for c in claude.stream(messages=follow, tools=TOOLS, thinking=THINKING)]
    assert chunks[-1].type == "result"
    assert server.requests[-1].json["messages"] == follow


def _event(body: dict[str, Any]) -> bytes:
    return f"event: {body['type']}\ndata: {json.dumps(body)}\n\n".encode()


async def test_streamed_input_fragments_are_joined_per_call() -> None:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }

    def start(index: int, tool_id: str, name: str) -> bytes:
        block = {"type": "tool_use", "id": tool_id, "name": name, "input": {}}
        return _event({"type": "content_block_start", "index": index, "content_block": block})

    def fragment(index: int, text: str) -> bytes:
        delta = {"type": "input_json_delta", "partial_json": text}
        return _event({"type": "content_block_delta", "index": index, "delta": delta})

    writes = [
        _event({"type": "message_start", "message": message}),
        start(0, "toolu_A", "get_weather"),
        fragment(0, ""),
        fragment(0, '{"location": "San Fra'),
        fragment(0, 'ncisco, CA"}'),
        _event({"type": "content_block_stop", "index": 0}),
        start(1, "toolu_B", "get_time"),  # no parameters: no fragment at all
        _event({"type": "content_block_stop", "index": 1}),
        _event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 89},
            }
        ),
        _event({"type": "message_stop"}),
    ]
    async with scripted_stream_server(writes) as server, model(server.url) as claude:
        chunks = [c async for c in claude.stream(messages=ASK)]
    calls = [(c.tool_id, c.tool_name, c.tool_input) for c in chunks if c.type == "tool_use"]
    assert calls == [
        ("toolu_A", "get_weather", {"location": "San Francisco, CA"}),
        ("toolu_B", "get_time", {}),
    ]
    assert chunks[-1].metadata["finish_reason"] == "tool_use"
