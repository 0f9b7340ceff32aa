"""Gemini's two endpoint classes: chat through the compatibility layer, and native generation.

``GeminiChat`` speaks the OpenAI chat-completions dialect at ``.../v1beta/openai`` (core's
:class:`OpenAIChatEndpoint`); it adds Gemini's error objects and nests the typed ``google``
options under the literal ``extra_body`` key the layer reads.

``GeminiGenerateContent`` speaks the native API. Its URL names the model and differs for
streams (``models/{model}:generateContent`` one-shot, ``models/{model}:streamGenerateContent
?alt=sse`` streamed), so it routes each request itself (:meth:`request_target`): the model is
taken out of the body and put in the path. The key travels in the ``x-goog-api-key`` header
(``auth_type="x-api-key"`` with this class's ``api_key_header``), never in the query string,
so it cannot end up in a logged URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from lionagi.service import Endpoint, EndpointConfigurationError, ProviderError
from lionagi.service.http import (
    HTTPErrorInfo,
    OpenAIChatEndpoint,
    StreamFraming,
    StreamProjector,
)

from ._errors import gemini_status_error
from ._projector import GeminiStreamProjector
from ._requests import model_path_segment

__all__ = ["GeminiChat", "GeminiGenerateContent"]


class GeminiChat(OpenAIChatEndpoint):
    """``POST .../v1beta/openai/chat/completions`` (bearer key)."""

    def request_target(
        self, payload: Mapping[str, Any], *, stream: bool
    ) -> tuple[str | None, Mapping[str, Any]]:
        """Send the ``google`` options as ``extra_body.google``, where the layer reads them."""
        if "google" not in payload:
            return None, payload
        body = {k: v for k, v in payload.items() if k != "google"}
        body["extra_body"] = {"google": payload["google"]}
        return None, body

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """OpenAI-dialect codes first, then Gemini's ``google.rpc.Status`` body."""
        return super().map_status_error(info) or gemini_status_error(info)


class GeminiGenerateContent(Endpoint):
    """``POST .../v1beta/models/{model}:generateContent`` (and ``:streamGenerateContent``)."""

    projector: ClassVar[type[StreamProjector] | None] = GeminiStreamProjector
    stream_framing: ClassVar[StreamFraming | None] = "sse"
    stream_flag: ClassVar[str | None] = None  # a stream is a different method, not a flag
    api_key_header: ClassVar[str] = "x-goog-api-key"

    def request_target(
        self, payload: Mapping[str, Any], *, stream: bool
    ) -> tuple[str | None, Mapping[str, Any]]:
        """``models/{model}:<method>`` for this payload's model; the body without ``model``.

        Raises:
            EndpointConfigurationError: the payload has no model, or one that is not a single
                path segment (``field="model"``).
        """
        model = payload.get("model")
        if not isinstance(model, str) or not model.strip():
            raise EndpointConfigurationError(
                "model", "is required: it names the model in the request path"
            )
        try:
            name = model_path_segment(model)
        except ValueError as exc:
            raise EndpointConfigurationError("model", str(exc)) from None
        method = "streamGenerateContent?alt=sse" if stream else "generateContent"
        body = {key: value for key, value in payload.items() if key != "model"}
        return f"models/{name}:{method}", body

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """Gemini's ``google.rpc.Status`` body, then the base's mapping."""
        return gemini_status_error(info) or super().map_status_error(info)
