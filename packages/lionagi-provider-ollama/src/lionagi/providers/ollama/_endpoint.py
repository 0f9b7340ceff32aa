"""Ollama's endpoint classes: the OpenAI-compatible chat and embeddings, native generate.

A local server: no key, and its documented default origin ``http://localhost:11434`` is the
one local destination these classes reach without ``allow_local_network`` (core's
``Endpoint.local_origins``). A caller's ``base_url`` naming any other local or private address
still needs ``allow_local_network=True``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel

from lionagi.service import (
    Endpoint,
    ProviderError,
    ProviderQuotaExhaustedError,
    ProviderStatusContextError,
)
from lionagi.service.http import (
    HTTPErrorInfo,
    OpenAIChatEndpoint,
    OpenAIEmbeddingsEndpoint,
    StreamFraming,
    StreamProjector,
)

from ._projector import OllamaGenerateProjector
from ._static import DEFAULT_ORIGIN as DEFAULT_ORIGIN

__all__ = ["DEFAULT_ORIGIN", "OllamaChat", "OllamaEmbeddings", "OllamaGenerate"]


_LOCAL: frozenset[str] = frozenset({DEFAULT_ORIGIN})
# Ollama's hosted service says this at HTTP 429 when the plan's usage is used up: billing, so
# not retried (a plain 429 "too many requests" stays a retried rate limit).
_USAGE_LIMIT = "usage limit"
# "the input length exceeds the context length" (a request with truncation off).
_CONTEXT = "exceeds the context length"


class OllamaChat(OpenAIChatEndpoint):
    """Chat completions on Ollama's OpenAI-compatible API (``/v1/chat/completions``)."""

    local_origins: ClassVar[frozenset[str]] = _LOCAL


class OllamaEmbeddings(OpenAIEmbeddingsEndpoint):
    """Embeddings on Ollama's OpenAI-compatible API (``/v1/embeddings``)."""

    local_origins: ClassVar[frozenset[str]] = _LOCAL


class OllamaGenerate(Endpoint):
    """Native ``POST /api/generate``: NDJSON lines when streaming, one object otherwise.

    Ollama streams unless the request says ``"stream": false``, so a one-shot call sends it
    explicitly (:meth:`create_payload`); ``stream()`` sets it to true as for every dialect.
    """

    projector: ClassVar[type[StreamProjector] | None] = OllamaGenerateProjector
    stream_framing: ClassVar[StreamFraming | None] = "ndjson"
    local_origins: ClassVar[frozenset[str]] = _LOCAL

    def create_payload(
        self,
        request: Mapping[str, Any] | BaseModel,
        extra_headers: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """The base payload with ``"stream": false`` (a stream turns it on again)."""
        payload, headers = super().create_payload(request, extra_headers, **kwargs)
        payload["stream"] = False
        return payload, headers

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """Type Ollama's flat ``{"error": "<text>"}`` bodies, which carry no codes.

        A used-up plan is a quota (not a rate limit), an over-long input a context error.
        """
        body = info.body
        text = body.get("error") if isinstance(body, dict) else None
        if info.status == 429 and isinstance(text, str) and _USAGE_LIMIT in text.lower():
            return ProviderQuotaExhaustedError(
                f"{info.where}: the plan's usage limit is reached (HTTP 429; billing, not a "
                f"rate limit, so it is not retried){info.suffix}",
                status=info.status,
                body_excerpt=info.excerpt,
            )
        if 400 <= info.status < 500 and isinstance(text, str) and _CONTEXT in text.lower():
            return ProviderStatusContextError(
                f"{info.where} refused the request: it does not fit the model's context window "
                f"(HTTP {info.status}){info.suffix}",
                status=info.status,
                body_excerpt=info.excerpt,
            )
        return super().map_status_error(info)
