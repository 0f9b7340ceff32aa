"""Shared admission against a real redis-server (issue 18, items 2 and 3).

Each test gets its own server (loopback, free port, temp dir, no persistence). Worker processes
are real subprocesses; time is the real clock, and every timing assertion is a generous bound.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import aclosing
from pathlib import Path
from typing import Any

import anyio
import pytest
import redis

from lionagi.service import (
    AdmissionBackendUnavailable,
    AdmissionConfig,
    AdmissionConfigError,
    AdmissionLease,
    Endpoint,
    RequestBudget,
    RequestDeadlineExceeded,
    SharedAdmission,
)
from lionagi.service._lifecycle.backends import build_admission
from lionagi.service._lifecycle.redis_admission import RedisAdmissionController, shared_keys
from lionagi.service_testing.redis_server import RedisServer

WORKER = Path(__file__).with_name("_worker.py")


class Call:
    def __init__(self, tokens: int | None = 1) -> None:
        self.id = uuid.uuid4()
        self.required_tokens = tokens
        self.is_terminal = False


def budget(seconds: float) -> RequestBudget:
    return RequestBudget(anyio.current_time() + seconds)


async def clear_of_window_edge(interval: float, margin: float = 8.0) -> None:
    """Wait until the current rate window has ``margin`` seconds left.

    Windows are aligned to the clock (multiples of ``interval``), so a test that fills one and
    expects the next call refused fails when a boundary passes in between, which a 60 s window
    does about once a minute of test time.
    """
    left = interval - time.time() % interval
    if left < margin:
        await anyio.sleep(left + 0.05)


async def refused(
    admission: RedisAdmissionController, call: Call, seconds: float
) -> RequestDeadlineExceeded:
    """The deadline error ``acquire`` must raise; a lease it grants instead is released first.

    A granted lease left unreleased would keep ``close()`` waiting for it: the test would hang
    instead of failing.
    """
    try:
        lease = await admission.acquire(call, budget=budget(seconds))
    except RequestDeadlineExceeded as exc:
        return exc
    lease.release()
    raise AssertionError("the call was admitted; it should have been refused")


def controller(url: str, key: str, **limits: object) -> RedisAdmissionController:
    extra = {k: limits.pop(k) for k in ("lease_ttl", "on_unavailable", "op_timeout") if k in limits}
    admission = build_admission(
        AdmissionConfig(**limits),  # type: ignore[arg-type]
        SharedAdmission(url=url, key=key, **extra),  # type: ignore[arg-type]
    )
    assert isinstance(admission, RedisAdmissionController)
    return admission


def run_workers(server: RedisServer, key: str, mode: str, n: int, a: float, b: float,
                procs: int = 4) -> list[list[object]]:  # fmt: skip
    args = [sys.executable, str(WORKER), server.url, key, mode, str(n), str(a), str(b)]
    workers = [subprocess.Popen(args, stdout=subprocess.PIPE, text=True) for _ in range(procs)]
    results = []
    for worker in workers:
        out, _ = worker.communicate(timeout=90)
        assert worker.returncode == 0
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


# -- several processes share one limit --------------------------------------------------------


# How late a worker may note a grant after Redis made it: its clock is read after the reply,
# and on a loaded 2-core runner that reply can come well after the server's TIME.
OBSERVATION_LAG = 0.1


def _windows_of(times: list[float], window: float, limit: int) -> Counter[int]:
    """Grants per window, each noted at most ``OBSERVATION_LAG`` after the server made it.

    A worker writes ``time.time()`` once ``acquire`` has returned, so a grant made at the end
    of window ``k`` can be noted early in ``k + 1``. Counting by the noted time alone then
    shows ``limit + 1`` in a window no process exceeded (seen in CI under load). A grant noted
    within the lag after a boundary is given to the earlier window while that one has room:
    the test fails only when no placement within the lag keeps every window at its limit.
    """
    counts: Counter[int] = Counter()
    for t in times:  # ascending, so an earlier window's room is known when a later grant comes
        index = int(t // window)
        if t - index * window < OBSERVATION_LAG and counts[index - 1] < limit:
            index -= 1
        counts[index] += 1
    return counts


def test_processes_sharing_one_window_never_exceed_it(redis_server: RedisServer) -> None:
    limit, window = 5, 0.5
    grants = run_workers(redis_server, "win", "window", 6, limit, window)
    times = [float(t) for worker in grants for t in worker]  # type: ignore[arg-type]
    assert len(times) == 24
    per_window = _windows_of(sorted(times), window, limit)
    assert max(per_window.values()) <= limit, per_window
    assert len(per_window) >= 24 // limit  # several windows were used, each at most full
    assert sum(1 for c in per_window.values() if c == limit) >= 2  # and windows did fill up


def test_processes_sharing_one_concurrency_limit_never_exceed_it(
    redis_server: RedisServer,
) -> None:
    holds = run_workers(redis_server, "conc", "hold", 3, 2, 0.05)
    spans = [(float(s), float(e)) for worker in holds for s, e in worker]  # type: ignore[misc]
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])
    level = peak = 0
    for _, step in events:
        level += step
        peak = max(peak, level)
    assert len(spans) == 12
    assert peak <= 2


def test_a_killed_holders_permit_returns_within_its_ttl(redis_server: RedisServer) -> None:
    ttl = 1.0
    args = [sys.executable, str(WORKER), redis_server.url, "kill", "park", "1", "1", str(ttl)]
    holder = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"

        async def main() -> float:
            admission = controller(
                redis_server.url, "kill", concurrency_limit=1, lease_ttl=ttl, op_timeout=0.5
            )
            try:
                # Held (and renewed) while the holder lives: a short wait is refused.
                with pytest.raises(RequestDeadlineExceeded) as info:
                    await admission.acquire(Call(), budget=budget(ttl * 1.5))
                assert info.value.phase == "concurrency"
                os.kill(holder.pid, signal.SIGKILL)
                holder.wait(timeout=10)
                start = time.monotonic()
                lease = await admission.acquire(Call(), budget=budget(ttl * 10))
                lease.release()
                return time.monotonic() - start
            finally:
                await admission.close()

        waited = anyio.run(main)
        assert waited <= ttl + 2.0  # the permit expired by its TTL (generous bound)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()


# -- one process --------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_reservation_is_both_or_neither(redis_server: RedisServer) -> None:
    admission = controller(
        redis_server.url, "bon", limit_requests=10, limit_tokens=100, interval=60
    )
    await clear_of_window_edge(60)
    try:
        first = await admission.acquire(Call(80), budget=budget(5))
        first.release()
        error = await refused(admission, Call(30), 1)
        assert error.phase == "rate"
        client = redis.Redis.from_url(redis_server.url)
        rate = client.hgetall(shared_keys("bon")[0])
        client.close()
        assert rate[b"r"] == b"1"  # the refused call debited no request unit
        assert rate[b"t"] == b"80"  # and no token
    finally:
        await admission.close()


@pytest.mark.anyio
async def test_local_calls_are_admitted_in_arrival_order(redis_server: RedisServer) -> None:
    admission = controller(redis_server.url, "fifo", limit_requests=1, interval=0.2)
    order: list[int] = []
    try:

        async def one(i: int) -> None:
            lease = await admission.acquire(Call(), budget=budget(20))
            order.append(i)
            lease.release()

        async with anyio.create_task_group() as tg:
            for i in range(4):
                tg.start_soon(one, i)
                await anyio.sleep(0.01)  # arrival order is start order
        assert order == [0, 1, 2, 3]
    finally:
        await admission.close()


@pytest.mark.anyio
async def test_the_deadline_bounds_rate_and_concurrency_waits(redis_server: RedisServer) -> None:
    admission = controller(redis_server.url, "dl", concurrency_limit=1, limit_requests=2,
                           interval=60)  # fmt: skip
    await clear_of_window_edge(60)
    try:
        held = await admission.acquire(Call(), budget=budget(5))
        start = time.monotonic()
        error = await refused(admission, Call(), 0.5)
        assert error.phase == "concurrency"
        assert 0.3 <= time.monotonic() - start <= 3.0
        held.release()
        (await admission.acquire(Call(), budget=budget(5))).release()
        # The window (60 s) opens only after this 1 s deadline: refused at once, not waited out.
        start = time.monotonic()
        error = await refused(admission, Call(), 1)
        assert error.phase == "rate"
        assert time.monotonic() - start < 0.9
    finally:
        await admission.close()


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A TCP server that accepts connections and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        sock.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(sock.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"redis://127.0.0.1:{sock.getsockname()[1]}/0"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        sock.close()


@pytest.mark.anyio
async def test_the_deadline_bounds_a_redis_round_trip(silent_server: str) -> None:
    admission = controller(silent_server, "rt", limit_requests=5, op_timeout=30, lease_ttl=300)
    try:
        start = time.monotonic()
        with pytest.raises(RequestDeadlineExceeded):
            await admission.acquire(Call(), budget=budget(0.5))
        assert time.monotonic() - start <= 3.0  # not the 30 s op timeout
    finally:
        await admission.close()


@pytest.mark.anyio
async def test_an_unanswered_round_trip_fails_closed_after_op_timeout(silent_server: str) -> None:
    admission = controller(silent_server, "rt2", limit_requests=5, op_timeout=0.3)
    try:
        with pytest.raises(AdmissionBackendUnavailable):
            await admission.acquire(Call(), budget=budget(20))
    finally:
        await admission.close()


@pytest.mark.anyio
async def test_a_redis_restart_fails_closed_then_recovers(redis_server_pw: RedisServer) -> None:
    server = redis_server_pw
    admission = controller(server.url, "restart", limit_requests=100, concurrency_limit=3,
                           op_timeout=0.5)  # fmt: skip
    try:
        (await admission.acquire(Call(), budget=budget(5))).release()
        server.stop()
        with pytest.raises(AdmissionBackendUnavailable) as info:
            await admission.acquire(Call(), budget=budget(5))
        assert info.value.backend == "redis"
        assert server.password is not None
        assert server.password not in str(info.value)
        assert admission.snapshot().active == 0  # the refused call holds nothing
        server.start()
        lease = await admission.acquire(Call(), budget=budget(5))
        client = redis.Redis.from_url(server.url)
        assert client.zcard(shared_keys("restart")[1]) == 1
        lease.release()
        await admission.close()
        assert client.zcard(shared_keys("restart")[1]) == 0  # close returned the permit
        client.close()
    finally:
        await admission.close()


@pytest.mark.anyio
async def test_on_unavailable_local_admits_under_local_limits(redis_server: RedisServer) -> None:
    admission = controller(redis_server.url, "fb", concurrency_limit=1, op_timeout=0.5,
                           on_unavailable="local")  # fmt: skip
    try:
        redis_server.stop()
        lease = await admission.acquire(Call(), budget=budget(5))
        assert isinstance(lease, AdmissionLease)
        # The local copy of the limit still holds: a second call waits and times out.
        with pytest.raises(RequestDeadlineExceeded):
            await admission.acquire(Call(), budget=budget(1.5))
        lease.release()
        (await admission.acquire(Call(), budget=budget(5))).release()
    finally:
        await admission.close()


@pytest.mark.anyio
async def test_released_permits_reach_redis_and_close_is_idempotent(
    redis_server: RedisServer,
) -> None:
    admission = controller(redis_server.url, "rel", concurrency_limit=2, lease_ttl=30)
    client = redis.Redis.from_url(redis_server.url)
    try:
        leases = [await admission.acquire(Call(), budget=budget(5)) for _ in range(2)]
        assert client.zcard(shared_keys("rel")[1]) == 2
        for lease in leases:
            lease.release()
        # A third and fourth call get permits although the TTL (30 s) is far away.
        more = [await admission.acquire(Call(), budget=budget(5)) for _ in range(2)]
        assert admission.snapshot().active == 2
        for lease in more:
            lease.release()
    finally:
        await admission.close()
        await admission.close()
        assert client.zcard(shared_keys("rel")[1]) == 0
        client.close()


# -- through iModel -----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_imodel_invoke_and_stream_go_through_the_shared_limit(
    redis_server: RedisServer,
) -> None:
    from lionagi.service import EventStatus, iModel

    backend = SharedAdmission(url=redis_server.url, key="facade")
    client = redis.Redis.from_url(redis_server.url)
    async with iModel(
        provider="scripted", admission_backend=backend, concurrency_limit=1, limit_requests=50
    ) as model:
        call = await model.invoke(prompt="hello", timeout=10)
        assert call.status is EventStatus.COMPLETED
        chunks = []
        async with aclosing(model.stream(prompt="hello", timeout=10)) as stream:
            async for chunk in stream:
                chunks.append(chunk)
                # The stream holds the shared permit while its consumer reads.
                assert client.zcard(shared_keys("facade")[1]) == 1
        assert chunks
        rate = client.hgetall(shared_keys("facade")[0])
        assert rate[b"r"] == b"2"  # invoke and stream each took one request unit
    assert client.zcard(shared_keys("facade")[1]) == 0
    client.close()


@pytest.mark.anyio
async def test_close_wakes_calls_waiting_for_a_shared_permit(redis_server: RedisServer) -> None:
    from lionagi.service import AdmissionClosed

    admission = controller(redis_server.url, "close", concurrency_limit=1)
    held = await admission.acquire(Call(), budget=budget(5))
    errors: list[BaseException] = []

    async def waiter() -> None:
        try:
            await admission.acquire(Call(), budget=budget(30))
        except AdmissionClosed as exc:
            errors.append(exc)

    async with anyio.create_task_group() as tg:
        tg.start_soon(waiter)
        tg.start_soon(waiter)  # the second waits for the local turn
        await anyio.sleep(0.3)
        assert admission.snapshot().queued == 2

        async def release_soon() -> None:
            await anyio.sleep(0.1)
            held.release()  # close() waits for the active lease, as in-process

        tg.start_soon(release_soon)
        with anyio.fail_after(10):
            await admission.close()
    assert len(errors) == 2
    assert held.aborted


# -- defects found by use (each failed before its fix) -------------------------------------------


async def wait_until(condition: Callable[[], bool]) -> None:
    """Poll state another task, thread or the Redis server changes until ``condition`` holds."""
    while True:
        if condition():
            return
        await anyio.sleep(0.01)


def blocked(client: redis.Redis) -> int:
    info: dict[str, Any] = client.info("clients")  # type: ignore[assignment]
    return int(info["blocked_clients"])


@pytest.mark.parametrize(
    "query", ["foo=1", "health_check_interval=abc", "max_connections=x", "ssl_cert_reqs=none"]
)
def test_a_url_option_redis_py_refuses_is_a_config_error_naming_url(
    redis_server_pw: RedisServer, query: str
) -> None:
    # Before: a bare ValueError from the constructor, or a TypeError from the first acquire
    # (and a dead permit-keeper thread); now the model refuses to build, naming the field.
    backend = SharedAdmission(url=f"{redis_server_pw.url}?{query}", key="opts")
    with pytest.raises(AdmissionConfigError) as info:
        build_admission(AdmissionConfig(concurrency_limit=1), backend)
    assert info.value.field == "url"
    assert redis_server_pw.password is not None
    assert redis_server_pw.password not in str(info.value)


@pytest.mark.anyio
async def test_a_grant_arriving_after_close_began_ends_with_admission_closed(
    redis_server: RedisServer,
) -> None:
    from lionagi.service import AdmissionClosed

    admission = controller(
        redis_server.url, "late", concurrency_limit=2, op_timeout=60, lease_ttl=300
    )
    client = redis.Redis.from_url(redis_server.url)
    outcome: list[object] = []

    async def caller() -> None:
        try:
            lease = await admission.acquire(Call(), budget=budget(60))
        except AdmissionClosed as exc:
            outcome.append(exc)
        else:
            outcome.append(lease)
            lease.release()

    try:
        (await admission.acquire(Call(), budget=budget(5))).release()  # script loaded
        client.client_pause(60_000, all=False)  # holds the next EVALSHA
        with anyio.fail_after(20):
            async with anyio.create_task_group() as tg:
                tg.start_soon(caller)
                # Its round trip is in flight: Redis holds it as a paused (blocked) client.
                await wait_until(lambda: blocked(client) >= 1)
                tg.start_soon(admission.close)
                await wait_until(lambda: admission.closed)
                client.client_unpause()  # Redis grants the permit now
        assert len(outcome) == 1
        assert isinstance(outcome[0], AdmissionClosed), outcome  # not a lease after close()
        assert client.zcard(shared_keys("late")[1]) == 0  # and the granted permit went back
    finally:
        client.client_unpause()
        client.close()
        await admission.close()


@pytest.mark.anyio
async def test_close_wakes_a_call_waiting_under_the_local_fallback(
    redis_server: RedisServer,
) -> None:
    from lionagi.service import AdmissionClosed

    # The queued call waits inside the fallback for its rate window (a call waiting for a
    # concurrency permit waits before the fallback, counting Redis's permits too: see
    # test_fallback_holds_the_per_process_limit.py).
    admission = controller(redis_server.url, "fbclose", limit_requests=1, interval=60,
                           op_timeout=0.5, on_unavailable="local")  # fmt: skip
    redis_server.stop()
    active = await admission.acquire(Call(), budget=budget(5))  # under the local copy
    waited: list[BaseException] = []
    done = anyio.Event()

    async def queued() -> None:
        try:
            (await admission.acquire(Call(), budget=budget(60))).release()
        except AdmissionClosed as exc:
            waited.append(exc)
        finally:
            done.set()

    async def holder() -> None:
        await done.wait()  # an active call that ends only after the queued one has
        active.release()

    fallback = admission._fallback
    assert fallback is not None
    with anyio.fail_after(20):  # before the fix: close() waited for the queued call forever
        async with anyio.create_task_group() as tg:
            tg.start_soon(queued)
            tg.start_soon(holder)
            await wait_until(lambda: fallback.snapshot().queued >= 1)  # waits in the fallback
            await admission.close()
    assert len(waited) == 1


async def test_a_stream_past_its_deadline_gives_its_shared_permit_back_while_its_chunk_is_held(
    redis_server: RedisServer,
) -> None:
    """The deadline's timer releases the shared permit from an event-loop callback.

    A consumer holding a chunk past the deadline must not keep the shared permit (and every
    process's queue behind it) until it reads again; the release reaches Redis from the timer.
    """
    from lionagi.service import EventStatus, OpenAIChatCompletionsRequest, iModel
    from lionagi.service.http import ChatCompletionsProjector
    from lionagi.service_testing import FakeProviderServer

    cls = type("HeldStreamEndpoint", (Endpoint,), {"projector": ChatCompletionsProjector})
    client = redis.Redis.from_url(redis_server.url)
    permits = shared_keys("held")[1]
    async with FakeProviderServer() as server:
        endpoint = cls(
            {
                "name": "fake_chat",
                "provider": "fakeopenai",
                "endpoint": "chat/completions",
                "base_url": server.base_url + "/v1",
                "api_key": "sk-test-held-ZZ42",
                "allow_local_network": True,
                "request_options": OpenAIChatCompletionsRequest,
                "default_headers": {"x-fake-behaviour": "stall"},
            }
        )
        backend = SharedAdmission(url=redis_server.url, key="held")
        async with iModel(endpoint=endpoint, admission_backend=backend, concurrency_limit=1) as m:
            request = {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}
            call = m.create_api_calling(**request)
            async with aclosing(m.stream(call, timeout=0.3)) as stream:
                assert (await anext(stream)).type == "text"
                assert client.zcard(permits) == 1
                with anyio.fail_after(10):  # no read pending: only the timer can give it back
                    await wait_until(lambda: client.zcard(permits) == 0)
                assert call.status is EventStatus.ABORTED
                with pytest.raises(RequestDeadlineExceeded):
                    await anext(stream)
    client.close()
