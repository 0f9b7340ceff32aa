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

import time
from collections.abc import Callable
from typing import Any

import anyio
import redis

from lionagi.service import EventStatus, SharedAdmission, StreamClosed, iModel
from lionagi.service._lifecycle.redis_admission import RedisAdmissionController, shared_keys
from lionagi.service_testing.redis_server import RedisServer

from ._holding_proxy import ACQUIRE_SHA, HoldingProxy, wait_until

STOP_BOUND = 1.0  # op_timeout is 2 s: a stop that waits for the round trip cannot make it


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
        proxy.hold_replies(ACQUIRE_SHA)
        with anyio.fail_after(20):
            # Redis ran the script (the permit is granted); its reply waits in the proxy.
            raised, call = await _stop_queued(model, lambda: probe.zcard(permits) == 1)
        proxy.free_replies()

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
        proxy.request_markers = (ACQUIRE_SHA,)
        with anyio.fail_after(20):
            raised, call = await _stop_queued(model, lambda: len(proxy.held_requests) == 1)
        assert [type(e) for e in raised] == [StreamClosed]
        assert call.status is EventStatus.CANCELLED
        assert len(proxy.held_requests) == 1  # the stopped call's script never reached Redis

        admission = model._supervisor.admission
        assert isinstance(admission, RedisAdmissionController)
        keeper = admission._keeper
        assert keeper is not None
        await wait_until(lambda: not keeper.pending_releases())  # its removal ran: a no-op
        proxy.request_markers = ()
        proxy.release_requests()  # the request arrives late: Redis grants an orphan permit
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
