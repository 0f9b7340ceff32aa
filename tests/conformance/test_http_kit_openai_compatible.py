"""The HTTP kit run against core's own endpoints: the generic OpenAI-compatible chat endpoint,
the embeddings route, and plain JSON endpoints (the vendor dialects run it in their packages).

This is the ten-line file an HTTP adapter author writes (``docs/conformance.md``).
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import Endpoint, match_endpoint
from lionagi.service_testing.conformance import (
    HTTPChatConformance,
    HTTPEmbeddingsConformance,
    HTTPJSONConformance,
)


class TestOpenAICompatibleChat(HTTPChatConformance):
    dialect = "openai_chat"
    tool_calls = True
    reasoning = True

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return match_endpoint(
            "conformance-llm",
            "",
            openai_compatible=True,
            base_url=base_url,
            api_key=api_key,
            allow_local_network=True,
        )

    def valid_request(self) -> dict[str, Any]:
        return {"model": "fake-model", "messages": [{"role": "user", "content": "hello"}]}


def plain_config(path: str, base_url: str, api_key: str) -> dict[str, Any]:
    return {
        "name": path,
        "provider": "conformance-data",
        "endpoint": path,
        "base_url": base_url,
        "api_key": api_key,
        "allow_local_network": True,
    }


def plain_endpoint(path: str, base_url: str, api_key: str) -> Endpoint:
    return Endpoint(plain_config(path, base_url, api_key))


class TestPlainEmbeddings(HTTPEmbeddingsConformance):
    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return plain_endpoint("embeddings", base_url, api_key)

    def valid_request(self) -> dict[str, Any]:
        return {"model": "fake-embedding", "input": ["alpha", "beta gamma"]}


class TestPlainJSONOnEmbeddingsRoute(HTTPJSONConformance):
    """The JSON kit is path-agnostic; the embeddings route exists in every fake server."""

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return plain_endpoint("v1/embeddings", base_url, api_key)

    def valid_request(self) -> dict[str, Any]:
        return {"input": "alpha"}


class TestPlainJSONSearch(HTTPJSONConformance):
    """``/search`` (generic JSON dialect); skipped until the fake server routes it."""

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return plain_endpoint("search", base_url, api_key)

    def valid_request(self) -> dict[str, Any]:
        return {"query": "alpha"}


class TestPlainGeminiOneShot(HTTPChatConformance):
    """Gemini's generateContent, one-shot only (core has no Gemini stream grammar)."""

    dialect = "gemini"
    streams = False
    tool_calls = True
    reasoning = True

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return plain_endpoint("models/fake-gemini:generateContent", base_url, api_key)

    def valid_request(self) -> dict[str, Any]:
        return {"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}

    def test_unsupported_model_is_typed_not_retried_circuit_neutral(self) -> None:
        # Gemini says "unknown model" in its own words (a 404 NOT_FOUND naming "models/<name>"),
        # which only the gemini distribution's hook reads: core names no vendor, and a plain
        # Endpoint has no vendor vocabulary. The gemini package runs this case on its rows.
        pytest.skip("a plain core Endpoint has no Gemini error vocabulary (see the gemini package)")
