"""``close()`` while a reservation's round trip is on the wire returns at once, leak-free.

The head of this process's line asks Redis in one round trip (a Lua script that may grant a
permit). ``close()`` (and ``iModel.close()``, ``async with`` exit) waited for that round trip,
up to ``op_timeout``; now it is cut as a stream's stop cuts it, and the waiting caller ends
with `AdmissionClosed`, like every caller queued when close began. A cut reply is a lost grant,
so the permit must still come back:

- the script ran and only its reply was late: the keeper removes the permit before close ends;
- the request itself was still on its way and runs only after close: nobody renews that permit,
  so it expires after ``lease_ttl`` and the next process's call is admitted.

A TCP proxy between the client and a real ``redis-server`` holds the reservation's reply (first
case) or its request (second case), as a slow network would.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
import redis

from lionagi.service import (
    AdmissionClosed,
    AdmissionConfig,
    RequestBudget,
    SharedAdmission,
    iModel,
)
from lionagi.service._lifecycle.backends import build_admission
from lionagi.service._lifecycle.redis_admission import RedisAdmissionController, shared_keys
from lionagi.service_testing.redis_server import RedisServer

from ._holding_proxy import ACQUIRE_SHA, HoldingProxy, wait_until

OP_TIMEOUT = 3.0
CLOSE_BOUND = 1.0  # a close that waits for the round trip (op_timeout 3 s) cannot make it
LEASE_TTL = 3.6  # the shortest TTL op_timeout allows with renewals every 0.5 s


class Call:
    def __init__(self) -> None:
        self.id = uuid.uuid4()
        self.required_tokens = 1
        self.is_terminal = False


def _backend(url: str, key: str) -> SharedAdmission:
    return SharedAdmission(
        url=url, key=key, op_timeout=OP_TIMEOUT, lease_ttl=LEASE_TTL, renew_interval=0.5
    )


def _controller(url: str, key: str) -> RedisAdmissionController:
    admission = build_admission(AdmissionConfig(concurrency_limit=1), _backend(url, key))
    assert isinstance(admission, RedisAdmissionController)
    return admission


def _budget() -> RequestBudget:
    return RequestBudget(anyio.current_time() + 30)


@asynccontextmanager
async def _warm(proxy: HoldingProxy, key: str) -> AsyncIterator[RedisAdmissionController]:
    """A controller through ``proxy`` whose script is loaded and whose first permit is back."""
    admission = _controller(proxy.url(), key)
    try:
        (await admission.acquire(Call(), budget=_budget())).release()
        yield admission
    finally:
        await admission.close()


async def _close_while_queued(
    admission: RedisAdmissionController, on_the_wire: Callable[[], bool]
) -> list[BaseException]:
    """Queue a call, wait until its reservation is on the wire, close within the bound."""
    raised: list[BaseException] = []

    async def queued() -> None:
        try:
            await admission.acquire(Call(), budget=_budget())
        except Exception as exc:  # the test asserts which one
            raised.append(exc)

    async with anyio.create_task_group() as tg:
        tg.start_soon(queued)
        await wait_until(on_the_wire)  # the caller's round trip now waits on the proxy
        await anyio.sleep(0.1)
        assert not raised
        start = time.monotonic()
        with anyio.fail_after(CLOSE_BOUND):
            await admission.close()
        assert time.monotonic() - start < CLOSE_BOUND
    return raised


async def test_close_cuts_a_round_trip_whose_reply_is_late_and_the_permit_goes_back(
    redis_server: RedisServer,
) -> None:
    probe = redis.Redis.from_url(redis_server.url)
    permits = shared_keys("close-late-reply")[1]
    async with HoldingProxy(redis_server.port) as proxy, _warm(proxy, "close-late-reply") as adm:
        await wait_until(lambda: probe.zcard(permits) == 0)
        proxy.hold_replies(ACQUIRE_SHA)
        with anyio.fail_after(20):
            # Redis ran the script (the permit is granted); its reply waits in the proxy.
            raised = await _close_while_queued(
                adm, lambda: proxy.held_replies == 1 and probe.zcard(permits) == 1
            )
        assert [type(e) for e in raised] == [AdmissionClosed]
        snapshot = adm.snapshot()
        assert (snapshot.queued, snapshot.active) == (0, 0)
        # close() returned the granted permit (the keeper's last removal), not its TTL.
        assert probe.zcard(permits) == 0
    probe.close()


async def test_a_grant_made_after_close_expires_by_its_ttl(redis_server: RedisServer) -> None:
    probe = redis.Redis.from_url(redis_server.url)
    key = "close-late-request"
    permits = shared_keys(key)[1]
    async with HoldingProxy(redis_server.port) as proxy, _warm(proxy, key) as adm:
        await wait_until(lambda: probe.zcard(permits) == 0)
        proxy.request_markers = (ACQUIRE_SHA,)
        with anyio.fail_after(20):
            raised = await _close_while_queued(adm, lambda: len(proxy.held_requests) == 1)
        assert [type(e) for e in raised] == [AdmissionClosed]
        assert probe.zcard(permits) == 0  # the closed call's script never reached Redis

        proxy.request_markers = ()
        proxy.release_requests()  # the request arrives late: Redis grants an orphan permit
        await wait_until(lambda: probe.zcard(permits) == 1)
        ((orphan, expiry),) = probe.zrange(permits, 0, -1, withscores=True)
        await anyio.sleep(1.2)  # past two renewal intervals: nobody renews it
        assert probe.zscore(permits, orphan) == expiry

    # Held until its TTL runs out, then the only permit is free for another process's call.
    other = _controller(redis_server.url, key)
    try:
        start = time.monotonic()
        with anyio.fail_after(LEASE_TTL + 3):
            (await other.acquire(Call(), budget=_budget())).release()
        assert time.monotonic() - start > 0.5  # it did wait for the orphan to expire
    finally:
        await other.close()
    probe.close()


async def test_leaving_async_with_cuts_a_queued_invoke_round_trip(
    redis_server: RedisServer,
) -> None:
    probe = redis.Redis.from_url(redis_server.url)
    key = "close-imodel"
    permits = shared_keys(key)[1]
    raised: list[BaseException] = []
    async with HoldingProxy(redis_server.port) as proxy:
        model = iModel(
            provider="scripted", concurrency_limit=1, admission_backend=_backend(proxy.url(), key)
        )

        async def queued() -> None:
            try:
                await model.invoke(prompt="queued", timeout=30)
            except Exception as exc:  # the test asserts which one
                raised.append(exc)

        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:
                async with model:
                    await model.invoke(prompt="warm", timeout=10)
                    await wait_until(lambda: probe.zcard(permits) == 0)
                    proxy.hold_replies(ACQUIRE_SHA)
                    tg.start_soon(queued)
                    await wait_until(lambda: proxy.held_replies == 1)
                    await anyio.sleep(0.1)
                    start = time.monotonic()
                # Leaving the block closed the model without waiting for the held reply.
                assert time.monotonic() - start < CLOSE_BOUND
        assert [type(e) for e in raised] == [AdmissionClosed]
        assert probe.zcard(permits) == 0
    probe.close()
