"""iModel call-path overhead against raw httpx, on loopback (run by hand).

    uv run python benchmarks/imodel_bench.py [SECTION ...] [--rounds N]
    uv run python benchmarks/imodel_bench.py --profile oneshot|stream [--top 30]

Sections (default: all of them, in this order):

* ``oneshot``    one JSON chat completion per call, keep-alive: raw ``httpx.AsyncClient.post`` +
                 ``response.json()`` vs ``Endpoint.call`` vs ``iModel.invoke``; median us/call.
* ``stream``     one SSE stream of 1,000 text deltas: raw httpx + httpx-sse (``aiter_sse``,
                 ``json.loads`` per event) vs ``Endpoint.stream`` vs ``iModel.stream``;
                 chunks/s (wall) and client CPU us per chunk.
* ``concurrent`` 256 concurrent streams x 200 chunks, each contender in a fresh child process:
                 wall time of the burst and peak RSS (``resource.getrusage`` ``ru_maxrss``).
* ``import``     ``python -c pass`` vs ``import httpx, pydantic, anyio`` vs
                 ``import lionagi.service``, subprocess wall time.
* ``coldcall``   a fresh process that imports, builds its client and makes one call: raw httpx
                 (``asyncio.run``) vs ``iModel`` (``anyio.run``); in-process and wall time.
* ``layers``     (not in the default set) where ``iModel.stream``'s per-chunk CPU goes:
                 ``Endpoint.stream`` bare, under pass-through generator layers, under one
                 ``anyio.CancelScope`` per chunk, and ``Endpoint._stream_batches`` under one
                 scope per network read.

The fake provider server (``lionagi.service_testing.main``) runs in a separate process. Every
section interleaves its contenders round by round (order rotated) and reports medians and ratios
against the raw baseline; on a noisy VM trust the ratios, not the microseconds.

``--profile`` runs only our ``iModel`` contender of a section under cProfile and prints the top
functions by own time and by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import math
import pstats
import resource
import subprocess
import sys
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import httpx
from _common import (
    fake_server,
    interleave,
    interleave_sync,
    machine_note,
    markdown_table,
    median,
)
from httpx_sse import EventSource

from lionagi.service.http import StatelessClient

MESSAGES = [{"role": "user", "content": "Say hello in a short sentence, please."}]
MODEL = "bench-model"
API_KEY = "sk-bench"
SECTIONS = ("oneshot", "stream", "concurrent", "import", "coldcall")
EXTRA_SECTIONS = ("layers",)

# Loopback only; these numbers bound every loop below.
ONESHOT_CALLS = 200
STREAM_CHUNKS = 1000
STREAMS_PER_ROUND = 3
CONCURRENT_STREAMS = 256
CONCURRENT_CHUNKS = 200
SUBPROCESS_TIMEOUT_S = 120.0


def fake_headers(behaviour: str = "text", chunks: int | None = None) -> dict[str, str]:
    headers = {"x-fake-behaviour": behaviour}
    if chunks is not None:
        headers["x-fake-chunks"] = str(chunks)
    return headers


def raw_headers(chunks: int | None = None) -> dict[str, str]:
    return {"Authorization": f"Bearer {API_KEY}", **fake_headers(chunks=chunks)}


def raw_payload(*, stream: bool = False) -> dict[str, Any]:
    payload: dict[str, Any] = {"model": MODEL, "messages": MESSAGES}
    if stream:
        payload["stream"] = True
    return payload


def make_imodel(base: str, chunks: int | None = None) -> Any:
    """The HTTP iModel every section measures (an OpenAI-compatible endpoint, no catalog entry)."""
    from lionagi.service import iModel

    return iModel(
        provider="bench",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url=f"{base}/v1",
        api_key=API_KEY,
        allow_local_network=True,
        request_defaults={"model": MODEL},
        default_headers=fake_headers(chunks=chunks),
    )


def raw_client(*, unbounded_pool: bool = False) -> httpx.AsyncClient:
    """A plain keep-alive client; ``unbounded_pool`` matches the endpoint's pool limits."""
    if unbounded_pool:
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=100)
        return httpx.AsyncClient(limits=limits, timeout=60.0)
    return httpx.AsyncClient(timeout=60.0)


async def raw_stream_once(client: httpx.AsyncClient, url: str, headers: dict[str, str]) -> int:
    """One raw SSE stream: ``aiter_sse`` + ``json.loads`` per event; returns text deltas seen."""
    count = 0
    loads = json.loads
    async with client.stream("POST", url, json=raw_payload(stream=True), headers=headers) as resp:
        resp.raise_for_status()
        async for sse in EventSource(resp).aiter_sse():
            if sse.data == "[DONE]":
                continue
            event = loads(sse.data)
            for choice in event.get("choices") or ():
                if (choice.get("delta") or {}).get("content"):
                    count += 1
    return count


async def ours_stream_once(source: Any) -> int:
    """Text chunks of one ``iModel.stream`` / ``Endpoint.stream`` iteration."""
    count = 0
    async for chunk in source:
        if chunk.type == "text":
            count += 1
    return count


# -- 1. one-shot ----------------------------------------------------------------------------------


async def bench_oneshot(base: str, rounds: int) -> dict[str, float]:
    url = f"{base}/v1/chat/completions"
    headers = raw_headers()
    payload = raw_payload()
    client = raw_client()
    # The same httpx client with the cookie jar switched off, as the endpoint's own client is:
    # the fair baseline for what the lifecycle adds on top of the transport.
    stateless = StatelessClient(timeout=60.0)
    im = make_imodel(base)
    im_deadline = make_imodel(base)
    ep_owner = make_imodel(base)  # its own client, used only through Endpoint.call
    ep = ep_owner.endpoint

    async def raw_one() -> None:
        resp = await client.post(url, json=payload, headers=headers)
        resp.raise_for_status()
        resp.json()

    async def raw_stateless_one() -> None:
        resp = await stateless.post(url, json=payload, headers=headers)
        resp.raise_for_status()
        resp.json()

    async def endpoint_one() -> None:
        await ep.call({"messages": MESSAGES})

    def imodel_one(model: Any, timeout: float | None) -> Callable[[], Awaitable[None]]:
        async def one() -> None:
            call = await model.invoke(messages=MESSAGES, timeout=timeout)
            if call.status.value != "completed":
                raise RuntimeError(f"iModel call ended {call.status.value}: {call.exception!r}")

        return one

    ones: dict[str, Callable[[], Awaitable[None]]] = {
        "raw httpx post": raw_one,
        "raw httpx post, cookie-less client": raw_stateless_one,
        "Endpoint.call": endpoint_one,
        "iModel.invoke": imodel_one(im, None),
        "iModel.invoke(timeout=600)": imodel_one(im_deadline, 600.0),
    }
    per_call: dict[str, list[float]] = {name: [] for name in ones}

    def batch(name: str) -> Callable[[], Awaitable[float]]:
        one, out, clock = ones[name], per_call[name], time.perf_counter_ns

        async def run() -> float:
            start = clock()
            for _ in range(ONESHOT_CALLS):
                t0 = clock()
                await one()
                out.append((clock() - t0) / 1000)
            return (clock() - start) / ONESHOT_CALLS / 1000

        return run

    try:
        for one in ones.values():  # warm-up: connections, caches
            for _ in range(50):
                await one()
        means = await interleave({name: batch(name) for name in ones}, rounds)
    finally:
        await client.aclose()
        await stateless.aclose()
        for owner in (im, im_deadline, ep_owner):
            await owner.close()
    medians = {name: median(values) for name, values in per_call.items()}
    mean_medians = {name: median(values) for name, values in means.items()}
    base_us = medians["raw httpx post"]
    base_mean = mean_medians["raw httpx post"]
    print(
        f"## One-shot call ({ONESHOT_CALLS} calls per contender per round, {rounds} interleaved "
        "rounds)\n"
    )
    rows = [
        [
            name,
            f"{us:.0f}",
            f"{us / base_us:.2f}x",
            f"{us - base_us:+.0f}",
            f"{mean_medians[name] / base_mean:.2f}x",
        ]
        for name, us in medians.items()
    ]
    print(
        markdown_table(
            ["contender", "median us/call", "vs raw", "us over raw", "round-mean vs raw"], rows
        )
    )
    print()
    return {f"oneshot {name} vs raw": us / base_us for name, us in medians.items()}


# -- 2. streaming throughput ----------------------------------------------------------------------


async def bench_stream(base: str, rounds: int) -> dict[str, float]:
    url = f"{base}/v1/chat/completions"
    headers = raw_headers(STREAM_CHUNKS)
    client = raw_client()
    im = make_imodel(base, STREAM_CHUNKS)
    im_deadline = make_imodel(base, STREAM_CHUNKS)
    ep_owner = make_imodel(base, STREAM_CHUNKS)
    ep = ep_owner.endpoint
    cpu: dict[str, list[float]] = {}

    def streams(name: str, one: Callable[[], Awaitable[int]]) -> Callable[[], Awaitable[float]]:
        cpu[name] = []

        async def run() -> float:
            wall0, cpu0 = time.perf_counter(), time.process_time()
            for _ in range(STREAMS_PER_ROUND):
                seen = await one()
                if seen != STREAM_CHUNKS:
                    raise RuntimeError(f"{name}: saw {seen} text chunks, expected {STREAM_CHUNKS}")
            wall, used = time.perf_counter() - wall0, time.process_time() - cpu0
            cpu[name].append(used / (STREAM_CHUNKS * STREAMS_PER_ROUND) * 1e6)
            return STREAM_CHUNKS * STREAMS_PER_ROUND / wall

        return run

    contenders = {
        "raw httpx + httpx-sse": streams(
            "raw httpx + httpx-sse", lambda: raw_stream_once(client, url, headers)
        ),
        "Endpoint.stream": streams(
            "Endpoint.stream", lambda: ours_stream_once(ep.stream({"messages": MESSAGES}))
        ),
        "iModel.stream": streams(
            "iModel.stream", lambda: ours_stream_once(im.stream(messages=MESSAGES))
        ),
        "iModel.stream(timeout=600)": streams(
            "iModel.stream(timeout=600)",
            lambda: ours_stream_once(im_deadline.stream(messages=MESSAGES, timeout=600.0)),
        ),
    }
    try:
        for run in contenders.values():  # warm-up
            await run()
        for values in cpu.values():
            values.clear()
        samples = await interleave(contenders, rounds)
    finally:
        await client.aclose()
        for owner in (im, im_deadline, ep_owner):
            await owner.close()
    medians = {name: median(values) for name, values in samples.items()}
    cpu_medians = {name: median(values) for name, values in cpu.items()}
    base_rate = medians["raw httpx + httpx-sse"]
    base_cpu = cpu_medians["raw httpx + httpx-sse"]
    print(
        f"## Streaming, {STREAM_CHUNKS} SSE chunks ({STREAMS_PER_ROUND} streams per round, "
        f"median of {rounds} rounds)\n"
    )
    rows = [
        [
            name,
            f"{rate:,.0f}",
            f"{rate / base_rate:.2f}x",
            f"{cpu_medians[name]:.1f}",
            f"{cpu_medians[name] / base_cpu:.2f}x",
        ]
        for name, rate in medians.items()
    ]
    print(
        markdown_table(
            ["contender", "chunks/s", "vs raw", "client CPU us/chunk", "CPU vs raw"], rows
        )
    )
    print()
    return {f"stream {name} vs raw": rate / base_rate for name, rate in medians.items()}


# -- 2b. per-chunk cost decomposition ------------------------------------------------------------


async def _passthrough(source: AsyncIterator[Any]) -> AsyncGenerator[Any, None]:
    async for item in source:
        yield item


async def _scope_per_item(source: AsyncIterator[Any]) -> AsyncGenerator[Any, None]:
    iterator = source.__aiter__()
    while True:
        with anyio.CancelScope():
            try:
                item = await iterator.__anext__()
            except StopAsyncIteration:
                break
        yield item


async def _scope_per_batch(
    batches: AsyncGenerator[list[Any], None], deadline: float | None
) -> AsyncGenerator[Any, None]:
    try:
        while True:
            with anyio.CancelScope(deadline=math.inf if deadline is None else deadline):
                try:
                    batch = await batches.__anext__()
                except StopAsyncIteration:
                    break
            for item in batch:
                yield item
    finally:
        await batches.aclose()


async def bench_layers(base: str, rounds: int) -> dict[str, float]:
    url = f"{base}/v1/chat/completions"
    headers = raw_headers(STREAM_CHUNKS)
    client = raw_client()
    im = make_imodel(base, STREAM_CHUNKS)
    ep = im.endpoint

    def ep_stream() -> Any:
        return ep.stream({"messages": MESSAGES})

    def ep_batches() -> Any:
        return ep._stream_batches({"messages": MESSAGES})

    def four_layers() -> Any:
        return _passthrough(_passthrough(_passthrough(_passthrough(ep_stream()))))

    cases: dict[str, Callable[[], Awaitable[int]]] = {
        "raw httpx + httpx-sse": lambda: raw_stream_once(client, url, headers),
        "Endpoint.stream": lambda: ours_stream_once(ep_stream()),
        "+ 4 pass-through generator layers": lambda: ours_stream_once(four_layers()),
        "+ one CancelScope per chunk": lambda: ours_stream_once(_scope_per_item(ep_stream())),
        "_stream_batches + one CancelScope per read": lambda: ours_stream_once(
            _scope_per_batch(ep_batches(), None)
        ),
        "_stream_batches + one deadline scope per read": lambda: ours_stream_once(
            _scope_per_batch(ep_batches(), anyio.current_time() + 600)
        ),
        "iModel.stream": lambda: ours_stream_once(im.stream(messages=MESSAGES)),
        "iModel.stream(timeout=600)": lambda: ours_stream_once(
            im.stream(messages=MESSAGES, timeout=600.0)
        ),
    }
    cpu: dict[str, list[float]] = {name: [] for name in cases}

    def measured(name: str) -> Callable[[], Awaitable[float]]:
        async def run() -> float:
            start = time.process_time()
            for _ in range(STREAMS_PER_ROUND):
                seen = await cases[name]()
                if seen != STREAM_CHUNKS:
                    raise RuntimeError(f"{name}: saw {seen} text chunks")
            used = time.process_time() - start
            cpu[name].append(used / (STREAM_CHUNKS * STREAMS_PER_ROUND) * 1e6)
            return used

        return run

    try:
        for case in cases.values():  # warm-up
            await case()
        await interleave({name: measured(name) for name in cases}, rounds)
    finally:
        await client.aclose()
        await im.close()
    medians = {name: median(values) for name, values in cpu.items()}
    base_cpu = medians["raw httpx + httpx-sse"]
    print(f"## Per-chunk CPU by wrapping, {STREAM_CHUNKS} SSE chunks (median of {rounds} rounds)\n")
    rows = [[name, f"{us:.2f}", f"{us / base_cpu:.2f}x"] for name, us in medians.items()]
    print(markdown_table(["contender", "client CPU us/chunk", "vs raw"], rows))
    print()
    return {f"layers {name} CPU vs raw": us / base_cpu for name, us in medians.items()}


# -- 4. concurrent streams (child processes) ------------------------------------------------------


def _rss_now_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def concurrent_child(contender: str, base: str, streams: int, chunks: int) -> None:
    """Run one contender's burst in this (fresh) process and print a JSON result line."""
    url = f"{base}/v1/chat/completions"
    counts: list[int] = []
    if contender == "raw":
        client = raw_client(unbounded_pool=True)
        headers = raw_headers(chunks)

        async def one() -> int:
            return await raw_stream_once(client, url, headers)

        async def close() -> None:
            await client.aclose()
    else:
        im = make_imodel(base, chunks)
        ep = im.endpoint

        async def one() -> int:
            if contender == "endpoint":
                return await ours_stream_once(ep.stream({"messages": MESSAGES}))
            return await ours_stream_once(im.stream(messages=MESSAGES))

        async def close() -> None:
            await im.close()

    async def task() -> None:
        counts.append(await one())

    try:
        await one()  # warm-up: the first client construction and first connection
        rss_before = _rss_now_kib()
        start = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for _ in range(streams):
                tg.start_soon(task)
        wall = time.perf_counter() - start
    finally:
        await close()
    if sum(counts) != streams * chunks:
        raise RuntimeError(f"{contender}: {sum(counts)} chunks, expected {streams * chunks}")
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"wall": wall, "peak_kib": peak_kib, "rss_before_kib": rss_before}))


def bench_concurrent(base: str, rounds: int) -> dict[str, float]:
    names = {
        "raw": "raw httpx + httpx-sse",
        "endpoint": "Endpoint.stream",
        "imodel": "iModel.stream",
    }
    results: dict[str, list[dict[str, float]]] = {key: [] for key in names}

    def child(key: str) -> Callable[[], float]:
        def run() -> float:
            proc = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child-concurrent",
                    key,
                    "--base",
                    base,
                ],
                capture_output=True,
                text=True,
                timeout=SUBPROCESS_TIMEOUT_S,
                check=False,
            )
            if proc.returncode != 0:
                raise RuntimeError(f"{key} child failed:\n{proc.stderr[-3000:]}")
            data = json.loads(proc.stdout.strip().splitlines()[-1])
            results[key].append(data)
            return float(data["wall"])

        return run

    interleave_sync({key: child(key) for key in names}, rounds)
    wall = {key: median([r["wall"] for r in rs]) for key, rs in results.items()}
    peak = {key: median([r["peak_kib"] / 1024 for r in rs]) for key, rs in results.items()}
    before = {key: median([r["rss_before_kib"] / 1024 for r in rs]) for key, rs in results.items()}
    print(
        f"## {CONCURRENT_STREAMS} concurrent streams x {CONCURRENT_CHUNKS} chunks "
        f"(fresh child process per run, median of {rounds} rounds)\n"
    )
    rows = [
        [
            names[key],
            f"{wall[key]:.3f}",
            f"{wall[key] / wall['raw']:.2f}x",
            f"{before[key]:.1f}",
            f"{peak[key]:.1f}",
            f"{peak[key] - peak['raw']:+.1f}",
        ]
        for key in names
    ]
    print(
        markdown_table(
            ["contender", "wall s", "vs raw", "RSS before MiB", "peak RSS MiB", "MiB over raw"],
            rows,
        )
    )
    print()
    out = {f"concurrent wall {names[k]} vs raw": wall[k] / wall["raw"] for k in names}
    out.update({f"concurrent peak MiB over raw {names[k]}": peak[k] - peak["raw"] for k in names})
    return out


# -- 5. cold import and cold first call -----------------------------------------------------------


def _time_subprocess(code: str, *args: str) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_S,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"subprocess failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return elapsed, proc.stdout


def bench_import(rounds: int) -> dict[str, float]:
    codes = {
        "bare python": "pass",
        "httpx, pydantic, anyio": "import httpx, pydantic, anyio",
        "lionagi.service": "import lionagi.service",
    }
    for code in codes.values():  # warm the page cache and the bytecode caches
        _time_subprocess(code)
        _time_subprocess(code)
    samples = interleave_sync(
        {name: (lambda c=code: _time_subprocess(c)[0] * 1000) for name, code in codes.items()},
        rounds,
    )
    ms = {name: median(values) for name, values in samples.items()}
    bare, base = ms["bare python"], ms["httpx, pydantic, anyio"]
    print(f"## Cold import (subprocess wall, median of {rounds} interleaved runs)\n")
    rows = [
        [name, f"{value:.1f}", f"{value - bare:+.1f}", f"{value - base:+.1f}"]
        for name, value in ms.items()
    ]
    print(markdown_table(["python -c", "ms", "ms over bare", "ms over httpx+pydantic+anyio"], rows))
    print()
    return {
        "import ms over bare (lionagi.service)": ms["lionagi.service"] - bare,
        "import ms over bare (httpx, pydantic, anyio)": base - bare,
        "import ms over baseline (lionagi.service)": ms["lionagi.service"] - base,
    }


_COLD_RAW = """\
import time
t0 = time.perf_counter()
import asyncio, sys
import httpx

async def main(base):
    async with httpx.AsyncClient(timeout=60.0) as client:
        resp = await client.post(
            base + "/v1/chat/completions",
            json={"model": "bench-model", "messages": [{"role": "user", "content": "hi"}]},
            headers={"Authorization": "Bearer sk-bench", "x-fake-behaviour": "text"},
        )
        resp.raise_for_status()
        resp.json()

asyncio.run(main(sys.argv[1]))
print((time.perf_counter() - t0) * 1000)
"""

_COLD_OURS = """\
import time
t0 = time.perf_counter()
import sys
import anyio
from lionagi.service import iModel

async def main(base):
    async with iModel(
        provider="bench", endpoint="chat/completions", openai_compatible=True,
        base_url=base + "/v1", api_key="sk-bench", allow_local_network=True,
        request_defaults={"model": "bench-model"},
        default_headers={"x-fake-behaviour": "text"},
    ) as model:
        call = await model.invoke(messages=[{"role": "user", "content": "hi"}])
        assert call.status.value == "completed", call.exception

anyio.run(main, sys.argv[1])
print((time.perf_counter() - t0) * 1000)
"""


def bench_coldcall(base: str, rounds: int) -> dict[str, float]:
    codes = {"bare python": ("pass",), "raw httpx": (_COLD_RAW, base), "iModel": (_COLD_OURS, base)}
    inner: dict[str, list[float]] = {name: [] for name in codes}

    def run(name: str) -> Callable[[], float]:
        def once() -> float:
            wall, out = _time_subprocess(*codes[name])
            if out.strip():
                inner[name].append(float(out.strip().splitlines()[-1]))
            return wall * 1000

        return once

    for name in codes:  # warm-up
        run(name)()
    for values in inner.values():
        values.clear()
    walls = interleave_sync({name: run(name) for name in codes}, rounds)
    wall = {name: median(values) for name, values in walls.items()}
    ins = {name: median(values) for name, values in inner.items() if values}
    print(
        f"## Cold first call: import + construct + one call (median of {rounds} interleaved "
        "fresh processes)\n"
    )
    rows = [
        [
            name,
            f"{wall[name]:.1f}",
            f"{ins[name]:.1f}" if name in ins else "-",
            f"{wall[name] / wall['raw httpx']:.2f}x",
            f"{wall[name] - wall['raw httpx']:+.1f}",
        ]
        for name in codes
    ]
    print(
        markdown_table(
            ["contender", "process wall ms", "in-process ms", "vs raw", "ms over raw"], rows
        )
    )
    print()
    return {
        "coldcall wall ms (iModel)": wall["iModel"],
        "coldcall wall ms (raw httpx)": wall["raw httpx"],
        "coldcall wall ratio": wall["iModel"] / wall["raw httpx"],
    }


# -- profile ---------------------------------------------------------------------------------------


async def _profile_target(section: str, base: str, iterations: int) -> None:
    chunks = STREAM_CHUNKS if section == "stream" else None
    im = make_imodel(base, chunks)
    try:

        async def work() -> None:
            for _ in range(iterations):
                if section == "stream":
                    await ours_stream_once(im.stream(messages=MESSAGES))
                else:
                    await im.invoke(messages=MESSAGES)

        await work()  # warm-up, unprofiled
        profiler = cProfile.Profile()
        profiler.enable()
        await work()
        profiler.disable()
    finally:
        await im.close()
    _PROFILES.append(profiler)


_PROFILES: list[cProfile.Profile] = []


def run_profile(section: str, top: int) -> None:
    iterations = 20 if section == "stream" else 2000
    with fake_server() as base:
        anyio.run(_profile_target, section, base, iterations)
    stats = pstats.Stats(_PROFILES[-1])
    stats.strip_dirs()
    print(f"## cProfile: iModel {section}, {iterations} iterations, by own time\n")
    stats.sort_stats("tottime").print_stats(top)
    print(f"## cProfile: iModel {section}, by cumulative time\n")
    stats.sort_stats("cumulative").print_stats(top)


# -- main ------------------------------------------------------------------------------------------


async def run_async_sections(base: str, sections: list[str], rounds: int) -> dict[str, float]:
    out: dict[str, float] = {}
    if "oneshot" in sections:
        out.update(await bench_oneshot(base, rounds))
    if "stream" in sections:
        out.update(await bench_stream(base, rounds))
    if "layers" in sections:
        out.update(await bench_layers(base, rounds))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "sections", nargs="*", metavar="SECTION", help=" ".join((*SECTIONS, *EXTRA_SECTIONS))
    )
    parser.add_argument("--rounds", type=int, default=15, help="rounds for oneshot/stream/import")
    parser.add_argument("--concurrent-rounds", type=int, default=5)
    parser.add_argument("--cold-rounds", type=int, default=15)
    parser.add_argument("--profile", choices=["oneshot", "stream"])
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--child-concurrent", choices=["raw", "endpoint", "imodel"])
    parser.add_argument("--base")
    args = parser.parse_args()

    if args.child_concurrent:
        anyio.run(
            concurrent_child,
            args.child_concurrent,
            args.base,
            CONCURRENT_STREAMS,
            CONCURRENT_CHUNKS,
        )
        return
    if args.profile:
        run_profile(args.profile, args.top)
        return

    sections = list(args.sections) or list(SECTIONS)
    known = (*SECTIONS, *EXTRA_SECTIONS)
    unknown = sorted(set(sections) - set(known))
    if unknown:
        parser.error(f"unknown section(s) {unknown}; choose from {' '.join(known)}")
    summary: dict[str, float] = {}
    with fake_server() as base:
        summary.update(anyio.run(run_async_sections, base, sections, args.rounds))
        if "concurrent" in sections:
            summary.update(bench_concurrent(base, args.concurrent_rounds))
        if "coldcall" in sections:
            summary.update(bench_coldcall(base, args.cold_rounds))
    if "import" in sections:
        summary.update(bench_import(args.rounds))
    print("## Summary\n")
    print(markdown_table(["figure", "value"], [[k, f"{v:.2f}"] for k, v in summary.items()]))
    print()
    print(machine_note())


if __name__ == "__main__":
    main()
