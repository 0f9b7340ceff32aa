"""Bytes a server sends past the end of a response never become the next request's answer.

Found by an outside-in audit of the HTTP transport: a server whose ``Content-Length`` is shorter
than the body it writes (a character count taken for a byte count, a buggy proxy) left the
excess in h11's buffer when it arrived with the body. The socket then had nothing to read, so
the pool's expiry check kept the kept-alive connection, and the next call on it parsed those
bytes as the start of its answer: ``illegal status line`` (a retried failure, after the server
had already run that request), or, when the excess was a whole response, a wrong answer returned
as a success to another caller. RFC 9112 §6.3: a client "MUST NOT process, cache, or forward
such extra data as a separate response".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from lionagi.service import AttemptPolicy, iModel

from ._keepalive import Reply, answer, ask, asked, response

pytestmark = pytest.mark.anyio


def sse_response(text: str, trailer: bytes) -> bytes:
    """A chunked chat stream; ``trailer`` follows the terminating chunk in the same write."""
    events = [
        {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
         "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]},
        {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
         "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]  # fmt: skip
    body = b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events) + b"data: [DONE]\n\n"
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    return head + f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n" + trailer


class KeepAliveServer:
    """Answers every request on a connection with ``reply(index, request_json)``, one write each."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.requests = 0
        self.connections = 0
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/v1"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.decode("latin-1").split("\r\n"):
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                body = json.loads(await reader.readexactly(length))
                index = self.requests
                self.requests += 1
                writer.write(self.reply(index, body))  # one write: the excess rides with the body
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[KeepAliveServer]:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        try:
            yield self
        finally:
            self._server.close()


def chat_model(url: str) -> iModel:
    return iModel(
        provider="loopback-chat",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url=url,
        api_key="sk-loopback",
        allow_local_network=True,
        request_defaults={"model": "m"},
        attempt_policy=AttemptPolicy(max_attempts=1),  # a misread answer must not be retried away
    )


async def test_a_whole_response_past_content_length_is_not_the_next_answer() -> None:
    def reply(index: int, body: dict[str, Any]) -> bytes:
        real = answer(f"answer to {asked(body)}")
        if index == 0:
            return response(real + response(answer("FORGED")), length=len(real))
        return response(real)

    async with KeepAliveServer(reply).running() as server, chat_model(server.url) as model:
        assert await ask(model, "one") == "answer to one"
        assert await ask(model, "two") == "answer to two"
        assert await ask(model, "three") == "answer to three"
    assert server.requests == 3
    assert server.connections == 2  # the connection holding the excess was not reused


async def test_bytes_past_content_length_do_not_fail_the_next_call() -> None:
    def reply(index: int, body: dict[str, Any]) -> bytes:
        real = answer(f"answer to {asked(body)}")
        return response(real + b"GARBAGE", length=len(real))

    async with KeepAliveServer(reply).running() as server, chat_model(server.url) as model:
        for question in ("one", "two", "three"):
            assert await ask(model, question) == f"answer to {question}"
    assert server.requests == 3  # nothing failed and was sent again


async def test_bytes_after_a_streams_last_chunk_are_not_the_next_answer() -> None:
    def reply(index: int, body: dict[str, Any]) -> bytes:
        if body.get("stream"):
            return sse_response("streamed", response(answer("FORGED")))
        return response(answer(f"answer to {asked(body)}"))

    async with KeepAliveServer(reply).running() as server, chat_model(server.url) as model:
        with anyio.fail_after(20):
            chunks = [c async for c in model.stream(messages=[{"role": "user", "content": "s"}])]
        assert "".join(c.content or "" for c in chunks if c.type == "text") == "streamed"
        assert await ask(model, "after") == "answer to after"
