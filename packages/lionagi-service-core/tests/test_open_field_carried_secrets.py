"""A credential inside a request model's open field (`list[dict[str, Any]]`, `Any`) is redacted.

Before, only `extra_body`, an open model's undeclared fields and a body with no model were
walked for credentials; a declared field typed to hold arbitrary mappings (`tools`,
`mcp_servers`, `metadata`, as vendor request models declare them) was left to the model's own
validators, so a token nested there was redacted only if the model happened to look for it. A
provider quoting it back put it into `str(error)`, `body_excerpt` and the log. `build_payload`
now walks the values of those fields (found once per model class, `open_fields`), as sent.
Closed models and scalars are still their validators' to judge.

The loopback tests use core's own `OpenAIChatCompletionsRequest`, whose `tools` is such a field
(a vendor's `mcp` tool, with `authorization` or `headers`, passes its shape check unchanged).
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from lionagi.service import (
    AttemptPolicy,
    EndpointConfig,
    EventStatus,
    OpenAIChatCompletionsRequest,
    ProviderStatusError,
    iModel,
)
from lionagi.service._base import secrets
from lionagi.service._base.secrets import REDACTED
from lionagi.service._transport.http.open_fields import open_fields
from lionagi.service._transport.http.payload import build_payload
from lionagi.service.http import OpenAIChatEndpoint


def _token(label: str = "tok") -> str:
    return f"{label}{uuid.uuid4().hex}"


def _carried() -> set[str]:
    return set(secrets._KNOWN.carried)


DEFAULT_TOKEN = _token("default")


class _Server(BaseModel):
    """A closed nested model: its fields are its validators' to mark (this one marks none)."""

    model_config = ConfigDict(extra="forbid")
    url: str
    token: str | None = None


class _VendorRequest(BaseModel):
    """Open fields declared as vendor request models declare them (OpenAI Responses' `tools`,
    Anthropic's `container`, `output_config`), beside closed and scalar ones."""

    model_config = ConfigDict(extra="forbid")
    model: str
    tools: list[dict[str, Any]] | None = None
    metadata: dict[str, Any] | None = None
    container: str | dict[str, Any] | None = None
    options: Mapping[str, Any] | None = None
    anything: Any = None
    headers: dict[str, str] | None = None
    server: _Server | None = None
    servers: list[_Server] | None = None
    api_key_hint: str | None = None
    stop: list[str] | None = None
    preset: dict[str, Any] = Field(default_factory=lambda: {"api_key": DEFAULT_TOKEN})


def _config(options: type[BaseModel] = _VendorRequest) -> EndpointConfig:
    return EndpointConfig(
        name="x", provider="x", endpoint="chat", base_url="https://x.example",
        request_options=options,
    )  # fmt: skip


def test_the_open_fields_are_read_from_the_annotations_once() -> None:
    found = open_fields(_VendorRequest)
    assert found == {"tools", "metadata", "container", "options", "anything", "headers", "preset"}
    assert open_fields(_VendorRequest) is found  # cached per class: one lookup per request


WHERE = [
    pytest.param("tools", lambda t: [{"type": "mcp", "authorization": t}], id="list_of_dicts"),
    pytest.param("metadata", lambda t: {"oauth": {"client_secret": t}}, id="dict_any"),
    pytest.param("container", lambda t: {"skills": [{"apiKey": t}]}, id="str_or_dict"),
    pytest.param("options", lambda t: {"access_token": t}, id="mapping"),
    pytest.param("anything", lambda t: [[{"password": t}]], id="any"),
    pytest.param("headers", lambda t: {"X-Session": t}, id="headers_dict_str"),
    pytest.param(
        "tools",
        lambda t: [{"type": "mcp", "headers": [{"name": "Authorization", "value": f"Bearer {t}"}]}],
        id="headers_pair_list",
    ),
]


@pytest.mark.parametrize(("field", "value"), WHERE)
def test_a_credential_in_a_declared_open_field_is_carried(
    field: str, value: Any, carried_state: None
) -> None:
    token = _token()
    body = build_payload(_config(), {"model": "m", field: value(token)})
    assert body[field] == value(token)  # sent as written
    assert token in _carried()


def test_closed_scalar_and_unsent_fields_are_left_to_their_validators(carried_state: None) -> None:
    credential = _token("credential")
    request = {
        "model": "m",
        "metadata": {"api_key": credential},
        "server": {"url": "https://mcp.example", "token": _token("closed")},
        "servers": [{"url": "https://mcp.example", "token": _token("closedlist")}],
        "api_key_hint": _token("scalar"),
        "stop": [_token("stop")],
    }
    body = build_payload(_config(), request)
    assert "preset" not in body  # a default the caller did not set is not sent, nor walked
    assert _carried() == {credential}


def test_an_open_models_declared_open_field_and_extra_fields_are_both_walked(
    carried_state: None,
) -> None:
    class _Open(_VendorRequest):
        model_config = ConfigDict(extra="allow")

    declared, extra = _token("declared"), _token("extra")
    request = {"model": "m", "tools": [{"token": declared}], "auth": {"password": extra}}
    build_payload(_config(_Open), request)
    assert _carried() == {declared, extra}


def test_chat_turns_are_conversation_and_are_not_walked(carried_state: None) -> None:
    # A turn (a mapping with a `role`) is read again on every call of an agent loop, and a
    # credential-named key in it is the conversation's, not the request's configuration.
    spoken, configured = _token("spoken"), _token("configured")
    request = {
        "model": "m",
        "tools": [
            {"role": "user", "content": "a turn among tools", "api_key": spoken},
            {"type": "mcp", "authorization": configured},
        ],
        "anything": [{"role": "tool", "content": {"password": spoken}}],
    }
    build_payload(_config(), request)
    assert _carried() == {configured}


# --- Public behaviour: a provider quoting the credential back in a 400 on a loopback server.

MESSAGES = [{"role": "user", "content": "hi"}]
MCP = {"type": "mcp", "server_label": "docs", "server_url": "https://mcp.example/sse"}


@asynccontextmanager
async def _refusing(message: str) -> AsyncIterator[str]:
    """A loopback server answering every request with a 400 whose error quotes `message`."""
    error = {"message": message, "type": "invalid_request_error", "code": "invalid_credential"}
    reply = json.dumps({"error": error}).encode()

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        await reader.readexactly(length)
        writer.write(
            b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
            b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(reply), reply)
        )
        await writer.drain()
        writer.close()
        await writer.wait_closed()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield f"http://127.0.0.1:{port}/v1"


async def _refused(message: str, **request: Any) -> ProviderStatusError:
    async with _refusing(message) as url:
        config = {
            "name": "chat", "provider": "openfieldtest", "endpoint": "chat/completions",
            "base_url": url, "api_key": "sk-open-field-credentials-0123456789",
            "allow_local_network": True, "timeout": 10.0,
            "request_options": OpenAIChatCompletionsRequest,
        }  # fmt: skip
        policy = AttemptPolicy(max_attempts=1)
        async with iModel(endpoint=OpenAIChatEndpoint(config), attempt_policy=policy) as model:
            event = await model.invoke(model="m", messages=MESSAGES, **request)
    assert event.status is EventStatus.FAILED
    error = event.exception
    assert isinstance(error, ProviderStatusError), error
    assert error.status == 400
    return error


def _hidden(token: str, error: ProviderStatusError, records: list[logging.LogRecord]) -> None:
    texts = [str(error), error.body_excerpt or "", *(r.getMessage() for r in records)]
    shown = [text for text in texts if token in text or token[: len(token) // 2] in text]
    assert shown == []
    assert f"credential {REDACTED}" in str(error)


def _tools_authorization(token: str) -> dict[str, Any]:
    return {"tools": [{**MCP, "authorization": token}]}


def _tools_headers_mapping(token: str) -> dict[str, Any]:
    return {"tools": [{**MCP, "headers": {"Authorization": f"Bearer {token}"}}]}


def _tools_headers_pairs(token: str) -> dict[str, Any]:
    headers = [{"name": "Authorization", "value": f"Bearer {token}"}]
    return {"tools": [{**MCP, "headers": headers}]}


def _extra_body_headers_pairs(token: str) -> dict[str, Any]:
    server = {"url": "https://mcp.example/sse", "headers": [{"key": "X-Api-Key", "value": token}]}
    return {"extra_body": {"mcp_servers": [server]}}


def _extra_body_env_pairs(token: str) -> dict[str, Any]:
    server = {"url": "https://mcp.example/sse", "env": [{"name": "GITHUB_TOKEN", "value": token}]}
    return {"extra_body": {"mcp_servers": [server]}}


SENT = [
    _tools_authorization,  # a declared open field, no pair
    _tools_headers_mapping,
    _tools_headers_pairs,  # a declared open field holding pairs
    _extra_body_headers_pairs,  # pairs in extra_body
    _extra_body_env_pairs,
]


@pytest.mark.anyio
@pytest.mark.parametrize("sent", SENT, ids=lambda f: f.__name__.strip("_"))
async def test_a_400_quoting_a_credential_from_an_open_field_or_a_pair_does_not_show_it(
    sent: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lionagi")
    token = _token("plain")
    error = await _refused(f"the server refused the credential {token}", **sent(token))
    _hidden(token, error, caplog.records)


@pytest.mark.anyio
async def test_ordinary_pairs_beside_it_stay_visible(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="lionagi")
    token, team = _token("plain"), _token("department")
    settings = [{"key": "department", "value": team}, {"name": "auth_type", "value": "oauth_pkce"}]
    tools = [{**MCP, "authorization": token, "settings": settings}]
    message = f"department {team} (auth_type oauth_pkce) may not use the credential {token}"
    error = await _refused(message, tools=tools)
    _hidden(token, error, caplog.records)
    for shown in (str(error), error.body_excerpt or ""):
        assert f"department {team} (auth_type oauth_pkce)" in shown
