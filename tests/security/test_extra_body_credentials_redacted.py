"""A credential sent through ``extra_body`` is redacted from the errors that quote it.

``extra_body`` sends fields no request model declares, so no ``remember_request_secret``
validator saw them: before, an MCP server's token or a tool's ``Authorization`` header given
there, quoted back by the provider (a 400 refusing it, a stream's error event), showed in the
raised error's text, its ``body_excerpt`` and the log. Core now carries the values of
credential-named keys (and what a ``headers`` mapping's credentials are) when it accepts
``extra_body``. Ordinary values beside them (a ``user`` id, ``metadata``) stay visible.

A core OpenAI-compatible endpoint on a real loopback server, so no vendor is named. The tokens
are plain letters and digits quoted bare in free text: no credential shape of core's catches
them, only the value itself.
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
from lionagi.service._base.secrets import REDACTED
from lionagi.service.http import OpenAIChatEndpoint
from lionagi.service_testing import assert_secret_hidden, plain_secret, scripted_stream_server
from lionagi.service_testing.real_tier import collect_into

KEY = "sk-proj-extra-body-credentials-0123456789"
MESSAGES = [{"role": "user", "content": "hi"}]


def _mcp_token(token: str) -> dict[str, Any]:
    return {"mcp_servers": [{"url": "https://mcp.example/sse", "authorization_token": token}]}


def _tool_bearer(token: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}", "X-Team": "documentation"}
    return {"tools_beta": [{"type": "mcp", "server_label": "docs", "headers": headers}]}


def _camel_case_key(token: str) -> dict[str, Any]:
    return {"web_search_options": {"provider": {"name": "acme", "apiKey": token}}}


def _client_secret(token: str) -> dict[str, Any]:
    return {"oauth": {"client_id": "lionagi-docs", "client_secret": token}}


WHERE = [
    pytest.param(_mcp_token, id="mcp_authorization_token"),
    pytest.param(_tool_bearer, id="headers_bearer"),
    pytest.param(_camel_case_key, id="camel_case_api_key"),
    pytest.param(_client_secret, id="nested_client_secret"),
]


def _model(url: str) -> iModel:
    config = {
        "name": "chat",
        "provider": "extrabodytest",
        "endpoint": "chat/completions",
        "base_url": url,
        "api_key": KEY,
        "allow_local_network": True,
        "timeout": 10.0,
    }
    return iModel(endpoint=OpenAIChatEndpoint(config), attempt_policy=AttemptPolicy(max_attempts=1))


def _error(message: str) -> dict[str, Any]:
    return {"message": message, "type": "invalid_request_error", "code": "invalid_credential"}


async def _invoke_failing(body: dict[str, Any], extra_body: dict[str, Any]) -> ProviderStatusError:
    reply = json.dumps({"error": body}).encode()
    server = scripted_stream_server([reply], status=400, content_type="application/json")
    async with server as srv, _model(srv.url) as model:
        event = await model.invoke(messages=MESSAGES, extra_body=extra_body)
    assert event.status is EventStatus.FAILED
    error = event.exception
    assert isinstance(error, ProviderStatusError), error
    assert error.status == 400
    return error


@pytest.mark.parametrize("where", WHERE)
async def test_a_400_quoting_an_extra_body_credential_does_not_show_it(
    where: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lionagi")
    token = plain_secret("xb")
    error = await _invoke_failing(
        _error(f"the server refused the credential {token}"), where(token)
    )
    assert_secret_hidden(token, error, records=caplog.records)


@pytest.mark.parametrize("where", WHERE)
async def test_a_stream_error_event_quoting_an_extra_body_credential_does_not_show_it(
    where: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lionagi")
    token = plain_secret("xb")
    chunk = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}],
    }
    error = {"error": _error(f"the server refused the credential {token}")}
    writes = [f"data: {json.dumps(chunk)}\n\n".encode(), f"data: {json.dumps(error)}\n\n".encode()]
    chunks: list[StreamChunk] = []
    async with scripted_stream_server(writes) as srv, _model(srv.url) as model:
        with pytest.raises(ProviderError) as raised:
            await collect_into(
                model, chunks, deadline=30, messages=MESSAGES, extra_body=where(token)
            )
    assert isinstance(raised.value, ProviderStreamError), raised.value
    assert chunks[-1].type == "error"
    assert_secret_hidden(
        token, raised.value, chunks[-1].content, repr(chunks[-1].metadata), records=caplog.records
    )


async def test_ordinary_extra_body_values_stay_visible(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="lionagi")
    token, user = plain_secret("xb"), plain_secret("reader")
    team, label = "documentation", plain_secret("label")
    extra_body = {
        "user": user,
        "metadata": {"label": label, "token_budget": "generousbudget"},
        "tools_beta": [{"type": "mcp", "headers": {"Authorization": token, "X-Team": team}}],
    }
    message = (
        f"user {user} (label {label}, team {team}, budget generousbudget) "
        f"is not allowed to use the credential {token}"
    )
    error = await _invoke_failing(_error(message), extra_body)
    assert_secret_hidden(token, error, records=caplog.records)
    for shown in (str(error), error.body_excerpt or ""):
        assert f"user {user} (label {label}, team {team}, budget generousbudget)" in shown
        assert f"credential {REDACTED}" in shown
