"""Exa's rows against the fake server: payloads, one-shot only, typed errors, iModel end to end."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from lionagi.providers.exa import PROVIDER_SPECS
from lionagi.service import (
    Endpoint,
    EndpointConfigurationError,
    ProviderAuthError,
    ProviderQuotaExhaustedError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderUnauthorizedError,
    iModel,
    match_endpoint,
)
from lionagi.service_testing.fake_server import FakeProviderServer

KEY = "exa-key-0123456789abcdefTEST"
REQUESTS: dict[str, dict[str, Any]] = {
    "search": {"query": "rust async runtimes", "numResults": 2, "contents": {"text": True}},
    "contents": {"urls": ["https://example.com/x"], "text": {"maxCharacters": 500}},
    "findSimilar": {"url": "https://example.com/x", "numResults": 2, "excludeSourceDomain": True},
}


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as fake:
        yield fake


def endpoint(server: FakeProviderServer, row: str) -> Endpoint:
    return match_endpoint(
        "exa", row, base_url=server.base_url, api_key=KEY, allow_local_network=True
    )


def test_rows_match_the_bundled_catalog_table():
    rows = {spec.endpoint: spec for spec in PROVIDER_SPECS}
    assert set(rows) == {"search", "contents", "findSimilar", "answer"}
    assert rows["contents"].endpoint_aliases == ("get_contents",)
    assert rows["findSimilar"].endpoint_aliases == ("similar", "find_similar")
    for spec in rows.values():
        assert (spec.provider, spec.base_url, spec.auth_type, spec.api_key_env) == (
            "exa",
            "https://api.exa.ai",
            "x-api-key",
            "EXA_API_KEY",
        )


@pytest.mark.parametrize("row", list(REQUESTS))
async def test_one_shot_posts_the_typed_body_with_the_key_header(server, row):
    ep = endpoint(server, row)
    try:
        body = await ep.call(REQUESTS[row])
    finally:
        await ep.aclose()
    assert body["results"]
    sent = server.requests[-1]
    assert sent.path == f"/{row}"
    assert sent.json == REQUESTS[row]
    assert "x-api-key" in sent.headers
    assert "authorization" not in sent.headers


# ``search`` streams (Exa's answer-stream grammar on /search; tests/test_answer.py): only the
# rows Exa answers with one JSON document refuse ``stream()``.
@pytest.mark.parametrize("row", [row for row in REQUESTS if row != "search"])
async def test_stream_is_refused_before_any_request(server, row):
    ep = endpoint(server, row)
    try:
        with pytest.raises(EndpointConfigurationError) as refused:
            async for _ in ep.stream(REQUESTS[row]):
                pass
    finally:
        await ep.aclose()
    assert refused.value.field == "stream"
    assert server.requests == []


def test_stream_is_not_a_request_field():
    ep = match_endpoint("exa", "search", api_key=KEY)
    with pytest.raises(EndpointConfigurationError) as bad:
        ep.create_payload({"query": "x", "stream": True})
    assert bad.value.field == "stream"


@pytest.mark.parametrize(
    ("row", "request_", "field", "hint"),
    [
        ("search", {"query": "x", "numresults": 3}, "numresults", "numResults"),
        ("search", {"query": "x", "includeDomain": ["a"]}, "includeDomain", "includeDomains"),
        ("search", {"query": "x", "type": "semantic"}, "type", None),
        ("search", {"query": "x", "numResults": 0}, "numResults", None),
        ("search", {"query": ""}, "query", None),
        (
            "search",
            {"query": "x", "contents": {"livecrawl": "sometimes"}},
            "contents.livecrawl",
            None,
        ),
        ("search", {"query": "x", "contents": {"text": "yes"}}, "contents.text", None),
        ("findSimilar", {"numResults": 2}, "url", None),
        ("contents", {"text": True}, "request", None),
    ],
)
def test_bad_requests_are_refused_naming_the_field(row, request_, field, hint):
    ep = match_endpoint("exa", row, api_key=KEY)
    with pytest.raises(EndpointConfigurationError) as bad:
        ep.create_payload(request_)
    assert bad.value.field.startswith(field)
    if hint:
        assert f"did you mean {hint!r}" in str(bad.value)


def test_summary_options_are_checked_and_schema_is_sent_as_named():
    ep = match_endpoint("exa", "search", api_key=KEY)
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    payload, _ = ep.create_payload(
        {"query": "x", "contents": {"summary": {"query": "who", "schema": schema}}}
    )
    assert payload["contents"] == {"summary": {"query": "who", "schema": schema}}
    with pytest.raises(EndpointConfigurationError, match="qury"):
        ep.create_payload({"query": "x", "contents": {"summary": {"qury": "who"}}})


async def call(server: FakeProviderServer, behaviour: str, **headers: str) -> Any:
    ep = endpoint(server, "search")
    try:
        return await ep.call(
            REQUESTS["search"], extra_headers={"x-fake-behaviour": behaviour, **headers}
        )
    finally:
        await ep.aclose()


async def test_out_of_credits_is_quota_exhausted_not_rate_limited(server):
    with pytest.raises(ProviderQuotaExhaustedError) as info:
        await call(server, "quota")
    assert not isinstance(info.value, ProviderRateLimitError)
    assert not info.value.retryable
    assert "NO_MORE_CREDITS" in (info.value.body_excerpt or "")


async def test_rate_limit_keeps_retry_after(server):
    with pytest.raises(ProviderRateLimitError) as info:
        await call(server, "429", **{"x-fake-retry-after": "2"})
    assert info.value.retry_after == 2.0


async def test_401_is_unauthorized_and_redacted(server):
    with pytest.raises(ProviderUnauthorizedError) as info:
        await call(server, "401")
    assert KEY not in str(info.value)


async def test_403_is_auth(server):
    with pytest.raises(ProviderAuthError):
        await call(server, "403")


async def test_overloaded_is_a_retryable_server_error(server):
    with pytest.raises(ProviderServerError) as info:
        await call(server, "overloaded")
    assert info.value.retryable


async def test_imodel_invokes_and_refuses_to_stream(server):
    options = {"base_url": server.base_url, "allow_local_network": True, "api_key": KEY}
    async with iModel(provider="exa", endpoint="find_similar", **options) as exa:
        event = await exa.invoke(url="https://example.com/x", numResults=3)
        assert event.exception is None, event.exception
        assert len(event.execution.response["results"]) == 3
        assert server.requests[-1].path == "/findSimilar"
        with pytest.raises(EndpointConfigurationError):
            async for _ in exa.stream(url="https://example.com/x"):
                pass
        assert len(server.requests) == 1
