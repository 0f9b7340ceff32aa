"""The OpenAI-compatible dialect several providers share: chat completions and embeddings.

This is a wire dialect, not a vendor: the thin vendors (and the explicit compatible fallback)
speak it, so it is written once here. A vendor with a dialect of its own (Responses, Messages,
native Gemini or Ollama) ships its endpoint and projector in its distribution.

Errors: :func:`openai_status_error` reads the ``{"error": {"code", "type", "message"}}`` body the
dialect returns and types what the status alone cannot say (a context overflow or a
content-filter refusal is an HTTP 400, an unknown model an HTTP 404 like a wrong path, an
exhausted billing quota an HTTP 429 that must not be retried).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ..._base.chunk import StreamChunk
from ..._base.errors import (
    ProviderError,
    ProviderProtocolError,
    ProviderQuotaExhaustedError,
    ProviderStatusContentFilterError,
    ProviderStatusContextError,
)
from .endpoint import Endpoint
from .projection import ChatCompletionsProjector, PendingToolCall, StreamProjector
from .status import HTTPErrorInfo, json_kind

if TYPE_CHECKING:
    import httpx

__all__ = ["OpenAIChatEndpoint", "OpenAIEmbeddingsEndpoint", "openai_status_error"]

_CONTEXT_CODES = frozenset({"context_length_exceeded", "string_above_max_length"})
_QUOTA_CODES = frozenset({"insufficient_quota", "billing_hard_limit_reached"})
# Azure OpenAI's code for a filtered prompt and OpenAI's for a refused one (image generation,
# moderation; compatible gateways relay it, some with a 403). Whole values only: the same words
# inside other codes ("content_filter_error") name no refusal.
_CONTENT_FILTER_CODES = frozenset({"content_filter", "content_policy_violation"})
# Azure's inner error code for the same refusal (``error.innererror.code``).
_CONTENT_FILTER_INNER_CODE = "ResponsibleAIPolicyViolation"
# The code of "The model `x` does not exist or you do not have access to it." (HTTP 404), which
# compatible services relay as it is.
_UNSUPPORTED_MODEL_CODES = frozenset({"model_not_found"})
# vLLM's HTTP 404 for a model name it does not serve (type ``NotFoundError``, no code), which
# every server built on it relays (a self-hosted NVIDIA NIM, many compatible gateways). Newer
# versions wrap the object in ``error``; older ones sent it flat.
_VLLM_NO_MODEL = re.compile(r"\s*The model `[^`]*` does not exist\b")


def openai_status_error(info: HTTPErrorInfo) -> ProviderError | None:
    """The typed error an OpenAI-dialect error body names, or None for the status mapping.

    `code` (else `type`) `context_length_exceeded` -> `ProviderStatusContextError`;
    on a 4xx other than 429, `content_filter` or `content_policy_violation` (or Azure's
    `innererror.code` `ResponsibleAIPolicyViolation`) ->
    `ProviderStatusContentFilterError`, a 403 included: the code says the content was
    refused, not the key; on a 4xx other than 429, `model_not_found` ->
    `ProviderStatusUnsupportedModelError` (the provider does not serve that model), as is
    vLLM's 404 `NotFoundError` "The model `x` does not exist." (no code); a 404 without
    either, a wrong path, stays a plain client error; `insufficient_quota`
    (or `billing_hard_limit_reached`) -> `ProviderQuotaExhaustedError` (billing: never
    retried, neutral to the circuit; a bare HTTP 402 is the generic mapping's). The same
    codes, or a 402, in a stream's error chunk give its twin,
    `ProviderStreamQuotaExhaustedError`, through core's classification.
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
    # A 429 or 5xx keeps its status mapping: those decide retrying and the circuit.
    if 400 <= info.status < 500 and info.status != 429 and _names_content_filter(error, names):
        return ProviderStatusContentFilterError(
            f"{info.where} refused the request: the provider's content filter blocked it "
            f"(HTTP {info.status}; the same content is refused again, so it is not retried)"
            f"{info.suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
        )
    if 400 <= info.status < 500 and info.status != 429 and names & _UNSUPPORTED_MODEL_CODES:
        return info.unsupported_model()
    if info.status == 404 and _vllm_no_model(info):
        return info.unsupported_model()
    # HTTP 402 Payment Required (how several compatible services say it) needs no code: the
    # generic status mapping reads it as a spent balance for every endpoint.
    if names & _QUOTA_CODES:
        return ProviderQuotaExhaustedError(
            f"{info.where}: the account's quota is exhausted (HTTP {info.status}; billing, not "
            f"a rate limit, so it is not retried){info.suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
        )
    return None


def _vllm_no_model(info: HTTPErrorInfo) -> bool:
    """Whether a 404's body is vLLM's refusal of a model name it does not serve."""
    body = info.body
    error = info.error or (body if isinstance(body, Mapping) else {})
    message = error.get("message")
    return (
        error.get("type") == "NotFoundError"
        and isinstance(message, str)
        and _VLLM_NO_MODEL.match(message) is not None
    )


def _names_content_filter(error: Mapping[str, object], names: set[str]) -> bool:
    """Whether the error object's code or type, or Azure's inner code, is a content refusal."""
    if names & _CONTENT_FILTER_CODES:
        return True
    inner = error.get("innererror")
    return isinstance(inner, dict) and inner.get("code") == _CONTENT_FILTER_INNER_CODE


class OpenAIChatEndpoint(Endpoint):
    """An endpoint speaking the chat-completions dialect (`POST .../chat/completions`).

    Streams are projected by `ChatCompletionsProjector`. A streaming request asks for
    the usage record (`stream_options.include_usage`) when the request model has a
    `stream_options` field and the caller did not set that flag, so the result chunk carries
    usage.
    Subclass it per provider (the catalog wants one class per row); add vendor error codes by
    overriding `map_status_error` and calling `super()`.
    """

    projector: ClassVar[type[StreamProjector] | None] = ChatCompletionsProjector

    def stream_payload(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Request the usage record on a stream when the request model can carry it.

        Merged into the caller's `stream_options` (a new mapping: the caller's is not changed)
        unless it sets `include_usage` itself; setting another option
        (`{"include_obfuscation": False}`) used to drop the usage record, and with it the
        token counts telemetry and `limit_tokens` read.
        """
        model = self.request_options
        if model is None or "stream_options" not in model.model_fields:
            return payload
        options = payload.get("stream_options")
        if options is None:
            payload["stream_options"] = {"include_usage": True}
        elif isinstance(options, dict) and options.get("include_usage") is None:
            payload["stream_options"] = {**options, "include_usage": True}
        return payload

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """The dialect's error codes (`openai_status_error`), then the base's."""
        return openai_status_error(info) or super().map_status_error(info)

    def check_response(self, body: Any, response: httpx.Response) -> Any:
        """`body` when it is a chat answer, unless its stream would end with an error chunk.

        OpenAI's edge, gateways and compatible servers answer some failures with a 200 whose
        body is `{"error": {...}}` (beside `choices` or instead of them); and a choice
        that stopped at `finish_reason: "length"` while writing a tool call's arguments
        hands over arguments no tool can run. Returned as it is, `invoke()` completed on
        what its stream reports as an error chunk. A text answer cut at `"length"` is
        still an answer (the caller reads the finish reason), as in the stream. A body that
        is no answer at all (`null`, a list, a string, an object without a `choices`
        list, an empty 204) is refused, as the stream refuses an event without `choices`.

        Raises:
            ProviderStreamError: classified as the stream's error chunk for the same object
                (`code` the error's code or type), or for the cut tool call (`code`
                `"length"`, not retried: the same request stops in the same place).
            ProviderProtocolError: the body is not a JSON object, has no `choices` list, or
                a choice is not a JSON object (not retried: the server answered, with no
                answer).
        """
        if type(body) is not dict:
            raise self._not_an_answer(body, response)
        if body.get("error") or ("error" in body and body.get("choices") is None):
            raise self.error_object_error(body["error"] or body)
        choices = body.get("choices")
        if type(choices) is not list:
            got = (
                "no 'choices' list"
                if choices is None
                else f"'choices' is JSON {json_kind(choices)}, not a list"
            )
            raise self._not_an_answer(body, response, got)
        for position, choice in enumerate(choices):
            if type(choice) is not dict:
                raise self._not_an_answer(
                    body, response, f"choice {position} is JSON {json_kind(choice)}, not an object"
                )
        cut = self._length_cut(body)
        if cut is not None:
            raise self.stream_error(cut)
        return body

    def _not_an_answer(
        self, body: Any, response: httpx.Response, what: str | None = None
    ) -> ProviderProtocolError:
        """The error for a one-shot body that is no chat answer, naming what is wrong with it.

        ``what`` says it for a JSON object; otherwise the body's JSON type is named (never its
        text: it may hold anything), and ``None`` from an empty 202/204 says so.
        """
        if what is None:
            if body is None and response.status_code in (202, 204):
                what = f"HTTP {response.status_code} with no body"
            else:
                what = f"JSON {json_kind(body)}"
        where = f"{self.config.provider} {self.config.endpoint}"
        return ProviderProtocolError(
            f"{where}: the answer is not a chat completion object ({what})"
        )

    def _length_cut(self, body: dict[str, Any]) -> StreamChunk | None:
        """The stream's error chunk for a tool call the output token limit cut, else None.

        Each tool call of a choice that stopped at ``"length"`` goes through the projector's
        own check (:meth:`ChatCompletionsProjector.cut_at_length`), in the stream's order, so
        the one-shot call fails exactly when, and as, the stream of the same answer does.
        """
        projector: ChatCompletionsProjector | None = None
        for calls in _tool_calls_cut_at_length(body):
            projector = projector or self._chat_projector()
            last = len(calls) - 1
            for position, call in enumerate(calls):
                pending = PendingToolCall.of_message(call)
                cut = projector.cut_at_length(pending, last=position == last)
                if cut is not None:
                    return cut
        return None

    def _chat_projector(self) -> ChatCompletionsProjector:
        """The declared projector if it is a chat one (a vendor's own rule holds), else core's."""
        declared = type(self).projector
        if isinstance(declared, type) and issubclass(declared, ChatCompletionsProjector):
            return declared(self._secrets())
        return ChatCompletionsProjector(self._secrets())


def _tool_calls_cut_at_length(body: dict[str, Any]) -> Iterator[list[Any]]:
    """The ``message.tool_calls`` list of each choice whose ``finish_reason`` is ``"length"``."""
    choices = body.get("choices")
    for choice in choices if isinstance(choices, list) else ():
        if not isinstance(choice, dict) or choice.get("finish_reason") != "length":
            continue
        message = choice.get("message")
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        if isinstance(calls, list) and calls:
            yield calls


class OpenAIEmbeddingsEndpoint(Endpoint):
    """`POST .../embeddings`: one-shot only, so it declares no stream dialect.

    `stream()` is refused with `EndpointConfigurationError(field="stream")` before any
    request; no stream flag is ever added to its payload.
    """

    projector: ClassVar[type[StreamProjector] | None] = None
    stream_flag: ClassVar[str | None] = None

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """The dialect's error codes (`openai_status_error`), then the base's."""
        return openai_status_error(info) or super().map_status_error(info)
