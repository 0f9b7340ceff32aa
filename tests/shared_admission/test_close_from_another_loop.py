"""``close()`` from another thread's loop cuts a round trip in flight on the client's loop.

Reservation round trips run only on the loop the client's connections belong to (loop A). A
``close()`` awaited on another loop (B, in its own thread) while loop A still runs must neither
wait for that round trip (up to ``op_timeout``) nor touch loop A's cancel scopes and events
from B's thread: they are not thread-safe, and a waiter they fail to wake leaves close() waiting
for ever. The call whose round trip was cut ends with `AdmissionClosed`, close returns well
within ``op_timeout``, and nothing is left behind: no task on either loop, no thread (the
keeper's, loop B's workers), no open connection, no permit in Redis. Closing again, from either
loop, returns at once.

Both loops run in debug mode, so a non-thread-safe call on one loop from the other's thread
raises instead of being hidden by a timer that happens to wake the loop. Each runs in a thread
of its own, never the test's: a loop such a call leaves stuck fails the test, it does not hang
it. A TCP proxy (on a third loop) between the client and a real ``redis-server`` holds the
reservation's reply for the whole test, as a slow network would: only the cut can end that
round trip early.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import uuid
from collections.abc import Callable, Coroutine
from typing import Any

import anyio
import redis
from anyio.from_thread import start_blocking_portal

from lionagi.service import AdmissionClosed, AdmissionConfig, RequestBudget, SharedAdmission
from lionagi.service._lifecycle.backends import build_admission
from lionagi.service._lifecycle.redis_admission import RedisAdmissionController, shared_keys
from lionagi.service_testing.redis_server import RedisServer

from ._holding_proxy import ACQUIRE_SHA, HoldingProxy

OP_TIMEOUT = 3.0
CLOSE_BOUND = 1.0  # a close that waits for the held round trip (op_timeout 3 s) cannot make it
STALL = 0.2  # loop A is busy for this long when close() begins on loop B
STEP = 10.0  # how long any one step of the scenario may take before the test fails
KEY = "close-other-loop"


class Call:
    def __init__(self) -> None:
        self.id = uuid.uuid4()
        self.required_tokens = 1
        self.is_terminal = False


class CountingProxy(HoldingProxy):
    """A holding proxy that counts client connections not yet closed by their client."""

    def __init__(self, upstream_port: int) -> None:
        super().__init__(upstream_port)
        self.open_links = 0

    async def __aenter__(self) -> CountingProxy:
        await super().__aenter__()
        return self

    async def _connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open_links += 1
        try:
            await super()._connect(reader, writer)  # returns when the client's side closes
        except ConnectionError:
            pass  # an aborted client socket resets the connection: closed all the same
        finally:
            self.open_links -= 1


def _controller(url: str) -> RedisAdmissionController:
    backend = SharedAdmission(
        url=url, key=KEY, op_timeout=OP_TIMEOUT, lease_ttl=3.6, renew_interval=0.5
    )
    admission = build_admission(AdmissionConfig(concurrency_limit=1), backend)
    assert isinstance(admission, RedisAdmissionController)
    return admission


def _budget() -> RequestBudget:
    return RequestBudget(anyio.current_time() + 30)


def _until(condition: Callable[[], bool], seconds: float = STEP) -> bool:
    """Poll what another thread, the proxy or the Redis server changes, for a bounded time."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


class LoopA:
    """The client's loop: binds the client, then makes one call whose round trip is held."""

    def __init__(self, admission: RedisAdmissionController) -> None:
        self._admission = admission
        self.warm = threading.Event()  # the client is bound to this loop, its permit is back
        self.ended = threading.Event()  # the call has ended
        self._loop: asyncio.AbstractEventLoop | None = None
        self._go = asyncio.Event()  # the test: the proxy holds replies now, make the call
        self._finish = asyncio.Event()  # the test: closing is over, close again and leave
        self.raised: list[BaseException] = []
        self.ended_at = 0.0
        self.again: float | None = None  # how long a second close() took here
        self.refused: BaseException | None = None  # what a call after close() raised
        self.tasks_left: list[str] = []
        self.thread = threading.Thread(
            target=asyncio.run,
            args=(self._main(),),
            kwargs={"debug": True},
            name="loop-a",
            daemon=True,  # a loop left stuck must not also block the test run's exit
        )

    def stall(self, seconds: float) -> None:
        """Keep this loop busy (a blocking callback) for ``seconds``, starting now."""
        assert self._loop is not None
        busy = threading.Event()

        def block() -> None:
            busy.set()
            time.sleep(seconds)

        self._loop.call_soon_threadsafe(block)
        assert busy.wait(STEP)

    def go(self) -> None:
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self._go.set)

    def finish(self) -> None:
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self._finish.set)

    async def _call(self) -> None:
        try:
            await self._admission.acquire(Call(), budget=_budget())
        except Exception as exc:  # the test asserts which one
            self.raised.append(exc)
        self.ended_at = time.monotonic()
        self.ended.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        before = asyncio.all_tasks()
        (await self._admission.acquire(Call(), budget=_budget())).release()
        self.warm.set()
        await self._go.wait()
        await asyncio.create_task(self._call())
        await self._finish.wait()
        start = time.monotonic()
        await asyncio.wait_for(self._admission.close(), CLOSE_BOUND)
        self.again = time.monotonic() - start
        try:
            await self._admission.acquire(Call(), budget=_budget())
        except AdmissionClosed as exc:
            self.refused = exc
        current = asyncio.current_task()
        self.tasks_left = [repr(t) for t in asyncio.all_tasks() - before if t is not current]


class LoopB:
    """Awaits one ``close()`` on a fresh loop in a thread of its own; measures it there."""

    def __init__(self, close: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self._close = close
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self.elapsed: float | None = None
        self.error: BaseException | None = None
        self.tasks_left: set[asyncio.Task[Any]] = set()
        self.thread = threading.Thread(
            target=asyncio.run,
            args=(self._main(),),
            kwargs={"debug": True},
            name="loop-b",
            daemon=True,  # a close() that never returns must not also block the test run's exit
        )

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._ready.set()
        start = time.monotonic()
        try:
            await self._close()
        except BaseException as exc:  # the test asserts there was none
            self.error = exc
        finally:
            self.elapsed = time.monotonic() - start
            self.tasks_left = asyncio.all_tasks() - {asyncio.current_task()}

    def run(self) -> LoopB:
        """Start it and wait, bounded, for close() to return (the test fails if it does not)."""
        self.thread.start()
        assert self._ready.wait(STEP)
        self.thread.join(CLOSE_BOUND * 3)
        if self.thread.is_alive():  # cancel close(), which may never be woken, and give up
            if self._loop is not None and self._task is not None:
                with contextlib.suppress(RuntimeError):  # loop B has just closed
                    self._loop.call_soon_threadsafe(self._task.cancel)
            self.thread.join(OP_TIMEOUT)
            raise AssertionError(f"close() on loop B did not return ({self.error!r})")
        return self


def test_close_from_another_loop_cuts_the_round_trip_in_flight_on_the_client_loop(
    redis_server: RedisServer,
) -> None:
    probe = redis.Redis.from_url(redis_server.url)
    permits = shared_keys(KEY)[1]
    with (
        start_blocking_portal(backend="asyncio") as portal,
        portal.wrap_async_context_manager(CountingProxy(redis_server.port)) as proxy,
    ):
        threads_before = set(threading.enumerate())
        admission = _controller(proxy.url())
        loop_a = LoopA(admission)
        loop_a.thread.start()
        assert loop_a.warm.wait(STEP)
        assert _until(lambda: probe.zcard(permits) == 0)
        portal.call(proxy.hold_replies, ACQUIRE_SHA)
        loop_a.go()
        # Redis ran the script (the permit is granted); its reply waits in the proxy.
        assert _until(lambda: proxy.held_replies == 1 and probe.zcard(permits) == 1)
        time.sleep(0.1)
        assert not loop_a.ended.is_set()

        started = time.monotonic()
        # Loop A is busy when close() begins on loop B (as a loop often is): whatever close
        # leaves to loop A runs only once it is free, after close() is waiting on loop B.
        loop_a.stall(STALL)
        closing = LoopB(admission.close).run()
        assert closing.error is None, repr(closing.error)
        assert closing.elapsed is not None and closing.elapsed < CLOSE_BOUND, closing.elapsed
        # The call ended with AdmissionClosed, cut before close returned; the reply still held.
        assert loop_a.ended.wait(CLOSE_BOUND)
        assert [type(e) for e in loop_a.raised] == [AdmissionClosed]
        assert loop_a.ended_at - started < CLOSE_BOUND
        assert proxy.held_replies == 1
        assert admission.closed
        snapshot = admission.snapshot()
        assert (snapshot.queued, snapshot.active) == (0, 0)
        # close() returned the granted permit (the keeper's last removal), not its TTL.
        assert probe.zcard(permits) == 0

        # Nothing left: no task on loop B, no connection open (loop A frees the client's
        # sockets, handed over by close), no thread but loop A's (keeper, loop B, its workers).
        assert closing.tasks_left == set()
        assert _until(lambda: proxy.open_links == 0, 2.0), proxy.open_links
        assert _until(lambda: set(threading.enumerate()) - threads_before == {loop_a.thread}, 2.0)

        # Idempotent, from another loop and from the client's: returns at once, changes nothing.
        again = LoopB(admission.close).run()
        assert again.error is None, repr(again.error)
        assert again.elapsed is not None and again.elapsed < CLOSE_BOUND
        loop_a.finish()
        loop_a.thread.join(STEP)
        assert not loop_a.thread.is_alive()
        assert loop_a.again is not None and loop_a.again < CLOSE_BOUND
        assert isinstance(loop_a.refused, AdmissionClosed)
        assert loop_a.tasks_left == []  # no task left on loop A either
        assert proxy.open_links == 0
        assert probe.zcard(permits) == 0
    probe.close()
