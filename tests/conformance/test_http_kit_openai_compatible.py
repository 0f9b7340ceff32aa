"""The HTTP kit run against core's own endpoints: the generic OpenAI-compatible chat endpoint,
plain endpoints on the Responses and Messages routes (core's other two stream grammars), the
embeddings route, and plain JSON endpoints.

This is the ten-line file an HTTP adapter author writes (``docs/conformance.md``).
"""

from __future__ import annotations

from typing import Any

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


class TestPlainResponses(HTTPChatConformance):
    """Core's Responses grammar on a plain endpoint: the kit's ``openai_responses`` readers."""

    dialect = "openai_responses"
    tool_calls = True
    reasoning = True

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return plain_endpoint("responses", base_url, api_key)

    def valid_request(self) -> dict[str, Any]:
        return {"model": "fake-model", "input": "hello"}


class TestPlainAnthropicMessages(HTTPChatConformance):
    """Core's Messages grammar on a plain endpoint (``x-api-key`` auth)."""

    dialect = "anthropic_messages"
    tool_calls = True
    reasoning = True

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return Endpoint({**plain_config("messages", base_url, api_key), "auth_type": "x-api-key"})

    def valid_request(self) -> dict[str, Any]:
        return {
            "model": "fake-claude",
            "max_tokens": 64,
            "messages": [{"role": "user", "content": "hello"}],
        }


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
