"""The per-request routing hook (``Endpoint.request_target``) and the key-header name
(``Endpoint.api_key_header``), against the real fake server on loopback.

A dialect whose URL names the model (``models/{model}:generateContent``) and streams on another
path cannot use one fixed ``config.endpoint``; one whose key header is not ``x-api-key`` cannot
use the built-in ``auth_type``. Both are class-level declarations, so every path that builds a
request (``create_payload``, ``encode_payload``, a pre-created payload) honours them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import pytest

from lionagi.service import Endpoint, EndpointConfigurationError, ProviderProtocolError
from lionagi.service_testing.fake_server import FakeProviderServer

SECRET = "route-test-key-0123456789"


class ModelInPath(Endpoint):
    """Routes by the payload's ``model``; the model never reaches the body."""

    stream_flag: ClassVar[str | None] = None
    api_key_header: ClassVar[str] = "x-goog-api-key"

    def request_target(
        self, payload: Mapping[str, Any], *, stream: bool
    ) -> tuple[str | None, Mapping[str, Any]]:
        model = payload.get("model")
        if not isinstance(model, str):
            raise EndpointConfigurationError("model", "is required")
        verb = "streamGenerateContent?alt=sse" if stream else "generateContent"
        return f"models/{model}:{verb}", {k: v for k, v in payload.items() if k != "model"}


def _endpoint(base_url: str, **extra: Any) -> ModelInPath:
    return ModelInPath(
        {
            "name": "route",
            "provider": "route-test",
            "endpoint": "unused",
            "base_url": f"{base_url}/v1beta",
            "auth_type": "x-api-key",
            "api_key": SECRET,
            "allow_local_network": True,
            **extra,
        }
    )


REQUEST = {"model": "fake-gemini", "contents": [{"role": "user", "parts": [{"text": "hi"}]}]}


async def test_call_goes_to_the_path_the_hook_chose_without_the_path_field() -> None:
    async with FakeProviderServer() as server:
        async with _endpoint(server.base_url) as ep:
            body = await ep.call(dict(REQUEST))
        sent = server.requests[0]
    assert sent.path == "/v1beta/models/fake-gemini:generateContent"
    assert sent.json == {"contents": REQUEST["contents"]}
    assert body["modelVersion"] == "fake-gemini"


async def test_encoded_payload_keeps_its_route_and_the_event_payload() -> None:
    async with FakeProviderServer() as server:
        async with _endpoint(server.base_url) as ep:
            payload, headers = ep.create_payload(dict(REQUEST))
            encoded = ep.encode_payload(payload, stream=True)
            assert encoded["model"] == "fake-gemini"  # the recorded payload is untouched
            # Sent one-shot on purpose: the SSE body it gets back proves the stream route.
            with pytest.raises(ProviderProtocolError, match="not JSON: 'data: "):
                await ep.call(encoded, extra_headers=headers, skip_payload_creation=True)
        sent = server.requests[0]
    assert sent.path == "/v1beta/models/fake-gemini:streamGenerateContent"
    assert sent.query.get("alt") == "sse"
    assert "model" not in (sent.json or {})


async def test_base_url_query_is_kept_after_the_chosen_path() -> None:
    async with FakeProviderServer() as server:
        ep = _endpoint(server.base_url)
        ep = ModelInPath(ep.config.with_updates(base_url=f"{server.base_url}/v1beta?x=1"))
        async with ep:
            await ep.call(dict(REQUEST))
        sent = server.requests[0]
    assert sent.path == "/v1beta/models/fake-gemini:generateContent"
    assert sent.query.get("x") == "1"


async def test_key_travels_in_the_declared_header_only() -> None:
    ep = _endpoint("https://example.invalid")
    _, headers = ep.create_payload(dict(REQUEST))
    assert headers["x-goog-api-key"] == SECRET
    assert "x-api-key" not in headers
    assert "Authorization" not in headers
    encoded = ep.encode_payload(ep.create_payload(dict(REQUEST))[0])
    assert SECRET not in str(encoded.path)
    await ep.aclose()


async def test_base_endpoint_routes_to_full_url_and_x_api_key() -> None:
    ep = Endpoint(
        {
            "name": "plain",
            "provider": "route-test",
            "endpoint": "v1/things",
            "base_url": "https://example.invalid",
            "auth_type": "x-api-key",
            "api_key": SECRET,
        }
    )
    payload, headers = ep.create_payload({"a": 1})
    assert headers["x-api-key"] == SECRET
    assert ep.request_target(payload, stream=False) == (None, payload)
    assert ep.encode_payload(payload).path is None
    await ep.aclose()


async def test_hook_refusal_is_the_callers_error() -> None:
    async with FakeProviderServer() as server:
        async with _endpoint(server.base_url) as ep:
            with pytest.raises(EndpointConfigurationError) as info:
                await ep.call({"contents": []})
        assert server.requests == []
    assert info.value.field == "model"
