"""The capability-refusal case fails an adapter with one planted defect, and passes core's.

Each defect is a small ``OpenAIChatEndpoint`` subclass that mishandles a 400 saying the model
cannot do what was asked (core types it ``ProviderStatusCapabilityError``); the kit case is
called directly (the cases are synchronous) and must raise ``AssertionError`` naming the mistake,
while core's undamaged endpoints pass the same case and the generic JSON dialect skips with
its reason.
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
    StreamChunk,
    match_endpoint,
)
from lionagi.service.http import HTTPErrorInfo, OpenAIChatEndpoint
from lionagi.service_testing.conformance import HTTPChatConformance

CASE = "test_capability_refusal_is_typed_not_retried_circuit_neutral"

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


@pytest.mark.parametrize(
    ("defect", "says"), DETECTS, ids=[defect.__name__ for defect, _ in DETECTS]
)
def test_kit_detects_planted_defect(defect: type[Endpoint], says: str) -> None:
    broken = type(f"ChatWith{defect.__name__}", (Chat,), {"endpoint_class": defect})()
    with pytest.raises(AssertionError, match=says):
        getattr(broken, CASE)()


@pytest.mark.parametrize("kit", [Chat, PlainAnthropic, PlainGemini])
def test_undamaged_endpoint_passes(kit: type[HTTPChatConformance]) -> None:
    """The baseline: core's endpoints pass (so the defect is the cause).

    Core's own endpoints, no vendor hook: the chat-completions one, and a plain ``Endpoint`` on
    the Messages and generateContent routes. Ollama's native dialect runs in the ollama
    distribution's tests (a plain ``Endpoint`` there would get the stream Ollama defaults to).
    """
    getattr(kit(), CASE)()


def test_a_dialect_without_a_rendered_refusal_skips_with_the_reason() -> None:
    with pytest.raises(pytest.skip.Exception, match="no capability-refusal error in the json"):
        getattr(PlainJSON(), CASE)()
