"""``on_unavailable="local"`` holds the concurrency limit in one process, Redis's permits included.

Before the fix the fallback was a fresh in-process controller counting from zero: with
``concurrency_limit=2``, two calls admitted through Redis and two more admitted by the fallback
once Redis stopped ran four at once in one process. Permits granted by Redis and by the fallback
now count together, in both directions: a call the fallback admitted also counts against this
process's Redis admissions once the server answers again. And while Redis is down the keeper's
"could not return N permit(s)" counts only permits Redis granted, not every call that tried.

Each test gets its own redis-server (see conftest.py); streams stalled after their first chunk
hold their permits for as long as the test needs.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

import anyio
import pytest
import redis

from lionagi.service import (
    AdmissionBackendUnavailable,
    AdmissionClosed,
    EventStatus,
    RequestDeadlineExceeded,
    SharedAdmission,
    iModel,
)
from lionagi.service._facade.streams import ModelStream
from lionagi.service._lifecycle.redis_admission import shared_keys
from lionagi.service_testing.redis_server import RedisServer

STALL = "SCRIPTED_STALL"  # the scripted provider's first chunk, then an hour's pause


async def wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    """Poll state another task, the keeper thread or the server changes, for a bounded time."""
    with anyio.fail_after(seconds):
        while True:
            if condition():
                return
            await anyio.sleep(0.01)


async def held_stream(model: iModel) -> ModelStream:
    """A stream parked at its first chunk: it holds its admission permit until closed."""
    stream = model.stream(prompt=STALL, timeout=60)
    await stream.__anext__()
    return stream


def model_for(server: RedisServer, key: str, *, limit: int, on_unavailable: str) -> iModel:
    backend = SharedAdmission(
        url=server.url,
        key=key,
        op_timeout=0.2,
        lease_ttl=30,
        on_unavailable=on_unavailable,  # type: ignore[arg-type]
    )
    return iModel(provider="scripted", concurrency_limit=limit, admission_backend=backend)


@pytest.mark.anyio
async def test_the_fallback_counts_the_permits_redis_granted(redis_server: RedisServer) -> None:
    model = model_for(redis_server, "fb-limit", limit=2, on_unavailable="local")
    probe = redis.Redis.from_url(redis_server.url)
    streams = []
    try:
        streams = [await held_stream(model) for _ in range(2)]
        assert probe.zcard(shared_keys("fb-limit")[1]) == 2  # both permits are Redis's
        redis_server.stop()
        # Before: admitted by the fallback (its own count was zero): three at once.
        with pytest.raises(RequestDeadlineExceeded) as info:
            await model.invoke(prompt="third", timeout=1.0)
        assert info.value.phase == "concurrency"
        assert model.admission_snapshot().active == 2
        await streams.pop().aclose()  # a Redis permit comes free (locally; Redis is down)
        call = await model.invoke(prompt="now", timeout=5)
        assert call.status is EventStatus.COMPLETED  # admitted under the local copy
        # One Redis permit and one fallback permit: the limit is reached again.
        streams.append(await held_stream(model))
        with pytest.raises(RequestDeadlineExceeded):
            await model.invoke(prompt="fourth", timeout=1.0)
    finally:
        for stream in streams:
            await stream.aclose()
        await model.close()
        probe.close()


@pytest.mark.anyio
async def test_calls_the_fallback_admitted_count_once_redis_is_back(
    redis_server: RedisServer,
) -> None:
    model = model_for(redis_server, "fb-back", limit=2, on_unavailable="local")
    probe = redis.Redis.from_url(redis_server.url)
    streams = []
    try:
        redis_server.stop()
        streams = [await held_stream(model) for _ in range(2)]  # both under the fallback
        redis_server.start()  # empty: Redis knows of no permit at all
        # Before: Redis granted two more (it had none), four at once in this process.
        with pytest.raises(RequestDeadlineExceeded) as info:
            await model.invoke(prompt="third", timeout=1.0)
        assert info.value.phase == "concurrency"
        assert probe.zcard(shared_keys("fb-back")[1]) == 0  # nothing was reserved meanwhile
        await streams.pop().aclose()
        streams.append(await held_stream(model))  # through Redis this time
        assert probe.zcard(shared_keys("fb-back")[1]) == 1
        with pytest.raises(RequestDeadlineExceeded):
            await model.invoke(prompt="fourth", timeout=1.0)
    finally:
        for stream in streams:
            await stream.aclose()
        await model.close()
        probe.close()


@pytest.mark.anyio
async def test_close_wakes_a_call_waiting_for_a_local_permit_during_an_outage(
    redis_server: RedisServer,
) -> None:
    model = model_for(redis_server, "fb-close", limit=1, on_unavailable="local")
    stream = await held_stream(model)  # the only permit, Redis's
    redis_server.stop()
    outcome: list[BaseException] = []

    async def waiter() -> None:
        try:
            await model.invoke(prompt="queued")  # no deadline
        except AdmissionClosed as exc:
            outcome.append(exc)

    with anyio.fail_after(15):
        async with anyio.create_task_group() as tg:
            tg.start_soon(waiter)
            await wait_until(lambda: model.admission_snapshot().queued >= 1)
            await anyio.sleep(0.3)  # it asks nobody: only a local release can free a permit
            assert not outcome
            await model.close()
    assert len(outcome) == 1
    await stream.aclose()


_COULD_NOT_RETURN = re.compile(r"could not return (\d+) permit")


@pytest.mark.anyio
@pytest.mark.parametrize("on_unavailable", ["fail", "local"])
async def test_the_keeper_counts_only_permits_redis_granted(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture, on_unavailable: str
) -> None:
    caplog.set_level(logging.WARNING, logger="lionagi.service")
    model = model_for(redis_server, f"fb-log-{on_unavailable}", limit=5,
                      on_unavailable=on_unavailable)  # fmt: skip
    try:
        stream = await held_stream(model)  # one permit Redis granted
        redis_server.stop()
        await stream.aclose()  # its return to Redis now fails, and is retried
        for _ in range(3):  # Redis never granted these (the server is down)
            if on_unavailable == "local":
                assert (await model.invoke(prompt="x", timeout=5)).status is EventStatus.COMPLETED
            else:
                with pytest.raises(AdmissionBackendUnavailable):
                    await model.invoke(prompt="x", timeout=5)
        seen = len(caplog.records)

        def retried_after_the_calls() -> int:
            return sum(1 for r in caplog.records[seen:] if _COULD_NOT_RETURN.search(r.getMessage()))

        await wait_until(lambda: retried_after_the_calls() >= 2)  # retried every op_timeout
        counts = [
            int(match.group(1))
            for r in caplog.records
            if (match := _COULD_NOT_RETURN.search(r.getMessage())) is not None
        ]
        assert counts
        assert set(counts) == {1}, counts  # before: 4, one per call that tried
    finally:
        await model.close()


@pytest.mark.anyio
async def test_a_reservation_cut_by_its_deadline_leaves_the_keeper_once_redis_fails(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    # A round trip cut short by the deadline goes to the keeper at once (Redis may be healthy
    # and have granted it); once a round trip fails outright, the keeper stops reporting it.
    caplog.set_level(logging.WARNING, logger="lionagi.service")
    model = model_for(redis_server, "fb-cut", limit=5, on_unavailable="fail")
    probe = redis.Redis.from_url(redis_server.url)
    try:
        assert (await model.invoke(prompt="warm", timeout=5)).status is EventStatus.COMPLETED
        await wait_until(lambda: probe.zcard(shared_keys("fb-cut")[1]) == 0)
        probe.client_pause(30_000, all=False)  # reservations and returns get no reply
        with pytest.raises(RequestDeadlineExceeded):
            await model.invoke(prompt="cut", timeout=0.1)  # cut by its deadline
        with pytest.raises(AdmissionBackendUnavailable):
            await model.invoke(prompt="fails", timeout=5)  # op_timeout: Redis is failing
        await anyio.sleep(0.5)  # a return attempt already under way may still report it
        seen = len(caplog.records)
        await anyio.sleep(1.5)  # the keeper retries every op_timeout (0.2 s)
        later = [r.getMessage() for r in caplog.records[seen:]]
        assert not [m for m in later if _COULD_NOT_RETURN.search(m)], later
    finally:
        probe.client_unpause()
        probe.close()
        await model.close()
