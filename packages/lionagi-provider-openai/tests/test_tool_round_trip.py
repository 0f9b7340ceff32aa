"""Tool round trips and structured output on both text rows, driven through ``iModel``.

A tool is offered, the model calls it (streamed and one-shot), the call and its result go back
in the vendor's own shape and are sent unchanged; structured output is sent as written and a
malformed format is refused before any request, naming the key (Responses ``text.format`` is
checked like chat's ``response_format``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai_loopback import openai_model

from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service_testing.fake_server import FakeProviderServer

KEY = "sk-tool-round-trip-0123456789"
SCHEMA = {
    "type": "object",
    "properties": {"location": {"type": "string"}},
    "required": ["location"],
    "additionalProperties": False,
}
CHAT_TOOLS = [
    {
        "type": "function",
        "function": {"name": "get_weather", "parameters": SCHEMA, "strict": True},
    }
]
RESPONSES_TOOLS = [
    {"type": "function", "name": "get_weather", "parameters": SCHEMA, "strict": True}
]
ASK = [{"role": "user", "content": "weather in Paris?"}]


def model(server: FakeProviderServer, endpoint: str) -> iModel:
    return openai_model(f"{server.base_url}/scenario/tool/v1", api_key=KEY, endpoint=endpoint)


async def test_chat_tool_call_and_result_round_trip(server: FakeProviderServer) -> None:
    choice = {"type": "function", "function": {"name": "get_weather"}}
    async with model(server, "chat") as chat:
        chunks = [c async for c in chat.stream(messages=ASK, tools=CHAT_TOOLS, tool_choice=choice)]
        sent = server.requests[-1].json
        assert (sent["tools"], sent["tool_choice"]) == (CHAT_TOOLS, choice)
        [call] = [c for c in chunks if c.type == "tool_use"]
        assert call.tool_id
        assert call.tool_name == "get_weather"
        assert call.tool_input == {"location": "fake"}
        follow = [
            *ASK,
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call.tool_id,
                        "type": "function",
                        "function": {
                            "name": "get_weather",
                            "arguments": json.dumps(call.tool_input),
                        },
                    }
                ],
            },
            {"role": "tool", "tool_call_id": call.tool_id, "content": "sunny"},
        ]
        answer = await chat.invoke(messages=follow, tools=CHAT_TOOLS)
    assert answer.execution.error is None
    assert server.requests[-1].json["messages"] == follow
    assert answer.execution.response["choices"][0]["message"]["content"] == (
        "Tool said: sunny. Done."
    )


async def test_responses_function_call_and_output_round_trip(server: FakeProviderServer) -> None:
    choice = {"type": "function", "name": "get_weather"}
    async with model(server, "responses") as responses:
        chunks = [
            c async for c in responses.stream(input=ASK, tools=RESPONSES_TOOLS, tool_choice=choice)
        ]
        sent = server.requests[-1].json
        assert (sent["tools"], sent["tool_choice"]) == (RESPONSES_TOOLS, choice)
        [call] = [c for c in chunks if c.type == "tool_use"]
        assert call.tool_id
        assert call.tool_name == "get_weather"
        follow: list[dict[str, Any]] = [
            *ASK,
            {
                "type": "function_call",
                "call_id": call.tool_id,
                "name": "get_weather",
                "arguments": json.dumps(call.tool_input),
            },
            {"type": "function_call_output", "call_id": call.tool_id, "output": "sunny"},
        ]
        chunks = [c async for c in responses.stream(input=follow, tools=RESPONSES_TOOLS)]
    assert server.requests[-1].json["input"] == follow
    assert "".join(c.content or "" for c in chunks if c.type == "text") == (
        "Tool said: sunny. Done."
    )


@pytest.mark.parametrize(
    "fmt",
    [
        {"type": "text"},
        {"type": "json_object"},
        # Keys in the caller's order, strict before schema, and a null kept: sent as written.
        {
            "type": "json_schema",
            "name": "weather",
            "strict": True,
            "description": None,
            "schema": SCHEMA,
        },
    ],
)
async def test_responses_text_format_is_sent_as_written(
    server: FakeProviderServer, fmt: dict[str, Any]
) -> None:
    async with model(server, "responses") as responses:
        call = await responses.invoke(input="hi", text={"format": fmt, "verbosity": "low"})
    assert call.execution.error is None
    sent = server.requests[-1].json["text"]["format"]
    assert sent == fmt
    assert list(sent) == list(fmt)


@pytest.mark.parametrize(
    ("fmt", "field", "says"),
    [
        # Chat Completions' response_format, moved to Responses unchanged.
        (
            {"type": "json_schema", "json_schema": {"name": "w", "schema": SCHEMA}},
            "text.format.json_schema",
            "Chat Completions",
        ),
        ({"type": "json_schema", "name": "w", "schem": SCHEMA}, "text.format.schem", "'schema'"),
        ({"type": "json_schema", "schema": SCHEMA}, "text.format.name", "required"),
        ({"type": "json_schema", "name": "w"}, "text.format.schema", "required"),
        ({"type": "json_schema", "name": "w", "schema": "{}"}, "text.format.schema", "dict"),
        (
            {"type": "json_schema", "name": "w", "schema": SCHEMA, "strict": "true"},
            "text.format.strict",
            "boolean",
        ),
        ({"type": "jsonschema", "name": "w", "schema": SCHEMA}, "text.format.type", "json_schema"),
        ({"name": "w", "schema": SCHEMA}, "text.format.type", "missing"),
        ({"type": "json_object", "schema": SCHEMA}, "text.format.schema", "unknown key"),
    ],
)
async def test_responses_malformed_text_format_is_refused_before_sending(
    server: FakeProviderServer, fmt: dict[str, Any], field: str, says: str
) -> None:
    async with model(server, "responses") as responses:
        with pytest.raises(EndpointConfigurationError) as refused:
            await responses.invoke(input="hi", text={"format": fmt})
    assert refused.value.field == field
    assert says in str(refused.value)
    assert server.requests == []
