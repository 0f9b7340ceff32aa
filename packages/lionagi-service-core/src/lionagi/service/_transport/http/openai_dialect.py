"""The OpenAI-compatible dialect several providers share: chat completions and embeddings.

This is a wire dialect, not a vendor: the thin vendors (and the explicit compatible fallback)
speak it, so it is written once here. A vendor with a dialect of its own (Responses, Messages,
native Gemini or Ollama) ships its endpoint and projector in its distribution.

Errors: :func:`openai_status_error` reads the ``{"error": {"code", "type", "message"}}`` body the
dialect returns and types what the status alone cannot say (a context overflow is an HTTP 400,
an exhausted billing quota an HTTP 429 that must not be retried).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..._base.errors import (
    ProviderError,
    ProviderQuotaExhaustedError,
    ProviderStatusContextError,
)
from .endpoint import Endpoint
from .projection import ChatCompletionsProjector, StreamProjector
from .status import HTTPErrorInfo

if TYPE_CHECKING:
    import httpx

__all__ = ["OpenAIChatEndpoint", "OpenAIEmbeddingsEndpoint", "openai_status_error"]

_CONTEXT_CODES = frozenset({"context_length_exceeded", "string_above_max_length"})
_QUOTA_CODES = frozenset({"insufficient_quota", "billing_hard_limit_reached"})


def openai_status_error(info: HTTPErrorInfo) -> ProviderError | None:
    """The typed error an OpenAI-dialect error body names, or None for the status mapping.

    ``code`` (else ``type``) ``context_length_exceeded`` -> :class:`ProviderStatusContextError`;
    ``insufficient_quota`` or HTTP 402 -> :class:`ProviderQuotaExhaustedError` (billing: never
    retried).
    Messages carry only the redacted excerpt.
    """
    error = info.error
    code = error.get("code") or error.get("type")
    kind = error.get("type")
    names = {value for value in (code, kind) if isinstance(value, str)}
    if names & _CONTEXT_CODES:
        return ProviderStatusContextError(
            f"{info.where} refused the request: it does not fit the model's context window "
            f"(HTTP {info.status}){info.suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
        )
    # HTTP 402 Payment Required is how several compatible services (credits, prepaid balance)
    # say what insufficient_quota says.
    if names & _QUOTA_CODES or info.status == 402:
        return ProviderQuotaExhaustedError(
            f"{info.where}: the account's quota is exhausted (HTTP {info.status}; billing, not "
            f"a rate limit, so it is not retried){info.suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
        )
    return None


class OpenAIChatEndpoint(Endpoint):
    """An endpoint speaking the chat-completions dialect (``POST .../chat/completions``).

    Streams are projected by :class:`ChatCompletionsProjector`. A streaming request asks for
    the usage record (``stream_options={"include_usage": True}``) when the request model has a
    ``stream_options`` field and the caller did not set it, so the result chunk carries usage.
    Subclass it per provider (the catalog wants one class per row); add vendor error codes by
    overriding :meth:`map_status_error` and calling ``super()``.
    """

    projector: ClassVar[type[StreamProjector] | None] = ChatCompletionsProjector

    def stream_payload(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Request the usage record on a stream when the request model can carry it."""
        model = self.request_options
        if (
            model is not None
            and "stream_options" in model.model_fields
            and payload.get("stream_options") is None
        ):
            payload["stream_options"] = {"include_usage": True}
        return payload

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """The dialect's error codes (:func:`openai_status_error`), then the base's."""
        return openai_status_error(info) or super().map_status_error(info)

    def check_response(self, body: Any, response: httpx.Response) -> Any:
        """``body``, unless it is the error object a stream of this dialect would end with.

        OpenAI's edge, gateways and compatible servers answer some failures with a 200 whose
        body is ``{"error": {...}}`` (beside ``choices`` or instead of them); returned as it
        is, ``invoke()`` completed on a failure its stream reports as an error chunk.

        Raises:
            ProviderStreamError: classified as the stream's error chunk for the same object
                (``code`` the error's code or type).
        """
        if type(body) is dict and (
            body.get("error") or ("error" in body and body.get("choices") is None)
        ):
            raise self.error_object_error(body["error"] or body)
        return body


class OpenAIEmbeddingsEndpoint(Endpoint):
    """``POST .../embeddings``: one-shot only, so it declares no stream dialect.

    ``stream()`` is refused with ``EndpointConfigurationError(field="stream")`` before any
    request; no stream flag is ever added to its payload.
    """

    projector: ClassVar[type[StreamProjector] | None] = None
    stream_flag: ClassVar[str | None] = None

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """The dialect's error codes (:func:`openai_status_error`), then the base's."""
        return openai_status_error(info) or super().map_status_error(info)
