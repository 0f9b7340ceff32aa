"""A raw-bytes loopback HTTP server for transport tests.

Each request gets a scripted reply: a sequence of byte pieces written one ``drain`` at a time,
with optional float pauses between them so a frame really is split across TCP writes, then the
connection closes. The server records every request and how each connection ended, so tests can
prove the client closed a stream (``client_gone``) instead of guessing from timings.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

from lionagi.service import Endpoint, iModel
from lionagi.service.http import ChatCompletionsProjector, StreamProjector
from lionagi.service_testing import serving

SECRET = "ZZdistinctiveQQ42secretvalueXY"
"""A key that matches no generic key shape, so only configured-key redaction can hide it."""

Piece = bytes | float
Script = Callable[["RawRequest"], Iterable[Piece]]


@dataclass(frozen=True)
class RawRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class RawServer:
    script: Script
    requests: list[RawRequest] = field(default_factory=list)
    connections: int = 0
    outcomes: list[str] = field(default_factory=list)
    _server: asyncio.Server | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _closed_conn: anyio.Event = field(default_factory=anyio.Event)

    @property
    def base_url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def start(self) -> RawServer:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self

    async def aclose(self) -> None:
        """Stop listening and cancel handlers still scripted to pause or stream."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def wait_connection_closed(self, limit: float = 5.0) -> None:
        """Wait (bounded, as a hang guard only) until some connection finished."""
        with anyio.fail_after(limit):
            await self._closed_conn.wait()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)  # type: ignore[arg-type]
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        outcome = "completed"
        try:
            request = await _read_request(reader)
            if request is None:
                outcome = "no_request"
                return
            self.requests.append(request)
            for piece in self.script(request):
                if isinstance(piece, float):
                    await asyncio.sleep(piece)
                    continue
                writer.write(piece)
                await writer.drain()
        except (ConnectionError, OSError):
            outcome = "client_gone"
        finally:
            self.outcomes.append(outcome)
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()
            self._closed_conn.set()
            self._tasks.discard(task)  # type: ignore[arg-type]


async def _read_request(reader: asyncio.StreamReader) -> RawRequest | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    body = await reader.readexactly(length) if length else b""
    return RawRequest(method, path, headers, body)


# --- reply builders ------------------------------------------------------------------------------


def head(
    status: int = 200,
    *,
    content_type: str | None = "text/event-stream",
    chunked: bool = True,
    length: int | None = None,
    extra: dict[str, str] | None = None,
) -> bytes:
    lines = [f"HTTP/1.1 {status} X"]
    if content_type:
        lines.append(f"Content-Type: {content_type}")
    if chunked:
        lines.append("Transfer-Encoding: chunked")
    elif length is not None:
        lines.append(f"Content-Length: {length}")
    lines.append("Connection: close")
    for name, value in (extra or {}).items():
        lines.append(f"{name}: {value}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def chunk(data: bytes | str) -> bytes:
    raw = data.encode() if isinstance(data, str) else data
    return f"{len(raw):x}\r\n".encode() + raw + b"\r\n"


LAST_CHUNK = b"0\r\n\r\n"


def full(
    status: int,
    body: bytes | str,
    *,
    content_type: str = "application/json",
    extra: dict[str, str] | None = None,
) -> list[Piece]:
    raw = body.encode() if isinstance(body, str) else body
    return [
        head(status, content_type=content_type, chunked=False, length=len(raw), extra=extra) + raw
    ]


def sse_stream(*frames: str | bytes, pause: float = 0.0, **head_kw: Any) -> list[Piece]:
    """Head, then each frame as its own chunk (with a pause between), then the last chunk."""
    pieces: list[Piece] = [head(**head_kw)]
    for frame in frames:
        if pause:
            pieces.append(pause)
        pieces.append(chunk(frame))
    pieces.append(LAST_CHUNK)
    return pieces


# --- fixtures ------------------------------------------------------------------------------------


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def serve() -> AsyncIterator[Callable[[Script], Awaitable[RawServer]]]:
    servers: list[RawServer] = []

    async def start(script: Script) -> RawServer:
        server = await RawServer(script).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.aclose()


class Wire:
    """The reply builders, handed to tests as a fixture (importlib mode has no conftest import)."""

    head = staticmethod(head)
    chunk = staticmethod(chunk)
    full = staticmethod(full)
    sse_stream = staticmethod(sse_stream)
    LAST_CHUNK = LAST_CHUNK


@pytest.fixture
def wire() -> type[Wire]:
    return Wire


@pytest.fixture
def secret() -> str:
    return SECRET


EndpointFactory = Callable[..., Endpoint]


@pytest.fixture
async def make_endpoint() -> AsyncIterator[EndpointFactory]:
    """Endpoints for loopback tests (local addresses allowed); all closed at teardown."""
    made: list[Endpoint] = []

    def factory(
        base_url: str,
        endpoint: str = "chat/completions",
        *,
        projector: type[StreamProjector] | None = ChatCompletionsProjector,
        **overrides: Any,
    ) -> Endpoint:
        """An endpoint whose class declares ``projector`` (the stream dialect) explicitly."""
        transport = overrides.pop("transport", None)
        resolver = overrides.pop("resolver", None)
        config: dict[str, Any] = {
            "name": "test",
            "provider": "test",
            "endpoint": endpoint,
            "base_url": base_url,
            "api_key": SECRET,
            "allow_local_network": True,
            "timeout": 10.0,
        }
        config.update(overrides)
        cls = type("LoopbackEndpoint", (Endpoint,), {"projector": projector})
        ep = cls(config, transport=transport, resolver=resolver)
        made.append(ep)
        return ep

    yield factory
    for ep in made:
        await ep.aclose()


# --- a threaded chat server that no event loop owns ----------------------------------------------

CHAT_ANSWER = {
    "id": "c-1",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}
    ],
}


class _Chat(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the connection stays in the client's pool

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        body = json.dumps(CHAT_ANSWER).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read results, not the access log."""


ChatServer = Callable[..., str]


@pytest.fixture
def threaded_chat() -> Iterator[ChatServer]:
    """Start an OpenAI-compatible chat server in a thread; returns its ``/v1`` base URL.

    ``threaded_chat(tls=context)`` serves HTTPS with that server context. No event loop owns
    the server, so synchronous tests may run several ``asyncio.run`` loops against it.
    """
    with contextlib.ExitStack() as running:

        def start(tls: ssl.SSLContext | None = None) -> str:
            return running.enter_context(serving(_Chat, tls=tls)) + "/v1"

        yield start


@pytest.fixture
def chat_model() -> Callable[..., iModel]:
    """``chat_model(base_url, **settings)``: an OpenAI-compatible ``iModel`` for that server."""

    def build(base_url: str, **settings: Any) -> iModel:
        return iModel(
            provider="loopback-chat",
            endpoint="chat/completions",
            openai_compatible=True,
            base_url=base_url,
            api_key="sk-loopback",
            allow_local_network=True,
            request_defaults={"model": "m"},
            **settings,
        )

    return build
