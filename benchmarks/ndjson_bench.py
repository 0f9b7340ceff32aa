"""NDJSON framing throughput and spawn overhead of the shared subprocess support (run by hand).

    uv run python benchmarks/ndjson_bench.py [--mb 64] [--rounds 5] [--spawns 40]

Throughput: a child (``cat``) streams a ~64 MB NDJSON file through a pipe; every contender
parses each line into a dict with ``json.loads`` (or the framer's scanner) and counts events.

* ``readline``   asyncio StreamReader ``readline()`` loop (PERF_ANCHORS: ~65 MB/s)
* ``block64k``   64 KiB ``read()`` blocks, decoded once, split as str (PERF_ANCHORS: ~99 MB/s)
* ``ours``       ``json_events_from_process`` (framing, stderr drain, teardown included)
* ``framer``     ``JsonFramer`` alone over in-memory 64 KiB blocks (CPU ceiling, no pipe)

Spawn: ``python -I -S -c pass`` through ``json_events_from_process`` versus a bare
``asyncio.create_subprocess_exec`` with piped stdout/stderr and ``communicate()``.
Rounds are interleaved and medians reported; on a noisy VM trust the ratios, not the numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from lionagi.service._transport.subprocess import JsonFramer, json_events_from_process

LINE_TEMPLATE = {
    "type": "item.completed",
    "item": {
        "id": "item_0",
        "type": "agent_message",
        "text": "The quick brown fox jumps over the lazy dog — naïve café ✓ " * 2,
    },
    "usage": {"input_tokens": 1234, "output_tokens": 56, "cached_input_tokens": 0},
}


def make_file(directory: Path, megabytes: int) -> tuple[Path, int, int]:
    lines = []
    for i in range(2000):
        event = dict(LINE_TEMPLATE)
        event["item"] = {**LINE_TEMPLATE["item"], "id": f"item_{i}"}  # type: ignore[dict-item]
        lines.append(json.dumps(event, ensure_ascii=False))
    chunk = ("\n".join(lines) + "\n").encode()
    repeats = max(1, megabytes * 1024 * 1024 // len(chunk))
    path = directory / "events.ndjson"
    with path.open("wb") as handle:
        for _ in range(repeats):
            handle.write(chunk)
    return path, len(chunk) * repeats, len(lines) * repeats


async def via_readline(path: Path) -> int:
    proc = await asyncio.create_subprocess_exec(
        "cat", str(path), stdout=asyncio.subprocess.PIPE, limit=1 << 24
    )
    assert proc.stdout is not None
    count = 0
    loads = json.loads
    while line := await proc.stdout.readline():
        loads(line)
        count += 1
    await proc.wait()
    return count


async def via_blocks(path: Path) -> int:
    proc = await asyncio.create_subprocess_exec("cat", str(path), stdout=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    decode = codecs.getincrementaldecoder("utf-8")().decode
    loads = json.loads
    count = 0
    pending = ""
    while block := await proc.stdout.read(65536):
        lines = (pending + decode(block)).split("\n")
        pending = lines.pop()
        for line in lines:
            if line:
                loads(line)
                count += 1
    await proc.wait()
    return count


async def via_ours(path: Path) -> int:
    count = 0
    async for _ in json_events_from_process(["cat", str(path)]):
        count += 1
    return count


async def via_framer(data: bytes) -> int:
    framer = JsonFramer()
    count = 0
    for start in range(0, len(data), 65536):
        for _ in framer.feed(data[start : start + 65536]):
            count += 1
    for _ in framer.close():
        count += 1
    return count


async def spawn_bare() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        "-S",
        "-c",
        "pass",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    await proc.communicate()


async def spawn_ours() -> None:
    async for _ in json_events_from_process([sys.executable, "-I", "-S", "-c", "pass"]):
        pass


async def timed(fn: Callable[[], Awaitable[object]]) -> tuple[float, object]:
    start = time.perf_counter()
    result = await fn()
    return time.perf_counter() - start, result


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--spawns", type=int, default=40)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path, size, events = make_file(Path(tmp), args.mb)
        data = path.read_bytes()

        def framer_only() -> Awaitable[int]:
            return via_framer(data)

        contenders: dict[str, Callable[[], Awaitable[object]]] = {
            "readline": lambda: via_readline(path),
            "block64k": lambda: via_blocks(path),
            "ours": lambda: via_ours(path),
            "framer": framer_only,
        }
        times: dict[str, list[float]] = {name: [] for name in contenders}
        for _ in range(args.rounds):
            for name, fn in contenders.items():
                elapsed, count = await timed(fn)
                assert count == events, (name, count, events)
                times[name].append(elapsed)

    mb = size / 1e6
    print(f"## NDJSON throughput ({mb:.1f} MB, {events} events, median of {args.rounds})\n")
    print("| contender | MB/s | events/s | vs readline | vs block64k |")
    print("|---|---|---|---|---|")
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, seconds in medians.items():
        print(
            f"| {name} | {mb / seconds:.1f} | {events / seconds:,.0f} "
            f"| {medians['readline'] / seconds:.2f}x | {medians['block64k'] / seconds:.2f}x |"
        )

    for _ in range(3):  # warm the executable cache and the interpreter's page cache
        await spawn_bare()
        await spawn_ours()
    bare: list[float] = []
    ours: list[float] = []
    for _ in range(args.spawns):
        bare.append((await timed(spawn_bare))[0])
        ours.append((await timed(spawn_ours))[0])
    b, o = statistics.median(bare), statistics.median(ours)
    print(f"\n## Spawn `python -I -S -c pass` (median of {args.spawns}, interleaved)\n")
    print("| path | ms | overhead |")
    print("|---|---|---|")
    print(f"| bare create_subprocess_exec + communicate | {b * 1e3:.2f} | — |")
    print(f"| json_events_from_process | {o * 1e3:.2f} | {(o - b) * 1e3:+.2f} ms ({o / b:.2f}x) |")
    print(f"\nos.cpu_count()={os.cpu_count()}  python={sys.version.split()[0]}")


if __name__ == "__main__":
    asyncio.run(main())
