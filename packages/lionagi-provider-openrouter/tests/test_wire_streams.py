"""OpenRouter chat streams as its servers write them, through ``iModel`` over loopback.

Each scripted event is its own network write (``TCP_NODELAY``, a pause between writes), so the
client sees the event boundaries a real provider produces.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import pytest

from lionagi.service import ProviderStreamError, StreamChunk, iModel


def _chunk(delta: dict[str, Any], finish: str | None = None, **fields: Any) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    event = {"id": "gen-1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
    return f"data: {json.dumps({**event, **fields})}\n\n".encode()


DONE = b"data: [DONE]\n\n"


@asynccontextmanager
async def _sse_server(writes: Sequence[bytes]) -> AsyncIterator[str]:
    """A loopback HTTP/1.1 server answering every POST with ``writes``, one chunk per write."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                (
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                ),
                0,
            )
            await reader.readexactly(length)
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            )
            for piece in writes:
                writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                await writer.drain()
                await asyncio.sleep(0.002)
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/api/v1"
    finally:
        server.close()
        await server.wait_closed()


async def test_mid_stream_error_beside_choices_is_a_typed_error_not_a_clean_end() -> None:
    """OpenRouter's documented mid-stream failure keeps ``choices`` (``finish_reason: "error"``).

    The error is a top-level ``error`` object in a chunk that also has a choice; read by its
    choice alone, the stream ended as a success holding half an answer.
    """
    failure = _chunk(
        {"content": ""},
        "error",
        provider="openai",
        error={"code": "server_error", "message": "Provider disconnected unexpectedly"},
    )
    writes = [b": OPENROUTER PROCESSING\n\n", _chunk({"content": "Half an"}), failure, DONE]
    seen: list[StreamChunk] = []

    async def consume(model: iModel) -> None:
        async for chunk in model.stream(messages=[{"role": "user", "content": "hi"}]):
            seen.append(chunk)

    async with (
        _sse_server(writes) as base_url,
        iModel(
            model="openrouter/openai/gpt-4o",
            base_url=base_url,
            api_key="sk-or-wire-test-0123456789",
            allow_local_network=True,
        ) as model,
    ):
        with pytest.raises(ProviderStreamError, match="Provider disconnected unexpectedly"):
            await consume(model)
    assert [c.type for c in seen] == ["text", "error"]
    assert seen[0].content == "Half an"
    assert seen[-1].is_error
    assert seen[-1].metadata["code"] == "server_error"
    assert not any(c.type == "result" for c in seen)
