"""OpenAI's chat row checks the nested request fields before any request (fake server, loopback).

The row's ``OpenAIChatRequest`` is core's shared model: a misspelled message key, role, content
part type, function-tool key, ``response_format`` type or ``stream_options`` key used to be sent
(``include_usgae`` silently lost the usage). Each is refused before the request, naming the
path, and never repeating the value; a rich valid request reaches the server as written.
"""

from __future__ import annotations

from typing import Any

import pytest
from openai_loopback import openai_model

from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service_testing.fake_server import FakeProviderServer

KEY = "sk-chat-shapes-test-0123456789"
SECRET = "sk-proj-Zq8vT3xK9mW2nL5pR7sY4uB6"
HI = [{"role": "user", "content": "hi"}]


def _model(server: FakeProviderServer) -> iModel:
    return openai_model(f"{server.base_url}/v1", api_key=KEY, model="gpt-4.1")


@pytest.mark.parametrize(
    ("request_data", "field", "says"),
    [
        ({"messages": [{"role": "user", "contnet": SECRET}]}, "messages.0.contnet", "'content'"),
        ({"messages": [{"role": "usr", "content": SECRET}]}, "messages.0.role", "'user'"),
        (
            {"messages": [{"role": "user", "content": [{"type": "txt", "text": SECRET}]}]},
            "messages.0.content.0.type",
            "'text'",
        ),
        (
            {
                "messages": HI,
                "tools": [{"type": "function", "function": {"name": "f", "paramters": {}}}],
            },
            "tools.0.function.paramters",
            "'parameters'",
        ),
        (
            {"messages": HI, "response_format": {"type": "json_shcema"}},
            "response_format.type",
            "'json_schema'",
        ),
        (
            {"messages": HI, "stream_options": {"include_usgae": True}},
            "stream_options.include_usgae",
            "'include_usage'",
        ),
    ],
)
async def test_a_nested_typo_is_refused_before_any_request(
    server: FakeProviderServer, request_data: dict[str, Any], field: str, says: str
) -> None:
    async with _model(server) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            async for _ in model.stream(**request_data):
                pass
    assert refused.value.field == field
    assert f"did you mean {says}?" in str(refused.value)
    assert SECRET not in str(refused.value)
    assert KEY not in str(refused.value)
    assert server.requests == []


RICH: dict[str, Any] = {
    "messages": [
        {"content": "Be brief.", "role": "developer"},
        {
            "role": "user",
            "content": [
                {"text": "What is this?", "type": "text"},
                {
                    "image_url": {"url": "https://x.example/a.png", "detail": "low"},
                    "type": "image_url",
                },
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "42"},
    ],
    "tools": [
        {
            "type": "function",
            "function": {"name": "f", "parameters": {"type": "object"}, "strict": True},
        }
    ],
    "tool_choice": "auto",
    "response_format": {
        "type": "json_schema",
        "json_schema": {"name": "a", "schema": {"type": "object"}, "strict": True},
    },
    "stream_options": {"include_usage": True},
}


async def test_a_rich_valid_request_reaches_the_server_as_written(
    server: FakeProviderServer,
) -> None:
    async with _model(server) as model:
        chunks = [chunk async for chunk in model.stream(**RICH)]
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata.get("usage")  # include_usage reached the server
    (sent,) = server.requests
    for key, value in RICH.items():
        assert sent.json[key] == value
        assert list(sent.json[key]) == list(value)  # same order
    # An assistant turn's explicit null survives; nothing else was added.
    assert sent.json["messages"][2] == RICH["messages"][2]
    assert list(sent.json["messages"][1]["content"][1]) == ["image_url", "type"]
