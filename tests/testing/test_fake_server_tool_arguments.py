"""The fake server's tool scenario streams arguments a client can parse, whatever the schema.

A tool whose schema requires nothing gets ``{}`` as arguments. The streamed fragments were
padded to three pieces by repeating the text (``"{} {}"``), so every adapter's stream failed
with "arguments are not valid JSON" on the server's own scenario.
"""

from __future__ import annotations

import pytest

from lionagi.service import iModel
from lionagi.service_testing import FakeProviderServer

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
    },
}


@pytest.mark.parametrize("model", ["openai/gpt-4.1", "anthropic/claude-x"])
async def test_a_tool_without_required_arguments_streams_empty_json(model: str) -> None:
    tools = (
        [TOOL]
        if model.startswith("openai")
        else [
            {
                "name": "get_weather",
                "input_schema": TOOL["function"]["parameters"],  # type: ignore[index]
            }
        ]
    )
    async with (
        FakeProviderServer() as server,
        iModel(
            model=model, api_key="sk-test-0123456789toolargs", base_url=f"{server.base_url}/v1",
            allow_local_network=True, default_headers={"x-fake-behaviour": "tool"},
        ) as imodel,
    ):  # fmt: skip
        chunks = [
            chunk
            async for chunk in imodel.stream(
                messages=[{"role": "user", "content": "weather?"}], tools=tools
            )
        ]
    [call] = [chunk for chunk in chunks if chunk.type == "tool_use"]
    assert call.tool_name == "get_weather"
    assert call.tool_input == {}
