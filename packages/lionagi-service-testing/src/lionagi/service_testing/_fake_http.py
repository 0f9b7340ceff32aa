"""The fake server's HTTP/1.1 engine: h11 parses requests, replies are pre-rendered bytes.

Each connection is an :class:`asyncio.Protocol`. h11 parses requests as bytes arrive (it owns
the hard part: header and body framing, chunked uploads, ``Expect: 100-continue``, malformed
input); a fresh h11 parser takes over the leftover bytes for each keep-alive request. Replies
are framed by hand (``content-length`` for JSON, chunked for SSE) and, for ordinary replies,
written synchronously inside ``data_received``: head and whole body in one ``transport.write``,
no task switch, ``TCP_NODELAY`` set. That keeps the server's per-request cost close to a bare
asyncio server, so benchmark ratios measure the client, not the server. Only replies that must
wait (``x-fake-delay-ms``, or a ``drip`` reply written a few bytes at a time) run as a task, in
the server's task group. Deliberate faults (close before answering, close after the first output
or in the middle of its line, stall) are written synchronously too; a stalled connection simply
stays open until the client or the server closes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import math
import socket
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

import anyio
import h11
from anyio.abc import TaskGroup

from ._fake_wire import Rendered, dumps

__all__ = ["ConnectionHub", "Cut", "Handler", "HttpReply", "HttpRequest"]

_LOG = logging.getLogger("lionagi.service_testing.fake_server")
# Real CLIs send large bodies, but their heads stay small; leave generous room anyway.
_MAX_HEAD = 256 * 1024
_REASONS = {status.value: status.phrase.encode() for status in HTTPStatus}
_SSE_TYPE = b"text/event-stream; charset=utf-8"
_NO_CACHE = (b"cache-control", b"no-cache")
_JSON_TYPE = b"application/json"
_SERVER = (b"server", b"lionagi-fake-provider")


class Cut(enum.Enum):
    """How a reply deliberately breaks the connection."""

    NONE = "none"
    BEFORE = "before"  # close after reading the request, before any response byte
    STALL_BEFORE = "stall_before"  # read the request, then send nothing until the client leaves
    AFTER_HEAD = "after_head"  # send the response head only, then close
    AFTER_FIRST = "after_first"  # send head + first output, then close mid-body
    STALL = "stall"  # send head + first output, then hold until the client or server closes
    MID_LINE = "mid_line"  # send head + half of the first output line, then close


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """A fully read request. Header names are lower-case; repeated headers are comma-joined."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True, slots=True)
class HttpReply:
    """What to send back, and how.

    Attributes:
        delay: Seconds between stream frames (or before a JSON body; between drip pieces).
        cut: A deliberate connection fault.
        content_type: Overrides the default (``text/event-stream; charset=utf-8`` for streams,
            ``application/json`` otherwise).
        drip: When positive, the body goes out in pieces of this many bytes, ``delay`` apart.
        cacheable: False for replies that depend on the clock (an HTTP-date ``Retry-After``).
    """

    status: int
    body: Rendered
    headers: tuple[tuple[bytes, bytes], ...] = ()
    delay: float = 0.0
    cut: Cut = Cut.NONE
    content_type: bytes | None = None
    drip: int = 0
    cacheable: bool = True


Handler = Callable[[HttpRequest], HttpReply]


def _decode(value: bytes) -> str:
    try:
        return value.decode()
    except UnicodeDecodeError:
        return value.decode("latin-1")


def _request(head: h11.Request, body: bytes) -> HttpRequest:
    headers: dict[str, str] = {}
    for name, value in head.headers:
        key = name.decode("latin-1")
        text = _decode(value)
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    path, _, query = head.target.decode("latin-1").partition("?")
    return HttpRequest(head.method.decode("latin-1"), path, query, headers, body)


def _internal_error(exc: Exception) -> HttpReply:
    _LOG.error("fake provider server failed to answer a request", exc_info=exc)
    body = dumps({"error": {"message": f"fake server bug: {exc!r}", "type": "fake_server_error"}})
    return HttpReply(500, Rendered([body], stream=False))


def _chunk(data: bytes) -> bytes:
    """One chunk of a chunked body; empty data would end the body, so it yields nothing."""
    return b"%x\r\n%b\r\n" % (len(data), data) if data else b""


_LAST_CHUNK = b"0\r\n\r\n"
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


def _keep_alive(head: h11.Request) -> bool:
    if head.http_version != b"1.1":
        return False
    for name, value in head.headers:
        if name == b"connection" and b"close" in value.lower():
            return False
    return True


def _head(
    reply: HttpReply, extra: list[tuple[bytes, bytes]], keep_alive: bool, chunked: bool
) -> bytes:
    reason = _REASONS.get(reply.status, b"")
    lines = [b"HTTP/1.1 %d %b\r\n" % (reply.status, reason)]
    lines.extend(b"%b: %b\r\n" % pair for pair in (_SERVER, *reply.headers, *extra))
    if chunked:
        lines.append(b"transfer-encoding: chunked\r\n")
    if not keep_alive:
        lines.append(b"connection: close\r\n")
    lines.append(b"\r\n")
    return b"".join(lines)


def _parser() -> h11.Connection:
    return h11.Connection(h11.SERVER, max_incomplete_event_size=_MAX_HEAD)


class _Connection(asyncio.Protocol):
    """One client connection: parse, answer, keep alive, misbehave on request."""

    def __init__(self, hub: ConnectionHub) -> None:
        self._hub = hub
        self._h11 = _parser()
        self._transport: asyncio.Transport | None = None
        self._head: h11.Request | None = None
        self._parts: list[bytes] = []
        self._continued = False  # "100 Continue" already sent for this request
        self._busy = False  # a delayed or stalled reply owns the connection
        self._closed = False
        self._eof = False
        self._writable: asyncio.Event | None = None  # set while the transport is paused

    # asyncio callbacks -------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Register the connection so server shutdown can close it."""
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._hub.connections.add(self)

    def data_received(self, data: bytes) -> None:
        """Feed the parser and answer every complete request unless a slow reply is in flight."""
        if self._eof:
            return
        self._h11.receive_data(data)
        if not self._busy:
            self._drive()

    def eof_received(self) -> bool:
        """The client finished sending: answer what is complete, then close our side."""
        if not self._eof:
            self._eof = True
            self._h11.receive_data(b"")
            if not self._busy:
                self._drive()
        self._closed = True
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the connection and release a writer waiting on flow control."""
        self._closed = True
        self._hub.connections.discard(self)
        if self._writable is not None:
            self._writable.set()

    def pause_writing(self) -> None:
        """Flow control: make the delayed-reply task wait until the peer catches up."""
        self._writable = asyncio.Event()

    def resume_writing(self) -> None:
        """Flow control: let the delayed-reply task continue."""
        if self._writable is not None:
            self._writable.set()
            self._writable = None

    # request handling --------------------------------------------------------------------
    def abort(self) -> None:
        """Drop the connection at once (server shutdown)."""
        self._closed = True
        if self._transport is not None:
            self._transport.abort()

    def _close(self) -> None:
        """Close after flushing what was written: the client sees FIN, not RST."""
        if not self._closed:
            self._closed = True
            if self._transport is not None:
                self._transport.close()

    def _write(self, data: bytes) -> None:
        if not self._closed and self._transport is not None:
            self._transport.write(data)

    def _drive(self) -> None:
        while not self._closed and not self._busy:
            try:
                event = self._h11.next_event()
            except h11.RemoteProtocolError as exc:
                self._reject(exc)
                return
            if event is h11.NEED_DATA:
                if self._h11.they_are_waiting_for_100_continue and not self._continued:
                    self._continued = True
                    self._write(_CONTINUE)
                return
            if isinstance(event, h11.Request):
                self._head, self._parts = event, []
            elif isinstance(event, h11.Data):
                self._parts.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage) and self._head is not None:
                self._answer(self._head, b"".join(self._parts))
            else:  # ConnectionClosed
                self._close()
                return

    def _answer(self, head: h11.Request, body: bytes) -> None:
        request = _request(head, body)
        self._head, self._parts, self._continued = None, [], False
        try:
            reply = self._hub.handler(request)
        except Exception as exc:
            reply = _internal_error(exc)
        if reply.cut is Cut.BEFORE:
            self._close()
            return
        if reply.cut is Cut.STALL_BEFORE:
            self._busy = True  # hold until the client leaves or the server stops
            return
        keep_alive = _keep_alive(head)
        if self._respond(reply, request.method, keep_alive, head.http_version == b"1.1"):
            self._next_request(keep_alive)

    def _respond(self, reply: HttpReply, method: str, keep_alive: bool, http11: bool) -> bool:
        """Write ``reply``; return False when a task or a fault now owns the connection."""
        rendered = reply.body
        frame: Callable[[bytes], bytes] = bytes
        body = end = b""
        if rendered.stream:
            if http11:  # HTTP/1.0 has no chunking: the body ends when we close
                frame, end = _chunk, _LAST_CHUNK
            kind = (b"content-type", reply.content_type or _SSE_TYPE)
            head = _head(reply, [kind, _NO_CACHE], keep_alive, chunked=http11)
        else:
            body = b"".join(rendered.frames)
            length = (b"content-length", str(len(body)).encode())
            kind = (b"content-type", reply.content_type or _JSON_TYPE)
            head = _head(reply, [kind, length], keep_alive, chunked=False)
        if method == "HEAD":
            self._write(head)
            return True
        if reply.cut is not Cut.NONE:
            if reply.cut is Cut.AFTER_HEAD:
                prefix = b""
            elif not rendered.stream:
                prefix = body[: len(body) // 2]
            elif reply.cut is Cut.MID_LINE:
                first = rendered.frames[rendered.first_output]
                start = max(first.find(b"data: "), 0)  # NDJSON lines have no "data: "
                stop = first.find(b"\n", start)
                cut = (start + (stop if stop > start else len(first))) // 2
                prefix = frame(b"".join(rendered.frames[: rendered.first_output]) + first[:cut])
            else:
                prefix = frame(b"".join(rendered.frames[: rendered.first_output + 1]))
            self._write(head + prefix)
            if reply.cut is Cut.STALL:
                self._busy = True  # hold until the client leaves or the server stops
            else:
                self._close()
            return False
        if reply.drip > 0:
            data = frame(b"".join(rendered.frames)) + end if rendered.stream else body
            size = reply.drip
            pieces = [data[i : i + size] for i in range(0, len(data), size)]
            self._busy = True
            self._hub.start_soon(self._respond_slowly, [head, *pieces], reply.delay, keep_alive)
            return False
        if reply.delay > 0 and (len(rendered.frames) > 1 or not rendered.stream):
            self._busy = True
            if rendered.stream:
                writes = [frame(f) for f in rendered.frames]
                writes[0] = head + writes[0]
                writes[-1] += end
            else:
                writes = [b"", head + body]  # the pause comes before the whole reply
            self._hub.start_soon(self._respond_slowly, writes, reply.delay, keep_alive)
            return False
        if rendered.stream:
            self._write(head + frame(b"".join(rendered.frames)) + end)
        else:
            self._write(head + body)
        return True

    async def _respond_slowly(self, writes: list[bytes], delay: float, keep_alive: bool) -> None:
        """Write ``writes[0]`` now and each later piece ``delay`` seconds after the previous."""
        if writes[0]:
            self._write(writes[0])
        for frame in writes[1:]:
            await anyio.sleep(delay)
            if self._writable is not None:
                await self._writable.wait()
            if self._closed:
                return
            self._write(frame)
        self._busy = False
        self._next_request(keep_alive)
        self._drive()

    def _next_request(self, keep_alive: bool) -> None:
        """Hand the bytes after this request to a fresh parser, or close."""
        if not keep_alive:
            self._close()
            return
        data, closed = self._h11.trailing_data
        self._h11 = _parser()
        if data:
            self._h11.receive_data(bytes(data))
        if closed:
            self._h11.receive_data(b"")

    def _reject(self, exc: h11.RemoteProtocolError) -> None:
        """Answer a malformed request with a 4xx, then close."""
        body = dumps({"error": {"message": f"bad HTTP request: {exc}", "type": "bad_request"}})
        reply = HttpReply(exc.error_status_hint, Rendered([body], stream=False))
        length = (b"content-length", str(len(body)).encode())
        kind = (b"content-type", _JSON_TYPE)
        self._write(_head(reply, [kind, length], keep_alive=False, chunked=False) + body)
        self._close()


class ConnectionHub:
    """Accepts connections for one server and tracks them so shutdown can close them all."""

    def __init__(self, handler: Handler, task_group: TaskGroup) -> None:
        self.handler = handler
        self.task_group = task_group
        self.connections: set[_Connection] = set()
        # Work a connection starts from a protocol callback. Such a callback runs outside any
        # task, where anyio cannot tell which event loop it is on (plain ``asyncio.run``), so
        # ``task_group.start_soon`` there fails; a task of the group starts it instead.
        self._work_in, self._work_out = anyio.create_memory_object_stream[
            tuple[Callable[..., Coroutine[Any, Any, None]], tuple[Any, ...]]
        ](math.inf)

    def start_soon(self, func: Callable[..., Coroutine[Any, Any, None]], *args: Any) -> None:
        """Start ``func(*args)`` in the server's task group; callable from a protocol callback."""
        # Closed: the server is stopping, and every connection is being aborted, this one too.
        with contextlib.suppress(anyio.ClosedResourceError):
            self._work_in.send_nowait((func, args))

    async def work_loop(self) -> None:
        """Start each piece of work handed over by :meth:`start_soon`, until cancelled."""
        async with self._work_out:
            async for func, args in self._work_out:
                self.task_group.start_soon(func, *args)

    async def accept_loop(self, sock: socket.socket) -> None:
        """Accept until cancelled; owns ``sock`` and closes it on the way out."""
        loop = asyncio.get_running_loop()
        try:
            while True:
                await anyio.wait_readable(sock)
                while True:
                    try:
                        client, _addr = sock.accept()
                    except (BlockingIOError, InterruptedError):
                        break
                    except OSError as exc:  # e.g. out of file descriptors: keep serving others
                        _LOG.error("fake provider server failed to accept", exc_info=exc)
                        await anyio.sleep(0.05)
                        break
                    try:
                        client.setblocking(False)
                        await loop.connect_accepted_socket(lambda: _Connection(self), client)
                    except OSError:
                        client.close()
                    except BaseException:
                        client.close()
                        raise
        finally:
            sock.close()

    def abort_all(self) -> None:
        """Drop every open connection, stalled or not, and take no more work."""
        self._work_in.close()
        for connection in list(self.connections):
            connection.abort()
