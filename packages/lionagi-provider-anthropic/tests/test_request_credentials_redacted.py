"""Credentials a Messages request carries in its body are redacted from the errors it ends in.

An MCP server's ``authorization_token`` and the beta ``fallback_credit_token`` are the caller's
secrets, but no configuration names them: before, an API answer quoting one (a 400 refusing
the token, a stream's ``event: error``) put it into the raised error's text, its
``body_excerpt`` and the log. The request model now hands both to core's
``remember_request_secret`` as it validates them, so they are redacted like a configured key.

The tokens are plain letters and digits without a key prefix, and the answers quote them in
free text: no credential shape of core's would catch them, only the value itself.
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

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
HI = [{"role": "user", "content": "hi"}]
ONCE = AttemptPolicy(max_attempts=1)


def _mcp(token: str) -> dict[str, Any]:
    server = {"url": "https://mcp.example/sse", "name": "docs", "authorization_token": token}
    return {"mcp_servers": [server]}


def _credit(token: str) -> dict[str, Any]:
    return {"fallback_credit_token": token}


FIELDS = [pytest.param(_mcp, id="mcp_servers"), pytest.param(_credit, id="fallback_credit")]


def _refusal(token: str) -> bytes:
    message = f"the credential {token} was refused by the upstream server"
    return json.dumps(
        {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    ).encode()


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def _stream_refusal(token: str) -> list[bytes]:
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 0},
        },
    }
    return [_event("message_start", start), _event("error", json.loads(_refusal(token)))]


def _model(url: str) -> iModel:
    return iModel(
        model="anthropic/claude-x",
        api_key=KEY,
        base_url=url,
        allow_local_network=True,
        attempt_policy=ONCE,
    )


@pytest.mark.parametrize("fields", FIELDS)
async def test_a_400_quoting_the_token_does_not_show_it(
    fields: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lionagi")
    token = plain_secret("cred")
    reply = scripted_stream_server([_refusal(token)], status=400, content_type="application/json")
    async with reply as server, _model(server.url) as model:
        event = await model.invoke(model="claude-x", messages=HI, **fields(token))
    assert event.status is EventStatus.FAILED
    error = event.exception
    assert isinstance(error, ProviderStatusError), error
    assert error.status == 400
    assert_secret_hidden(token, error, records=caplog.records)


@pytest.mark.parametrize("fields", FIELDS)
async def test_a_stream_error_event_quoting_the_token_does_not_show_it(
    fields: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lionagi")
    token = plain_secret("cred")
    chunks: list[StreamChunk] = []
    async with scripted_stream_server(_stream_refusal(token)) as server, _model(server.url) as m:
        with pytest.raises(ProviderError) as raised:
            # The model comes from the iModel's "anthropic/claude-x".
            await collect_into(m, chunks, deadline=30, messages=HI, **fields(token))
    assert isinstance(raised.value, ProviderStreamError), raised.value
    assert chunks[-1].type == "error"
    assert_secret_hidden(
        token, raised.value, chunks[-1].content, repr(chunks[-1].metadata), records=caplog.records
    )


async def test_the_mcp_token_is_left_out_of_the_request_models_repr() -> None:
    from lionagi.providers.anthropic import AnthropicMessagesRequest

    token = plain_secret("repr")
    request = AnthropicMessagesRequest.model_validate(
        {"model": "claude-x", "max_tokens": 8, "messages": HI, **_mcp(token)}
    )
    assert token not in repr(request)
    dumped = request.model_dump(mode="json", exclude_none=True)
    assert dumped["mcp_servers"][0]["authorization_token"] == token  # still sent
