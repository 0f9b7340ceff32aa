"""Admission recovers as soon as Redis answers again, however many calls the outage refused.

docs/production.md, "Failure modes": "Each new call asks Redis again: admission recovers as soon
as the server answers." Each reservation that fails during an outage leaves its holder id to be
dropped by the next reservation's script (the script may have run before the reply was lost).
The script dropped them with one ``unpack()``, which raises once there are more than Lua's C
stack holds (about 8000): after an outage that refused that many calls (a few seconds at a few
thousand calls per second), every reservation failed with "too many results to unpack" and was
refused as unavailable, adding its own holder again, until the ids aged out after ``lease_ttl``,
or never under steady traffic.
"""

from __future__ import annotations

import uuid

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
from lionagi.service._lifecycle.redis_admission import RedisAdmissionController, shared_keys
from lionagi.service_testing.redis_server import RedisServer

REFUSED = 8200  # more holder ids than one Lua unpack() takes


class Call:
    def __init__(self) -> None:
        self.id = uuid.uuid4()
        self.required_tokens = 1
        self.is_terminal = False


def budget(seconds: float) -> RequestBudget:
    return RequestBudget(anyio.current_time() + seconds)


@pytest.mark.anyio
async def test_the_first_call_after_a_busy_outage_is_admitted(redis_server: RedisServer) -> None:
    admission = build_admission(
        AdmissionConfig(limit_requests=1_000_000, concurrency_limit=4),
        SharedAdmission(url=redis_server.url, key="busy-outage", op_timeout=0.5),
    )
    assert isinstance(admission, RedisAdmissionController)
    try:
        (await admission.acquire(Call(), budget=budget(5))).release()
        redis_server.stop()
        for _ in range(REFUSED):
            with pytest.raises(AdmissionBackendUnavailable):
                await admission.acquire(Call(), budget=budget(5))
        redis_server.start()
        lease = await admission.acquire(Call(), budget=budget(5))
        client = redis.Redis.from_url(redis_server.url)
        try:
            assert client.zcard(shared_keys("busy-outage")[1]) == 1  # this call's permit only
            lease.release()
            (await admission.acquire(Call(), budget=budget(5))).release()
        finally:
            client.close()
    finally:
        await admission.close()
