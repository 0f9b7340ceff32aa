"""The HTTP kit fails an adapter with one planted defect in the case that targets it.

Each defect is a small ``OpenAIChatEndpoint`` subclass over the generic OpenAI-compatible
config (or a plain embeddings/JSON endpoint). The case method is called directly, as pytest
would call it (the cases are synchronous), and must raise ``AssertionError``; the same case
passes for the undamaged endpoint in ``test_http_kit_openai_compatible.py``.
"""

from __future__ import annotations

import copy
import gc
import logging
import warnings
from collections.abc import AsyncIterator, Mapping
from typing import Any, ClassVar

import anyio
import anyio.lowlevel
import httpx
import pytest

from lionagi.service import (
    Endpoint,
    ProviderAuthError,
    ProviderCapabilityError,
    ProviderClientError,
    ProviderConnectionError,
    ProviderContentFilterError,
    ProviderContextError,
    ProviderError,
    ProviderProtocolError,
    ProviderQuotaError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderStreamError,
    ProviderUnauthorizedError,
    ProviderUnsupportedModelError,
    StreamChunk,
    match_endpoint,
)
from lionagi.service.http import (
    NO_CHUNKS,
    ChatCompletionsProjector,
    HTTPErrorInfo,
    OpenAIChatEndpoint,
)
from lionagi.service_testing import TOOL_COMMAND
from lionagi.service_testing.conformance import (
    HTTPChatConformance,
    HTTPEmbeddingsConformance,
    HTTPJSONConformance,
)

# -- planted defects: one-shot ------------------------------------------------------------------


def _message(body: Any) -> dict[str, Any]:
    message: dict[str, Any] = body["choices"][0]["message"]
    return message


class TruncatesText(OpenAIChatEndpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        body = await super().call(request, **kwargs)
        message = _message(body)
        message["content"] = (message.get("content") or "")[:5]
        return body


class DropsUsage(OpenAIChatEndpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        body = await super().call(request, **kwargs)
        body.pop("usage", None)
        return body

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            if chunk.type == "result":
                chunk.metadata.pop("usage", None)
            yield chunk


class MisassemblesArguments(OpenAIChatEndpoint):
    """Keeps only the first argument fragment: a truncated JSON string."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        body = await super().call(request, **kwargs)
        for call in _message(body).get("tool_calls") or []:
            call["function"]["arguments"] = call["function"]["arguments"][:7]
        return body

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            if chunk.type == "tool_use":
                chunk.tool_input = {"command": TOOL_COMMAND[:4]}
            yield chunk


class MergesReasoningIntoText(OpenAIChatEndpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        body = await super().call(request, **kwargs)
        message = _message(body)
        message["content"] = (message.pop("reasoning_content", "") or "") + message["content"]
        return body

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            if chunk.type == "thinking":
                chunk.type = "text"
            yield chunk


class AuthAsGenericError(OpenAIChatEndpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderAuthError as exc:
            raise ProviderError(str(exc)) from None


class Forbidden403AsClientError(OpenAIChatEndpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderUnauthorizedError as exc:
            if exc.status != 403:
                raise
            raise ProviderClientError(str(exc), status=403) from None


class RetriesRateLimitItself(OpenAIChatEndpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        for _ in range(2):
            try:
                return await super().call(request, **kwargs)
            except ProviderRateLimitError:
                await anyio.lowlevel.checkpoint()
        return await super().call(request, **kwargs)


class ContextAsPlainClientError(OpenAIChatEndpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderContextError as exc:
            raise ProviderClientError(str(exc), status=400) from None


class ContentFilterAsClientError(OpenAIChatEndpoint):
    """A status mapping that knows the 400 is refused but not why: a plain client error."""

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        mapped = super().map_status_error(info)
        if isinstance(mapped, ProviderContentFilterError):
            return ProviderClientError(str(mapped), status=info.status, body_excerpt=info.excerpt)
        return mapped


class ContentFilterAsProviderError(OpenAIChatEndpoint):
    """A status mapping that wraps the refusal in the root class (counted by the circuit)."""

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        mapped = super().map_status_error(info)
        if isinstance(mapped, ProviderContentFilterError):
            return ProviderError(str(mapped))
        return mapped


class ContentFilterWithoutStatus(OpenAIChatEndpoint):
    """Keeps the family but builds the CLI-form class, losing the HTTP status."""

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        mapped = super().map_status_error(info)
        if isinstance(mapped, ProviderContentFilterError):
            return ProviderContentFilterError(str(mapped))
        return mapped


class RetriesContentFilterItself(OpenAIChatEndpoint):
    """Treats a refusal as a fluke and sends the same prompt twice more."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        for _ in range(2):
            try:
                return await super().call(request, **kwargs)
            except ProviderContentFilterError:
                await anyio.lowlevel.checkpoint()
        return await super().call(request, **kwargs)


class StreamContentFilterAsStreamError(OpenAIChatEndpoint):
    """A ``stream_error`` override that drops the classified family (a plain stream error)."""

    def stream_error(self, chunk: StreamChunk) -> ProviderStreamError:
        error = super().stream_error(chunk)
        if isinstance(error, ProviderContentFilterError):
            return ProviderStreamError(str(error), status=error.status, code=error.code)
        return error


class InStreamCapabilityAsStreamError(OpenAIChatEndpoint):
    """A ``stream_error`` override that drops the capability family (a plain stream error)."""

    def stream_error(self, chunk: StreamChunk) -> ProviderStreamError:
        error = super().stream_error(chunk)
        if isinstance(error, ProviderCapabilityError):
            return ProviderStreamError(str(error), status=error.status, code=error.code)
        return error


class KeyOnTheRefusal(OpenAIChatEndpoint):
    """Attaches the request headers (with the bearer token) to a refusal, "for debugging"."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderContentFilterError as exc:
            exc.sent_headers = dict(kwargs.get("extra_headers") or {})  # type: ignore[attr-defined]
            raise


class UnsupportedModelAsClientError(OpenAIChatEndpoint):
    """A status mapping that knows the 404 is refused but not why: a plain client error."""

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        mapped = super().map_status_error(info)
        if isinstance(mapped, ProviderUnsupportedModelError):
            return ProviderClientError(str(mapped), status=info.status, body_excerpt=info.excerpt)
        return mapped


class CapabilityAsClientError(OpenAIChatEndpoint):
    """A vendor hook that answers every 400 itself, before core's body rules could type it."""

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        if info.status == 400:
            return ProviderClientError(
                f"{info.where} rejected the request (HTTP 400)",
                status=info.status,
                body_excerpt=info.excerpt,
            )
        return super().map_status_error(info)


class UnsupportedModelAsProviderError(OpenAIChatEndpoint):
    """A status mapping that wraps the refusal in the root class (counted by the circuit)."""

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        mapped = super().map_status_error(info)
        if isinstance(mapped, ProviderUnsupportedModelError):
            return ProviderError(str(mapped))
        return mapped


class UnsupportedModelWithoutStatus(OpenAIChatEndpoint):
    """Keeps the family but builds the CLI-form class, losing the HTTP status."""

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        mapped = super().map_status_error(info)
        if isinstance(mapped, ProviderUnsupportedModelError):
            return ProviderUnsupportedModelError(str(mapped))
        return mapped


class RetriesUnsupportedModelItself(OpenAIChatEndpoint):
    """Hopes the model appears and sends the request twice more."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        for _ in range(2):
            try:
                return await super().call(request, **kwargs)
            except ProviderUnsupportedModelError:
                await anyio.lowlevel.checkpoint()
        return await super().call(request, **kwargs)


class StreamUnsupportedModelAsProtocolError(OpenAIChatEndpoint):
    """Re-raises the refused stream as a protocol error (counted by the circuit)."""

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        try:
            async for chunk in super().stream(request, **kwargs):
                yield chunk
        except ProviderUnsupportedModelError as exc:
            raise ProviderProtocolError(str(exc)) from None


class QuotaAsServerError(OpenAIChatEndpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderQuotaError as exc:
            raise ProviderServerError(str(exc), status=500) from None


class OverloadAsQuota(OpenAIChatEndpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderServerError as exc:
            raise ProviderRateLimitError(str(exc)) from None


class ServerErrorsNotRetryable(OpenAIChatEndpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderServerError as exc:
            raise ProviderClientError(str(exc), status=exc.status) from None


class SwallowsMalformedBody(OpenAIChatEndpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderProtocolError:
            return {}

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        try:
            async for chunk in super().stream(request, **kwargs):
                yield chunk
        except ProviderProtocolError:
            return


class DropAsProtocolError(OpenAIChatEndpoint):
    """Turns a dropped connection into a non-retryable protocol error."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderConnectionError as exc:
            raise ProviderProtocolError(str(exc)) from None

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        try:
            async for chunk in super().stream(request, **kwargs):
                yield chunk
        except ProviderConnectionError as exc:
            raise ProviderProtocolError(str(exc)) from None


class IgnoresDeadline(OpenAIChatEndpoint):
    """Shields its I/O from cancellation and its own cap (bounded at 8 s so the case ends)."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        kwargs["timeout"] = 30.0
        with anyio.CancelScope(shield=True), anyio.move_on_after(8.0):
            return await super().call(request, **kwargs)
        raise ProviderConnectionError("gave up after 8 s")

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        kwargs["timeout"] = 30.0
        inner = super().stream(request, **kwargs)
        try:
            while True:
                chunk: StreamChunk | None = None
                with anyio.CancelScope(shield=True), anyio.move_on_after(8.0):
                    try:
                        chunk = await inner.__anext__()
                    except StopAsyncIteration:
                        return
                if chunk is None:
                    raise ProviderConnectionError("gave up after 8 s")
                yield chunk
        finally:
            await inner.aclose()


class LeaksKeyInRepr(OpenAIChatEndpoint):
    def __repr__(self) -> str:
        return f"LeaksKeyInRepr(key={self.config.secret_value()})"


class LogsKey(OpenAIChatEndpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        logging.getLogger("acme.adapter").debug("calling with key %s", self.config.secret_value())
        return await super().call(request, **kwargs)


class KeyOnTheError(OpenAIChatEndpoint):
    """Attaches the request headers (with the bearer token) to the error it raises."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderAuthError as exc:
            exc.sent_headers = dict(kwargs.get("extra_headers") or {})  # type: ignore[attr-defined]
            raise


class WrongPath(OpenAIChatEndpoint):
    """Posts to a path the provider does not serve (a typo in the endpoint path)."""

    def __init__(self, config: Any, **kwargs: Any) -> None:
        super().__init__(config, **{**kwargs, "endpoint": "chat/completion"})


class NeverClosesClient(OpenAIChatEndpoint):
    async def aclose(self) -> None:
        return None


class SwallowsErrorEvents(OpenAIChatEndpoint):
    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            if chunk.type == "error":
                return
            yield chunk


class DuplicatesFirstDelta(OpenAIChatEndpoint):
    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        first = True
        async for chunk in super().stream(request, **kwargs):
            if first and chunk.type == "text":
                first = False
                yield copy.copy(chunk)
            yield chunk


class ReconnectsAfterFirstChunk(OpenAIChatEndpoint):
    """Replays the request when the stream drops, after output already left."""

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        try:
            async for chunk in super().stream(request, **kwargs):
                yield chunk
        except ProviderConnectionError:
            async for chunk in super().stream(request, **kwargs):
                yield chunk


class SwallowsCancellation(OpenAIChatEndpoint):
    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        try:
            async for chunk in super().stream(request, **kwargs):
                yield chunk
        except anyio.get_cancelled_exc_class():
            return


class DropsAuthHeader(OpenAIChatEndpoint):
    """Builds its headers without the credential: the 401 echo then has nothing to redact."""

    def create_payload(
        self, request: Any, extra_headers: Mapping[str, str] | None = None, **kwargs: Any
    ) -> tuple[dict[str, Any], dict[str, str]]:
        payload, headers = super().create_payload(request, extra_headers, **kwargs)
        headers.pop("Authorization", None)
        return payload, headers


class SendsAnotherKey(OpenAIChatEndpoint):
    """Sends a key of its own (say, one read from the environment), not the one it was given."""

    def create_payload(
        self, request: Any, extra_headers: Mapping[str, str] | None = None, **kwargs: Any
    ) -> tuple[dict[str, Any], dict[str, str]]:
        payload, headers = super().create_payload(request, extra_headers, **kwargs)
        headers["Authorization"] = "Bearer from-the-environment"
        return payload, headers


class KeyInQuery(OpenAIChatEndpoint):
    """Also sends the key as a ``?key=`` query parameter, where proxies and servers log it."""

    def _build_request(
        self, client: httpx.AsyncClient, payload: Any, headers: Any, timeout: float, *, stream: bool
    ) -> httpx.Request:
        built = super()._build_request(client, payload, headers, timeout, stream=stream)
        built.url = built.url.copy_add_param("key", self.config.secret_value())
        return built


class KeepsResponseOpen(OpenAIChatEndpoint):
    """Never closes the inner stream (nor its response) when its consumer closes it."""

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        inner = super().stream(request, **kwargs)
        self.__dict__.setdefault("kept", []).append(inner)  # no finally: inner.aclose()
        while True:
            try:
                chunk = await inner.__anext__()
            except StopAsyncIteration:
                return
            yield chunk


class DropsFinishReason(OpenAIChatEndpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        body = await super().call(request, **kwargs)
        body["choices"][0].pop("finish_reason", None)
        return body

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            if chunk.type == "result":
                chunk.metadata.pop("finish_reason", None)
            yield chunk


class _RewritesFinishReason(OpenAIChatEndpoint):
    """Reports every finish reason as ``reported``: a normaliser that knows one word."""

    reported: ClassVar[str]

    async def call(self, request: Any, **kwargs: Any) -> Any:
        body = await super().call(request, **kwargs)
        body["choices"][0]["finish_reason"] = self.reported
        return body

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            if chunk.type == "result":
                chunk.metadata["finish_reason"] = self.reported
            yield chunk


class HidesTokenLimit(_RewritesFinishReason):
    """A truncated answer looks complete."""

    reported = "stop"


class ReportsEveryEndAsCut(_RewritesFinishReason):
    """A complete answer looks truncated."""

    reported = "length"


# The top-level fields of a chat completion (chunk), or an error event, the strict defects know.
_CHAT_FIELDS = frozenset(
    {"id", "object", "created", "model", "system_fingerprint", "choices", "usage", "error"}
)
_DELTA_FIELDS = frozenset(
    {"role", "content", "reasoning_content", "reasoning", "refusal", "tool_calls"}
)


def _unknown(event: Any) -> list[str]:
    return sorted(set(event) - _CHAT_FIELDS) if isinstance(event, dict) else []


class _StrictProjector(ChatCompletionsProjector):
    def feed(self, event: Any) -> Any:
        unknown = _unknown(event)
        if unknown:
            raise self.protocol_error(f"unrecognized field {unknown[0]!r}", event)
        return super().feed(event)


class StrictStreamFields(OpenAIChatEndpoint):
    """Refuses a stream event with a field it does not know (a ``ProviderProtocolError``)."""

    projector = _StrictProjector


class RejectsUnknownFields(StrictStreamFields):
    """Also refuses a one-shot body with a field it does not know."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        body = await super().call(request, **kwargs)
        unknown = _unknown(body)
        if unknown:
            raise ProviderProtocolError(f"unrecognized field {unknown[0]!r} in the response")
        return body


class _SkippingProjector(ChatCompletionsProjector):
    def feed(self, event: Any) -> Any:
        return NO_CHUNKS if _unknown(event) else super().feed(event)


class SkipsEventsWithUnknownFields(OpenAIChatEndpoint):
    """An allowlist that drops, without a word, every event with a field it does not know."""

    projector = _SkippingProjector


class _UnknownAsTextProjector(ChatCompletionsProjector):
    def feed(self, event: Any) -> Any:
        out = list(super().feed(event))
        for choice in event.get("choices") or []:
            for key, value in (choice.get("delta") or {}).items():
                if key not in _DELTA_FIELDS and isinstance(value, str):
                    out.append(StreamChunk(type="text", content=value, is_delta=True))
        return out


class TextFromUnknownFields(OpenAIChatEndpoint):
    """Takes any string field of a delta it does not know for more answer text."""

    projector = _UnknownAsTextProjector


class _ForwardingProjector(ChatCompletionsProjector):
    def feed(self, event: Any) -> Any:
        out = list(super().feed(event))
        unknown = _unknown(event)
        if unknown:
            raw = {key: event[key] for key in unknown}
            out.insert(0, StreamChunk(type="system", metadata={"unknown": raw}))
        return out


class ForwardsUnknownFields(OpenAIChatEndpoint):
    """Passes unknown event fields on as raw ``system`` chunks (the pre-ADR-0027 transport)."""

    projector = _ForwardingProjector


class TextAfterError(OpenAIChatEndpoint):
    """Keeps going after its error chunk: more text and a result for the partial answer."""

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            yield chunk
            if chunk.type == "error":
                yield StreamChunk(type="text", content="and the rest", is_delta=True)
                yield StreamChunk(type="result", metadata={"finish_reason": "stop"})
                return


class RepeatsErrorChunk(OpenAIChatEndpoint):
    """Yields its error chunk twice (say, once from the event and once from its own handler)."""

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            yield chunk
            if chunk.type == "error":
                yield copy.copy(chunk)
                return


class UnflaggedErrorChunk(OpenAIChatEndpoint):
    """Builds its own error chunk and forgets ``is_error``."""

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            if chunk.type == "error":
                chunk = StreamChunk(type="error", content=chunk.content, metadata=chunk.metadata)
            yield chunk


class RaisesOddlyAfterErrorChunk(OpenAIChatEndpoint):
    """Follows its error chunk with an exception outside the provider error tree."""

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            yield chunk
            if chunk.type == "error":
                raise RuntimeError("the stream failed")


class ReversesVectors(Endpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        body = await super().call(request, **kwargs)
        body["data"] = [
            {**item, "index": len(body["data"]) - 1 - item["index"]} for item in body["data"]
        ]
        return body


class DropsEmbeddingsUsage(Endpoint):
    # Not the chat DropsUsage: core's chat class refuses an embeddings body (no ``choices``).
    async def call(self, request: Any, **kwargs: Any) -> Any:
        body = await super().call(request, **kwargs)
        body.pop("usage", None)
        return body


class ReturnsNothing(Endpoint):
    async def call(self, request: Any, **kwargs: Any) -> Any:
        await super().call(request, **kwargs)
        return None


# -- kits over a chosen endpoint class ----------------------------------------------------------


def compatible_config(base_url: str, api_key: str) -> Any:
    endpoint = match_endpoint(
        "conformance-llm",
        "",
        openai_compatible=True,
        base_url=base_url,
        api_key=api_key,
        allow_local_network=True,
    )
    return endpoint.config


class Chat(HTTPChatConformance):
    dialect = "openai_chat"
    tool_calls = True
    reasoning = True
    endpoint_class: ClassVar[type[Endpoint]] = OpenAIChatEndpoint

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return self.endpoint_class(compatible_config(base_url, api_key))

    def valid_request(self) -> dict[str, Any]:
        return {"model": "fake-model", "messages": [{"role": "user", "content": "hello"}]}


def plain_config(path: str, base_url: str, api_key: str) -> Mapping[str, Any]:
    return {
        "name": path,
        "provider": "conformance-data",
        "endpoint": path,
        "base_url": base_url,
        "api_key": api_key,
        "allow_local_network": True,
    }


class StrictChat(Chat):
    """A kit for a stream grammar declared to refuse unknown fields."""

    refuses_unknown_stream_fields = True
    endpoint_class = StrictStreamFields


class Embeddings(HTTPEmbeddingsConformance):
    endpoint_class: ClassVar[type[Endpoint]] = Endpoint

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return self.endpoint_class(plain_config("embeddings", base_url, api_key))

    def valid_request(self) -> dict[str, Any]:
        return {"model": "fake-embedding", "input": ["alpha", "beta gamma"]}


class JSON(HTTPJSONConformance):
    endpoint_class: ClassVar[type[Endpoint]] = Endpoint

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return self.endpoint_class(plain_config("v1/embeddings", base_url, api_key))

    def valid_request(self) -> dict[str, Any]:
        return {"input": "alpha"}


_CONTENT_FILTER = "test_content_filter_is_typed_not_retried_circuit_neutral"
_UNSUPPORTED_MODEL = "test_unsupported_model_is_typed_not_retried_circuit_neutral"
_CAPABILITY = "test_capability_refusal_is_typed_not_retried_circuit_neutral"
_IN_STREAM_CAPABILITY = "test_in_stream_capability_refusal_is_typed_not_retried_circuit_neutral"

# (kit, defect, case, what the failure says)
DETECTS: list[tuple[type[Any], type[Endpoint], str, str]] = [
    (Chat, TruncatesText, "test_one_shot_text", "invoke\\(\\) text"),
    (Chat, DropsUsage, "test_one_shot_usage", "no usage record"),
    (Chat, MisassemblesArguments, "test_one_shot_tool_call", "tool calls are"),
    (Chat, MergesReasoningIntoText, "test_one_shot_reasoning", "reasoning"),
    (Chat, DuplicatesFirstDelta, "test_stream_text", "streamed text"),
    (Chat, DropsUsage, "test_stream_usage", "no usage record"),
    (Chat, MisassemblesArguments, "test_stream_tool_call_assembled", "tool_use input"),
    (Chat, MergesReasoningIntoText, "test_stream_reasoning", "thinking"),
    (Chat, AuthAsGenericError, "test_auth_401_is_auth_error_not_retried", "ProviderAuthError"),
    (Chat, Forbidden403AsClientError, "test_auth_403_is_auth_error_not_retried", "403"),
    (Chat, RetriesRateLimitItself, "test_rate_limit_429_retried_with_retry_after", "attempted"),
    (Chat, ServerErrorsNotRetryable, "test_server_errors_retried_then_typed", "Server"),
    (
        Chat,
        ContextAsPlainClientError,
        "test_context_length_is_context_error_not_retried",
        "ProviderContextError",
    ),
    (Chat, ContentFilterAsClientError, _CONTENT_FILTER, "expected ProviderContentFilterError"),
    (Chat, ContentFilterAsProviderError, _CONTENT_FILTER, "opened the circuit"),
    (Chat, ContentFilterWithoutStatus, _CONTENT_FILTER, "has status None"),
    (Chat, RetriesContentFilterItself, _CONTENT_FILTER, "attempted 3 times"),
    (Chat, StreamContentFilterAsStreamError, _CONTENT_FILTER, "opened the circuit"),
    (Chat, SwallowsErrorEvents, _CONTENT_FILTER, "StreamContentFilterError, got NoneType"),
    (Chat, KeyOnTheRefusal, _CONTENT_FILTER, "vars\\(ProviderStatusContentFilterError\\)"),
    (
        Chat,
        UnsupportedModelAsClientError,
        _UNSUPPORTED_MODEL,
        "expected ProviderUnsupportedModelError, got ProviderClientError",
    ),
    (Chat, UnsupportedModelAsProviderError, _UNSUPPORTED_MODEL, "opened the circuit"),
    (Chat, UnsupportedModelWithoutStatus, _UNSUPPORTED_MODEL, "has status None"),
    (Chat, RetriesUnsupportedModelItself, _UNSUPPORTED_MODEL, "attempted 3 times"),
    (
        Chat,
        StreamUnsupportedModelAsProtocolError,
        _UNSUPPORTED_MODEL,
        "after an unsupported model \\(HTTP 404\\) \\(stream\\(\\) raised "
        "ProviderProtocolError.*opened the circuit",
    ),
    (
        Chat,
        CapabilityAsClientError,
        _CAPABILITY,
        "expected ProviderCapabilityError, got ProviderClientError",
    ),
    (Chat, InStreamCapabilityAsStreamError, _IN_STREAM_CAPABILITY, "opened the circuit"),
    (Chat, QuotaAsServerError, "test_quota_is_quota_error", "ProviderQuotaError"),
    (Chat, OverloadAsQuota, "test_overloaded_is_capacity_or_server_error", "CapacityError or"),
    (Chat, SwallowsMalformedBody, "test_malformed_body_is_protocol_error_not_retried", "FAILED"),
    (Chat, DropAsProtocolError, "test_disconnect_before_response_is_retried", "Connection"),
    (Chat, IgnoresDeadline, "test_deadline_bounds_a_stalled_call", "deadline"),
    (Chat, LeaksKeyInRepr, "test_api_key_never_leaks", "repr\\(endpoint\\)"),
    (Chat, LogsKey, "test_api_key_never_leaks", "a log record"),
    (Chat, KeyOnTheError, "test_api_key_never_leaks", "vars\\(ProviderUnauthorizedError\\)"),
    (Chat, NeverClosesClient, "test_closes_its_client", "left its HTTP client"),
    (Chat, DropsAuthHeader, "test_api_key_never_leaks", "did not carry the api_key"),
    (Chat, DropsAuthHeader, "test_auth_401_is_auth_error_not_retried", "did not carry"),
    (Chat, SendsAnotherKey, "test_api_key_never_leaks", "did not carry the api_key"),
    (Chat, KeyInQuery, "test_api_key_never_leaks", "puts it in the URL"),
    (Chat, KeyInQuery, "test_one_shot_text", "credential query parameter"),
    (Chat, KeepsResponseOpen, "test_stream_cancellation", "still busy"),
    (Chat, WrongPath, "test_one_shot_text", "no openai_chat route"),
    (Chat, SwallowsErrorEvents, "test_stream_error_event_is_typed", "ProviderStreamError"),
    (Chat, TextAfterError, "test_stream_ends_at_its_error_chunk", "chunks follow the error"),
    (Chat, RepeatsErrorChunk, "test_stream_ends_at_its_error_chunk", "yielded 2 error chunks"),
    (Chat, UnflaggedErrorChunk, "test_stream_ends_at_its_error_chunk", "is_error=False"),
    (Chat, RaisesOddlyAfterErrorChunk, "test_stream_ends_at_its_error_chunk", "RuntimeError"),
    (Chat, DropsFinishReason, "test_one_shot_finish_reason", "no finish reason"),
    (Chat, HidesTokenLimit, "test_one_shot_finish_reason", "stopped at the output token limit"),
    (Chat, ReportsEveryEndAsCut, "test_one_shot_finish_reason", "ended normally"),
    (Chat, DropsFinishReason, "test_stream_finish_reason", "no finish reason"),
    (Chat, HidesTokenLimit, "test_stream_finish_reason", "stopped at the output token limit"),
    (Chat, ReportsEveryEndAsCut, "test_stream_finish_reason", "ended normally"),
    (Chat, RejectsUnknownFields, "test_one_shot_unknown_fields_tolerated", "unknown fields ended"),
    (
        Chat,
        StrictStreamFields,
        "test_stream_unknown_fields_tolerated",
        "stream with unknown fields: the stream raised ProviderProtocolError",
    ),
    (
        Chat,
        SkipsEventsWithUnknownFields,
        "test_stream_unknown_fields_tolerated",
        "exactly one result chunk",
    ),
    (Chat, TextFromUnknownFields, "test_stream_unknown_fields_tolerated", "presented as output"),
    (Chat, ForwardsUnknownFields, "test_stream_unknown_fields_tolerated", "changed the chunks"),
    (
        StrictChat,
        SkipsEventsWithUnknownFields,
        "test_stream_unknown_fields_tolerated",
        "expected ProviderProtocolError",
    ),
    (
        Chat,
        SwallowsMalformedBody,
        "test_stream_malformed_event_is_protocol_error",
        "ProviderProtocolError",
    ),
    (
        Chat,
        DropAsProtocolError,
        "test_stream_disconnect_before_first_chunk_retried",
        "ProviderConnectionError",
    ),
    (
        Chat,
        ReconnectsAfterFirstChunk,
        "test_stream_disconnect_after_first_chunk_not_retried",
        "re-requested",
    ),
    (Chat, IgnoresDeadline, "test_stream_deadline_bounds_a_stall", "RequestDeadlineExceeded"),
    (Chat, SwallowsCancellation, "test_stream_cancellation", "cancel"),
    (Embeddings, ReversesVectors, "test_embeddings_vectors", "vectors"),
    (Embeddings, DropsEmbeddingsUsage, "test_embeddings_usage", "no token usage"),
    (Embeddings, AuthAsGenericError, "test_auth_401_is_auth_error_not_retried", "Auth"),
    (JSON, ReturnsNothing, "test_json_object_returned", "not an object"),
    (JSON, ServerErrorsNotRetryable, "test_server_errors_retried_then_typed", "Server"),
]


@pytest.mark.parametrize(
    ("kit", "defect", "case", "says"),
    DETECTS,
    ids=[f"{kit.__name__}-{defect.__name__}-{case}" for kit, defect, case, _ in DETECTS],
)
def test_kit_detects_planted_defect(
    kit: type[Any], defect: type[Endpoint], case: str, says: str
) -> None:
    broken = type(f"{kit.__name__}With{defect.__name__}", (kit,), {"endpoint_class": defect})()
    with warnings.catch_warnings():
        # A defect may leak a client by design (NeverClosesClient): collect it here, where its
        # ResourceWarning is expected, not during a later test.
        warnings.simplefilter("ignore", ResourceWarning)
        with pytest.raises(AssertionError, match=says):
            getattr(broken, case)()
        del broken
        gc.collect()


def test_every_case_has_a_detecting_defect() -> None:
    """Every case has a planted defect: shared cases on the chat kit, the rest on their own."""
    covered = {(kit, case) for kit, _, case, _ in DETECTS}
    for kit in (Chat, Embeddings, JSON):
        own = {n for n in vars(kit.__mro__[1]) if n.startswith("test_")}
        if kit is Chat:
            own |= {n for n in dir(kit) if n.startswith("test_")}
        missing = sorted(n for n in own if not any((k, n) in covered for k in (Chat, kit)))
        assert missing == [], f"{kit.__name__}: cases without a kit-detects defect: {missing}"


@pytest.mark.parametrize("kit", [Chat, StrictChat, Embeddings, JSON])
def test_undamaged_endpoint_passes_the_detected_cases(kit: type[Any]) -> None:
    """The baseline: the cases above pass for the plain endpoint (so the defect is the cause)."""
    good = kit()
    for owner, _, case, _ in DETECTS:
        if owner is kit:
            getattr(good, case)()


def test_cases_are_plain_synchronous_functions() -> None:
    """No async plugin needed: every case is a synchronous method taking only ``self``."""
    import inspect

    for kit in (Chat, Embeddings, JSON):
        for name in (n for n in dir(kit) if n.startswith("test_")):
            method = getattr(kit, name)
            assert not inspect.iscoroutinefunction(method), name
            assert list(inspect.signature(method).parameters) == ["self"], name
            assert (
                (method.__doc__ or "")
                .rstrip()
                .split("\n\n")[-1]
                .lstrip()
                .startswith("Troubleshooting:")
            ), f"{name}: the docstring does not end with a Troubleshooting paragraph"
