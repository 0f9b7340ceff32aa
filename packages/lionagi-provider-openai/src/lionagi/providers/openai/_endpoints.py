"""OpenAI's endpoint classes: one per catalog row, each declaring its wire dialect.

Chat completions and embeddings speak core's shared OpenAI dialect. The Responses endpoint
declares its own stream grammar (:class:`ResponsesProjector`) and reads the same
``{"error": {"code", "type"}}`` bodies as chat, so a context overflow or an exhausted billing
quota is typed the same on both.

One-shot answers that are failures with a 2xx status go through ``check_response`` and raise
what the stream raises for the same content: a chat body carrying an ``error`` object (core's
chat dialect does that for every OpenAI-compatible row), a Responses object that ``failed`` (or
carries an ``error``), a Responses function call (or the last custom tool call) cut by
``max_output_tokens``.
``stream_options`` is refused on a one-shot call on both rows: the API accepts it only with
``stream: true``; a Responses ``background_options.completion_window`` of ``2h`` or ``8h`` is
refused on a stream (the API takes those windows on a one-shot background call only).

OpenAI's safety-policy refusals (``bio_policy``, ``cyber_policy``, a flagged ``invalid_prompt``,
...) are the content-filter family on both text rows, over HTTP and in a stream alike
(:mod:`._errors`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import httpx

from lionagi.service import (
    Endpoint,
    EndpointConfigurationError,
    ProviderError,
    ProviderProtocolError,
)
from lionagi.service.http import (
    ChatCompletionsProjector,
    HTTPErrorInfo,
    OpenAIChatEndpoint,
    OpenAIEmbeddingsEndpoint,
    ProviderErrorPattern,
    StreamProjector,
    estimate_tokens,
    json_kind,
    openai_status_error,
)

from ._errors import POLICY_PATTERN, openai_policy_error
from ._responses_stream import ResponsesProjector

__all__ = [
    "RESPONSES_TOKEN_KEYS",
    "OpenAIChatCompletionsEndpoint",
    "OpenAIChatProjector",
    "OpenAIEmbeddingsAPIEndpoint",
    "OpenAIResponsesEndpoint",
]

RESPONSES_TOKEN_KEYS = ("input", "instructions", "tools")
"""The Responses payload members the token estimate measures: the input, the system
instructions (sent to the model beside the input) and the tool definitions."""


class _StreamOptionsOnlyWhenStreaming(Endpoint):
    """Both text rows: ``stream_options`` on a one-shot request is refused, as the API does.

    Both also read OpenAI's safety-policy refusals: ``error_patterns`` classify the stream and
    2xx forms, :meth:`map_status_error` the HTTP form (before any status mapping below it).
    """

    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = (POLICY_PATTERN,)

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


class OpenAIChatCompletionsEndpoint(_StreamOptionsOnlyWhenStreaming, OpenAIChatEndpoint):
    """``POST /v1/chat/completions`` (streams ask for usage via ``stream_options``)."""

    projector: ClassVar[type[StreamProjector] | None] = OpenAIChatProjector


class OpenAIEmbeddingsAPIEndpoint(OpenAIEmbeddingsEndpoint):
    """``POST /v1/embeddings``: one-shot only; ``stream()`` is refused before any request."""


class OpenAIResponsesEndpoint(_StreamOptionsOnlyWhenStreaming):
    """``POST /v1/responses``: the Responses API, streamed as named SSE events.

    Usage always arrives on ``response.completed``, so a stream adds nothing beyond ``stream``.
    """

    projector: ClassVar[type[StreamProjector] | None] = ResponsesProjector

    def request_target(
        self, payload: Mapping[str, Any], *, stream: bool
    ) -> tuple[str | None, Mapping[str, Any]]:
        """The base's target; a discounted background window is refused on a stream.

        Checked here, not by the request model: the transport sets ``stream`` after the
        request is validated, so only the endpoint knows a call streams.

        Raises:
            EndpointConfigurationError: ``field="background_options.completion_window"`` for a
                ``2h`` or ``8h`` window on a stream (HTTP 400 at the API otherwise).
        """
        options = payload.get("background_options") if stream else None
        window = options.get("completion_window") if isinstance(options, Mapping) else None
        if window is not None:
            # Imported here: the embeddings row loads this module but never the request models.
            from ._requests import DEFERRED_WINDOWS

            if window in DEFERRED_WINDOWS:
                raise EndpointConfigurationError(
                    "background_options.completion_window",
                    f"{window!r} is only accepted on a one-shot background call (the API "
                    "refuses it on a stream): use invoke()/call()",
                )
        return super().request_target(payload, stream=stream)

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """OpenAI's error codes (:func:`openai_status_error`), then the base's."""
        return openai_status_error(info) or super().map_status_error(info)

    def estimate_tokens(self, payload: Mapping[str, Any]) -> int | None:
        """Four characters per token of ``input``, ``instructions`` and ``tools``.

        ``instructions`` is a system message the model reads with the input, and tool
        definitions are input tokens too; the default estimate measured ``input`` only.
        """
        return estimate_tokens(payload, RESPONSES_TOKEN_KEYS)

    def check_response(self, body: Any, response: httpx.Response) -> Any:
        """``body`` when it is a response a caller can use; else what its stream would raise.

        The response object is replayed through :class:`ResponsesProjector` as the events
        that would have carried it (each output item closed, then the terminal event for its
        status), so ``invoke()`` and ``stream()`` fail alike. A ``queued`` or ``in_progress``
        object (``background=True``) is returned as it is.

        Raises:
            ProviderStreamError: ``status: "failed"`` or a non-null ``error`` object (typed
                from the error's code, as ``response.failed`` is in a stream); or a function
                call, or the last custom tool call, cut off by ``max_output_tokens``
                (``code="max_output_tokens"``, not retried).
            ProviderProtocolError: the body is not a JSON object, or an output item is
                malformed as the stream would report it (a function call whose arguments are
                JSON but not an object).
        """
        where = f"{self.config.provider} {self.config.endpoint}"
        if not isinstance(body, dict):
            raise ProviderProtocolError(
                f"{where}: the answer is not a response object (got JSON {json_kind(body)})"
            )
        status = body.get("status")
        error = body.get("error")
        if status == "failed" or error:
            failed = error or {"message": "response failed"}
            raise self.error_object_error(failed)
        if status not in ("completed", "incomplete"):
            return body
        projector = ResponsesProjector(self._secrets())
        output = body.get("output")
        for index, item in enumerate(output if isinstance(output, list) else ()):
            if isinstance(item, dict):
                event = {"type": "response.output_item.done", "item": item, "output_index": index}
                projector.feed(event)
        chunks = projector.feed({"type": f"response.{status}", "response": body})
        cut = next((chunk for chunk in chunks if chunk.type == "error"), None)
        if cut is not None:
            raise self.stream_error(cut)
        return body
