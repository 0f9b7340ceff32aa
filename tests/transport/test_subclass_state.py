"""Adapters keep their own state under natural names without breaking the base class.

An adapter that stores ``self._client`` (an SDK client), ``self._config`` or ``self._state`` of
its own must not replace what :class:`Endpoint` keeps for its pooled HTTP client, config and
lifecycle: ``aclose``, ``copy``, ``call`` and ``stream`` keep working on the base's state.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, ClassVar

import httpx
from pydantic import BaseModel, ConfigDict

from lionagi.service import AgenticCapabilities, AgenticEndpoint, Endpoint, StreamChunk
from lionagi.service.http import ChatCompletionsProjector, ClientState

CONFIG = {
    "name": "t",
    "provider": "p",
    "endpoint": "chat/completions",
    "base_url": "http://127.0.0.1:9",
    "auth_type": "none",
    "allow_local_network": True,
}


class _SDKClient:
    """What an adapter might keep: an object with no ``aclose`` the base could call."""

    def __init__(self) -> None:
        self.closed = False


def _reply(request: httpx.Request) -> httpx.Response:
    if json.loads(request.content).get("stream"):
        events = (
            'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n'
            'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
            "data: [DONE]\n\n"
        )
        return httpx.Response(200, text=events, headers={"content-type": "text/event-stream"})
    return httpx.Response(200, json={"ok": True})


class OwnStateEndpoint(Endpoint):
    """Stores state under every name the base class could plausibly use itself."""

    projector = ChatCompletionsProjector

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._client = _SDKClient()
        self._config = {"adapter": "settings"}
        self._state = "adapter-state"
        self._transport = "adapter-transport"
        self._guard = "adapter-guard"
        self._url_cache = "adapter-cache"
        self._session_id = "adapter-session"


async def test_http_subclass_state_does_not_break_call_stream_copy_aclose() -> None:
    ep = OwnStateEndpoint(CONFIG, transport=httpx.MockTransport(_reply))
    assert ep.config.provider == "p"
    assert ep.client_state is ClientState.UNOPENED
    assert await ep.call({}) == {"ok": True}
    chunks = [chunk async for chunk in ep.stream({})]
    assert any(chunk.content == "hi" for chunk in chunks)
    assert ep.client_state is ClientState.OPENED

    twin = ep.copy()
    assert isinstance(twin, OwnStateEndpoint)
    assert twin.client_state is ClientState.UNOPENED
    assert await twin.call({}) == {"ok": True}

    await ep.aclose()
    await twin.aclose()
    assert ep.client_state is ClientState.CLOSED
    assert twin.client_state is ClientState.CLOSED
    # The adapter's own objects are its own: untouched by the base's teardown.
    assert isinstance(ep._client, _SDKClient)
    assert ep._config == {"adapter": "settings"}
    assert ep._state == "adapter-state"


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    prompt: str


class OwnStateAgentic(AgenticEndpoint):
    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="in_process", resumable=True, emits_tool_events=False, reports_usage=False
    )
    request_type: ClassVar[type[BaseModel] | None] = _Request

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._client = _SDKClient()
        self._config = {"adapter": "settings"}
        self._state = "adapter-state"
        self._session_id = "adapter-session"

    async def _stream_agentic(
        self, request: BaseModel, *, runtime_args: dict[str, Any], local_timeout: float | None
    ) -> AsyncIterator[StreamChunk]:
        yield StreamChunk(type="result", content="done", metadata={"session_id": "s-1"})


async def test_agentic_subclass_state_does_not_break_stream_copy_aclose() -> None:
    ep = OwnStateAgentic({**CONFIG, "base_url": "https://agent.invalid"})
    assert ep.provider_session_id is None  # the adapter's own _session_id is not the base's
    chunks = [chunk async for chunk in ep.stream({"prompt": "x"})]
    assert chunks[-1].content == "done"
    assert ep.provider_session_id == "s-1"
    assert ep._session_id == "adapter-session"
    twin = ep.copy()
    assert isinstance(twin, OwnStateAgentic)
    assert twin.config.provider == "p"
    await ep.aclose()
    await twin.aclose()
    assert ep.client_state is ClientState.CLOSED
    assert isinstance(ep._client, _SDKClient)
