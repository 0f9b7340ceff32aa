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
from collections.abc import AsyncIterator
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
from lionagi.service_testing import plain_secret, scripted_stream_server, secret_shown

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


async def _consume(stream: AsyncIterator[StreamChunk], chunks: list[StreamChunk]) -> None:
    """Read ``stream`` to its end (or its error), keeping every chunk in ``chunks``."""
    async for chunk in stream:
        chunks.append(chunk)


def _assert_hidden(
    token: str, error: BaseException, caplog: pytest.LogCaptureFixture, *texts: str
) -> None:
    """Neither the token nor its first half shows in the error, its excerpt, or a log record."""
    assert secret_shown(token, error, *texts, records=caplog.records) == []
    assert "[REDACTED]" in str(error)


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
    _assert_hidden(token, error, caplog)


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
                await _consume(model.stream(**_request(token, where)), chunks)
    assert isinstance(raised.value, ProviderStreamError), raised.value
    assert chunks[-1].type == "error"
    _assert_hidden(token, raised.value, caplog, chunks[-1].content, repr(chunks[-1].metadata))


def test_tools_without_an_mcp_tool_are_sent_as_written() -> None:
    from lionagi.providers.openai import OpenAIResponsesRequest

    tools = [{"type": "function", "name": "f", "parameters": {"type": "object"}}]
    request = OpenAIResponsesRequest.model_validate({"model": "gpt-5", "tools": tools})
    assert request.tools == tools
