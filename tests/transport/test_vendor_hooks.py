"""Two generic hooks vendor distributions build on (issue 12).

``Endpoint.local_origins``: a local server's documented default origin is reachable without
``allow_local_network``; any other local destination still needs the opt-in.
``ChatCompletionsProjector.result_fields``: top-level fields of the chunks (Perplexity's
citations) reach the result chunk's metadata.
"""

from __future__ import annotations

from typing import Any, ClassVar

import httpx
import pytest

from lionagi.service import (
    Endpoint,
    ProviderQuotaExhaustedError,
    ProviderRateLimitError,
    UnsafeURLError,
)
from lionagi.service.http import ChatCompletionsProjector, OpenAIChatEndpoint, url_origin


class LocalDefault(Endpoint):
    local_origins: ClassVar[frozenset[str]] = frozenset({"http://localhost:11434"})


def answer(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"ok": True, "url": str(request.url)})


async def resolve_loopback(host: str, port: int) -> list[str]:
    return ["127.0.0.1"]


def endpoint(cls: type[Endpoint], base_url: str, **extra: Any) -> Endpoint:
    config = {
        "name": "local",
        "provider": "local",
        "endpoint": "api/generate",
        "base_url": base_url,
        "auth_type": "none",
        **extra,
    }
    return cls(config, transport=httpx.MockTransport(answer), resolver=resolve_loopback)


async def test_declared_local_origin_needs_no_opt_in() -> None:
    async with endpoint(LocalDefault, "http://localhost:11434") as ep:
        body = await ep.call({"model": "m"})
    assert body["url"] == "http://localhost:11434/api/generate"


async def test_declared_origin_matches_case_and_explicit_port() -> None:
    async with endpoint(LocalDefault, "HTTP://LocalHost:11434/") as ep:
        assert (await ep.call({"model": "m"}))["ok"] is True


@pytest.mark.parametrize(
    "base_url",
    [
        "http://localhost:8080",  # same host, another port
        "http://127.0.0.1:11434",  # the same server by address is not the declared origin
        "http://192.168.1.5:11434",  # another machine on the LAN
        "https://localhost:11434",  # another scheme
    ],
)
async def test_other_local_destinations_still_need_the_opt_in(base_url: str) -> None:
    async with endpoint(LocalDefault, base_url) as ep:
        with pytest.raises(UnsafeURLError):
            await ep.call({"model": "m"})
    async with endpoint(LocalDefault, base_url, allow_local_network=True) as ep:
        assert (await ep.call({"model": "m"}))["ok"] is True


async def test_base_class_declares_no_local_origin() -> None:
    async with endpoint(Endpoint, "http://localhost:11434") as ep:
        with pytest.raises(UnsafeURLError):
            await ep.call({"model": "m"})


def test_url_origin_normalises() -> None:
    assert url_origin("HTTPS://Example.COM/v1") == "https://example.com:443"
    assert url_origin("http://[::1]:11434/x") == "http://[::1]:11434"


class CitingProjector(ChatCompletionsProjector):
    result_fields = ("citations", "search_results")


def chunk(**fields: Any) -> dict[str, Any]:
    return {"model": "m", "choices": [], **fields}


def test_result_fields_reach_the_result_metadata() -> None:
    projector = CitingProjector()
    projector.feed(
        {
            "model": "m",
            "citations": ["https://a.example"],
            "choices": [{"index": 0, "delta": {"content": "hi"}}],
        }
    )
    projector.feed(
        {
            "model": "m",
            "citations": ["https://a.example", "https://b.example"],
            "search_results": [{"title": "B", "url": "https://b.example"}],
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        }
    )
    [result] = projector.end(eof=False)
    assert result.type == "result"
    assert result.metadata["citations"] == ["https://a.example", "https://b.example"]
    assert result.metadata["search_results"] == [{"title": "B", "url": "https://b.example"}]
    assert result.metadata["model"] == "m"


def test_base_projector_keeps_no_extra_fields() -> None:
    projector = ChatCompletionsProjector()
    projector.feed(
        {
            "model": "m",
            "citations": ["https://a.example"],
            "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}],
        }
    )
    [result] = projector.end(eof=False)
    assert set(result.metadata) == {"usage", "model", "finish_reason"}


async def test_openai_dialect_402_is_quota_exhausted_not_retried() -> None:
    """HTTP 402 (credits or prepaid balance used up) is billing, like ``insufficient_quota``."""

    def payment_required(request: httpx.Request) -> httpx.Response:
        return httpx.Response(402, json={"error": {"message": "Insufficient Balance"}})

    config = {
        "name": "c",
        "provider": "c",
        "endpoint": "chat/completions",
        "base_url": "https://api.example.com/v1",
        "api_key": "k",
    }
    async with OpenAIChatEndpoint(
        config, transport=httpx.MockTransport(payment_required), resolver=resolve_public
    ) as ep:
        with pytest.raises(ProviderQuotaExhaustedError) as caught:
            await ep.call({"model": "m", "messages": []})
    assert caught.value.status == 402
    assert not isinstance(caught.value, ProviderRateLimitError)


async def resolve_public(host: str, port: int) -> list[str]:
    return ["93.184.215.14"]
