"""What shared admission logs while Redis is down, against a real redis-server stopped mid-run.

Before: nothing for refused calls; one warning per failed renewal and per return attempt (every
``op_timeout``), counting the holder ids of refused calls as permits; after a restart a warning
on every renewal, for as long as the call ran, blaming a late renewal; no recovery note unless
``on_unavailable="local"``; and a Redis that answered with an error was called unreachable.
Now: one warning per outage saying what happens to new calls and to held permits, one recovery
note, one warning per permit found gone, and no URL password anywhere.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from typing import Any

import anyio
import pytest
import redis

from lionagi.service import (
    AdmissionBackendUnavailable,
    AdmissionConfig,
    RequestBudget,
    SharedAdmission,
)
from lionagi.service._lifecycle.backends import build_admission
from lionagi.service._lifecycle.redis_admission import RedisAdmissionController
from lionagi.service._lifecycle.redis_keeper import PermitKeeper
from lionagi.service_testing.redis_server import RedisServer

LOGGER = "lionagi.service"


class Call:
    def __init__(self) -> None:
        self.id = uuid.uuid4()
        self.required_tokens = 1
        self.is_terminal = False


def budget(seconds: float) -> RequestBudget:
    return RequestBudget(anyio.current_time() + seconds)


def controller(
    url: str, key: str, config: AdmissionConfig, **backend: Any
) -> RedisAdmissionController:
    admission = build_admission(config, SharedAdmission(url=url, key=key, **backend))
    assert isinstance(admission, RedisAdmissionController)
    return admission


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno >= logging.WARNING
    ]


def assert_no_password(caplog: pytest.LogCaptureFixture, password: str | None) -> None:
    assert password
    for record in caplog.records:  # every level, DEBUG included
        assert password not in record.getMessage(), record.getMessage()


@pytest.mark.anyio
async def test_an_outage_is_one_warning_one_recovery_note_and_one_lost_permit_note(
    redis_server_pw: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    server = redis_server_pw
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    # Renewals every 0.5 s; returns retried every 0.2 s: many failures during a 2 s outage.
    admission = controller(server.url, "outage", AdmissionConfig(concurrency_limit=3),
                           lease_ttl=1.5, op_timeout=0.2)  # fmt: skip
    held = await admission.acquire(Call(), budget=budget(5))
    try:
        server.stop()
        for _ in range(3):
            with pytest.raises(AdmissionBackendUnavailable) as info:
                await admission.acquire(Call(), budget=budget(5))
            assert "is unreachable" in str(info.value)
            assert server.password is not None and server.password not in str(info.value)
        await anyio.sleep(2.0)  # three or four renewals and many returns fail meanwhile

        down = warnings_of(caplog)
        assert len(down) == 1, down  # once per outage, not per call, renewal or return
        where = f"Redis for shared limit 'outage' at redis://[REDACTED]@127.0.0.1:{server.port}/0"
        assert down[0].startswith(f"shared admission: {where} is unreachable (")
        assert "is unreachable" in down[0]
        assert "each new call is refused with AdmissionBackendUnavailable" in down[0]
        assert "the 1 permit(s) this process holds cannot be renewed" in down[0]
        assert "expires lease_ttl (1.5 s) after its last renewal" in down[0]
        assert any(
            r.levelno == logging.DEBUG and "still unreachable" in r.getMessage()
            for r in caplog.records
        )  # the later failures are still there, at DEBUG

        caplog.clear()
        server.start()  # a fresh server: the held permit is gone with the old one's memory
        (await admission.acquire(Call(), budget=budget(5))).release()
        await anyio.sleep(1.6)  # three renewals of the held lease after the restart
        after = warnings_of(caplog)
        recovered = [m for m in after if "answers again" in m]
        gone = [m for m in after if "gone at renewal" in m]
        assert len(recovered) == 1, after
        assert "new calls are admitted under the shared limit again" in recovered[0]
        assert "3 call(s) were refused meanwhile" in recovered[0]
        assert len(gone) == 1, after  # reported once, not on every later renewal
        assert "1 held permit(s) were gone at renewal" in gone[0]
        assert "restart" in gone[0] and "lease_ttl, 1.5 s" in gone[0]
        assert len(after) == 2, after  # nothing else: no new outage, no blame on a late renewal
    finally:
        held.release()  # close() waits for active leases, a failed assertion included
        await admission.close()
    assert_no_password(caplog, server.password)


@pytest.mark.anyio
async def test_the_local_fallback_says_what_it_does_once_and_when_it_ends(
    redis_server_pw: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    server = redis_server_pw
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    admission = controller(server.url, "local", AdmissionConfig(limit_requests=100),
                           op_timeout=0.3, on_unavailable="local")  # fmt: skip
    try:
        (await admission.acquire(Call(), budget=budget(5))).release()
        server.stop()
        for _ in range(2):
            (await admission.acquire(Call(), budget=budget(5))).release()
        down = warnings_of(caplog)
        assert len(down) == 1, down
        assert "is unreachable" in down[0]
        assert "new calls are admitted under this process's own copy of the limits" in down[0]
        assert "not enforced across processes" in down[0]
        assert "permit" not in down[0]  # no concurrency limit, so no permits to speak of
        caplog.clear()
        server.start()
        (await admission.acquire(Call(), budget=budget(5))).release()
        (await admission.acquire(Call(), budget=budget(5))).release()
        after = warnings_of(caplog)
        assert len(after) == 1, after
        assert "answers again" in after[0]
        assert "2 call(s) were admitted under local limits only meanwhile" in after[0]
    finally:
        await admission.close()
    assert_no_password(caplog, server.password)


@pytest.mark.anyio
async def test_redis_answering_with_an_error_is_not_called_unreachable(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    admission = controller(redis_server.url, "oom", AdmissionConfig(limit_requests=100))
    client = redis.Redis.from_url(redis_server.url)
    try:
        client.config_set("maxmemory", 1)  # every write refused: OOM, while Redis answers
        with pytest.raises(AdmissionBackendUnavailable) as info:
            await admission.acquire(Call(), budget=budget(5))
        assert "unreachable" not in str(info.value)
        assert "answered with an error (OutOfMemoryError" in str(info.value)
        client.config_set("maxmemory", 0)
        (await admission.acquire(Call(), budget=budget(5))).release()
        logged = warnings_of(caplog)
        assert len(logged) == 2, logged
        assert "answers with an error (OutOfMemoryError" in logged[0]
        assert "unreachable" not in logged[0]
        assert "accepts requests again" in logged[1]
        assert "1 call(s) were refused meanwhile" in logged[1]
    finally:
        client.config_set("maxmemory", 0)
        client.close()
        await admission.close()


@pytest.mark.anyio
async def test_close_during_an_outage_counts_only_permits_that_were_granted(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    # Refused calls queue a removal of their holder id (the script might have run before the
    # reply was lost); those are not permits, and the close warning used to count them as such.
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    admission = controller(redis_server.url, "closing", AdmissionConfig(concurrency_limit=2),
                           lease_ttl=5, op_timeout=0.2)  # fmt: skip
    held = await admission.acquire(Call(), budget=budget(5))
    try:
        redis_server.stop()
        for _ in range(3):
            with pytest.raises(AdmissionBackendUnavailable):
                await admission.acquire(Call(), budget=budget(5))
    finally:
        held.release()
        await admission.close()
    at_close = [m for m in warnings_of(caplog) if "at close" in m]
    assert len(at_close) == 1, warnings_of(caplog)
    assert "1 released permit(s) could not be returned at close" in at_close[0]
    assert "within lease_ttl (5 s)" in at_close[0]


def test_a_renewal_never_waits_behind_a_slow_return(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SharedAdmission's op_timeout rule counts a renewal as landing at most renew_every +
    # 3 * op_timeout after the expiry it extends was set; a return (up to two op timeouts:
    # connect, then reply) started just before a renewal was due used to push it back further.
    op_timeout, every = 0.3, 0.6
    order: list[str] = []
    lock = threading.Lock()
    real_zrem = redis.Redis.zrem
    real_register = redis.Redis.register_script

    def slow_zrem(self: redis.Redis, *args: Any) -> Any:
        with lock:
            order.append("return")
        time.sleep(op_timeout)  # as slow as op_timeout allows
        return real_zrem(self, *args)

    def register(self: redis.Redis, script: str) -> Any:
        inner = real_register(self, script)

        def run(**kwargs: Any) -> Any:
            with lock:
                order.append("renew")
            return inner(**kwargs)

        return run

    monkeypatch.setattr(redis.Redis, "zrem", slow_zrem)
    monkeypatch.setattr(redis.Redis, "register_script", register)
    key = "lionagi-test:order:permits"
    client = redis.Redis.from_url(redis_server.url)
    client.zadd(key, {"held": time.time() * 1000 + 60_000, "done": time.time() * 1000 + 60_000})
    keeper = PermitKeeper(redis_server.url, key, ttl=60.0, every=every, op_timeout=op_timeout)
    try:
        keeper.hold("held")  # the keeper starts; its first renewal is due in 0.6 s
        time.sleep(every - op_timeout / 2)  # a return now would end after that renewal was due
        keeper.release("done")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with lock:
                if "renew" in order and "return" in order:
                    break
            time.sleep(0.01)
        with lock:
            assert order[:2] == ["renew", "return"], order
        while client.zscore(key, "done") is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert client.zscore(key, "done") is None  # and the return still happened
    finally:
        keeper.stop(5)
        client.close()
