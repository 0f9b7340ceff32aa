"""The HTTP conformance kit on every OpenAI row, built from this distribution's catalog rows."""

from __future__ import annotations

from typing import Any

from lionagi.providers.openai import (
    OpenAIChatCompletionsEndpoint,
    OpenAIEmbeddingsAPIEndpoint,
    OpenAIResponsesEndpoint,
)
from lionagi.service import Endpoint, match_endpoint
from lionagi.service_testing.conformance import HTTPChatConformance, HTTPEmbeddingsConformance


def row(endpoint: str, base_url: str, api_key: str, expected: type[Endpoint]) -> Endpoint:
    ep = match_endpoint(
        "openai", endpoint, base_url=base_url, api_key=api_key, allow_local_network=True
    )
    assert type(ep) is expected
    return ep


class TestOpenAIChat(HTTPChatConformance):
    dialect = "openai_chat"
    tool_calls = True
    usage = True
    reasoning = True

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return row("chat", base_url, api_key, OpenAIChatCompletionsEndpoint)

    def valid_request(self) -> dict[str, Any]:
        return {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hello"}]}


class TestOpenAIResponses(HTTPChatConformance):
    dialect = "openai_responses"
    tool_calls = True
    usage = True
    reasoning = True

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return row("response", base_url, api_key, OpenAIResponsesEndpoint)

    def valid_request(self) -> dict[str, Any]:
        return {"model": "gpt-4.1-mini", "input": "hello"}


class TestOpenAIEmbeddings(HTTPEmbeddingsConformance):
    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return row("embed", base_url, api_key, OpenAIEmbeddingsAPIEndpoint)

    def valid_request(self) -> dict[str, Any]:
        return {"model": "text-embedding-3-small", "input": ["alpha", "beta gamma"]}
