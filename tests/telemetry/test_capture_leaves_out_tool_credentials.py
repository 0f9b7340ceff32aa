"""Content capture of a request without ``messages`` leaves out its tools and their credentials.

With capture on, a request without ``messages`` (OpenAI Responses' ``input``, Gemini's
``contents``) was recorded whole in ``gen_ai.input.messages``, its ``tools`` included. A remote
MCP server's tool entry carries the credentials the provider uses to reach that server
(Responses' ``headers`` and ``authorization``, Gemini's
``mcpServers[].streamableHttpTransport.headers``), so they reached the trace backend, where the
docs promise no header or key is ever recorded. The input is still recorded; the tools are not.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import EventStatus, iModel
from lionagi.service_testing import scripted_stream_server

from ._openai_answers import responses_body
from .conftest import Otel

pytestmark = pytest.mark.anyio

KEY = "k-telemetry-0123456789abcdef"
MCP_TOKEN = "mcp-ZZcredentialQQ-7731"
PROMPT = "hi PROMPTMARK"

RESPONSES_BODY = responses_body({"input_tokens": 2, "output_tokens": 1, "total_tokens": 3})
GEMINI_BODY = {
    "candidates": [
        {
            "index": 0,
            "content": {"role": "model", "parts": [{"text": "ok"}]},
            "finishReason": "STOP",
        }
    ],
    "usageMetadata": {"promptTokenCount": 2, "candidatesTokenCount": 1},
    "modelVersion": "gemini-2.5-flash",
}


MCP_TOOL = {
    "type": "mcp",
    "server_label": "calendar",
    "server_url": "https://mcp.example/sse",
    "headers": {"Authorization": f"Bearer {MCP_TOKEN}"},
    "authorization": MCP_TOKEN,
    "require_approval": "never",
}


def _responses(base_url: str) -> tuple[dict[str, Any], dict[str, Any]]:
    tool = MCP_TOOL
    model = {"model": "openai/gpt-5", "endpoint": "responses", "base_url": base_url}
    return model, {"input": PROMPT, "tools": [tool]}


def _gemini(base_url: str) -> tuple[dict[str, Any], dict[str, Any]]:
    transport = {"url": "https://mcp.example/mcp", "headers": {"Authorization": MCP_TOKEN}}
    tool = {"mcpServers": [{"name": "calendar", "streamableHttpTransport": transport}]}
    model = {"model": "gemini/gemini-2.5-flash", "endpoint": "generate", "base_url": base_url}
    contents = [{"role": "user", "parts": [{"text": PROMPT}]}]
    return model, {"contents": contents, "tools": [tool]}


ROWS = {
    "openai-responses": (_responses, RESPONSES_BODY, "/v1"),
    "gemini-native": (_gemini, GEMINI_BODY, "/v1beta"),
}


@pytest.mark.parametrize("row", sorted(ROWS))
async def test_a_captured_request_without_messages_keeps_its_input_not_its_tools(
    otel: Otel, row: str
) -> None:
    build, body, path = ROWS[row]
    otel.on(capture_content=True)
    async with scripted_stream_server(
        [json.dumps(body).encode()], path=path, content_type="application/json"
    ) as server:
        model_args, request = build(server.url)
        async with iModel(api_key=KEY, allow_local_network=True, **model_args) as model:
            call = await model.invoke(**request)
            assert call.status is EventStatus.COMPLETED, call.exception

    captured = dict(otel.root().attributes or {})["gen_ai.input.messages"]
    assert "PROMPTMARK" in captured  # the input is recorded
    assert MCP_TOKEN not in captured  # the MCP server's credential is not
    assert "tools" not in json.loads(captured)


async def test_a_captured_one_shot_response_leaves_out_its_echo_of_the_tools(otel: Otel) -> None:
    """A Responses object repeats the request's ``tools``; the captured output leaves them out."""
    body = {**RESPONSES_BODY, "tools": [MCP_TOOL]}
    otel.on(capture_content=True)
    async with scripted_stream_server(
        [json.dumps(body).encode()], content_type="application/json"
    ) as server:
        model_args, request = _responses(server.url)
        async with iModel(api_key=KEY, allow_local_network=True, **model_args) as model:
            call = await model.invoke(**request)
            assert call.status is EventStatus.COMPLETED, call.exception
            # The caller's result is left whole.
            assert call.execution.response["tools"] == [MCP_TOOL]

    captured = dict(otel.root().attributes or {})["gen_ai.output.messages"]
    assert '"ok"' in captured  # the answer is recorded
    assert MCP_TOKEN not in captured
    assert "tools" not in json.loads(captured)
