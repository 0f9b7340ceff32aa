"""An ``mcp`` tool's credentials are redacted from the errors of the Responses request carrying it.

The tool's ``authorization`` (an OAuth access token) and ``headers`` go to the caller's MCP server
through the API, so no configuration names them: before, an API answer quoting one (a 400
refusing the server's token, a stream's ``error`` event) put it into the raised error's text,
its ``body_excerpt`` and the log. The request model now hands them to core's
``remember_request_secret`` / ``remember_request_headers`` as it validates ``tools``, so they
are redacted like a configured key.

The tokens are plain letters and digits without a key prefix, and the answers quote them bare
in free text: no credential shape of core's would catch them, only the value itself.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from openai_loopback import openai_model, sse

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderError,
    ProviderStatusError,
    ProviderStreamError,
    StreamChunk,
)
from lionagi.service_testing import assert_secret_hidden, plain_secret, scripted_stream_server
from lionagi.service_testing.real_tier import collect_into

KEY = "sk-proj-request-credentials-0123456789"
ONCE = AttemptPolicy(max_attempts=1)


def _authorization(token: str) -> dict[str, Any]:
    return {"authorization": token}


def _bearer_header(token: str) -> dict[str, Any]:
    return {"headers": {"Authorization": f"Bearer {token}", "X-Team": "docs"}}


def _named_header(token: str) -> dict[str, Any]:
    return {"headers": {"X-Api-Key": token}}


WHERE = [
    pytest.param(_authorization, id="authorization"),
    pytest.param(_bearer_header, id="headers_bearer"),
    pytest.param(_named_header, id="headers_named"),
]


def _request(token: str, where: Any) -> dict[str, Any]:
    tool = {
        "type": "mcp",
        "server_label": "docs",
        "server_url": "https://mcp.example/sse",
        **where(token),
    }
    return {"input": "hi", "tools": [{"type": "function", "name": "f"}, tool]}


def _refusal(token: str) -> dict[str, Any]:
    return {
        "message": f"the MCP server refused the credential {token} (401)",
        "type": "invalid_request_error",
        "param": "tools",
        "code": "mcp_authorization_failed",
    }


@pytest.mark.parametrize("where", WHERE)
async def test_a_400_quoting_the_mcp_credential_does_not_show_it(
    where: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lionagi")
    token = plain_secret("mcp")
    body = json.dumps({"error": _refusal(token)}).encode()
    reply = scripted_stream_server([body], status=400, content_type="application/json")
    async with reply as server:
        model = openai_model(server.url, api_key=KEY, endpoint="responses", attempt_policy=ONCE)
        async with model:
            event = await model.invoke(**_request(token, where))
    assert event.status is EventStatus.FAILED
    error = event.exception
    assert isinstance(error, ProviderStatusError), error
    assert error.status == 400
    assert_secret_hidden(token, error, records=caplog.records)


@pytest.mark.parametrize("where", WHERE)
async def test_a_stream_error_event_quoting_the_mcp_credential_does_not_show_it(
    where: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lionagi")
    token = plain_secret("mcp")
    created = {"id": "resp_1", "object": "response", "model": "gpt-5", "output": []}
    writes = [
        sse({"type": "response.created", "response": {**created, "status": "in_progress"}}),
        sse({**_refusal(token), "type": "error"}),
    ]
    chunks: list[StreamChunk] = []
    async with scripted_stream_server(writes) as server:
        model = openai_model(server.url, api_key=KEY, endpoint="responses", attempt_policy=ONCE)
        async with model:
            with pytest.raises(ProviderError) as raised:
                await collect_into(model, chunks, deadline=30, **_request(token, where))
    assert isinstance(raised.value, ProviderStreamError), raised.value
    assert chunks[-1].type == "error"
    assert_secret_hidden(
        token, raised.value, chunks[-1].content, repr(chunks[-1].metadata), records=caplog.records
    )


def test_tools_without_an_mcp_tool_are_sent_as_written() -> None:
    from lionagi.providers.openai import OpenAIResponsesRequest

    tools = [{"type": "function", "name": "f", "parameters": {"type": "object"}}]
    request = OpenAIResponsesRequest.model_validate({"model": "gpt-5", "tools": tools})
    assert request.tools == tools
