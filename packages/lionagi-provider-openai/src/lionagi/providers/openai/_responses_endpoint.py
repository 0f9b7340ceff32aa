"""OpenAI's Responses endpoint: its own stream grammar and its one-shot failure forms.

The Responses endpoint declares its own stream grammar (`ResponsesProjector`) and reads the
same ``{"error": {"code", "type"}}`` bodies as chat, so a context overflow or an exhausted
billing quota is typed the same on both. A Responses object that ``failed`` (or carries an
``error``), or a function call (or the last custom tool call) cut by ``max_output_tokens``,
returned with a 2xx status, goes through ``check_response`` and raises what the stream raises
for the same content. A ``background_options.completion_window`` of ``2h`` or ``8h`` is refused
on a stream (the API takes those windows on a one-shot background call only). Kept apart from
the chat and embeddings classes so a chat call never imports this grammar.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import httpx

from lionagi.service import EndpointConfigurationError, ProviderError, ProviderProtocolError
from lionagi.service.http import (
    HTTPErrorInfo,
    StreamProjector,
    estimate_tokens,
    json_kind,
    openai_status_error,
)

from ._endpoints import StreamOptionsOnlyWhenStreaming
from ._responses_stream import ResponsesProjector

__all__ = ["RESPONSES_TOKEN_KEYS", "OpenAIResponsesEndpoint"]

RESPONSES_TOKEN_KEYS = ("input", "instructions", "tools")
"""The Responses payload members the token estimate measures: the input, the system
instructions (sent to the model beside the input) and the tool definitions."""


class OpenAIResponsesEndpoint(StreamOptionsOnlyWhenStreaming):
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
            # Imported here: a stream without such a window never needs the request models.
            from ._responses_request import DEFERRED_WINDOWS

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

    def response_facts(self, body: Mapping[str, Any]) -> tuple[str | None, tuple[str, ...]]:
        """Why a one-shot response stopped, as its stream's result chunk says it.

        A Responses object has no ``choices``: it stopped ``completed``, or ``incomplete`` for
        ``incomplete_details.reason`` (``max_output_tokens``, ``content_filter``). Without this
        an ``invoke()`` span carried no finish reason while the same answer's ``stream()`` span
        did. A background response still ``queued`` or ``in_progress`` has none yet; the model
        is the body's own ``model`` key, which telemetry reads first.
        """
        status = body.get("status")
        if status == "incomplete":
            details = body.get("incomplete_details")
            reason = details.get("reason") if isinstance(details, Mapping) else None
            return None, (reason if isinstance(reason, str) and reason else "incomplete",)
        return None, (("completed",) if status == "completed" else ())

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
