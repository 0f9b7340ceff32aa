"""A TCP proxy in front of a real redis-server that holds chosen requests or their replies.

It plays a slow network for one kind of command: a reply is held on any connection whose last
request contained a marker (the reservation script's SHA, the keeper's ``ZREM`` or renewal
script), so the other connections (the keeper's own, a probe) go on unhindered; a request with
a marker can instead be kept from Redis and sent on later, after its client has left.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable

import anyio

from lionagi.service._lifecycle.redis_scripts import ACQUIRE, RENEW

ACQUIRE_SHA = hashlib.sha1(ACQUIRE.encode()).hexdigest().encode()
RENEW_SHA = hashlib.sha1(RENEW.encode()).hexdigest().encode()


class _Link:
    """One client connection: whether its last request carried a marker."""

    marked = False


class HoldingProxy:
    """Forwards TCP to Redis; holds replies to, or requests of, commands that carry a marker."""

    def __init__(self, upstream_port: int) -> None:
        self._upstream = upstream_port
        self._server: asyncio.Server | None = None
        self._reply_markers: tuple[bytes, ...] = ()
        self._replies_free = asyncio.Event()
        self._replies_free.set()
        self.request_markers: tuple[bytes, ...] = ()
        self.held_requests: list[tuple[bytes, asyncio.StreamWriter]] = []
        self.held_replies = 0  # replies that reached a hold (still held or sent on since)
        self._writers: list[asyncio.StreamWriter] = []
        self._pumps: set[asyncio.Task[None]] = set()
        self.port = 0

    async def __aenter__(self) -> HoldingProxy:
        self._server = await asyncio.start_server(self._connect, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self.free_replies()
        self._server.close()
        for writer in self._writers:
            writer.close()

    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def hold_replies(self, *markers: bytes) -> None:
        """Hold the replies to requests that contain any of ``markers`` until `free_replies`."""
        self._reply_markers = markers
        self._replies_free.clear()

    def free_replies(self) -> None:
        self._reply_markers = ()
        self._replies_free.set()

    def release_requests(self) -> None:
        """Send the held requests on to Redis, though their clients may have left."""
        held, self.held_requests = self.held_requests, []
        for data, upstream in held:
            upstream.write(data)

    async def _connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self._upstream)
        self._writers += [writer, up_writer]
        link = _Link()
        pump = asyncio.ensure_future(self._replies(up_reader, writer, link))
        self._pumps.add(pump)
        pump.add_done_callback(self._pumps.discard)
        while data := await reader.read(65536):
            if any(marker in data for marker in self.request_markers):
                self.held_requests.append((data, up_writer))  # kept open: it may go on later
                continue
            link.marked = any(marker in data for marker in self._reply_markers)
            up_writer.write(data)

    async def _replies(
        self, up_reader: asyncio.StreamReader, writer: asyncio.StreamWriter, link: _Link
    ) -> None:
        while data := await up_reader.read(65536):
            if link.marked and self._reply_markers:
                self.held_replies += 1
                await self._replies_free.wait()
            if not writer.is_closing():
                writer.write(data)


async def wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    """Poll what the Redis server, the proxy or the keeper thread changes, for a bounded time."""
    with anyio.fail_after(seconds):
        while True:
            if condition():
                return
            await anyio.sleep(0.01)
