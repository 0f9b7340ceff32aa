"""Ollama's OpenAI-compatible chat stream as the server writes it, through ``iModel``.

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

from lionagi.service import iModel


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
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.close()
        await server.wait_closed()


def _call(call_id: str | None, name: str | None, arguments: str) -> dict[str, Any]:
    function: dict[str, Any] = {"arguments": arguments}
    if name is not None:
        function["name"] = name
    call: dict[str, Any] = {"index": 0, "function": function}
    if call_id is not None:
        call.update(id=call_id, type="function")
    return call


def _usage_chunk(usage: dict[str, int]) -> bytes:
    event = {"object": "chat.completion.chunk", "model": "m", "choices": [], "usage": usage}
    return f"data: {json.dumps(event)}\n\n".encode()


async def test_parallel_tool_calls_all_at_index_zero_stay_separate() -> None:
    """Ollama's compatible API sends every parallel call at ``index: 0``, each with its own id.

    Merged by index, the two calls became one whose arguments were two JSON objects back to
    back, and the whole stream failed with ``ProviderProtocolError``. A call continued in
    fragments without an id (as proxies in front of Ollama send them) still joins the call
    opened last at that index.
    """
    usage = {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}
    writes = [
        _chunk(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [_call("call_a", "get_weather", '{"location": "Paris"}')],
            }
        ),
        _chunk(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [_call("call_b", "get_weather", '{"loca')],
            }
        ),
        _chunk({"tool_calls": [_call(None, None, 'tion": "Rome"}')]}),
        _chunk({"role": "assistant", "content": ""}, "tool_calls"),
        _usage_chunk(usage),
        DONE,
    ]
    async with (
        _sse_server(writes) as base_url,
        iModel(model="ollama/qwen3", base_url=base_url, allow_local_network=True) as model,
    ):
        chunks = [c async for c in model.stream(messages=[{"role": "user", "content": "weather?"}])]
    calls = [(c.tool_id, c.tool_name, c.tool_input) for c in chunks if c.type == "tool_use"]
    assert calls == [
        ("call_a", "get_weather", {"location": "Paris"}),
        ("call_b", "get_weather", {"location": "Rome"}),
    ]
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["finish_reason"] == "tool_calls"
    assert chunks[-1].metadata["usage"] == usage
