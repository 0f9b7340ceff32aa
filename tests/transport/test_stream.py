"""Streaming over a real loopback socket: framing edge cases, status, drops and early close."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

from lionagi.service import (
    Endpoint,
    EndpointConfigurationError,
    ProviderConnectionError,
    ProviderProtocolError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderUnauthorizedError,
    StreamChunk,
)
from lionagi.service._transport.http.framing import DONE, NDJSONFramer, SSEFramer
from lionagi.service.http import ChatCompletionsProjector

from ._chunks import delta


def sse(obj: Any) -> str:
    return f"data: {json.dumps(obj)}\n\n"


async def collect(ep: Any, **kw: Any) -> list[StreamChunk]:
    return [c async for c in ep.stream({"model": "m", "messages": []}, **kw)]


async def drain_into(stream: Any, got: list[StreamChunk]) -> None:
    async for chunk in stream:
        got.append(chunk)


def texts(chunks: list[StreamChunk]) -> str:
    return "".join(c.content or "" for c in chunks if c.type == "text")


# --- framers without a socket --------------------------------------------------------------------


SSE_BODY = (
    ": keep-alive comment\r\n"
    'data: {"a":\r\n'
    "data:  1}\r\n"
    "\r\n"
    "event: custom\n"
    'data: {"b": 2}\n'
    "\n"
    "retry: 100\n"
    "\n"
    "data: [DONE]\r"
    "\r"
    'data: {"c": 3}'
)


def test_sse_framer_is_split_invariant() -> None:
    expected = [{"a": 1}, {"b": 2, "type": "custom"}, DONE, {"c": 3}]
    for cut in range(len(SSE_BODY) + 1):
        framer = SSEFramer()
        events = framer.feed(SSE_BODY[:cut]) if cut else []
        if cut < len(SSE_BODY):
            events += framer.feed(SSE_BODY[cut:])
        events += framer.flush()
        assert events == expected, cut


def test_ndjson_framer_is_split_invariant() -> None:
    body = '{"a": 1}\n\n{"b": [1, 2]}\r\n{"c": "é"}'
    for cut in range(len(body) + 1):
        framer = NDJSONFramer()
        events = framer.feed(body[:cut]) + framer.feed(body[cut:]) + framer.flush()
        assert events == [{"a": 1}, {"b": [1, 2]}, {"c": "é"}], cut


def test_sse_non_json_data_is_a_protocol_error() -> None:
    with pytest.raises(ProviderProtocolError, match="not valid JSON"):
        SSEFramer().feed("data: {broken\n\n")


# --- loopback --------------------------------------------------------------------------------


async def test_stream_sets_stream_flag_and_projects_chat(serve, make_endpoint, wire):
    server = await serve(
        lambda req: wire.sse_stream(
            sse(delta("Hel")), sse(delta("lo")), sse(delta("", "stop")), "data: [DONE]\n\n"
        )
    )
    ep = make_endpoint(server.base_url)
    chunks = await collect(ep)
    assert texts(chunks) == "Hello"
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["finish_reason"] == "stop"
    body = json.loads(server.requests[0].body)
    assert body["stream"] is True


async def test_frames_split_across_tcp_writes(serve, make_endpoint, wire):
    raw = sse(delta("alpha")) + sse(delta("beta")) + sse(delta("", "stop")) + "data: [DONE]\n\n"
    pieces = [raw[i : i + 7] for i in range(0, len(raw), 7)]
    server = await serve(lambda req: wire.sse_stream(*pieces, pause=0.002))
    ep = make_endpoint(server.base_url)
    chunks = await collect(ep)
    assert texts(chunks) == "alphabeta"
    assert chunks[-1].type == "result"


async def test_multiline_data_comments_and_crlf(serve, make_endpoint, wire):
    first = json.dumps(delta("one"))
    cut = len(first) // 2
    frames = [
        ": this is a comment\r\n\r\n",
        f"data: {first[:cut]}\r\ndata: {first[cut:]}\r\n\r\n",
        ":another comment\r\n",
        f"id: 7\r\ndata: {json.dumps(delta('two', 'stop'))}\r\n\r\n",
        "data: [DONE]\r\n\r\n",
    ]
    server = await serve(lambda req: wire.sse_stream(*frames))
    ep = make_endpoint(server.base_url)
    chunks = await collect(ep)
    assert texts(chunks) == "onetwo"
    assert [c.type for c in chunks] == ["text", "text", "result"]


async def test_missing_final_newline_at_eof(serve, make_endpoint, wire):
    # The last event (the one with the finish_reason) has no terminating newline: it must still
    # be parsed, or the stream would end before completion.
    body = sse(delta("x")) + f"data: {json.dumps(delta('', 'stop'))}"
    server = await serve(lambda req: wire.sse_stream(body))
    ep = make_endpoint(server.base_url)
    chunks = await collect(ep)
    assert [c.type for c in chunks] == ["text", "result"]
    assert chunks[-1].metadata["finish_reason"] == "stop"
    assert chunks[-1].metadata["model"] == "m1"


async def test_done_ends_the_stream_and_later_bytes_are_ignored(serve, make_endpoint, wire):
    server = await serve(
        lambda req: wire.sse_stream(sse(delta("a")), "data: [DONE]\n\n", "data: {garbage\n\n")
    )
    ep = make_endpoint(server.base_url)
    chunks = await collect(ep)
    assert [c.type for c in chunks] == ["text", "result"]


async def test_ndjson_stream(serve, make_endpoint, wire):
    lines = "".join(json.dumps(delta(t)) + "\n" for t in ("x", "y")) + json.dumps(delta("", "stop"))
    pieces = [lines[i : i + 11] for i in range(0, len(lines), 11)]
    server = await serve(
        lambda req: wire.sse_stream(*pieces, pause=0.002, content_type="application/x-ndjson")
    )
    ep = make_endpoint(server.base_url)
    chunks = await collect(ep)
    assert texts(chunks) == "xy"
    assert chunks[-1].type == "result"


async def test_unexpected_content_type_is_a_protocol_error(serve, make_endpoint, wire):
    server = await serve(lambda req: wire.sse_stream("<html>", content_type="text/html"))
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderProtocolError, match="text/html"):
        await collect(ep)


async def test_provider_error_event_is_one_error_chunk(serve, make_endpoint, wire):
    error = {"error": {"type": "server_error", "message": "Overloaded"}}
    server = await serve(lambda req: wire.sse_stream(sse(error), sse(delta("never"))))
    ep = make_endpoint(server.base_url)
    chunks = await collect(ep)
    assert [(c.type, c.is_error) for c in chunks] == [("error", True)]


@pytest.mark.parametrize(
    ("status", "error_type", "extra"),
    [
        (401, ProviderUnauthorizedError, {}),
        (403, ProviderUnauthorizedError, {}),
        (429, ProviderRateLimitError, {"Retry-After": "3"}),
        (500, ProviderServerError, {}),
        (503, ProviderServerError, {}),
    ],
)
async def test_status_on_stream_open(serve, make_endpoint, wire, status, error_type, extra):
    server = await serve(lambda req: wire.full(status, '{"error": "denied"}', extra=extra))
    ep = make_endpoint(server.base_url)
    with pytest.raises(error_type) as info:
        await collect(ep)
    assert info.value.status == status
    assert "denied" in info.value.body_excerpt
    if status == 429:
        assert info.value.retry_after == 3.0


async def test_drop_before_first_chunk(serve, make_endpoint, wire):
    server = await serve(lambda req: [wire.head()])  # head, then close mid-body
    ep = make_endpoint(server.base_url)
    got: list[StreamChunk] = []
    with pytest.raises(ProviderConnectionError):
        await drain_into(ep.stream({"model": "m"}), got)
    assert got == []


async def test_drop_before_response_head(serve, make_endpoint):
    server = await serve(lambda req: [])
    ep = make_endpoint(server.base_url)
    with pytest.raises(ProviderConnectionError):
        await collect(ep)


async def test_drop_after_first_chunk(serve, make_endpoint, wire):
    server = await serve(lambda req: [wire.head(), wire.chunk(sse(delta("first")))])
    ep = make_endpoint(server.base_url)
    got: list[StreamChunk] = []
    with pytest.raises(ProviderConnectionError):
        await drain_into(ep.stream({"model": "m"}), got)
    assert texts(got) == "first"


async def test_stalled_stream_hits_the_read_timeout(serve, make_endpoint, wire):
    server = await serve(lambda req: [wire.head(), wire.chunk(sse(delta("a"))), 30.0])
    ep = make_endpoint(server.base_url)
    got: list[StreamChunk] = []
    with pytest.raises(ProviderConnectionError, match="timed out"):
        await drain_into(ep.stream({"model": "m"}, timeout=0.3), got)
    assert texts(got) == "a"


def endless(wire: Any) -> Any:
    def script(req: Any) -> Iterator[bytes | float]:
        yield wire.head()
        n = 0
        while True:
            yield wire.chunk(sse(delta(f"{n},")))
            yield 0.005
            n += 1

    return script


async def test_consumer_close_mid_stream_releases_the_connection(serve, make_endpoint, wire):
    server = await serve(endless(wire))
    ep = make_endpoint(server.base_url)
    stream = ep.stream({"model": "m"})
    got = [await stream.__anext__(), await stream.__anext__()]
    assert texts(got) == "0,1,"
    await stream.aclose()  # type: ignore[attr-defined]
    await server.wait_connection_closed()
    assert server.outcomes == ["client_gone"]


async def test_cancellation_mid_stream_releases_the_connection(serve, make_endpoint, wire):
    server = await serve(endless(wire))
    ep = make_endpoint(server.base_url)
    got: list[StreamChunk] = []
    with anyio.CancelScope() as scope:
        async for chunk in ep.stream({"model": "m"}):
            got.append(chunk)
            if len(got) == 3:
                scope.cancel()
    assert scope.cancelled_caught
    assert len(got) == 3
    await server.wait_connection_closed()
    assert server.outcomes == ["client_gone"]


async def test_declared_projector_decides_the_dialect_not_the_path(make_endpoint):
    class Gateway(Endpoint):
        projector = ChatCompletionsProjector
        stream_flag = None

    body = sse(delta("", "stop")).encode()
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    base = make_endpoint("http://127.0.0.1:9", endpoint="v1/generate")
    ep = Gateway(base.config, transport=httpx.MockTransport(handler))
    try:
        chunks = [c async for c in ep.stream({"model": "m"})]
    finally:
        await ep.aclose()
    assert [c.type for c in chunks] == ["result"]
    assert "stream" not in json.loads(seen[0].content)


async def test_endpoint_without_a_dialect_refuses_stream_before_any_request(make_endpoint):
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=b"", headers={"content-type": "text/event-stream"})

    base = make_endpoint("http://127.0.0.1:9", projector=None)
    for ep in (Endpoint(base.config, transport=httpx.MockTransport(handler)), base):
        try:
            with pytest.raises(EndpointConfigurationError, match="declares no stream dialect") as e:
                async for _ in ep.stream({"model": "m"}):
                    pass
            assert e.value.field == "stream"
            with pytest.raises(EndpointConfigurationError):
                async for _ in ep.stream_batches({"model": "m"}):
                    pass
            assert ep.client_state.name == "UNOPENED"  # no client was even created
        finally:
            await ep.aclose()
    assert seen == []


async def test_declared_framing_wins_over_the_content_type(make_endpoint):
    class NDJSONChat(Endpoint):
        projector = ChatCompletionsProjector
        stream_framing = "ndjson"

    line = {
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}],
    }
    body = (json.dumps(line) + "\n").encode()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    base = make_endpoint("http://127.0.0.1:9")
    ep = NDJSONChat(base.config, transport=httpx.MockTransport(handler))
    try:
        chunks = [c async for c in ep.stream({"model": "m"})]
    finally:
        await ep.aclose()
    assert [(c.type, c.content) for c in chunks] == [("text", "hi"), ("result", None)]
