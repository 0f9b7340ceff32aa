"""The HTTP conformance kit against every Gemini endpoint, built from the catalog rows."""

from __future__ import annotations

from typing import Any

from lionagi.service import Endpoint, match_endpoint
from lionagi.service_testing.conformance import HTTPChatConformance, HTTPEmbeddingsConformance


class TestGeminiChatConformance(HTTPChatConformance):
    """``chat/completions`` through the compatibility layer (the OpenAI chat dialect)."""

    dialect = "openai_chat"
    tool_calls = True
    reasoning = True

    def base_path(self) -> str:
        return "/v1beta/openai"  # the layer's root, under the native API's version

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return match_endpoint(
            "gemini", "chat", base_url=base_url, api_key=api_key, allow_local_network=True
        )

    def valid_request(self) -> dict[str, Any]:
        return {"model": "gemini-2.5-flash", "messages": [{"role": "user", "content": "hello"}]}


class TestGeminiGenerateContentConformance(HTTPChatConformance):
    """``generate_content`` on the native API (one-shot and ``streamGenerateContent``)."""

    dialect = "gemini"
    tool_calls = True
    reasoning = True
    # A part's kind is its field name, so the projector refuses a field it does not know (it
    # may be content) rather than drop it: the kit checks the refusal is a protocol error.
    refuses_unknown_stream_fields = True

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return match_endpoint(
            "gemini-api", "generate", base_url=base_url, api_key=api_key, allow_local_network=True
        )

    def valid_request(self) -> dict[str, Any]:
        return {
            "model": "gemini-2.5-flash",
            "contents": [{"role": "user", "parts": [{"text": "hello"}]}],
        }


class TestGeminiEmbeddingsConformance(HTTPEmbeddingsConformance):
    """``embeddings`` through the compatibility layer (the OpenAI embeddings dialect)."""

    def base_path(self) -> str:
        return "/v1beta/openai"

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return match_endpoint(
            "gemini", "embed", base_url=base_url, api_key=api_key, allow_local_network=True
        )

    def valid_request(self) -> dict[str, Any]:
        return {"model": "gemini-embedding-001", "input": ["alpha", "beta gamma"]}
