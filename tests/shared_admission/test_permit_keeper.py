"""The permit keeper outlives a round trip that fails in an unexpected way.

It is the only thing renewing this process's shared permits. When anything but a Redis error
escaped its thread, the thread ended but its slot stayed taken, so no keeper ever started again:
held permits expired while their calls still ran (other processes were then admitted over the
limit) and released ones were never returned, with nothing said but a thread's traceback.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
import redis

from lionagi.service._lifecycle.redis_keeper import PermitKeeper
from lionagi.service_testing.redis_server import RedisServer

KEY = "lionagi-test:keeper:permits"


def test_an_unexpected_renewal_failure_is_logged_and_renewal_goes_on(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real_register = redis.Redis.register_script
    failures = {"left": 1}

    def register(self: redis.Redis, script: str) -> Any:
        inner = real_register(self, script)

        def run(**kwargs: Any) -> Any:
            if failures["left"]:
                failures["left"] -= 1
                raise RuntimeError("a surprise from the client library")
            return inner(**kwargs)

        return run

    monkeypatch.setattr(redis.Redis, "register_script", register)
    client = redis.Redis.from_url(redis_server.url)
    client.zadd(KEY, {"holder-1": time.time() * 1000 + 60_000})
    keeper = PermitKeeper(redis_server.url, KEY, ttl=60.0, every=0.05, op_timeout=2.0)
    caplog.set_level(logging.ERROR, logger="lionagi.service")
    try:
        keeper.hold("holder-1")
        deadline = time.monotonic() + 10
        # Renewal rewrites the score to Redis's now + ttl; after the planted failure it must
        # still happen (the first renewal is the one that fails).
        before = client.zscore(KEY, "holder-1")
        while time.monotonic() < deadline:
            score = client.zscore(KEY, "holder-1")
            if failures["left"] == 0 and score is not None and score != before:
                break
            time.sleep(0.02)
        assert failures["left"] == 0
        assert client.zscore(KEY, "holder-1") != before, "no renewal after the failure"
        assert any("unexpectedly" in r.getMessage() for r in caplog.records)
        keeper.release("holder-1")
        deadline = time.monotonic() + 10
        while client.zscore(KEY, "holder-1") is not None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert client.zscore(KEY, "holder-1") is None, "the release never reached Redis"
    finally:
        keeper.stop(5)
        client.close()
