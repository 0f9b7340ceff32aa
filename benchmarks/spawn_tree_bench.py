"""Spawn cost of per-call cgroup containment (the descendant reaper) versus none (run by hand).

    uv run python benchmarks/spawn_tree_bench.py [--calls 400] [--program /bin/true]

Every call runs ``program`` to completion through ``json_events_from_process`` (spawn, read to
EOF, teardown, reap), in three interleaved variants:

* ``bare``       ``asyncio.create_subprocess_exec`` + ``communicate()``, new session, no library
* ``group``      ours with per-call cgroups switched off (process-group teardown only)
* ``cgroup``     ours with a per-call cgroup: the ``/bin/sh`` self-stop gate, the move into
                 the cgroup, SIGCONT, ``cgroup.kill`` and removal of the cgroup

``/bin/true`` keeps the program's own start-up out of the figure, so the difference between
``cgroup`` and ``group`` is what containment adds per call. Median and p95 of the per-call
latency are reported; on a noisy VM trust the differences of medians, not single numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable

from lionagi.service._transport.subprocess import json_events_from_process
from lionagi.service._transport.subprocess import tree as tree_module


async def bare(program: str) -> None:
    proc = await asyncio.create_subprocess_exec(
        program,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    await proc.communicate()


async def ours(program: str) -> None:
    async for _ in json_events_from_process([program]):
        pass


def contenders(root: str | None) -> dict[str, Callable[[str], Awaitable[None]]]:
    async def group(program: str) -> None:
        tree_module._root = None
        try:
            await ours(program)
        finally:
            tree_module._root = root

    async def cgroup(program: str) -> None:
        await ours(program)

    found: dict[str, Callable[[str], Awaitable[None]]] = {"bare": bare, "group": group}
    if root is not None:
        found["cgroup"] = cgroup
    return found


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


async def main(calls: int, program: str) -> None:
    root = tree_module.cgroup_root()
    runs = contenders(root)
    samples: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for name in names:  # warm-up: imports, the cgroup probe, the executable cache
        await runs[name](program)
    for index in range(calls):
        order = names[index % len(names) :] + names[: index % len(names)]
        for name in order:
            started = time.perf_counter()
            await runs[name](program)
            samples[name].append((time.perf_counter() - started) * 1000)
    print(f"python {sys.version.split()[0]}, {calls} calls each, program {program}")
    print(f"per-call cgroups under: {root or 'unavailable (process-group teardown only)'}")
    print("| variant | median ms | p95 ms |")
    print("|---|---|---|")
    for name in names:
        values = samples[name]
        print(f"| {name} | {statistics.median(values):.3f} | {p95(values):.3f} |")
    if "cgroup" in samples:
        group_median = statistics.median(samples["group"])
        added = statistics.median(samples["cgroup"]) - group_median
        added_p95 = p95(samples["cgroup"]) - p95(samples["group"])
        ratio = statistics.median(samples["cgroup"]) / group_median
        bare_ratio = statistics.median(samples["cgroup"]) / statistics.median(samples["bare"])
        print(
            f"cgroup vs group: +{added:.3f} ms median (+{added_p95:.3f} ms p95), "
            f"{ratio:.2f}x; cgroup vs bare: {bare_ratio:.2f}x"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--program", default="/bin/true")
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.program))
