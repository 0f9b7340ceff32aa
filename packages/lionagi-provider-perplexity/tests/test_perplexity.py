from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from lionagi.providers.perplexity import PerplexityChat
from lionagi.service import EndpointConfigurationError, match_endpoint
from lionagi.service_testing.conformance import CatalogRow, HTTPChatConformance

SOURCES: dict[str, Any] = {
    "citations": ["https://a.example/1"],
    "search_results": [{"title": "One", "url": "https://a.example/1", "date": "2025-01-02"}],
}


class TestPerplexityChat(CatalogRow, HTTPChatConformance):
    provider = "perplexity"
    dialect = "openai_chat"
    tool_calls = reasoning = True


def sse(*events: dict[str, Any]) -> bytes:
    return (
        b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + b"data: [DONE]\n\n"
    )


def answer(request: httpx.Request) -> httpx.Response:
    if json.loads(request.content).get("stream"):
        body = sse(
            {"model": "sonar", "choices": [{"index": 0, "delta": {"content": "Hi"}}], **SOURCES},
            {
                "model": "sonar",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                **SOURCES,
            },
        )
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})
    message = {"role": "assistant", "content": "Hi"}
    return httpx.Response(
        200,
        json={
            "model": "sonar",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            **SOURCES,
        },
    )


async def public(host: str, port: int) -> list[str]:
    return ["93.184.215.14"]


def endpoint() -> PerplexityChat:
    row = match_endpoint("perplexity", "chat", api_key="k")
    return PerplexityChat(row.config, transport=httpx.MockTransport(answer), resolver=public)


async def test_sources_kept_on_stream_result_and_invoke_body() -> None:
    request = {"model": "sonar", "messages": [{"role": "user", "content": "hi"}]}
    async with endpoint() as ep:
        chunks = [c async for c in ep.stream(request)]
        body = await ep.call(request)
    [result] = [c for c in chunks if c.type == "result"]
    assert {k: result.metadata[k] for k in SOURCES} == SOURCES
    assert {k: body[k] for k in SOURCES} == SOURCES


def test_search_controls_are_typed() -> None:
    ep = match_endpoint("perplexity", "chat", api_key="k")
    payload, _ = ep.create_payload(
        {
            "model": "sonar",
            "messages": [],
            "search_mode": "academic",
            "search_recency_filter": "week",
            "search_after_date_filter": "3/1/2025",
            "web_search_options": {"search_context_size": "high"},
        }
    )
    assert payload["web_search_options"] == {"search_context_size": "high"}
    with pytest.raises(EndpointConfigurationError, match="search_after_date_filter"):
        ep.create_payload({"model": "m", "messages": [], "search_after_date_filter": "2025-03-01"})
