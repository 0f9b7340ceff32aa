"""Tool calls and structured output through Ollama's chat row (OpenAI-compatible) via ``iModel``.

Ollama streams each tool call whole, every one at ``index: 0`` with its own id: each arrives as
its own ``tool_use``. The assistant turn with ``tool_calls`` and the ``role: "tool"`` results
go back unchanged, and ``response_format`` (chat) and ``format`` (native generate) schemas are
sent as written.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service_testing import FakeProviderServer, scripted_stream_server

SCHEMA = {
    "type": "object",
    "properties": {"location": {"type": "string"}},
    "required": ["location"],
}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}]
ASK = [{"role": "user", "content": "weather in Paris and Rome?"}]


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as fake:
        yield fake


def chat(base_url: str) -> iModel:
    return iModel(model="ollama/llama3.2", base_url=base_url, allow_local_network=True)


def _call(tool_id: str, city: str) -> dict[str, Any]:
    arguments = json.dumps({"location": city})
    function = {"name": "get_weather", "arguments": arguments}
    return {"id": tool_id, "index": 0, "type": "function", "function": function}


async def test_parallel_calls_at_index_zero_then_results_round_trip(
    server: FakeProviderServer,
) -> None:
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict[str, Any], finish: str | None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return b"data: " + json.dumps({**head, "choices": [choice]}).encode() + b"\n\n"

    calls = [_call("call_a", "Paris"), _call("call_b", "Rome")]
    writes = [
        chunk({"role": "assistant", "content": "", "tool_calls": calls}, None),
        chunk({"role": "assistant", "content": ""}, "tool_calls"),
        b"data: [DONE]\n\n",
    ]
    async with scripted_stream_server(writes) as stub, chat(stub.url) as ollama:
        chunks = [c async for c in ollama.stream(messages=ASK, tools=TOOLS)]
    got = [(c.tool_id, c.tool_name, c.tool_input) for c in chunks if c.type == "tool_use"]
    assert got == [
        ("call_a", "get_weather", {"location": "Paris"}),
        ("call_b", "get_weather", {"location": "Rome"}),
    ]
    follow = [
        *ASK,
        {"role": "assistant", "content": "", "tool_calls": calls},
        {"role": "tool", "tool_call_id": "call_a", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_b", "content": "rain"},
    ]
    async with chat(f"{server.base_url}/scenario/tool/v1") as ollama:
        answer = await ollama.invoke(messages=follow, tools=TOOLS, tool_choice="auto")
    assert answer.execution.error is None
    sent = server.requests[-1].json
    assert (sent["messages"], sent["tools"], sent["tool_choice"]) == (follow, TOOLS, "auto")


async def test_structured_output_schemas_are_sent_as_written(server: FakeProviderServer) -> None:
    response_format = {"type": "json_schema", "json_schema": {"name": "w", "schema": SCHEMA}}
    async with chat(f"{server.base_url}/v1") as ollama:
        answer = await ollama.invoke(messages=ASK, response_format=response_format)
    assert answer.execution.error is None
    assert server.requests[-1].json["response_format"] == response_format
    generate = iModel(
        model="ollama/llama3.2",
        endpoint="generate",
        base_url=f"{server.base_url}/api",
        allow_local_network=True,
    )
    async with generate:
        answer = await generate.invoke(prompt="weather?", format=SCHEMA)
    assert answer.execution.error is None
    assert server.requests[-1].json["format"] == SCHEMA


async def test_assistant_turn_goes_back_as_ollama_answered_it(server: FakeProviderServer) -> None:
    # Ollama's one-shot `message` (openai.ToolCall always has `index`; a thinking model's
    # message has `reasoning`); its server parses both back, and a tool message's `name`.
    answered = {
        "role": "assistant",
        "content": "",
        "reasoning": "The user wants the weather.",
        "tool_calls": [_call("call_a", "Paris")],
    }
    follow = [
        *ASK,
        answered,
        {"role": "tool", "tool_call_id": "call_a", "name": "get_weather", "content": "sunny"},
    ]
    async with chat(f"{server.base_url}/scenario/tool/v1") as ollama:
        answer = await ollama.invoke(messages=follow, tools=TOOLS)
        assert answer.execution.error is None
        assert server.requests[-1].json["messages"] == follow
        misspelled = {**answered, "tool_calls": [{**_call("call_a", "Paris"), "indx": 0}]}
        with pytest.raises(EndpointConfigurationError) as refused:
            await ollama.invoke(messages=[*ASK, misspelled, follow[-1]], tools=TOOLS)
    assert refused.value.field == "messages.1.tool_calls.0.indx"
    assert "'index'" in str(refused.value)
