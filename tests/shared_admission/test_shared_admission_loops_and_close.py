"""Shared admission across event loops, close() during an unanswered round trip, URL options.

Each failed before its fix:

- a model used by sequential ``asyncio.run`` calls failed on every other loop with a bare
  ``RuntimeError: Event loop is closed`` (the client's pooled connection was the first loop's);
- ``close()`` while a reservation's round trip hung ended that call with
  ``AdmissionBackendUnavailable`` (or ``RequestDeadlineExceeded``), not ``AdmissionClosed``;
- ``?protocol=9`` in the URL raised redis-py's ``ConnectionError`` from ``iModel(...)``.
"""

from __future__ import annotations

import asyncio
import gc
import uuid
import warnings
from collections.abc import Callable
from typing import Any

import anyio
import pytest
import redis

from lionagi.service import (
    AdmissionBackendUnavailable,
    AdmissionClosed,
    AdmissionConfig,
    AdmissionConfigError,
    EventLoopMismatchError,
    EventStatus,
    RequestBudget,
    SharedAdmission,
    iModel,
)
from lionagi.service._lifecycle.backends import build_admission
from lionagi.service._lifecycle.redis_admission import RedisAdmissionController, shared_keys
from lionagi.service_testing.redis_server import RedisServer


class Call:
    def __init__(self) -> None:
        self.id = uuid.uuid4()
        self.required_tokens = 1
        self.is_terminal = False


def controller(url: str, key: str, **limits: Any) -> RedisAdmissionController:
    admission = build_admission(
        AdmissionConfig(**limits), SharedAdmission(url=url, key=key, op_timeout=1.0)
    )
    assert isinstance(admission, RedisAdmissionController)
    return admission


async def wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    """Poll state another task or the Redis server changes, for a bounded time."""
    with anyio.fail_after(seconds):
        while True:
            if condition():
                return
            await anyio.sleep(0.01)


def reservation_connections(probe: redis.Redis) -> int:
    """Connections to the server other than the probe's own (it runs CLIENT LIST)."""
    clients: list[dict[str, Any]] = probe.client_list()  # type: ignore[assignment]
    return sum(1 for c in clients if c["cmd"] != "client|list")


def unclosed(caught: list[warnings.WarningMessage]) -> list[str]:
    return [
        str(w.message)
        for w in caught
        if issubclass(w.category, ResourceWarning)
        and ("unclosed" in str(w.message) or "loop is closed" in str(w.message))
    ]


# -- event loops ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "limits",
    [{"limit_requests": 100}, {"concurrency_limit": 2}, {"concurrency_limit": 2, "local": True}],
)
def test_sequential_asyncio_runs_share_one_model(
    redis_server: RedisServer, limits: dict[str, Any]
) -> None:
    limits = dict(limits)
    local = limits.pop("local", False)
    backend = SharedAdmission(
        url=redis_server.url, key="loops", on_unavailable="local" if local else "fail"
    )
    model = iModel(provider="scripted", admission_backend=backend, **limits)

    async def one_call() -> EventStatus:
        return (await model.invoke(prompt="hi", timeout=10)).status

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # Before: the second (and every other) loop raised a bare "Event loop is closed".
        statuses = [asyncio.run(one_call()) for _ in range(4)]
        asyncio.run(model.close())  # on a loop of its own, after the others ended
        gc.collect()
    assert statuses == [EventStatus.COMPLETED] * 4
    # The ended loops' sockets were closed when the next loop took over, not left to the
    # garbage collector (which warns about each unclosed transport and connection).
    assert unclosed(caught) == []


@pytest.mark.anyio
async def test_an_ended_loops_connection_is_closed_when_the_next_loop_takes_over(
    redis_server: RedisServer,
) -> None:
    probe = redis.Redis.from_url(redis_server.url)
    model = iModel(
        provider="scripted",
        limit_requests=100,  # no concurrency limit: no keeper thread and its connection
        admission_backend=SharedAdmission(url=redis_server.url, key="loops-sockets"),
    )

    def in_new_loop() -> EventStatus:
        async def go() -> EventStatus:
            return (await model.invoke(prompt="hi", timeout=10)).status

        return asyncio.run(go())

    try:
        for _ in range(3):
            # A thread of its own: asyncio.run cannot run inside this test's loop.
            assert await anyio.to_thread.run_sync(in_new_loop) is EventStatus.COMPLETED
        # Only the last loop's connection is left open.
        await wait_until(lambda: reservation_connections(probe) == 1)
    finally:
        await anyio.to_thread.run_sync(asyncio.run, model.close())
        await wait_until(lambda: reservation_connections(probe) == 0)
        probe.close()


def test_a_loop_still_open_is_refused_with_event_loop_mismatch(redis_server: RedisServer) -> None:
    admission = controller(redis_server.url, "live-loop", concurrency_limit=1)

    async def acquire_and_release() -> None:
        budget = RequestBudget(anyio.current_time() + 5)
        (await admission.acquire(Call(), budget=budget)).release()

    first = asyncio.new_event_loop()
    try:
        first.run_until_complete(acquire_and_release())  # the client's connection is first's
        # Before: a bare RuntimeError from asyncio (a future of another loop) after a round trip.
        with pytest.raises(EventLoopMismatchError) as info:
            asyncio.run(acquire_and_release())
        assert info.value.loop_closed is False
        snapshot = admission.snapshot()
        assert (snapshot.queued, snapshot.active) == (0, 0)  # refused before anything changed
        first.run_until_complete(acquire_and_release())  # its own loop still works
    finally:
        first.run_until_complete(admission.close())
        first.close()


def test_close_from_another_loop_while_the_first_is_open_is_not_refused(
    redis_server: RedisServer,
) -> None:
    admission = controller(redis_server.url, "close-elsewhere", concurrency_limit=1)

    async def acquire_and_release() -> None:
        budget = RequestBudget(anyio.current_time() + 5)
        (await admission.acquire(Call(), budget=budget)).release()

    first = asyncio.new_event_loop()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            first.run_until_complete(acquire_and_release())
            asyncio.run(admission.close())  # close() is never refused
            assert admission.closed
        finally:
            first.run_until_complete(asyncio.sleep(0))  # the loop ends its own transports
            first.close()
        gc.collect()
    assert unclosed(caught) == []


@pytest.mark.anyio
async def test_a_runtime_error_in_a_round_trip_is_typed_and_the_client_replaced(
    redis_server: RedisServer,
) -> None:
    admission = controller(redis_server.url, "rt-runtime", concurrency_limit=1)
    try:
        budget = RequestBudget(anyio.current_time() + 5)
        (await admission.acquire(Call(), budget=budget)).release()
        broken = admission._script

        async def fails(**kwargs: Any) -> Any:
            raise RuntimeError("Event loop is closed")

        admission._script = fails  # type: ignore[assignment]
        with pytest.raises(AdmissionBackendUnavailable) as info:  # before: the bare RuntimeError
            await admission.acquire(Call(), budget=budget)
        assert "Event loop is closed" in str(info.value)
        assert admission._script is not broken and admission._script is not fails  # a new client
        (await admission.acquire(Call(), budget=budget)).release()  # and it works
    finally:
        await admission.close()


# -- close() while a round trip hangs -------------------------------------------------------------


def blocked(client: redis.Redis) -> int:
    info: dict[str, Any] = client.info("clients")  # type: ignore[assignment]
    return int(info["blocked_clients"])


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("op_timeout", "seconds"),
    [(0.5, 30.0), (2.0, 0.8)],  # the op timeout ends the round trip; the deadline does
    ids=["op-timeout", "deadline"],
)
async def test_close_during_an_unanswered_round_trip_ends_the_call_with_admission_closed(
    redis_server: RedisServer, op_timeout: float, seconds: float
) -> None:
    key = f"close-hang-{op_timeout:g}"
    backend = SharedAdmission(url=redis_server.url, key=key, op_timeout=op_timeout)
    model = iModel(provider="scripted", concurrency_limit=1, admission_backend=backend)
    probe = redis.Redis.from_url(redis_server.url)
    outcome: list[BaseException] = []

    async def caller() -> None:
        try:
            await model.invoke(prompt="queued", timeout=seconds)
        except Exception as exc:  # the test asserts which one
            outcome.append(exc)

    try:
        assert (await model.invoke(prompt="warm", timeout=10)).status is EventStatus.COMPLETED
        await wait_until(lambda: probe.zcard(shared_keys(key)[1]) == 0)  # its permit is back
        probe.client_pause(30_000, all=False)  # holds the next reservation (a write)
        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:
                tg.start_soon(caller)
                await wait_until(lambda: blocked(probe) >= 1)  # its round trip is in flight
                await model.close()  # cuts the caller's round trip: it leaves with AdmissionClosed
        assert len(outcome) == 1
        assert isinstance(outcome[0], AdmissionClosed), repr(outcome[0])
    finally:
        probe.client_unpause()
        probe.close()
        await model.close()


# -- URL options ----------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["protocol=9", "protocol=x"])
def test_a_protocol_redis_py_refuses_is_a_config_error_naming_url(query: str) -> None:
    password = "pw-" + uuid.uuid4().hex
    backend = SharedAdmission(url=f"redis://:{password}@127.0.0.1:1/0?{query}", key="proto")
    # Before: redis-py's ConnectionError ("protocol must be either 2 or 3") from iModel(...).
    with pytest.raises(AdmissionConfigError) as info:
        iModel(provider="scripted", concurrency_limit=1, admission_backend=backend)
    assert info.value.field == "url"
    assert password not in str(info.value)
    assert "protocol" in str(info.value)


def test_any_error_redis_py_raises_building_from_the_url_names_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # redis-py before 7.3 fails `?protocol=x` with an UnboundLocalError of its own (a local it
    # never assigned), which escaped from iModel(...) untyped; installed: whatever it raises.
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise UnboundLocalError("cannot access local variable 'p'")

    monkeypatch.setattr(redis.Redis, "from_url", broken)
    password = "pw-" + uuid.uuid4().hex
    # A URL this redis-py accepts, so the patched call is the one that fails.
    backend = SharedAdmission(url=f"redis://:{password}@127.0.0.1:1/0?protocol=3", key="old")
    with pytest.raises(AdmissionConfigError) as info:
        iModel(provider="scripted", concurrency_limit=1, admission_backend=backend)
    assert info.value.field == "url"
    assert "UnboundLocalError" in str(info.value)
    assert password not in str(info.value)


def test_a_valid_protocol_builds() -> None:
    backend = SharedAdmission(url="redis://127.0.0.1:1/0?protocol=3", key="proto-ok")
    model = iModel(provider="scripted", concurrency_limit=1, admission_backend=backend)
    assert model.admission_backend is backend
