"""Side by side: the per-chunk stream path against raw httpx + httpx-sse (issue 15, item 2).

Run against a server that writes one SSE event per network write (the anchors' Starlette +
uvicorn server, started separately), e.g.::

    python fast_server.py 18765 &
    uv run python benchmarks/stream_path_bench.py http://127.0.0.1:18765 --rounds 7

Sections:

* ``single``      one 1,000-chunk stream at a time: raw ``httpx`` + ``httpx_sse.EventSource``
                  (``json.loads`` per event) vs ``Endpoint.stream`` vs ``iModel.stream`` vs
                  ``iModel.stream(timeout=600)`` (a deadline far beyond the run: enforced, never
                  hit). Each contender runs in this one process, the
                  order rotated per round; throughput (chunks/s, wall) and CPU per chunk
                  (``time.process_time``) are reported as medians with their min-max spread.
* ``agentic``     one CLI run printing N reference-grammar NDJSON events (a Python child):
                  a bare ``json_events_from_process`` loop (and the same loop under a 3600 s
                  ``anyio.fail_after``: the one timer any deadline costs) vs ``iModel.stream``
                  over the reference CLI adapter (supervisor, contract guard, projection); wall and
                  this process's CPU per event, interleaved, median [min-max]. Once per
                  write shape (``--shapes``, see ``_CHILD``): ``batched`` (many events per
                  pipe write: parse-bound), ``per-write`` (one write per event, unpaced) and
                  ``paced`` (one write per event every ``--pace-us``: the production shape,
                  one event per pipe read).
* ``agentic_layers`` where the agentic per-event cost goes: the same run read at each layer
                  (the bare per-event loop; the same reads as blocks; the floor any agentic
                  stream pays, blocks plus one ``StreamChunk`` per event with no grammar and no
                  check, then the same chunks handed out one at a time through ``ChunkBatches``;
                  blocks plus the reference adapter's ``project_event``;
                  ``Endpoint.stream_batches``; ``Endpoint.stream``; ``iModel.stream``), CPU per
                  event and its median ratio to the bare loop.
* ``concurrent``  256 and 512 concurrent streams x 200 chunks: each (contender, round) is a
                  fresh worker process so peak RSS (``ru_maxrss``) is its own; wall and peak RSS.

The client and the server share a 2-core VM with other work: trust the ratios, not the numbers.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

import anyio
import httpx
from httpx_sse import EventSource

MESSAGES = [{"role": "user", "content": "hi"}]
CONTENDERS = ("raw", "Endpoint.stream", "iModel.stream", "iModel.stream(timeout=)")


def _imodel(base: str) -> Any:
    from lionagi.service import iModel

    return iModel(
        provider="bench",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url=f"{base}/v1",
        api_key="sk-bench",
        allow_local_network=True,
        request_defaults={"model": "fake"},
    )


def _client() -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=100)
    return httpx.AsyncClient(limits=limits, timeout=60.0)


async def _raw_once(client: httpx.AsyncClient, url: str) -> int:
    count = 0
    loads = json.loads
    body = {"model": "fake", "messages": MESSAGES, "stream": True}
    async with client.stream("POST", url, json=body) as resp:
        resp.raise_for_status()
        async for sse in EventSource(resp).aiter_sse():
            if sse.data == "[DONE]":
                break
            for choice in loads(sse.data).get("choices") or ():
                if (choice.get("delta") or {}).get("content"):
                    count += 1
    return count


async def _ours_once(source: Any) -> int:
    count = 0
    async for chunk in source:
        if chunk.type == "text":
            count += 1
    return count


def _runners(base: str, chunks: int) -> tuple[dict[str, Callable[[], Awaitable[int]]], Any]:
    url = f"{base}/n/{chunks}/v1/chat/completions"
    model = _imodel(f"{base}/n/{chunks}")
    client = _client()
    ep = model.endpoint
    req = {"messages": MESSAGES}
    runners: dict[str, Callable[[], Awaitable[int]]] = {
        "raw": lambda: _raw_once(client, url),
        "Endpoint.stream": lambda: _ours_once(ep.stream(req)),
        "iModel.stream": lambda: _ours_once(model.stream(messages=MESSAGES)),
        "iModel.stream(timeout=)": lambda: _ours_once(model.stream(messages=MESSAGES, timeout=600)),
    }

    async def close() -> None:
        await client.aclose()
        await model.close()

    return runners, close


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} [{min(values):.3f}-{max(values):.3f}]"


async def bench_single(base: str, rounds: int, chunks: int, reps: int) -> None:
    runners, close = _runners(base, chunks)
    names = [n for n in CONTENDERS if n in runners]
    for name in names:  # warm: connections, caches, first-call imports
        await runners[name]()
    wall: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            w0, c0 = time.perf_counter(), time.process_time()
            seen = 0
            for _ in range(reps):
                seen += await runners[name]()
            w1, c1 = time.perf_counter(), time.process_time()
            assert seen == chunks * reps, (name, seen)
            wall[name].append((w1 - w0) / seen)
            cpu[name].append((c1 - c0) / seen)
    await close()
    print(f"single stream, {chunks} chunks x {reps} per sample, {rounds} rounds, median [min-max]")
    header = ("contender", "chunks/s", "thr ratio", "CPU us/chunk", "CPU ratio")
    print(f"{header[0]:26} {header[1]:>10} {header[2]:>22} {header[3]:>13} {header[4]:>22}")
    raw_w, raw_c = wall["raw"], cpu["raw"]
    for name in names:
        thr = [a / b for a, b in zip(raw_w, wall[name], strict=True)]  # per-round paired ratio
        cr = [b / a for a, b in zip(raw_c, cpu[name], strict=True)]
        print(
            f"{name:26} {1 / statistics.median(wall[name]):10.0f} {_spread(thr):>22} "
            f"{statistics.median(cpu[name]) * 1e6:13.1f} {_spread(cr):>22}"
        )


async def _concurrent_worker(base: str, name: str, streams: int, chunks: int) -> None:
    runners, close = _runners(base, chunks)
    run = runners[name]
    await run()  # warm one connection and the code path
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    seen = 0

    async def one() -> None:
        nonlocal seen
        got = await run()  # not ``seen += await ...``: that reads ``seen`` before the await
        seen += got

    w0, c0 = time.perf_counter(), time.process_time()
    async with anyio.create_task_group() as tg:
        for _ in range(streams):
            tg.start_soon(one)
    w1, c1 = time.perf_counter(), time.process_time()
    assert seen == streams * chunks, (name, seen)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    await close()
    print(json.dumps({"wall": w1 - w0, "cpu": c1 - c0, "peak_kib": peak, "base_kib": base_rss}))


def bench_concurrent(base: str, rounds: int, streams: int, chunks: int) -> None:
    names = list(CONTENDERS)
    rows: dict[str, dict[int, dict[str, float]]] = {n: {} for n in names}
    failures = dict.fromkeys(names, 0)
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            argv = [sys.executable, __file__, base, "--worker", name]
            argv += ["--streams", str(streams), "--chunks", str(chunks)]
            out = subprocess.run(argv, capture_output=True, text=True, check=False)
            if out.returncode != 0:  # reported, never silently dropped
                tail = out.stderr.strip().splitlines()[-1:] or ["(no stderr)"]
                print(f"  round {r} {name}: worker failed: {tail[0]}")
                failures[name] += 1
                continue
            rows[name][r] = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"{streams} concurrent streams x {chunks} chunks, {rounds} rounds (median [min-max])")
    head = ("contender", "wall s", "wall ratio", "CPU ratio", "peak MiB", "peak - raw MiB")
    print(f"{head[0]:26} {head[1]:>8} {head[2]:>22} {head[3]:>22} {head[4]:>9} {head[5]:>15}")
    raw = rows["raw"]
    for name in names:
        if not rows[name] or not raw:
            print(f"{name:26} no samples ({failures[name]} failed)")
            continue
        ws = [x["wall"] for x in rows[name].values()]
        # Paired by round where both ran; a failed worker drops only its own pairs.
        pairs = [(x, raw[r]) for r, x in rows[name].items() if r in raw]
        ratio = [x["wall"] / y["wall"] for x, y in pairs]
        peak = statistics.median(x["peak_kib"] for x in rows[name].values()) / 1024
        extra = [(x["peak_kib"] - y["peak_kib"]) / 1024 for x, y in pairs]
        cpu = [x["cpu"] / y["cpu"] for x, y in pairs]
        note = f"  ({failures[name]} worker(s) failed)" if failures[name] else ""
        print(
            f"{name:26} {statistics.median(ws):8.3f} {_spread(ratio):>22} {_spread(cpu):>22} "
            f"{peak:9.1f} "
            f"{_spread(extra):>15}{note}"
        )


# The reference CLI's run: a session event, N text deltas, a result. The same 49-byte text event
# in every shape, so only how it reaches the pipe changes between them:
#   batched    through Python's block-buffered stdout, ~170 events per write (parse-bound: the
#              reader gets a pipe-full per read; the harshest per-event ratio)
#   per-write  one os.write per event, unpaced (a real CLI's framing; a reader slower than the
#              writer still finds several events per read)
#   paced      one os.write per event and PACE microseconds between events (a model's token
#              stream: the reader keeps up and takes one event per read, the production shape)
_CHILD = (
    "import os, sys, time\n"
    "n, shape, pace = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]) / 1e6\n"
    "if shape == 'batched':\n"
    "    w = sys.stdout.buffer.write\n"
    "else:\n"
    "    def w(data, fd=sys.stdout.fileno(), write=os.write):\n"
    "        write(fd, data)\n"
    "sleep = time.sleep if shape == 'paced' and pace > 0 else None\n"
    'w(b\'{"type": "session", "session_id": "s-1", "model": "m"}\\n\')\n'
    'line = b\'{"type": "text", "content": "tok ", "delta": true}\\n\'\n'
    "for _ in range(n):\n"
    "    w(line)\n"
    "    if sleep: sleep(pace)\n"
    'w(b\'{"type": "result", "content": "done", "session_id": "s-1"}\\n\')\n'
    "sys.stdout.flush()\n"
)
SHAPES = ("batched", "per-write", "paced")


def _child_argv(events: int, shape: str, pace_us: int) -> list[str]:
    return [sys.executable, "-I", "-S", "-c", _CHILD, str(events), shape, str(pace_us)]


async def bench_agentic(rounds: int, events: int, shape: str, pace_us: int) -> None:
    from lionagi.service import iModel
    from lionagi.service.agentic import json_events_from_process
    from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

    argv = _child_argv(events, shape, pace_us)

    async def bare() -> int:
        count = 0
        async with json_events_from_process(argv, prompt="hi") as stream:
            async for event in stream:
                if event.get("type") == "text":
                    count += 1
        return count

    async def bare_limited() -> int:
        # The same loop under the limit every iModel run has (an agentic endpoint's default cap,
        # 3600 s): one event-loop timer, which asyncio checks on every loop iteration, whoever's.
        count = 0
        with anyio.fail_after(3600):
            async with json_events_from_process(argv, prompt="hi") as stream:
                async for event in stream:
                    if event.get("type") == "text":
                        count += 1
        return count

    model = iModel(endpoint=ReferenceCliEndpoint(argv=argv))

    def ours() -> Awaitable[int]:
        # The consuming loop's coroutine itself, as ``bare`` is: a wrapper coroutine awaiting it
        # would sit in the await chain and be resumed on every wake-up, once per paced event.
        return _ours_once(model.stream(prompt="hi"))

    runners: dict[str, Callable[[], Awaitable[int]]] = {
        "json_events_from_process": bare,
        "the same, under a 3600 s limit": bare_limited,
        "iModel.stream (agentic)": ours,
    }
    names = list(runners)
    for name in names:
        assert await runners[name]() == events, name
    wall: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            w0, c0 = time.perf_counter(), time.process_time()
            await runners[name]()
            wall[name].append((time.perf_counter() - w0) / events)
            cpu[name].append((time.process_time() - c0) / events)
    await model.close()
    label = _shape_label(shape, pace_us)
    print(f"agentic ({label}): one run of {events} events, {rounds} rounds, median [min-max]")
    bw, bc = wall[names[0]], cpu[names[0]]
    for name in names:
        wr = [b / a for a, b in zip(bw, wall[name], strict=True)]
        cr = [b / a for a, b in zip(bc, cpu[name], strict=True)]
        print(
            f"{name:30} wall {statistics.median(wall[name]) * 1e6:7.2f} us/event "
            f"{_spread(wr):>22}   CPU {statistics.median(cpu[name]) * 1e6:7.2f} us/event "
            f"{_spread(cr):>22}"
        )


async def bench_agentic_layers(rounds: int, events: int, shape: str, pace_us: int) -> None:
    from lionagi.service import StreamChunk, iModel
    from lionagi.service.agentic import ChunkBatches, json_events_from_process
    from lionagi.service_testing.reference_cli import ReferenceCliEndpoint, project_event

    argv = _child_argv(events, shape, pace_us)
    endpoint = ReferenceCliEndpoint(argv=argv)
    model = iModel(endpoint=ReferenceCliEndpoint(argv=argv))
    request = {"prompt": "hi"}

    async def bare() -> int:
        count = 0
        async with json_events_from_process(argv, prompt="hi") as stream:
            async for event in stream:
                if event.get("type") == "text":
                    count += 1
        return count

    async def blocks() -> int:
        count = 0
        async with json_events_from_process(argv, prompt="hi") as stream:
            async for block in stream.blocks():
                for event in block:
                    if event.get("type") == "text":
                        count += 1
        return count

    async def floor() -> int:
        # The boundary's own price, no grammar and no check: one StreamChunk per text event.
        count = 0
        async with json_events_from_process(argv, prompt="hi") as stream:
            async for block in stream.blocks():
                for event in block:
                    if event.get("type") == "text":
                        chunk = StreamChunk("text", event.get("content"), is_delta=True)
                        if chunk.type == "text":
                            count += 1
        return count

    async def floor_chunks() -> AsyncGenerator[list[StreamChunk], None]:
        # Lists of at most 128 events' chunks, as the CLI run loop cuts them (_BATCH_EVENTS).
        async with json_events_from_process(argv, prompt="hi") as stream:
            async for block in stream.blocks():
                for start in range(0, len(block), 128):
                    batch = [
                        StreamChunk("text", event.get("content"), is_delta=True)
                        for event in block[start : start + 128]
                        if event.get("type") == "text"
                    ]
                    if batch:
                        yield batch

    async def projected() -> int:
        count = 0
        async with json_events_from_process(argv, prompt="hi") as stream:
            async for block in stream.blocks():
                for event in block:
                    chunk = project_event(event)
                    if chunk is not None and chunk.type == "text":
                        count += 1
        return count

    async def batches() -> int:
        count = 0
        async for batch in endpoint.stream_batches(request):
            for chunk in batch:
                if chunk.type == "text":
                    count += 1
        return count

    layers: dict[str, Callable[[], Awaitable[int]]] = {
        "bare json_events_from_process": bare,
        "blocks()": blocks,
        "floor: blocks + StreamChunk": floor,
        "floor, handed out per chunk": lambda: _ours_once(ChunkBatches(floor_chunks())),
        "blocks + project_event": projected,
        "Endpoint.stream_batches": batches,
        "Endpoint.stream": lambda: _ours_once(endpoint.stream(request)),
        "iModel.stream": lambda: _ours_once(model.stream(prompt="hi")),
    }
    names = list(layers)
    for name in names:
        assert await layers[name]() == events, name
    cpu: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            c0 = time.process_time()
            await layers[name]()
            cpu[name].append((time.process_time() - c0) / events)
    await model.close()
    label = _shape_label(shape, pace_us)
    print(f"agentic layers ({label}): one run of {events} events, {rounds} rounds, CPU per event")
    base = cpu[names[0]]
    for name in names:
        ratios = [b / a for a, b in zip(base, cpu[name], strict=True)]
        median_us = statistics.median(cpu[name]) * 1e6
        print(f"{name:30} {median_us:7.2f} us/event   vs bare {_spread(ratios):>22}")


def _shape_label(shape: str, pace_us: int) -> str:
    return f"paced, one event per write every {pace_us} us" if shape == "paced" else shape


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("base", help="server base URL, e.g. http://127.0.0.1:18765")
    p.add_argument("--sections", default="single,agentic,concurrent")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--chunks", type=int, default=1000)
    p.add_argument("--reps", type=int, default=3, help="streams per single-stream sample")
    p.add_argument("--streams", type=int, default=0, help="worker: concurrent streams")
    p.add_argument("--concurrency", default="256,512")
    p.add_argument("--conc-chunks", type=int, default=200)
    p.add_argument("--events", type=int, default=20000, help="agentic: events per run")
    p.add_argument(
        "--shapes", default=",".join(SHAPES), help="agentic: how the child writes (see _CHILD)"
    )
    p.add_argument("--pace-us", type=int, default=1000, help="agentic: paced shape's gap")
    p.add_argument("--paced-events", type=int, default=1000, help="agentic: events, paced")
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        anyio.run(_concurrent_worker, args.base, args.worker, args.streams, args.chunks)
        return
    sections = args.sections.split(",")
    if "single" in sections:
        anyio.run(bench_single, args.base, args.rounds, args.chunks, args.reps)
    shapes = args.shapes.split(",")
    for section, bench in (("agentic", bench_agentic), ("agentic_layers", bench_agentic_layers)):
        if section not in sections:
            continue
        for shape in shapes:
            events = args.paced_events if shape == "paced" else args.events
            anyio.run(bench, args.rounds, events, shape, args.pace_us)
    if "concurrent" in sections:
        for n in args.concurrency.split(","):
            bench_concurrent(args.base, args.rounds, int(n), args.conc_chunks)


if __name__ == "__main__":
    main()
