"""Where a burst's memory goes: each contender's peak, and what is alive at it (run by hand).

    python3 -m uv run --group benchmarks python benchmarks/burst_memory.py --streams 512 --rounds 5

The peers benchmark reports each burst's peak RSS (``ru_maxrss``); this one says what makes it.
Each (contender, round) is a fresh process, as there, running the same burst (one warm-up stream,
then every stream at once in one task group) against ``sse_server.py`` in one-event-per-write
mode. While the burst runs, a watcher task reads ``VmRSS`` every few milliseconds; at each new
high it records:

* the bytes pymalloc has handed out (``sys._debugmallocstats``: Python objects of at most 512
  bytes, which is where a stream's coroutines, scopes and small containers live);
* the bytes glibc's ``malloc`` has handed out (``mallinfo2``: larger objects and buffers);
* a census of the garbage-collected objects by type (``gc.get_objects``, ``sys.getsizeof``);
* when, from the burst's start, the high came.

A second measurement, ``--hold``, is the steady state: every stream open and waiting for its
next token (the server's ``paced`` mode with a gap longer than the wait), read after a garbage
collection once the setup is over; then the streams are cancelled. It says what a stream holds
for as long as it lives, apart from what its setup left behind.

Reported per contender (medians over rounds): RSS before the burst and at its high, and each
figure's growth from before the burst to the high, per stream. Contenders are the peers
benchmark's: ``raw``, ``raw_pydantic`` (raw plus the pydantic types ADR-0027 makes public, the
floor), ``endpoint`` (``Endpoint.stream``: the transport without the lifecycle), ``imodel`` and
``imodel_timeout``. A burst's high comes early, once every stream has been started and is
connecting or reading its first events (RSS then stays there: freed arenas are kept), so the
census shows what a stream holds while it is set up. The census costs time at each new high,
so the burst runs slower than in the peers benchmark: read the shares, not the wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import ctypes
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CONTENDERS = ("raw", "raw_pydantic", "endpoint", "imodel", "imodel_timeout")
_SAMPLE_S = 0.003
_HOLD_WAIT_S = 2.0  # every stream's setup is over by then, on a loaded 2-core machine too
_HOLD_GAP_US = 8_000_000  # the token gap the streams wait in, longer than the wait


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _malloc_in_use() -> float:
    """glibc's bytes in use (heap plus mmapped chunks), or NaN off glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
    except (OSError, AttributeError):
        return float("nan")
    info = libc.mallinfo2()
    return float(info.uordblks + info.hblkhd)


def _pymalloc_in_use() -> float:
    """pymalloc's allocated bytes, read from the stats CPython prints to file descriptor 2."""
    read_fd, write_fd = os.pipe()
    saved = os.dup(2)
    try:
        os.dup2(write_fd, 2)
        sys._debugmallocstats()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(write_fd)
    chunks = []
    while chunk := os.read(read_fd, 1 << 16):
        chunks.append(chunk)
    os.close(read_fd)
    for line in b"".join(chunks).decode("ascii", "replace").splitlines():
        if line.startswith("# bytes in allocated blocks"):
            return float(line.split("=")[-1].strip().replace(",", ""))
    return float("nan")


def _rss() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024.0
    return float("nan")


def _census() -> dict[str, tuple[int, int]]:
    counts: collections.Counter[str] = collections.Counter()
    sizes: collections.Counter[str] = collections.Counter()
    for obj in gc.get_objects():
        kind = type(obj)
        key = f"{kind.__module__}.{kind.__qualname__}"
        counts[key] += 1
        sizes[key] += sys.getsizeof(obj)
    return {k: (counts[k], sizes[k]) for k in counts}


def _sample() -> dict[str, Any]:
    return {"rss": _rss(), "pymalloc": _pymalloc_in_use(), "malloc": _malloc_in_use()}


async def _warmed(name: str, base: str) -> Any:
    """The contender after one stream (imports, pools, first-use caches), garbage collected."""
    sys.path.insert(0, str(HERE))
    import peers

    contender = peers.make_contender(name)
    await contender.stream(base)
    gc.collect()
    return contender


def _grown(
    before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]], streams: int
) -> dict[str, tuple[float, float]]:
    """Per type, the (objects, bytes) per stream that ``after`` holds over ``before``."""
    grown = {}
    for key, (count, size) in after.items():
        old_count, old_size = before.get(key, (0, 0))
        if size - old_size > 0:
            grown[key] = ((count - old_count) / streams, (size - old_size) / streams)
    return grown


async def _burst(name: str, base: str, streams: int) -> dict[str, Any]:
    contender = await _warmed(name, base)
    before = _sample()
    before_census = _census()
    high = dict(before)
    high_census = before_census
    stop = asyncio.Event()
    start = time.perf_counter()

    async def watch() -> None:
        nonlocal high, high_census
        while not stop.is_set():
            await asyncio.sleep(_SAMPLE_S)
            rss = _rss()
            if rss > high["rss"] + (1 << 20):  # a new high by 1 MiB: worth a census
                high = _sample()
                high["at_s"] = time.perf_counter() - start
                high_census = _census()

    watcher = asyncio.create_task(watch())
    try:
        async with asyncio.TaskGroup() as tg:
            for _ in range(streams):
                tg.create_task(contender.stream(base))
    finally:
        stop.set()
        await watcher
        await contender.aclose()
    grown = _grown(before_census, high_census, streams)
    return {
        "before": before,
        "high": high,
        "census": grown,
        "burst_s": time.perf_counter() - start,
    }


async def _hold(name: str, warm: str, base: str, streams: int, wait_s: float) -> dict[str, Any]:
    contender = await _warmed(name, warm)
    before = _sample()
    before_census = _census()
    tasks = [asyncio.create_task(contender.stream(base)) for _ in range(streams)]
    try:
        await asyncio.sleep(wait_s)
        if any(t.done() for t in tasks):
            raise RuntimeError("a stream ended before the hold was read: lengthen the gap")
        gc.collect()
        held = _sample()
        held_census = _census()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await contender.aclose()
    grown = _grown(before_census, held_census, streams)
    return {"before": before, "high": held, "census": grown}


def _run_child(name: str, base: str, streams: int, hold: str | None) -> dict[str, Any]:
    extra = ["--hold-base", hold] if hold else []
    proc = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            name,
            "--base",
            base,
            "--streams",
            str(streams),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{name} burst failed: {proc.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--chunks", type=int, default=200)
    parser.add_argument("--top", type=int, default=12, help="census rows per contender")
    parser.add_argument(
        "--hold", action="store_true", help="the steady state: streams open, waiting for a token"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--base", help=argparse.SUPPRESS)
    parser.add_argument("--hold-base", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.hold_base:
            run = _hold(args.child, args.base, args.hold_base, args.streams, _HOLD_WAIT_S)
        else:
            run = _burst(args.child, args.base, args.streams)
        print(json.dumps(asyncio.run(run)))
        return
    sys.path.insert(0, str(HERE))
    import peers

    runs: dict[str, list[dict[str, Any]]] = {n: [] for n in CONTENDERS}
    with peers.server(HERE / "sse_server.py") as url:
        base = peers.mode_base(url, "event", args.chunks)
        # Two content events a gap apart: every stream holds after its role event.
        hold = peers.mode_base(url, "paced", 2, _HOLD_GAP_US) if args.hold else None
        for r in range(args.rounds):
            for name in peers.rotated(CONTENDERS, r):
                print(f"[{time.strftime('%H:%M:%S')}] {name} round {r + 1}", file=sys.stderr)
                runs[name].append(_run_child(name, base, args.streams, hold))
    mib = float(1 << 20)
    n = args.streams
    if args.hold:
        print(f"{n} streams held open, waiting for a token, {args.rounds} rounds, medians\n")
        high = "RSS held MiB"
    else:
        print(f"{n} streams x {args.chunks} chunks, {args.rounds} rounds, medians\n")
        high = "RSS high MiB"
    print(
        f"| contender | RSS before MiB | {high} | RSS growth KiB/stream "
        "| pymalloc growth KiB/stream | malloc growth KiB/stream |"
    )
    print("|---|---|---|---|---|---|")
    for name in CONTENDERS:
        got = runs[name]

        def med(key: str, field: str, rows: list[dict[str, Any]] = got) -> float:
            return statistics.median(g[key][field] for g in rows)

        def growth(field: str, rows: list[dict[str, Any]] = got) -> float:
            return statistics.median(g["high"][field] - g["before"][field] for g in rows)

        print(
            f"| {name} | {med('before', 'rss') / mib:.1f} | {med('high', 'rss') / mib:.1f} "
            f"| {growth('rss') / n / 1024:.1f} | {growth('pymalloc') / n / 1024:.1f} "
            f"| {growth('malloc') / n / 1024:.1f} |"
        )
    if not args.hold:
        print()
        for name in CONTENDERS:
            at = statistics.median(g["high"].get("at_s", 0.0) for g in runs[name])
            whole = statistics.median(g["burst_s"] for g in runs[name])
            print(f"{name}: the high came {at:.2f} s into a burst of {whole:.2f} s")
    print()
    for name in CONTENDERS:
        keys = {k for g in runs[name] for k in g["census"]}
        rows = []
        for key in keys:
            per = [g["census"].get(key, (0.0, 0.0)) for g in runs[name]]
            rows.append(
                (statistics.median(p[1] for p in per), statistics.median(p[0] for p in per), key)
            )
        rows.sort(reverse=True)
        total = sum(r[0] for r in rows)
        print(f"{name}: garbage-collected objects grown, {total:.0f} B/stream")
        for size, count, key in rows[: args.top]:
            print(f"    {size:7.0f} B/stream  {count:5.1f} objects/stream  {key}")
        print()


if __name__ == "__main__":
    main()
