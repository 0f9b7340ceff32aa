"""Chat fields Ollama's OpenAI-compatible layer does not read are refused, not sent to be dropped.

Ollama's ``/v1/chat/completions`` decodes the body into its own ``ChatCompletionRequest``, which
has no member for ``max_completion_tokens``, ``n``, ``tool_choice``, ``logit_bias``, ...: the
server answered 200 as if they were not there. Before, ``max_completion_tokens=50`` went out
and the answer was not limited (only ``max_tokens`` becomes Ollama's ``num_predict``),
``tool_choice="none"`` still let the model call a tool, ``n=3`` returned one choice. Each is now
refused naming the field and what to write instead, before any request; a value that asks for
what Ollama does anyway still goes out. Real loopback server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service_testing import FakeProviderServer

ASK = [{"role": "user", "content": "hi"}]
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as fake:
        yield fake


def chat(server: FakeProviderServer) -> iModel:
    return iModel(
        model="ollama/llama3.2:latest", base_url=f"{server.base_url}/v1", allow_local_network=True
    )


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"max_completion_tokens": 50}, "max_completion_tokens", "write max_tokens"),
        ({"n": 3}, "n", "one choice"),
        ({"tool_choice": "none", "tools": TOOLS}, "tool_choice", "leave out tools"),
        ({"tool_choice": "required", "tools": TOOLS}, "tool_choice", "always chooses"),
        ({"parallel_tool_calls": False, "tools": TOOLS}, "parallel_tool_calls", "several"),
        ({"logit_bias": {"50256": -100}}, "logit_bias", "no token bias"),
        ({"user": "u-1"}, "user", "end-user id"),
        ({"store": True}, "store", "stores no completion"),
        ({"modalities": ["text", "audio"]}, "modalities", "text only"),
        ({"verbosity": "low"}, "verbosity", "no verbosity"),
    ],
)
async def test_a_field_ollama_drops_is_refused_before_any_request(
    server: FakeProviderServer, fields: dict[str, Any], field: str, words: str
) -> None:
    async with chat(server) as ollama:
        with pytest.raises(EndpointConfigurationError) as refused:
            await ollama.invoke(messages=ASK, **fields)
    assert refused.value.field == field
    assert "does not read it" in str(refused.value)
    assert words in str(refused.value)
    assert server.requests == []


async def test_what_ollama_reads_and_what_it_does_anyway_are_sent(
    server: FakeProviderServer,
) -> None:
    fields = {
        "max_tokens": 50,
        "n": 1,
        "tools": TOOLS,
        "tool_choice": "auto",
        "parallel_tool_calls": True,
        "store": False,
        "reasoning_effort": "high",
        "seed": 7,
        "stop": ["\n"],
    }
    async with chat(server) as ollama:
        answer = await ollama.invoke(messages=ASK, **fields)
    assert answer.execution.error is None
    sent = server.requests[-1].json
    assert sent is not None
    assert {key: sent[key] for key in fields} == fields
    assert sent["model"] == "llama3.2:latest"
