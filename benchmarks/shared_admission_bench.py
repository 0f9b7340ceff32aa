"""Shared (Redis) admission overhead per call, against in-process admission and bare Redis.

    uv run python benchmarks/shared_admission_bench.py [--calls N] [--rounds R] [--url URL]

Without ``--url`` it starts a private ``redis-server`` (loopback, free port, no persistence).
One "call" is an uncontended ``acquire()`` + ``release()`` of one lease under a request, token
and concurrency limit (limits high enough never to wait). Printed, as median and p95 per call
in microseconds over single calls (rounds interleaved so load drifts hit every variant alike):

- ``local``: the in-process :class:`AdmissionController` with the same limits;
- ``ping``: one bare ``PING`` round trip on redis-py's asyncio client (the network floor);
- ``evalsha``: one bare ``EVALSHA`` of a script that returns at once (the scripting floor);
- ``shared``: the Redis controller (one EVALSHA of the reservation script per call; the
  release is handed to the keeper thread, so it is not on the caller's path);
- ``shared_rate``: the Redis controller with rate limits only (no permit, no keeper).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import redis.asyncio as aioredis

from lionagi.service import AdmissionConfig, AdmissionController, SharedAdmission
from lionagi.service._lifecycle.backends import build_admission
from lionagi.service_testing.redis_server import RedisServer


@dataclass
class Call:
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    required_tokens: int | None = 10
    is_terminal: bool = False


LIMITS = {"limit_requests": 10**9, "limit_tokens": 10**12, "concurrency_limit": 10**6}


def lease_op(admission: object) -> Callable[[], Awaitable[None]]:
    async def op() -> None:
        lease = await admission.acquire(Call())  # type: ignore[attr-defined]
        lease.release()

    return op


def p95(values: list[float]) -> float:
    return sorted(values)[int(len(values) * 0.95)]


async def run(url: str, calls: int, rounds: int) -> None:
    client = aioredis.Redis.from_url(url)
    noop = client.register_script("return 1")
    local = AdmissionController(AdmissionConfig(**LIMITS))
    shared = build_admission(AdmissionConfig(**LIMITS), SharedAdmission(url=url, key="bench"))
    rate_only = build_admission(
        AdmissionConfig(limit_requests=10**9, limit_tokens=10**12),
        SharedAdmission(url=url, key="bench-rate"),
    )

    async def ping() -> None:
        await client.ping()

    async def evalsha() -> None:
        await noop()

    variants: dict[str, Callable[[], Awaitable[None]]] = {
        "local": lease_op(local),
        "ping": ping,
        "evalsha": evalsha,
        "shared": lease_op(shared),
        "shared_rate": lease_op(rate_only),
    }
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for op in variants.values():  # warm-up: connections, script cache, keeper thread
        for _ in range(200):
            await op()
    names = list(variants)
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            op = variants[name]
            for _ in range(calls):
                start = time.perf_counter_ns()
                await op()
                samples[name].append((time.perf_counter_ns() - start) / 1000)
    await shared.close()
    await rate_only.close()
    await local.close()
    await client.aclose()
    print(f"{'variant':<12} {'median us':>10} {'p95 us':>10}  (calls: {calls * rounds} each)")
    for name in names:
        values = samples[name]
        print(f"{name:<12} {statistics.median(values):>10.1f} {p95(values):>10.1f}")
    base = statistics.median(samples["evalsha"])
    over = statistics.median(samples["shared"]) - base
    print(f"shared - evalsha (median): {over:.1f} us")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--url", default=None)
    args = parser.parse_args()
    if args.url is not None:
        asyncio.run(run(args.url, args.calls, args.rounds))
        return
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not installed; pass --url of a running server")
    with tempfile.TemporaryDirectory() as tmp, RedisServer(Path(binary), Path(tmp)) as server:
        asyncio.run(run(server.url, args.calls, args.rounds))


if __name__ == "__main__":
    main()
