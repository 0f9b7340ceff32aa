"""A loopback server that answers each POST with a stream written exactly as scripted.

The fake provider server renders a scenario in a vendor's grammar and writes it in one go. A
vendor package's wire tests need the opposite: bytes copied from a real capture (an event the
fake server has no scenario for, a failure shape one provider sends), each written on its own,
so the client meets the event boundaries a real server produces. Three adapters wrote this
server for themselves; it lives here once. Retry tests need a different answer per attempt (a
fault, then the answer): ``scripted_replies_server`` is the same server with one script per
request, rather than each retry test carrying its own server.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from http import HTTPStatus

__all__ = ["ScriptedStream", "scripted_replies_server", "scripted_stream_server"]


@dataclass(slots=True)
class ScriptedStream:
    """The running server: its ``url`` (with the path prefix) and the requests it answered.

    ``request_lines`` holds each request's first line (``"POST /v1/chat/completions
    HTTP/1.1"``), so a test can check the path a call went to.
    """

    url: str
    requests: int = 0
    request_lines: list[str] = field(default_factory=list)


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def scripted_stream_server(
    writes: Sequence[bytes],
    *,
    path: str = "/v1",
    pause: float = 0.002,
    content_type: str = "text/event-stream",
    status: int = 200,
) -> AbstractAsyncContextManager[ScriptedStream]:
    """Serve ``writes`` to every POST: HTTP/1.1 ``status``, chunked, one chunk per network write.

    ``TCP_NODELAY`` and a ``pause`` (seconds) between writes keep each piece its own segment.
    The request body is read and ignored; the connection closes after the stream. Use
    ``ScriptedStream.requests`` to check that a failure was not retried. ``status`` (with
    ``content_type="application/json"``) serves a vendor's error body as it sends it, for an
    error no fake-server scenario renders. The same server as ``scripted_replies_server`` with a
    single reply; an empty ``writes`` is a ``ValueError`` (a reply with no bytes is a mistake).
    """
    _check_reply(writes, "writes")
    return scripted_replies_server(
        [writes], path=path, pause=pause, content_type=content_type, status=status
    )


def scripted_replies_server(
    replies: Sequence[Sequence[bytes]],
    *,
    path: str = "/v1",
    pause: float = 0.002,
    content_type: str = "text/event-stream",
    status: int = 200,
) -> AbstractAsyncContextManager[ScriptedStream]:
    """Serve the n-th POST (0-based) ``replies[n]``; once they run out, the last one repeats.

    Each reply is a sequence of writes sent as ``scripted_stream_server`` sends them (chunked, one
    chunk per write, ``pause`` between them). A retry test scripts a failure then the answer:
    ``[[fault], [answer]]`` fails the first attempt and answers the second, and
    ``ScriptedStream.requests`` counts the attempts made. Replies are numbered in the order the
    connections arrive (each connection carries one request: it closes after its reply).

    The arguments are checked when called, not when entered, so a mistake fails where it was
    made: an empty ``replies`` or an empty reply is a ``ValueError``, a reply given as one
    ``bytes`` instead of a sequence of writes (or a write that is not bytes) a ``TypeError``;
    each names the argument (``replies[1]``, ``replies[0][2]``).
    """
    if isinstance(replies, bytes | bytearray | str):
        raise TypeError("replies: a sequence of replies, each a sequence of writes, not one value")
    if not replies:
        raise ValueError("replies: give at least one reply (a sequence of writes)")
    scripted = [list(_check_reply(reply, f"replies[{i}]")) for i, reply in enumerate(replies)]
    return _serve_replies(
        scripted, path=path, pause=pause, content_type=content_type, status=status
    )


def _check_reply(reply: Sequence[bytes], name: str) -> Sequence[bytes]:
    """Reject what the server would otherwise fail on inside a connection handler, unseen."""
    if isinstance(reply, bytes | bytearray | str):
        raise TypeError(f"{name}: a reply is a sequence of writes (a list of bytes), not one value")
    if not reply:
        raise ValueError(f"{name}: a reply needs at least one write")
    for j, piece in enumerate(reply):
        if not isinstance(piece, bytes | bytearray):
            raise TypeError(f"{name}[{j}]: a write must be bytes, not {type(piece).__name__}")
    return reply


@asynccontextmanager
async def _serve_replies(
    replies: list[list[bytes]],
    *,
    path: str,
    pause: float,
    content_type: str,
    status: int,
) -> AsyncIterator[ScriptedStream]:
    """The one server behind both entry points; its arguments are already checked."""
    state = ScriptedStream(url="")
    status_line = b"HTTP/1.1 %d %s\r\n" % (status, HTTPStatus(status).phrase.encode())

    handlers: set[asyncio.Task[None]] = set()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None  # a connection handler always runs as a task
        handlers.add(task)
        try:
            await _serve(reader, writer)
        except asyncio.CancelledError:
            # The server is closing (below). On Python 3.11 a handler task that ends cancelled
            # is reported by asyncio's stream protocol as "Exception in callback", so it ends
            # normally instead: its cancellation is this server's own shutdown, not a caller's.
            pass
        finally:
            handlers.discard(task)

    async def _serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writes = replies[min(state.requests, len(replies) - 1)]
        state.requests += 1
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            state.request_lines.append(head.split(b"\r\n", 1)[0].decode("latin-1"))
            await reader.readexactly(_content_length(head))
            writer.write(
                status_line + b"Content-Type: %s\r\n"
                b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" % content_type.encode()
            )
            for piece in writes:
                writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                await writer.drain()
                await asyncio.sleep(pause)
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client hung up mid-stream: what a client test may well do
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    state.url = f"http://127.0.0.1:{port}{path}"
    try:
        yield state
    finally:
        server.close()
        # A handler still writing (a client that stopped reading, a long pause) would outlive
        # the server and be cancelled only when the event loop ends.
        pending = list(handlers)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending)
        await server.wait_closed()
