"""Streams whose reads the connection bounds: deadline, abort and stall with no scope per read.

The other HTTP cases in this suite run over a plain ``httpx.AsyncHTTPTransport`` (to plan each
request's behaviour), where the supervisor bounds every read with a cancel scope. These run
over the endpoint's own client, whose connections are :class:`SupervisedStream`\\ s: the
supervisor's ``ReadControl`` is attached to the connection, the deadline rides on the read
timeout and an abort shuts the socket down. The contract must be the same either way.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import anyio
import pytest

from lionagi.service import (
    AdmissionClosed,
    Endpoint,
    EventStatus,
    OpenAIChatCompletionsRequest,
    ProviderConnectionError,
    RequestDeadlineExceeded,
    iModel,
)
from lionagi.service.http import ChatCompletionsProjector
from lionagi.service_testing import FakeProviderServer

SECRET = "sk-test-ZZcontrolledQQ42readsXY"
BOUND = 3.0  # "fired near its time" bound: generous for a loaded 2-core machine


def _own_client_model(
    server: FakeProviderServer,
    probe: Any,
    *,
    headers: dict[str, str],
    timeout: float = 10.0,
    **imodel_kw: Any,
) -> iModel:
    cls = type("OwnClientEndpoint", (Endpoint,), {"projector": ChatCompletionsProjector})
    endpoint = cls(
        {
            "name": "fake_chat",
            "provider": "fakeopenai",
            "endpoint": "chat/completions",
            "base_url": server.base_url + "/v1",
            "api_key": SECRET,
            "allow_local_network": True,
            "request_options": OpenAIChatCompletionsRequest,
            "timeout": timeout,
            "default_headers": headers,
        }
    )
    return probe.watch(iModel(endpoint=endpoint, **imodel_kw))


@pytest.fixture
def attached(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every ReadControl the endpoint attached to a connection (proves the controlled path)."""
    from lionagi.service._transport.http.reads import ReadControl

    seen: list[Any] = []
    original = ReadControl.attach

    def spy(self: Any, stream: Any) -> None:
        seen.append(self)
        original(self, stream)

    monkeypatch.setattr(ReadControl, "attach", spy)
    return seen


async def test_deadline_mid_stream_raises_the_typed_error_in_time(server, probe, chat, attached):
    model = _own_client_model(server, probe, headers={"x-fake-behaviour": "stall"})
    call = model.create_api_calling(**chat)
    seen = []
    started = time.monotonic()
    with pytest.raises(RequestDeadlineExceeded) as info:
        async for chunk in model.stream(call, timeout=0.5):
            seen.append(chunk)
    elapsed = time.monotonic() - started

    assert info.value.phase == "stream"
    assert seen and seen[0].type == "text"  # output began, then the stall hit the deadline
    assert 0.4 <= elapsed < 0.5 + BOUND
    assert len(attached) == 1 and attached[0].expired
    probe.left(call, EventStatus.ABORTED, RequestDeadlineExceeded)
    assert len(server.requests) == 1  # past the replay boundary: never retried
    await probe.finish()


async def test_deadline_passing_while_the_consumer_holds_a_chunk(server, probe, chat, attached):
    model = _own_client_model(server, probe, headers={"x-fake-behaviour": "stall"})
    call = model.create_api_calling(**chat)
    stream = model.stream(call, timeout=0.3)
    first = await anext(stream)
    assert first.type == "text"
    await anyio.sleep(0.4)  # the deadline passes between reads
    with pytest.raises(RequestDeadlineExceeded) as info:
        await anext(stream)

    assert info.value.phase == "stream"
    assert len(attached) == 1
    probe.left(call, EventStatus.ABORTED, RequestDeadlineExceeded)
    await probe.finish()


async def test_a_held_chunk_past_the_deadline_ends_the_call_and_frees_its_permit(
    server, probe, chat, attached
):
    """The call ends at its deadline, not when its consumer next asks for a chunk.

    With one permit, a second caller must get it once the first call's deadline passed, while
    the first consumer is still holding a chunk and has not read again.
    """
    model = _own_client_model(
        server, probe, headers={"x-fake-behaviour": "stall"}, concurrency_limit=1
    )
    call = model.create_api_calling(**chat)
    stream = model.stream(call, timeout=0.3)
    assert (await anext(stream)).type == "text"
    assert model.admission_snapshot().active == 1

    with anyio.fail_after(BOUND):  # the deadline passes with no read pending
        while model.admission_snapshot().active:  # noqa: ASYNC110 - watching the permit
            await anyio.sleep(0.02)
    assert call.status is EventStatus.ABORTED
    assert isinstance(call.execution.exception, RequestDeadlineExceeded)
    second = model.create_api_calling(**chat)
    with anyio.fail_after(BOUND):  # admitted while the first consumer still holds its chunk
        waiting = model.stream(second, timeout=5)
        assert (await anext(waiting)).type == "text"
    await waiting.aclose()

    with pytest.raises(RequestDeadlineExceeded) as info:
        await anext(stream)  # the consumer resumes: the same typed error
    assert info.value.phase == "stream"
    probe.left(call, EventStatus.ABORTED, RequestDeadlineExceeded)
    probe.left(second, EventStatus.CANCELLED)
    await probe.finish()


async def test_per_read_stall_timeout_still_fires(server, probe, chat, attached):
    model = _own_client_model(server, probe, headers={"x-fake-behaviour": "stall"}, timeout=0.4)
    call = model.create_api_calling(**chat)
    started = time.monotonic()
    with pytest.raises(ProviderConnectionError, match="timed out"):
        async for _ in model.stream(call):  # no deadline: only the endpoint's read cap
            pass

    assert time.monotonic() - started < 0.4 + BOUND
    assert len(attached) == 1 and not attached[0].expired
    probe.left(call, EventStatus.FAILED, ProviderConnectionError)
    await probe.finish()


async def test_consumer_aclose_aborts_the_response_and_releases_the_lease(
    server, probe, chat, attached
):
    model = _own_client_model(server, probe, headers={"x-fake-behaviour": "stall"})
    call = model.create_api_calling(**chat)
    stream = model.stream(call, timeout=30)
    assert (await anext(stream)).type == "text"

    await stream.aclose()

    assert len(attached) == 1
    probe.left(call, EventStatus.CANCELLED)
    assert model.admission_snapshot().active == 0
    await probe.finish()  # no busy connection, no task, no fd left


async def test_close_aborts_a_stream_blocked_in_a_read(server, probe, chat, attached):
    model = _own_client_model(server, probe, headers={"x-fake-behaviour": "stall"})
    call = model.create_api_calling(**chat)
    raised: list[BaseException] = []
    got_first = anyio.Event()

    async def consume() -> None:
        try:
            async for _ in model.stream(call):  # no deadline: only the close can end it
                got_first.set()
        except AdmissionClosed as exc:
            raised.append(exc)

    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as tg:
            tg.start_soon(consume)
            await got_first.wait()
            await anyio.sleep(0.05)  # the consumer is now parked in the stalled read
            await model.close()

    assert len(raised) == 1
    assert len(attached) == 1 and attached[0].aborted
    probe.left(call, EventStatus.ABORTED, AdmissionClosed)
    await probe.finish()


async def test_a_stream_enters_no_cancel_scope_per_read(server, probe, chat, monkeypatch):
    """The supervisor adds a constant number of scopes per stream, not one (or two) per read."""
    chunks = 120
    headers = {"x-fake-chunks": str(chunks), "x-fake-delay-ms": "1"}  # one event per write
    model = _own_client_model(server, probe, headers=headers)
    entered = 0
    backend_scope = type(anyio.CancelScope())  # the running backend's scope class
    original = backend_scope.__enter__

    def counting(self: Any) -> Any:
        nonlocal entered
        entered += 1
        return original(self)

    async def scopes(source: Any) -> tuple[int, int]:
        nonlocal entered
        entered = 0
        texts = sum([1 async for chunk in source if chunk.type == "text"])
        return entered, texts

    monkeypatch.setattr(backend_scope, "__enter__", counting)
    bare, bare_texts = await scopes(model.endpoint.stream(dict(chat)))
    for timeout in (None, 30.0):
        supervised, texts = await scopes(model.stream(timeout=timeout, **chat))
        assert texts == bare_texts == chunks
        # Opening, hooks and cleanup cost a handful; per read would add >= ``chunks``.
        assert supervised - bare < 20, (timeout, supervised, bare)
    await probe.finish()


async def test_the_connection_closes_at_the_deadline_while_a_chunk_is_held(attached):
    """The provider stops sending (and billing) at the deadline, not when the consumer resumes.

    With no read pending, the per-read timeout cannot fire; the control's timer shuts the
    connection at the deadline. The server here streams an event every 50 ms and notes when
    the client's side of the connection closes.
    """
    import asyncio
    import json

    closed_at: list[float] = []
    started = time.monotonic()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n")
        writer.write(b"transfer-encoding: chunked\r\n\r\n")

        async def watch() -> None:
            await reader.read()  # EOF or a reset: the client closed its side
            closed_at.append(time.monotonic() - started)

        watcher = asyncio.ensure_future(watch())
        try:
            for i in range(100):
                if watcher.done():
                    break
                delta = {"index": 0, "delta": {"content": f"t{i} "}, "finish_reason": None}
                event = {"id": "c", "object": "chat.completion.chunk", "choices": [delta]}
                data = f"data: {json.dumps(event)}\n\n".encode()
                writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                with contextlib.suppress(ConnectionError):
                    await writer.drain()
                await asyncio.sleep(0.05)
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await watcher
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        cls = type("OwnClientEndpoint", (Endpoint,), {"projector": ChatCompletionsProjector})
        endpoint = cls(
            {
                "name": "held",
                "provider": "held",
                "endpoint": "chat/completions",
                "base_url": f"http://127.0.0.1:{port}/v1",
                "api_key": SECRET,
                "allow_local_network": True,
                "request_options": OpenAIChatCompletionsRequest,
            }
        )
        async with iModel(endpoint=endpoint) as model:
            stream = model.stream(
                model="m", messages=[{"role": "user", "content": "hi"}], timeout=0.5
            )
            first = await anext(stream)
            assert first.type == "text"
            with anyio.move_on_after(0.5 + BOUND):
                while not closed_at:  # noqa: ASYNC110 - the server's note is a plain list
                    await anyio.sleep(0.02)
            held_until = time.monotonic() - started
            with pytest.raises(RequestDeadlineExceeded) as info:
                await anext(stream)
            assert info.value.phase == "stream"
            assert model.admission_snapshot().active == 0
    finally:
        server.close()
        await server.wait_closed()
    assert closed_at, f"the connection was still open {held_until:.1f} s in, deadline 0.5 s"
    assert 0.4 <= closed_at[0] < held_until
    assert len(attached) == 1 and attached[0].expired


async def test_a_batch_read_before_the_deadline_is_not_handed_out_after_it(
    server, probe, chat, attached
):
    """The whole answer in one network read: chunks already read stop at the deadline too.

    The fake server writes the stream in one write, so every chunk arrives in the first batch.
    The call ends (ABORTED) when its deadline passes while the consumer holds the first chunk;
    the rest of that batch used to be handed out after it, the stream then ending as if it had
    succeeded, while the call itself said ABORTED.
    """
    model = _own_client_model(server, probe, headers={})
    call = model.create_api_calling(**chat)
    stream = model.stream(call, timeout=0.3)
    first = await anext(stream)
    assert first.type == "text"
    with anyio.fail_after(BOUND):
        while call.status is not EventStatus.ABORTED:  # noqa: ASYNC110 - the timer ends it
            await anyio.sleep(0.02)
    with pytest.raises(RequestDeadlineExceeded) as info:
        await anext(stream)  # nothing more of the batch leaves

    assert info.value.phase == "stream"
    assert info.value is call.execution.exception  # the error the call recorded
    assert len(attached) == 1
    probe.left(call, EventStatus.ABORTED, RequestDeadlineExceeded)
    await probe.finish()


async def test_a_read_past_the_deadline_fails_even_when_the_source_never_awaits():
    """In-process output answered without a checkpoint still meets the deadline.

    A cancel scope whose deadline has passed fires only at a checkpoint; the scripted
    provider hands its non-text chunks out without one, so a consumer that held the first
    chunk past the deadline used to get the next three before the error.
    """
    async with iModel(model="scripted/demo") as model:
        stream = model.stream(prompt="a b c d e f g h", pace=0.01, timeout=0.3)
        first = await anext(stream)
        assert first.type == "system"
        await anyio.sleep(0.5)  # the deadline passes while the consumer holds the chunk
        with pytest.raises(RequestDeadlineExceeded) as info:
            await anext(stream)
        assert info.value.phase == "stream"
        await stream.aclose()
