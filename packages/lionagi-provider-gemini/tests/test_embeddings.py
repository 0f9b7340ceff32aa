"""The ``embeddings`` row: Gemini's OpenAI-compatible ``.../v1beta/openai/embeddings``.

Calls go to the fake server (its OpenAI embeddings route) and, for the Google error bodies the
fake does not write on that route, to a loopback server answering a given status and body.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from lionagi.providers.gemini import GeminiEmbeddings
from lionagi.service import (
    Endpoint,
    EndpointConfigurationError,
    EventStatus,
    OpenAIEmbeddingsRequest,
    ProviderCatalog,
    ProviderQuotaExhaustedError,
    ProviderRateLimitError,
    ProviderUnauthorizedError,
    iModel,
    match_endpoint,
)
from lionagi.service_testing import embed, scripted_stream_server
from lionagi.service_testing.fake_server import FakeProviderServer

KEY = "AIzaEmbeddingsKey0123456789abcdef"
MODEL = "gemini-embedding-001"
INPUT = ["alpha", "beta gamma"]
COMPAT = "/v1beta/openai"


def row(base_url: str) -> Endpoint:
    return match_endpoint(
        "gemini", "embeddings", base_url=base_url, api_key=KEY, allow_local_network=True
    )


def test_the_row_resolves_by_key_alias_and_provider_alias() -> None:
    model = iModel(provider="gemini", endpoint="embeddings", model=MODEL, api_key=KEY)
    config = model.endpoint.config
    assert type(model.endpoint) is GeminiEmbeddings
    assert (config.provider, config.endpoint) == ("gemini", "embeddings")
    assert config.base_url == "https://generativelanguage.googleapis.com/v1beta/openai"
    assert config.auth_type == "bearer"
    assert config.api_key_env == "GEMINI_API_KEY"
    assert config.request_defaults == {"model": MODEL}  # the caller's model, no row default
    assert model.endpoint.request_options is OpenAIEmbeddingsRequest
    for provider, endpoint in (("gemini", "embed"), ("gemini-api", "embeddings")):
        assert type(match_endpoint(provider, endpoint, api_key=KEY)) is GeminiEmbeddings
    bare = iModel(model=f"gemini/{MODEL}", endpoint="embed", api_key=KEY)
    assert bare.endpoint.config.endpoint == "embeddings"


def test_the_catalog_validates_the_provider_with_its_five_rows() -> None:
    # Resolving the provider imports and checks every row, as ``providers --strict`` does.
    provider = ProviderCatalog().snapshot().provider("gemini")
    assert set(provider.endpoints) == {
        "chat/completions",
        "embeddings",
        "generate_content",
        "embed_content",
        "batch_embed_contents",
    }
    entry = provider.endpoints["embeddings"]
    assert entry.resolved_class is GeminiEmbeddings
    assert entry.request_options is OpenAIEmbeddingsRequest
    assert entry.aliases == ("embed",)
    assert entry.meta.request_defaults == {}


async def test_invoke_posts_the_body_with_the_bearer_key_and_returns_the_vectors() -> None:
    async with FakeProviderServer() as server:
        async with iModel(
            provider="gemini",
            endpoint="embeddings",
            model=MODEL,
            base_url=f"{server.base_url}{COMPAT}",
            api_key=KEY,
            allow_local_network=True,
        ) as model:
            call = await model.invoke(input=INPUT, dimensions=16, encoding_format="float")
        sent = server.requests
    assert call.execution.status is EventStatus.COMPLETED, call.execution.error
    data = call.execution.response["data"]
    assert [item["embedding"] for item in data] == [embed(text, 16) for text in INPUT]
    assert call.execution.response["usage"]["total_tokens"] > 0
    assert len(sent) == 1
    assert (sent[0].method, sent[0].path) == ("POST", f"{COMPAT}/embeddings")
    assert sent[0].json == {
        "model": MODEL,
        "input": INPUT,
        "dimensions": 16,
        "encoding_format": "float",
    }
    # The key arrived in the Authorization header (the record keeps only its digest) ...
    assert sent[0].credential_sha256 == hashlib.sha256(KEY.encode()).hexdigest()
    assert "authorization" in sent[0].headers
    assert "x-goog-api-key" not in sent[0].headers
    assert "key" not in sent[0].query
    # ... as a bearer token.
    _, headers = row(server.base_url).create_payload({"model": MODEL, "input": "x"})
    assert headers["Authorization"] == f"Bearer {KEY}"


async def test_stream_is_refused_before_any_request() -> None:
    async with FakeProviderServer() as server:
        async with iModel(
            provider="gemini",
            endpoint="embed",
            model=MODEL,
            base_url=f"{server.base_url}{COMPAT}",
            api_key=KEY,
            allow_local_network=True,
        ) as model:
            with pytest.raises(EndpointConfigurationError) as refused:
                async for _ in model.stream(input="alpha"):
                    pass
        assert server.requests == []
    assert refused.value.field == "stream"


@pytest.mark.parametrize(
    ("field", "hint"),
    [("dimension", "did you mean 'dimensions'"), ("task_type", "accepted: dimensions")],
)
def test_an_unknown_request_field_is_refused_naming_it(field: str, hint: str) -> None:
    ep = match_endpoint("gemini", "embeddings", api_key=KEY)
    with pytest.raises(EndpointConfigurationError, match=hint) as info:
        ep.create_payload({"model": MODEL, "input": "x", field: 8})
    assert info.value.field == field


async def fake_error(behaviour: str) -> BaseException:
    """What a one-shot call raises when the fake server answers ``behaviour``."""
    async with FakeProviderServer() as server, row(f"{server.base_url}{COMPAT}") as ep:
        payload, sent = ep.create_payload(
            {"model": MODEL, "input": "alpha"}, extra_headers={"x-fake-behaviour": behaviour}
        )
        with pytest.raises(Exception) as info:
            await ep.call(payload, extra_headers=sent, skip_payload_creation=True)
        assert [r.path for r in server.requests] == [f"{COMPAT}/embeddings"]
    assert KEY not in str(info.value)
    return info.value


async def test_an_openai_dialect_429_maps_like_the_chat_row() -> None:
    exc = await fake_error("429")
    assert isinstance(exc, ProviderRateLimitError)
    assert exc.retry_after == 1.0
    assert "(HTTP 429)" in str(exc)
    assert "RESOURCE_EXHAUSTED" not in str(exc)


async def test_a_rejected_key_is_unauthorized_and_its_echo_is_redacted() -> None:
    exc = await fake_error("401")  # the fake's 401 body quotes the key it was sent
    assert isinstance(exc, ProviderUnauthorizedError)
    assert exc.status == 401


async def loopback_error(status: int, body: Any) -> BaseException:
    served = scripted_stream_server(
        [json.dumps(body).encode()], path=COMPAT, content_type="application/json", status=status
    )
    async with served as server, row(server.url) as ep:
        with pytest.raises(Exception) as info:
            await ep.call({"model": MODEL, "input": "alpha"})
    assert server.request_lines == [f"POST {COMPAT}/embeddings HTTP/1.1"]
    assert KEY not in str(info.value)
    return info.value


def google_error(code: int, status: str, message: str, *details: dict[str, Any]) -> Any:
    # The layer sends Google's error object, sometimes wrapped in a one-element list.
    return [{"error": {"code": code, "message": message, "status": status, "details": [*details]}}]


async def test_google_status_bodies_map_like_the_chat_row() -> None:
    invalid_key = {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "API_KEY_INVALID",
        "domain": "googleapis.com",
    }
    exc = await loopback_error(
        400, google_error(400, "INVALID_ARGUMENT", f"API key not valid: {KEY}", invalid_key)
    )
    assert isinstance(exc, ProviderUnauthorizedError)
    assert exc.status == 400

    daily = {
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        "violations": [{"quotaId": "EmbedContentRequestsPerDayPerProjectPerModel-FreeTier"}],
    }
    retry = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "13s"}
    exc = await loopback_error(429, google_error(429, "RESOURCE_EXHAUSTED", "Quota", daily, retry))
    assert isinstance(exc, ProviderQuotaExhaustedError)
    assert not exc.retryable

    exc = await loopback_error(429, google_error(429, "RESOURCE_EXHAUSTED", "Quota", retry))
    assert isinstance(exc, ProviderRateLimitError)
    assert exc.retry_after == 13.0  # from google.rpc.RetryInfo: the reply has no Retry-After
