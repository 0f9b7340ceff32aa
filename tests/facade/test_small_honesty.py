"""Two small gaps a probe found: a setting that did nothing, and an error that did not say where.

- An agentic endpoint that runs a CLI or an in-process agent sends no HTTP request, yet
  `iModel(model="claude_code/sonnet", auth_type="bearer")` (or `default_headers=`,
  `client_kwargs=`: the other places an HTTP request carries credentials) was accepted and had
  no effect. An explicit `api_key=` / `api_key_env=` there is already refused; these are
  refused the same way, naming the field and the agent's own way to take credentials. A
  remote agentic endpoint (it speaks HTTP) and `auth_type="none"` stay accepted.
- A malformed SSE / NDJSON line (or an oversized event) in an HTTP stream raised
  `ProviderProtocolError("SSE data is not valid JSON: ...")` with no URL, while the one-shot
  call's protocol errors start with the redacted `scheme://host/path` they came from. The
  stream's framing errors now carry the same prefix, still redacted.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from pydantic import BaseModel, ConfigDict

from lionagi.service import Endpoint, EndpointConfigurationError, ProviderProtocolError, iModel
from lionagi.service.http import ChatCompletionsProjector

SECRET = "sk-test-ZZsmallHonestyQQ42secretXY"
PATH_SECRET = "ZZpathTenantQQ42secretXY"

# -- 1. HTTP credential settings on an agent that sends no HTTP request --------------------------


@pytest.mark.parametrize("model", ["claude_code/sonnet", "scripted/echo"])
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("auth_type", "bearer"),
        ("auth_type", "x-api-key"),
        ("default_headers", {"Authorization": f"Bearer {SECRET}"}),
        ("client_kwargs", {"headers": {"x-api-key": SECRET}}),
    ],
    ids=["bearer", "x-api-key", "default_headers", "client_kwargs"],
)
def test_http_credential_settings_on_an_agent_are_refused(
    model: str, field: str, value: Any
) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model=model, **{field: value})
    assert info.value.field == field
    message = str(info.value)
    assert SECRET not in message
    if model.startswith("claude_code"):
        # The fix names the CLI's own way to take a key, as the api_key_env refusal does.
        assert "agentic_settings" in message and "'env'" in message


def test_a_key_given_with_a_bearer_auth_type_on_a_cli_is_refused() -> None:
    """`auth_type="bearer"` made an explicit key look sendable; it was stored and never sent."""
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="claude_code/sonnet", auth_type="bearer", api_key=SECRET)
    assert info.value.field == "auth_type"
    assert SECRET not in str(info.value)


@pytest.mark.parametrize(
    "settings",
    [{}, {"auth_type": "none"}, {"default_headers": {}}, {"client_kwargs": {}}],
    ids=["nothing", "auth-none", "no-headers", "no-client-kwargs"],
)
def test_settings_that_change_nothing_stay_accepted_on_an_agent(settings: dict[str, Any]) -> None:
    model = iModel(model="claude_code/sonnet", **settings)
    assert model.endpoint.config.auth_type == "none"


def test_an_http_endpoint_still_takes_its_auth_settings() -> None:
    model = iModel(
        model="openai/gpt-4o", api_key=SECRET, auth_type="x-api-key", default_headers={"a": "b"}
    )
    assert model.endpoint.config.auth_type == "x-api-key"


# -- 2. A stream's framing errors name where, as invoke's protocol errors do ---------------------


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str
    messages: list[dict[str, Any]] | None = None


class _Chat(Endpoint):
    projector = ChatCompletionsProjector


def _delta(text: str) -> bytes:
    event = {"model": "m", "choices": [{"index": 0, "delta": {"content": text}}]}
    return f"data: {json.dumps(event)}\n\n".encode()


def _endpoint(body: bytes, content_type: str) -> _Chat:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"content-type": content_type})

    config = {
        "name": "test",
        "provider": "test",
        "endpoint": "tenants/{tenant}/chat",
        "endpoint_params": ["tenant"],
        "params": {"tenant": PATH_SECRET},
        "base_url": "http://127.0.0.1:9/v1?key=" + SECRET,
        "api_key": SECRET,
        "allow_local_network": True,
        "request_options": _Request,
        "timeout": 10.0,
    }
    return _Chat(config, transport=httpx.MockTransport(answer))


WHERE = "http://127.0.0.1:9/v1/tenants/[REDACTED]/chat: "
BAD_SSE = f"data: {{broken {SECRET}\n\n".encode()
BAD_NDJSON = f"{{broken {SECRET}\n".encode()


@pytest.mark.parametrize(
    ("body", "content_type", "problem"),
    [
        (_delta("a") + BAD_SSE, "text/event-stream", "SSE data is not valid JSON"),
        (_delta("a") + BAD_SSE + b"\xff", "text/event-stream", "SSE data is not valid JSON"),
        (_delta("a") + BAD_SSE.rstrip(), "text/event-stream", "SSE data is not valid JSON"),
        (BAD_NDJSON, "application/x-ndjson", "NDJSON line is not valid JSON"),
        (b"<html>" + SECRET.encode(), "text/html", "streaming response has content type"),
    ],
    ids=["sse-feed", "sse-before-bad-utf8", "sse-at-eof", "ndjson", "content-type"],
)
async def test_stream_framing_errors_name_the_redacted_url(
    body: bytes, content_type: str, problem: str
) -> None:
    async with _endpoint(body, content_type) as ep:
        with pytest.raises(ProviderProtocolError) as info:
            async for _ in ep.stream({"model": "m", "messages": []}):
                pass
    message = str(info.value)
    assert message.startswith(WHERE + problem), message
    assert SECRET not in message and PATH_SECRET not in message
