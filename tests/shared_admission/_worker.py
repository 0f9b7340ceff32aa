"""A worker process for the multi-process tests: admits calls through one shared limit.

Usage: python _worker.py URL KEY MODE N [ARGS...]; prints one JSON line of results.

- ``window LIMIT WINDOW``: N calls, each released at once; prints grant times (time.time()).
- ``hold LIMIT HOLD``: N calls under concurrency LIMIT; prints (start, end) of each hold.
- ``park LIMIT TTL``: takes one permit, prints "held", then sleeps until killed.
"""

from __future__ import annotations

import json
import sys
import time
import uuid

import anyio

from lionagi.service import AdmissionConfig, RequestBudget, SharedAdmission
from lionagi.service._lifecycle.backends import build_admission


class Call:
    def __init__(self, tokens: int = 1) -> None:
        self.id = uuid.uuid4()
        self.required_tokens = tokens
        self.is_terminal = False


async def main(url: str, key: str, mode: str, n: int, a: float, b: float) -> None:
    limit = int(a)
    if mode == "window":
        config = AdmissionConfig(limit_requests=limit, interval=b)
        backend = SharedAdmission(url=url, key=key)
    else:
        config = AdmissionConfig(concurrency_limit=limit)
        # A parked holder renews a short TTL; its round-trip cap must fit inside it.
        ttl = b if mode == "park" else 5.0
        backend = SharedAdmission(url=url, key=key, lease_ttl=ttl, op_timeout=min(2.0, ttl / 2))
    admission = build_admission(config, backend)
    out: list[object] = []
    try:
        for _ in range(n):
            budget = RequestBudget(anyio.current_time() + 30)
            lease = await admission.acquire(Call(), budget=budget)
            if mode == "window":
                out.append(time.time())
                lease.release()
            elif mode == "hold":
                start = time.time()
                await anyio.sleep(b)
                out.append((start, time.time()))
                lease.release()
            else:
                print("held", flush=True)
                await anyio.sleep(3600)
    finally:
        await admission.close()
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    url, key, mode, n, a, b = sys.argv[1:7]
    anyio.run(main, url, key, mode, int(n), float(a), float(b))
