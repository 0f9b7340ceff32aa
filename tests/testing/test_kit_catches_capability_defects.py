"""The capability-refusal cases fail an adapter with one planted defect, and pass core's.

Each defect is a small ``OpenAIChatEndpoint`` subclass that mishandles a refusal saying the
model cannot do what was asked: the HTTP 400 (core types it ``ProviderStatusCapabilityError``;
the setup-form case) or the same refusal as a 200 stream's error event (core types it
``ProviderStreamCapabilityError``; the in-stream case). The kit case is called directly (the
cases are synchronous) and must raise ``AssertionError`` naming the mistake, while core's
undamaged endpoints pass the same case and the generic JSON dialect skips with its reason.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, ClassVar

import pytest

from lionagi.service import (
    Endpoint,
    ProviderCapabilityError,
    ProviderClientError,
    ProviderError,
    ProviderProtocolError,
    ProviderStatusCapabilityError,
    ProviderStreamCapabilityError,
    ProviderStreamError,
    StreamChunk,
    match_endpoint,
)
from lionagi.service.http import HTTPErrorInfo, OpenAIChatEndpoint
from lionagi.service_testing.conformance import HTTPChatConformance

CASE = "test_capability_refusal_is_typed_not_retried_circuit_neutral"
IN_STREAM = "test_in_stream_capability_refusal_is_typed_not_retried_circuit_neutral"

# -- planted defects ----------------------------------------------------------------------------


class CapabilityAsClientError(OpenAIChatEndpoint):
    """Keeps the status but drops the family: the caller cannot tell "use another model"."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderStatusCapabilityError as exc:
            raise ProviderClientError(str(exc), status=exc.status) from None


class ClaimsEvery400(OpenAIChatEndpoint):
    """A vendor hook that answers every 400 itself, before core's body rules could type it."""

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        if info.status == 400:
            return ProviderClientError(
                f"{info.where} rejected the request (HTTP 400)",
                status=info.status,
                body_excerpt=info.excerpt,
            )
        return super().map_status_error(info)


class CapabilityAsProviderError(OpenAIChatEndpoint):
    """A plain ``ProviderError``: counted against the circuit, which opens at one failure."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderCapabilityError as exc:
            raise ProviderError(str(exc)) from None


class CapabilityWithoutStatus(OpenAIChatEndpoint):
    """The family without the HTTP status the server answered with."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderCapabilityError as exc:
            raise ProviderCapabilityError(str(exc), capability=exc.capability) from None


class CapabilityUnnamed(OpenAIChatEndpoint):
    """Rebuilds the status error without the capability the provider's text named."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        try:
            return await super().call(request, **kwargs)
        except ProviderStatusCapabilityError as exc:
            raise ProviderStatusCapabilityError(
                str(exc), status=exc.status, body_excerpt=exc.body_excerpt
            ) from None


class RetriesCapabilityItself(OpenAIChatEndpoint):
    """Sends the refused request twice more inside one ``call``."""

    async def call(self, request: Any, **kwargs: Any) -> Any:
        for _ in range(2):
            try:
                return await super().call(request, **kwargs)
            except ProviderCapabilityError:
                continue
        return await super().call(request, **kwargs)


class StreamCapabilityAsProtocolError(OpenAIChatEndpoint):
    """One-shot right; the refusal met at stream setup becomes a protocol error (counted)."""

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        try:
            async for chunk in super().stream(request, **kwargs):
                yield chunk
        except ProviderCapabilityError as exc:
            raise ProviderProtocolError(f"stream refused: {exc}") from None


# -- planted defects: the refusal inside a 200 stream ------------------------------------------


class InStreamCapabilityAsStreamError(OpenAIChatEndpoint):
    """A ``stream_error`` override that drops the family: a plain stream error (counted)."""

    def stream_error(self, chunk: StreamChunk) -> ProviderStreamError:
        error = super().stream_error(chunk)
        if isinstance(error, ProviderCapabilityError):
            return ProviderStreamError(str(error), status=error.status, code=error.code)
        return error


class InStreamCapabilityUnnamed(OpenAIChatEndpoint):
    """Keeps the stream family but rebuilds it without the capability the text named."""

    def stream_error(self, chunk: StreamChunk) -> ProviderStreamError:
        error = super().stream_error(chunk)
        if isinstance(error, ProviderStreamCapabilityError):
            return ProviderStreamCapabilityError(str(error), status=error.status, code=error.code)
        return error


class InStreamCapabilityAsCliForm(OpenAIChatEndpoint):
    """Raises the CLI-form class at the error event: right family, but not a stream error."""

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            if chunk.type == "error":
                error = self.stream_error(chunk)
                capability = getattr(error, "capability", None)
                raise ProviderCapabilityError(str(error), capability=capability)
            yield chunk


class ReRequestsRefusedStream(OpenAIChatEndpoint):
    """Opens the stream twice more when its error event is a capability refusal."""

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        for _ in range(2):
            chunks = [chunk async for chunk in super().stream(request, **kwargs)]
            refused = [c for c in chunks if c.type == "error"]
            if not (refused and isinstance(self.stream_error(refused[0]), ProviderCapabilityError)):
                break
        else:
            chunks = [chunk async for chunk in super().stream(request, **kwargs)]
        for chunk in chunks:
            yield chunk


class SwallowsInStreamRefusal(OpenAIChatEndpoint):
    """Drops the error event: the refused stream ends as if it had nothing to say."""

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            if chunk.type != "error":
                yield chunk


# -- the kit over a chosen endpoint class -------------------------------------------------------


def _config(base_url: str, api_key: str) -> Any:
    return match_endpoint(
        "conformance-llm",
        "",
        openai_compatible=True,
        base_url=base_url,
        api_key=api_key,
        allow_local_network=True,
    ).config


class Chat(HTTPChatConformance):
    dialect = "openai_chat"
    endpoint_class: ClassVar[type[Endpoint]] = OpenAIChatEndpoint

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return self.endpoint_class(_config(base_url, api_key))

    def valid_request(self) -> dict[str, Any]:
        return {"model": "fake-model", "messages": [{"role": "user", "content": "hello"}]}


def _plain(path: str, base_url: str, api_key: str) -> Endpoint:
    return Endpoint(
        {
            "name": path,
            "provider": "conformance-plain",
            "endpoint": path,
            "base_url": base_url,
            "api_key": api_key,
            "allow_local_network": True,
        }
    )


class PlainAnthropic(HTTPChatConformance):
    """Core's plain ``Endpoint`` on the Messages route, one-shot: no vendor hook involved."""

    dialect = "anthropic_messages"
    streams = False

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return _plain("messages", base_url, api_key)

    def valid_request(self) -> dict[str, Any]:
        return {
            "model": "fake-model",
            "max_tokens": 16,
            "messages": [{"role": "user", "content": "hi"}],
        }


class PlainGemini(HTTPChatConformance):
    dialect = "gemini"
    streams = False

    def make_endpoint(self, base_url: str, api_key: str) -> Endpoint:
        return _plain("models/fake-gemini:generateContent", base_url, api_key)

    def valid_request(self) -> dict[str, Any]:
        return {"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}


class PlainJSON(Chat):
    dialect = "json"


# (defect, what the failure says)
DETECTS: list[tuple[type[Endpoint], str]] = [
    (CapabilityAsClientError, "expected ProviderCapabilityError, got ProviderClientError"),
    (ClaimsEvery400, "expected ProviderCapabilityError, got ProviderClientError"),
    (CapabilityAsProviderError, "a capability refusal \\(HTTP 400\\).*opened the circuit"),
    (CapabilityWithoutStatus, "has status None"),
    (CapabilityUnnamed, "names capability None; the server's text refused 'vision'"),
    (RetriesCapabilityItself, "attempted 3 times, expected 1"),
    (
        StreamCapabilityAsProtocolError,
        "\\(stream\\(\\) raised ProviderProtocolError.*opened the circuit",
    ),
]


# (defect, what the in-stream case's failure says)
DETECTS_IN_STREAM: list[tuple[type[Endpoint], str]] = [
    (
        InStreamCapabilityAsStreamError,
        "after a capability refusal in the stream \\(an error event\\) \\(stream\\(\\) raised "
        "ProviderStreamError.*opened the circuit",
    ),
    (
        InStreamCapabilityUnnamed,
        "names capability None; the server's text refused 'vision'",
    ),
    (
        InStreamCapabilityAsCliForm,
        "expected ProviderStreamCapabilityError, got ProviderCapabilityError",
    ),
    (ReRequestsRefusedStream, "a refused stream was attempted 3 times, expected 1"),
    (SwallowsInStreamRefusal, "expected ProviderStreamCapabilityError, got NoneType"),
]


@pytest.mark.parametrize(
    ("defect", "says"), DETECTS, ids=[defect.__name__ for defect, _ in DETECTS]
)
def test_kit_detects_planted_defect(defect: type[Endpoint], says: str) -> None:
    broken = type(f"ChatWith{defect.__name__}", (Chat,), {"endpoint_class": defect})()
    with pytest.raises(AssertionError, match=says):
        getattr(broken, CASE)()


@pytest.mark.parametrize(
    ("defect", "says"),
    DETECTS_IN_STREAM,
    ids=[defect.__name__ for defect, _ in DETECTS_IN_STREAM],
)
def test_in_stream_case_detects_planted_defect(defect: type[Endpoint], says: str) -> None:
    broken = type(f"ChatWith{defect.__name__}", (Chat,), {"endpoint_class": defect})()
    with pytest.raises(AssertionError, match=says):
        getattr(broken, IN_STREAM)()


@pytest.mark.parametrize("kit", [Chat, PlainAnthropic, PlainGemini])
def test_undamaged_endpoint_passes(kit: type[HTTPChatConformance]) -> None:
    """The baseline: core's endpoints pass (so the defect is the cause).

    Core's own endpoints, no vendor hook: the chat-completions one, and a plain ``Endpoint`` on
    the Messages and generateContent routes. Ollama's native dialect runs in the ollama
    distribution's tests (a plain ``Endpoint`` there would get the stream Ollama defaults to).
    """
    getattr(kit(), CASE)()


def test_undamaged_endpoint_passes_the_in_stream_case() -> None:
    """The in-stream baseline: core's chat-completions endpoint passes it (streams on).

    The other dialects' streamed grammars are their vendor packages' (the plain ``Endpoint``
    here is one-shot), and their conformance suites run this case.
    """
    getattr(Chat(), IN_STREAM)()


@pytest.mark.parametrize("kit", [PlainAnthropic, PlainGemini])
def test_the_in_stream_case_skips_a_one_shot_adapter(kit: type[HTTPChatConformance]) -> None:
    with pytest.raises(pytest.skip.Exception, match="does not declare streams=True"):
        getattr(kit(), IN_STREAM)()


@pytest.mark.parametrize("case", [CASE, IN_STREAM])
def test_a_dialect_without_a_rendered_refusal_skips_with_the_reason(case: str) -> None:
    with pytest.raises(pytest.skip.Exception, match="no capability-refusal error in the json"):
        getattr(PlainJSON(), case)()
