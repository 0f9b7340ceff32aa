"""`Endpoint.stream_projector`: a stream's dialect chosen from its payload, once per stream.

And `stream_batches` over an endpoint that overrides `stream`: the payload the supervisor
created with the call event is handed on as created (`skip_payload_creation`), not validated a
second time (which also refused the keys `extra_body` had merged into it).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, ClassVar

import httpx
import pytest
from pydantic import BaseModel, ConfigDict

from lionagi.service import (
    Endpoint,
    EndpointConfigurationError,
    StreamChunk,
    iModel,
)
from lionagi.service.http import ChatCompletionsProjector, StreamProjector

KEY = "ZZdistinctiveQQ42secretvalueXY"


def sse_answer(text: str) -> bytes:
    event = {
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}],
    }
    return f"data: {json.dumps(event)}\n\ndata: [DONE]\n\n".encode()


class Wire:
    """A mock transport answering every request with the same stream; keeps the bodies sent."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        return httpx.Response(
            200, content=sse_answer("hi"), headers={"content-type": "text/event-stream"}
        )


class ShoutingProjector(ChatCompletionsProjector):
    """The chat dialect with its text upper-cased: which projector read a stream shows."""

    __slots__ = ()

    def feed(self, event: Any) -> Sequence[StreamChunk]:
        chunks = super().feed(event)
        for chunk in chunks:
            if chunk.type == "text" and chunk.content:
                chunk.content = chunk.content.upper()
        return chunks


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str
    messages: list[dict[str, Any]] | None = None
    mode: str | None = None


def config(**extra: Any) -> dict[str, Any]:
    return {
        "name": "test",
        "provider": "test",
        "endpoint": "chat/completions",
        "base_url": "http://127.0.0.1:9",
        "api_key": KEY,
        "allow_local_network": True,
        "request_options": _Request,
        "timeout": 10.0,
        **extra,
    }


class Modal(Endpoint):
    """Reads `"mode": "shout"` streams with another grammar; records what it was asked."""

    projector: ClassVar[type[StreamProjector] | None] = ChatCompletionsProjector
    asked: ClassVar[list[Mapping[str, Any]]]

    def stream_projector(self, payload: Mapping[str, Any]) -> type[StreamProjector]:
        type(self).asked.append(payload)
        if payload.get("mode") == "shout":
            return ShoutingProjector
        return super().stream_projector(payload)


@pytest.fixture
def modal() -> type[Modal]:
    cls = type("ModalEndpoint", (Modal,), {"asked": []})
    return cls


async def texts(chunks: AsyncIterator[StreamChunk]) -> list[str]:
    return [c.content or "" async for c in chunks if c.type == "text"]


async def test_the_projector_is_chosen_from_each_streams_payload(modal: type[Modal]) -> None:
    wire = Wire()
    async with modal(config(), transport=httpx.MockTransport(wire)) as ep:
        shouted = await texts(ep.stream({"model": "m", "mode": "shout"}))
        plain = await texts(ep.stream({"model": "m"}))
    assert (shouted, plain) == (["HI"], ["hi"])
    # Once per stream, with the payload as built for the stream (its stream flag set).
    assert [dict(p) for p in modal.asked] == [
        {"model": "m", "mode": "shout", "stream": True},
        {"model": "m", "stream": True},
    ]
    assert [b.get("mode") for b in wire.bodies] == ["shout", None]


async def test_the_hook_sees_the_created_payload_not_its_encoded_form(
    modal: type[Modal],
) -> None:
    async with modal(config(), transport=httpx.MockTransport(Wire())) as ep:
        encoded = ep.encode_payload({"model": "m", "mode": "shout"}, stream=True)
        batches = ep.stream_batches(encoded, skip_payload_creation=True)
        got = [c.content async for batch in batches for c in batch if c.type == "text"]
    assert got == ["HI"]
    [asked] = modal.asked
    assert asked is encoded.payload


async def test_imodel_streams_ask_the_hook_once_with_the_payload_as_created(
    modal: type[Modal],
) -> None:
    """Through the supervisor, which encodes the payload once before the attempts."""
    model = iModel(endpoint=modal(config(), transport=httpx.MockTransport(Wire())))
    async with model:
        messages = [{"role": "user", "content": "hi"}]
        shouted = await texts(model.stream(messages=messages, model="m", mode="shout"))
    assert shouted == ["HI"]
    assert [p.get("mode") for p in modal.asked] == ["shout"]


async def test_a_hook_that_refuses_sends_nothing() -> None:
    class Picky(Endpoint):
        projector = ChatCompletionsProjector

        def stream_projector(self, payload: Mapping[str, Any]) -> type[StreamProjector]:
            raise EndpointConfigurationError("mode", "no grammar for this mode")

    wire = Wire()
    async with Picky(config(), transport=httpx.MockTransport(wire)) as ep:
        with pytest.raises(EndpointConfigurationError) as refused:
            await texts(ep.stream({"model": "m", "mode": "x"}))
    assert refused.value.field == "mode"
    assert wire.bodies == []


def test_the_default_hook_is_the_declared_projector_or_the_refusal() -> None:
    class Chat(Endpoint):
        projector = ChatCompletionsProjector

    assert Chat(config()).stream_projector({"model": "m"}) is ChatCompletionsProjector
    with pytest.raises(EndpointConfigurationError) as refused:
        Endpoint(config()).stream_projector({"model": "m"})
    assert refused.value.field == "stream"


async def test_a_class_that_does_not_override_the_hook_is_not_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fast path: a dialect declared as class data is read from the class, as before."""
    asked: list[Any] = []

    def spy(self: Endpoint, payload: Mapping[str, Any]) -> type[StreamProjector]:
        asked.append(payload)
        raise AssertionError("not to be called")

    monkeypatch.setattr(Endpoint, "stream_projector", spy)

    class Chat(Endpoint):
        projector = ChatCompletionsProjector

    async with Chat(config(), transport=httpx.MockTransport(Wire())) as ep:
        assert await texts(ep.stream({"model": "m"})) == ["hi"]
    assert asked == []


# -- stream_batches over an overridden stream ----------------------------------------------------


class Relaying(Endpoint):
    """Overrides `stream` (passing everything on) and counts the payloads it validates."""

    projector: ClassVar[type[StreamProjector] | None] = ChatCompletionsProjector
    created: ClassVar[int] = 0

    def create_payload(
        self,
        request: Mapping[str, Any] | BaseModel,
        extra_headers: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> tuple[dict[str, Any], dict[str, str]]:
        type(self).created += 1
        return super().create_payload(request, extra_headers, **kwargs)

    async def stream(self, request: Any, **kwargs: Any) -> AsyncIterator[StreamChunk]:
        async for chunk in super().stream(request, **kwargs):
            yield chunk


@pytest.fixture
def relaying() -> type[Relaying]:
    cls = type("RelayingEndpoint", (Relaying,), {"created": 0})
    return cls


async def test_stream_batches_hands_an_overridden_stream_the_created_payload(
    relaying: type[Relaying],
) -> None:
    async with relaying(config(), transport=httpx.MockTransport(Wire())) as ep:
        batches = ep.stream_batches({"model": "m"}, skip_payload_creation=True)
        got = [c.content async for batch in batches for c in batch if c.type == "text"]
    assert got == ["hi"]
    assert relaying.created == 0


async def test_imodel_validates_an_overridden_streams_payload_once(
    relaying: type[Relaying],
) -> None:
    """Validated again, the keys `extra_body` merged were refused as unknown request fields."""
    wire = Wire()
    model = iModel(endpoint=relaying(config(), transport=httpx.MockTransport(wire)))
    async with model:
        messages = [{"role": "user", "content": "hi"}]
        chunks = model.stream(messages=messages, model="m", extra_body={"vendor_knob": 1})
        assert await texts(chunks) == ["hi"]
    assert relaying.created == 1
    assert wire.bodies[0]["vendor_knob"] == 1
