"""Function calling round trips through ``iModel``: native ``generateContent`` and the chat layer.

Native: ``functionDeclarations`` and ``toolConfig`` reach the wire as written, a streamed
``functionCall`` (with its id and ``thoughtSignature``) becomes one ``tool_use`` per call, and
the model turn plus the ``functionResponse`` turn are sent unchanged; ``responseSchema`` /
``responseJsonSchema`` are sent as written. Compatibility layer: a Gemini 3 stream (tool calls
without ``index``, ``finish_reason: "stop"``) keeps each call whole, and the assistant turn with
its ``extra_content`` thought signature goes back unchanged.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from lionagi.service import iModel
from lionagi.service_testing import FakeProviderServer, scripted_stream_server

KEY = "AIza-tool-round-trip-0123456789"
DECLARATION = {
    "name": "get_weather",
    "description": "Current weather",
    "parameters": {
        "type": "OBJECT",
        "properties": {"location": {"type": "STRING"}},
        "required": ["location"],
    },
}
TOOLS = [{"functionDeclarations": [DECLARATION]}]
ASK = [{"role": "user", "parts": [{"text": "weather in Paris?"}]}]


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as fake:
        yield fake


def native(base_url: str) -> iModel:
    return iModel(
        model="gemini/gemini-3-pro-preview",
        endpoint="generate",
        base_url=base_url,
        allow_local_network=True,
        api_key=KEY,
    )


def compat(base_url: str) -> iModel:
    return iModel(
        model="gemini/gemini-3-flash-preview",
        endpoint="chat",
        base_url=base_url,
        allow_local_network=True,
        api_key=KEY,
    )


async def test_native_function_call_and_response_round_trip(server: FakeProviderServer) -> None:
    config = {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}}
    async with native(f"{server.base_url}/scenario/tool/v1beta") as gemini:
        chunks = [c async for c in gemini.stream(contents=ASK, tools=TOOLS, toolConfig=config)]
        sent = server.requests[-1].json
        assert (sent["tools"], sent["toolConfig"]) == (TOOLS, config)
        [call] = [c for c in chunks if c.type == "tool_use"]
        assert call.tool_name == "get_weather"
        assert call.tool_input == {"location": "fake"}
        assert call.metadata["synthetic_id"] is True  # the fake sends no id: none goes back
        follow = [
            *ASK,
            {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {}}}]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "get_weather", "response": {"result": "sunny"}}}
                ],
            },
        ]
        answer = await gemini.invoke(contents=follow, tools=TOOLS)
    assert answer.execution.error is None
    assert server.requests[-1].json["contents"] == follow
    parts = answer.execution.response["candidates"][0]["content"]["parts"]
    assert parts[0]["text"] == "Tool said: sunny. Done."


@pytest.mark.parametrize(
    "config",
    [
        {
            "responseMimeType": "application/json",
            "responseSchema": {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}},
        },
        {
            "responseMimeType": "application/json",
            "responseJsonSchema": {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "additionalProperties": False,
            },
        },
    ],
)
async def test_native_structured_output_is_sent_as_written(
    server: FakeProviderServer, config: dict[str, Any]
) -> None:
    async with native(f"{server.base_url}/v1beta") as gemini:
        answer = await gemini.invoke(contents=ASK, generationConfig=config)
    assert answer.execution.error is None
    assert server.requests[-1].json["generationConfig"] == config


def _sse(body: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(body)}\r\n\r\n".encode()


async def test_native_stream_keeps_call_ids_and_signature() -> None:
    parts = [
        {
            "functionCall": {"id": "c1", "name": "get_weather", "args": {"location": "Paris"}},
            "thoughtSignature": "c2ln",
        },
        {"functionCall": {"id": "c2", "name": "get_weather", "args": {"location": "Rome"}}},
    ]
    writes = [
        _sse({"candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0}]}),
        _sse(
            {
                "candidates": [
                    {"content": {"parts": [{"text": ""}], "role": "model"}, "finishReason": "STOP"}
                ],
                "usageMetadata": {"promptTokenCount": 5, "totalTokenCount": 14},
            }
        ),
    ]
    async with scripted_stream_server(writes, path="/v1beta") as stub, native(stub.url) as gemini:
        chunks = [c async for c in gemini.stream(contents=ASK, tools=TOOLS)]
    calls = [(c.tool_id, c.tool_input, c.metadata) for c in chunks if c.type == "tool_use"]
    assert calls == [
        ("c1", {"location": "Paris"}, {"thought_signature": "c2ln"}),
        ("c2", {"location": "Rome"}, {}),
    ]


async def test_compat_indexless_calls_and_signature_round_trip(
    server: FakeProviderServer,
) -> None:
    signature = {"google": {"thought_signature": "c2ln"}}
    head = {"object": "chat.completion.chunk", "created": 1, "model": "gemini-3-flash-preview"}

    def call(n: int, city: str) -> dict[str, Any]:
        arguments = json.dumps({"location": city})
        function = {"name": "get_weather", "arguments": arguments}
        return {"id": f"function-call-{n}", "type": "function", "function": function}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice: dict[str, Any] = {"index": 0, "delta": delta}
        if finish:
            choice["finish_reason"] = finish
        return b"data: " + json.dumps({**head, "choices": [choice]}).encode() + b"\n\n"

    first = {**call(1, "Sydney"), "extra_content": signature}
    writes = [
        chunk({"role": "assistant", "tool_calls": [first]}),
        chunk({"role": "assistant", "tool_calls": [call(2, "Paris")]}),
        chunk({"role": "assistant"}, "stop"),
        b"data: [DONE]\n\n",
    ]
    messages = [{"role": "user", "content": "weather?"}]
    async with (
        scripted_stream_server(writes, path="/v1beta/openai") as stub,
        compat(stub.url) as gemini,
    ):
        chunks = [c async for c in gemini.stream(messages=messages)]
    calls = [c for c in chunks if c.type == "tool_use"]
    assert [(c.tool_id, c.tool_input) for c in calls] == [
        ("function-call-1", {"location": "Sydney"}),
        ("function-call-2", {"location": "Paris"}),
    ]
    assert calls[0].metadata["extra_content"] == signature
    follow = [
        *messages,
        {"role": "assistant", "content": None, "tool_calls": [first, call(2, "Paris")]},
        {"role": "tool", "tool_call_id": "function-call-1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "function-call-2", "content": "rain"},
    ]
    async with compat(f"{server.base_url}/v1beta/openai") as gemini:
        answer = await gemini.invoke(messages=follow)
    assert answer.execution.error is None
    assert server.requests[-1].json["messages"] == follow
