"""OpenAI's chat and embeddings endpoint classes, and what the text rows share.

Chat completions and embeddings speak core's shared OpenAI dialect. The Responses endpoint is
in `._responses_endpoint` (with its stream grammar), so a chat call never imports the Responses
modules: a row's modules load on that row's first use.

``stream_options`` is refused on a one-shot call on both text rows: the API accepts it only with
``stream: true``. OpenAI's safety-policy refusals (``bio_policy``, ``cyber_policy``, a flagged
``invalid_prompt``, ...) are the content-filter family on both text rows, over HTTP and in a
stream alike (`._errors`). One-shot chat bodies carrying an ``error`` object with a 2xx status
raise what the stream raises for the same content (core's chat dialect does that for every
OpenAI-compatible row).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from lionagi.service import Endpoint, EndpointConfigurationError, ProviderError
from lionagi.service.http import (
    ChatCompletionsProjector,
    HTTPErrorInfo,
    OpenAIChatEndpoint,
    OpenAIEmbeddingsEndpoint,
    ProviderErrorPattern,
    StreamProjector,
)

from ._errors import (
    IMAGE_INPUT_PATTERN,
    INVALID_PROMPT_PATTERN,
    POLICY_PATTERN,
    RESIDENCY_PATTERN,
    THROTTLED_PATTERN,
    VECTOR_STORE_TIMEOUT_PATTERN,
    openai_policy_error,
)

__all__ = [
    "OpenAIChatCompletionsEndpoint",
    "OpenAIChatProjector",
    "OpenAIEmbeddingsAPIEndpoint",
    "StreamOptionsOnlyWhenStreaming",
]


class StreamOptionsOnlyWhenStreaming(Endpoint):
    """Both text rows: ``stream_options`` on a one-shot request is refused, as the API does.

    Both also read OpenAI's safety-policy refusals: ``error_patterns`` classify the stream and
    2xx forms, :meth:`map_status_error` the HTTP form (before any status mapping below it).
    The patterns also type a refused image input, a throttled stream, a vector-store timeout, a
    data-residency mismatch and a non-policy ``invalid_prompt`` by their codes (`._errors`); the
    HTTP forms of those are typed by their status.
    """

    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = (
        POLICY_PATTERN,
        IMAGE_INPUT_PATTERN,
        THROTTLED_PATTERN,
        VECTOR_STORE_TIMEOUT_PATTERN,
        RESIDENCY_PATTERN,
        INVALID_PROMPT_PATTERN,
    )

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """A policy refusal (:func:`openai_policy_error`), then the class's own mapping."""
        return openai_policy_error(info) or super().map_status_error(info)

    def request_target(
        self, payload: Mapping[str, Any], *, stream: bool
    ) -> tuple[str | None, Mapping[str, Any]]:
        """The base's target; ``stream_options`` on a one-shot call is refused.

        Raises:
            EndpointConfigurationError: ``field="stream_options"`` on a one-shot request
                (HTTP 400 at the API otherwise).
        """
        if not stream and payload.get("stream_options") is not None:
            raise EndpointConfigurationError(
                "stream_options",
                "is only accepted with a stream (the API refuses it without stream=true): use "
                "stream(), or drop it for invoke()/call()",
            )
        return super().request_target(payload, stream=stream)


class OpenAIChatProjector(ChatCompletionsProjector):
    """Core's chat stream, keeping the ``service_tier`` that served the answer.

    OpenAI bills by the tier that actually processed the request, which can differ from the one
    asked for (``"auto"`` resolves to the project's default); every chunk names it, as the
    one-shot body does, so the ``result`` chunk's metadata keeps it (the last value sent).
    """

    __slots__ = ()

    result_fields: ClassVar[tuple[str, ...]] = ("service_tier",)


class OpenAIChatCompletionsEndpoint(StreamOptionsOnlyWhenStreaming, OpenAIChatEndpoint):
    """``POST /v1/chat/completions`` (streams ask for usage via ``stream_options``)."""

    projector: ClassVar[type[StreamProjector] | None] = OpenAIChatProjector


class OpenAIEmbeddingsAPIEndpoint(OpenAIEmbeddingsEndpoint):
    """``POST /v1/embeddings``: one-shot only; ``stream()`` is refused before any request."""
