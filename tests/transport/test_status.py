"""One-shot calls over a loopback socket: JSON decoding and status to typed error."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from lionagi.service import (
    ProviderClientError,
    ProviderConnectionError,
    ProviderContextError,
    ProviderProtocolError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderStatusContextError,
    ProviderStatusError,
    ProviderUnauthorizedError,
)
from lionagi.service._transport.http.status import parse_retry_after

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": " 2.5 "}, 2.5),
        ({"retry-after": format_datetime(NOW + timedelta(seconds=30), usegmt=True)}, 30.0),
        ({"retry-after": format_datetime(NOW - timedelta(seconds=30), usegmt=True)}, 0.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-3"}, None),
        ({"retry-after": ""}, None),
        ({"retry-after-ms": "1500"}, 1.5),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers, now=NOW) == expected


async def test_call_returns_decoded_json_and_sends_the_request(serve, make_endpoint, wire, secret):
    server = await serve(lambda req: wire.full(200, '{"id": "x", "choices": []}'))
    ep = make_endpoint(server.base_url + "/v1", default_headers={"x-team": "a"})
    result = await ep.call({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert result == {"id": "x", "choices": []}
    (req,) = server.requests
    assert req.method == "POST"
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {secret}"
    assert req.headers["content-type"] == "application/json"
    assert req.headers["x-team"] == "a"
    assert json.loads(req.body) == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
    }
    assert "stream" not in json.loads(req.body)


@pytest.mark.parametrize(
    ("status", "error_type"),
    [
        (400, ProviderClientError),
        (401, ProviderUnauthorizedError),
        (403, ProviderUnauthorizedError),
        (404, ProviderClientError),
        (422, ProviderClientError),
        (500, ProviderServerError),
        (502, ProviderServerError),
        (503, ProviderServerError),
    ],
)
async def test_status_maps_to_typed_error(serve, make_endpoint, wire, status, error_type):
    server = await serve(lambda req: wire.full(status, '{"error": {"message": "nope"}}'))
    ep = make_endpoint(server.base_url)
    with pytest.raises(error_type) as info:
        await ep.call({"model": "m"})
    assert type(info.value) is error_type
    assert info.value.status == status
    assert "nope" in info.value.body_excerpt
    assert str(status) in str(info.value)


@pytest.mark.parametrize(
    ("retry_after", "expected"),
    [("12", 12.0), ("not-a-date", None), (None, None)],
)
async def test_429_carries_retry_after(serve, make_endpoint, wire, retry_after, expected):
    extra = {"Retry-After": retry_after} if retry_after is not None else {}
    server = await serve(lambda req: wire.full(429, '{"error": "slow down"}', extra=extra))
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderRateLimitError) as info:
        await ep.call({"model": "m"})
    assert info.value.status == 429
    assert info.value.retry_after == expected
    assert info.value.retryable


async def test_429_with_http_date(serve, make_endpoint, wire):
    when = format_datetime(datetime.now(UTC) + timedelta(hours=1), usegmt=True)
    server = await serve(lambda req: wire.full(429, "{}", extra={"Retry-After": when}))
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderRateLimitError) as info:
        await ep.call({"model": "m"})
    assert info.value.retry_after is not None
    assert 3000 < info.value.retry_after <= 3600


async def test_redirect_is_not_followed(serve, make_endpoint, wire):
    server = await serve(
        lambda req: wire.full(302, "", extra={"Location": "http://169.254.169.254/latest"})
    )
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderClientError) as info:
        await ep.call({"model": "m"})
    assert info.value.status == 302
    assert "169.254.169.254" in str(info.value)
    assert len(server.requests) == 1


async def test_a_3xx_without_location_says_so_not_redirecting_to_nothing(
    serve, make_endpoint, wire
):
    server = await serve(lambda req: wire.full(304, ""))
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderClientError) as info:
        await ep.call({"model": "m"})
    assert info.value.status == 304
    assert "no Location" in str(info.value)
    assert "redirecting" not in str(info.value)


async def test_error_body_excerpt_is_bounded(serve, make_endpoint, wire):
    body = "E" * 500_000
    server = await serve(lambda req: wire.full(500, body, content_type="text/plain"))
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderStatusError) as info:
        await ep.call({"model": "m"})
    assert len(info.value.body_excerpt) < 3000
    assert len(str(info.value)) < 3500


async def test_non_json_success_body_is_a_protocol_error(serve, make_endpoint, wire):
    server = await serve(lambda req: wire.full(200, "<html>hello</html>", content_type="text/html"))
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderProtocolError, match="not JSON"):
        await ep.call({"model": "m"})


async def test_204_without_body_is_none(serve, make_endpoint, wire):
    server = await serve(lambda req: [wire.head(204, content_type=None, chunked=False)])
    ep = make_endpoint(server.base_url)
    assert await ep.call({"model": "m"}) is None


async def test_server_closing_without_reply_is_a_connection_error(serve, make_endpoint):
    server = await serve(lambda req: [])
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderConnectionError):
        await ep.call({"model": "m"})


async def test_connection_refused_is_a_connection_error(serve, make_endpoint, wire):
    server = await serve(lambda req: wire.full(200, "{}"))
    url = server.base_url
    await server.aclose()
    ep = make_endpoint(url)
    with pytest.raises(ProviderConnectionError, match="connection failed"):
        await ep.call({"model": "m"})


async def test_timeout_is_a_connection_error(serve, make_endpoint, wire):
    server = await serve(lambda req: [5.0, *wire.full(200, "{}")])
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderConnectionError, match="timed out"):
        await ep.call({"model": "m"}, timeout=0.2)


async def test_get_endpoint_sends_query_parameters(serve, make_endpoint, wire):
    server = await serve(lambda req: wire.full(200, "[]"))
    ep = make_endpoint(server.base_url, endpoint="models", method="GET")
    assert await ep.call({"limit": 2}) == []
    assert server.requests[0].method == "GET"
    assert server.requests[0].path == "/models?limit=2"


async def test_mock_transport_is_injectable(make_endpoint):
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"ok": True})

    ep = make_endpoint("http://127.0.0.1:9", transport=httpx.MockTransport(handler))
    assert await ep.call({"model": "m"}) == {"ok": True}
    assert seen[0].url.path == "/chat/completions"


# The bodies OpenAI(-compatible servers) and Anthropic send for an over-long prompt.
_CONTEXT_BODIES = [
    '{"error": {"message": "This model\'s maximum context length is 8192 tokens. However, '
    'your messages resulted in 9000 tokens.", "type": "invalid_request_error", '
    '"param": "messages", "code": "context_length_exceeded"}}',
    '{"type": "error", "error": {"type": "invalid_request_error", '
    '"message": "prompt is too long: 210000 tokens > 200000 maximum"}}',
]


@pytest.mark.parametrize("body", _CONTEXT_BODIES)
async def test_context_length_4xx_is_a_context_error(serve, make_endpoint, wire, body):
    """An over-long prompt is a 400 everywhere; its body puts it in the context family."""
    server = await serve(lambda req: wire.full(400, body))
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderContextError) as info:
        await ep.call({"model": "m"})
    assert type(info.value) is ProviderStatusContextError
    assert isinstance(info.value, ProviderClientError)  # still a refused request, status kept
    assert info.value.status == 400
    assert not info.value.retryable
    assert "context window" in str(info.value)
