"""Credentials a ``generateContent`` request carries in its tools are redacted from its errors.

An ``mcpServers`` entry's ``streamableHttpTransport.headers`` (its ``Authorization`` among
them) and ``googleMaps.authConfig.apiKey`` are the caller's secrets, sent through the API to
a server of theirs, so no configuration names them: before, an API answer quoting one (a 400
refusing it, a stream's error object) put it into the raised error's text, its
``body_excerpt`` and the log. The request model now hands them to core's
``remember_request_headers`` / ``remember_request_secret`` as it validates them, so they are
redacted like a configured key.

The tokens are plain letters and digits without a key prefix, and the answers quote them bare
in free text: no credential shape of core's would catch them, only the value itself.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderError,
    ProviderStatusError,
    ProviderStreamError,
    StreamChunk,
    iModel,
)
from lionagi.service_testing import assert_secret_hidden, plain_secret, scripted_stream_server
from lionagi.service_testing.real_tier import collect_into

KEY = "AIzaRequestCredentialsKey0123456789abcdef"
CONTENTS = [{"role": "user", "parts": [{"text": "hello"}]}]


def _mcp_bearer(token: str) -> dict[str, Any]:
    transport = {"url": "https://mcp.example/mcp", "headers": {"Authorization": f"Bearer {token}"}}
    return {"mcpServers": [{"name": "docs", "streamableHttpTransport": transport}]}


def _mcp_named(token: str) -> dict[str, Any]:
    transport = {"url": "https://mcp.example/mcp", "headers": {"X-Api-Key": token}}
    return {"mcpServers": [{"name": "docs", "streamableHttpTransport": transport}]}


def _maps_key(token: str) -> dict[str, Any]:
    return {"googleMaps": {"authConfig": {"apiKey": token}}}


TOOLS = [
    pytest.param(_mcp_bearer, id="mcp_authorization"),
    pytest.param(_mcp_named, id="mcp_named_header"),
    pytest.param(_maps_key, id="maps_api_key"),
]


def _refusal(token: str) -> dict[str, Any]:
    message = f"the tool server refused the credential {token} (401 Unauthorized)"
    return {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}


def _model(url: str) -> iModel:
    return iModel(
        model="gemini/gemini-2.5-flash",
        endpoint="generate",
        api_key=KEY,
        base_url=url,
        allow_local_network=True,
        attempt_policy=AttemptPolicy(max_attempts=1),
    )


@pytest.mark.parametrize("tool", TOOLS)
async def test_a_400_quoting_the_credential_does_not_show_it(
    tool: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lionagi")
    token = plain_secret("cred")
    body = json.dumps(_refusal(token)).encode()
    reply = scripted_stream_server(
        [body], path="/v1beta", status=400, content_type="application/json"
    )
    async with reply as server, _model(server.url) as model:
        event = await model.invoke(contents=CONTENTS, tools=[tool(token)])
    assert event.status is EventStatus.FAILED
    error = event.exception
    assert isinstance(error, ProviderStatusError), error
    assert error.status == 400
    assert_secret_hidden(token, error, records=caplog.records)


@pytest.mark.parametrize("tool", TOOLS)
async def test_a_stream_error_quoting_the_credential_does_not_show_it(
    tool: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lionagi")
    token = plain_secret("cred")
    raw = b"data: " + json.dumps(_refusal(token)).encode() + b"\r\n\r\n"
    chunks: list[StreamChunk] = []
    async with scripted_stream_server([raw], path="/v1beta") as server, _model(server.url) as m:
        with pytest.raises(ProviderError) as raised:
            await collect_into(m, chunks, deadline=30, contents=CONTENTS, tools=[tool(token)])
    assert isinstance(raised.value, ProviderStreamError), raised.value
    assert chunks[-1].type == "error"
    assert_secret_hidden(
        token, raised.value, chunks[-1].content, repr(chunks[-1].metadata), records=caplog.records
    )
