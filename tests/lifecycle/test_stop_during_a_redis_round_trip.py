"""A stream stopped while its shared (Redis) reservation is on the wire stops at once, leak-free.

The head of this process's line asks Redis in one round trip (a Lua script that may grant a
permit). ``aclose()`` from another task (a stop button) while that round trip was in flight
waited for it, up to ``op_timeout``; now the round trip is cut and the read raises
`StreamClosed` at once. A cut reply is a lost grant, so the permit must still come back:

- the script ran and only its reply was late: the keeper removes the permit promptly;
- the request itself was still on its way and runs only after the stop: nobody renews that
  permit, so it expires after ``lease_ttl`` and the next call is admitted.

A TCP proxy between the client and a real ``redis-server`` holds the replies (first case) or the
reservation requests (second case), as a slow network would.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import redis

from lionagi.service import EventStatus, SharedAdmission, StreamClosed, iModel
from lionagi.service._lifecycle.redis_admission import RedisAdmissionController, shared_keys
from lionagi.service._lifecycle.redis_scripts import ACQUIRE
from lionagi.service_testing.redis_server import RedisServer, require_redis_server

STOP_BOUND = 1.0  # op_timeout is 2 s: a stop that waits for the round trip cannot make it
ACQUIRE_SHA = hashlib.sha1(ACQUIRE.encode()).hexdigest().encode()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(require_redis_server(), tmp_path) as server:
        yield server


class HoldingProxy:
    """Forwards TCP to Redis; can hold its replies, or the reservation scripts sent to it."""

    def __init__(self, upstream_port: int) -> None:
        self._upstream = upstream_port
        self._server: asyncio.Server | None = None
        self.hold_replies = False
        self.hold_reservations = False
        self._replies_free = asyncio.Event()
        self._replies_free.set()
        self.held: list[tuple[bytes, asyncio.StreamWriter]] = []
        self._writers: list[asyncio.StreamWriter] = []
        self._pumps: set[asyncio.Task[None]] = set()
        self.port = 0

    async def __aenter__(self) -> HoldingProxy:
        self._server = await asyncio.start_server(self._connect, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for writer in self._writers:
            writer.close()

    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def set_hold_replies(self, hold: bool) -> None:
        if hold:
            self._replies_free.clear()
        else:
            self._replies_free.set()

    def release_reservations(self) -> None:
        """Send the held reservation requests on, though their clients have left."""
        held, self.held = self.held, []
        for data, upstream in held:
            upstream.write(data)

    async def _connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self._upstream)
        self._writers += [writer, up_writer]
        pump = asyncio.ensure_future(self._replies(up_reader, writer))
        self._pumps.add(pump)
        pump.add_done_callback(self._pumps.discard)
        while data := await reader.read(65536):
            if self.hold_reservations and ACQUIRE_SHA in data:
                self.held.append((data, up_writer))  # kept open: the request may go on later
            else:
                up_writer.write(data)

    async def _replies(self, up_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await up_reader.read(65536):
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


def _model(proxy: HoldingProxy, key: str) -> iModel:
    backend = SharedAdmission(
        url=proxy.url(), key=key, op_timeout=2.0, lease_ttl=3.0, renew_interval=0.5
    )
    return iModel(model="scripted/demo", concurrency_limit=1, admission_backend=backend)


async def _stop_queued(
    model: iModel, on_the_wire: Callable[[], bool]
) -> tuple[list[BaseException], Any]:
    """Start a stream, wait until its reservation is on the wire, stop it within the bound."""
    raised: list[BaseException] = []
    call = model.create_api_calling(prompt="queued")
    stream = model.stream(call)

    async def consume() -> None:
        try:
            async for _ in stream:
                pass
        except Exception as exc:
            raised.append(exc)

    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        await wait_until(on_the_wire)  # the consumer's round trip now waits on the proxy
        await anyio.sleep(0.1)
        assert not raised
        start = time.monotonic()
        with anyio.fail_after(STOP_BOUND):
            await stream.aclose()
        assert time.monotonic() - start < STOP_BOUND
    return raised, call


async def test_a_stop_cuts_a_round_trip_whose_reply_is_late_and_the_permit_goes_back(
    redis_server: RedisServer,
) -> None:
    probe = redis.Redis.from_url(redis_server.url)
    permits = shared_keys("stop-late-reply")[1]
    async with HoldingProxy(redis_server.port) as proxy, _model(proxy, "stop-late-reply") as model:
        async for _ in model.stream(prompt="warm"):  # loads the script; its permit goes back
            pass
        await wait_until(lambda: probe.zcard(permits) == 0)
        proxy.set_hold_replies(True)
        with anyio.fail_after(20):
            # Redis ran the script (the permit is granted); its reply waits in the proxy.
            raised, call = await _stop_queued(model, lambda: probe.zcard(permits) == 1)
        proxy.set_hold_replies(False)

        assert [type(e) for e in raised] == [StreamClosed]
        assert call.status is EventStatus.CANCELLED
        snapshot = model.admission_snapshot()
        assert (snapshot.queued, snapshot.active) == (0, 0)
        # Redis granted the permit before the stop; the keeper removes it well before its TTL.
        await wait_until(lambda: probe.zcard(permits) == 0, seconds=2.0)
        # The lost reply reached no later command: the next call is admitted normally.
        with anyio.fail_after(5):
            chunks = [chunk async for chunk in model.stream(prompt="next")]
        assert chunks
    probe.close()


async def test_a_grant_made_after_the_stop_expires_by_its_ttl(redis_server: RedisServer) -> None:
    probe = redis.Redis.from_url(redis_server.url)
    permits = shared_keys("stop-late-request")[1]
    async with (
        HoldingProxy(redis_server.port) as proxy,
        _model(proxy, "stop-late-request") as model,
    ):
        async for _ in model.stream(prompt="warm"):
            pass
        await wait_until(lambda: probe.zcard(permits) == 0)
        proxy.hold_reservations = True
        with anyio.fail_after(20):
            raised, call = await _stop_queued(model, lambda: len(proxy.held) == 1)
        assert [type(e) for e in raised] == [StreamClosed]
        assert call.status is EventStatus.CANCELLED
        assert len(proxy.held) == 1  # the stopped call's script never reached Redis

        admission = model._supervisor.admission
        assert isinstance(admission, RedisAdmissionController)
        keeper = admission._keeper
        assert keeper is not None
        await wait_until(lambda: not keeper.pending_releases())  # its removal ran: a no-op
        proxy.hold_reservations = False
        proxy.release_reservations()  # the request arrives late: Redis grants an orphan permit
        await wait_until(lambda: probe.zcard(permits) == 1)
        ((orphan, expiry),) = probe.zrange(permits, 0, -1, withscores=True)
        await anyio.sleep(1.2)  # past two renewal intervals: the keeper does not renew it
        assert probe.zscore(permits, orphan) == expiry

        # Held until its TTL runs out, then the only permit is free again for the next call.
        start = time.monotonic()
        with anyio.fail_after(6):
            chunks = [chunk async for chunk in model.stream(prompt="next")]
        assert chunks
        assert time.monotonic() - start > 0.5  # it did wait for the orphan to expire
    probe.close()
