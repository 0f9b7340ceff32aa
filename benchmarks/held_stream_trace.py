"""What one held stream keeps alive, line by line, with ``tracemalloc`` (run by hand).

    python3 -m uv run --group benchmarks python benchmarks/held_stream_trace.py imodel --streams 256

The contender (``raw``, ``endpoint``, ``imodel``, ``imodel_timeout``: the peers benchmark's)
streams twice against ``sse_server.py`` to warm up, then opens ``--streams`` streams against the
server's paced mode with an 8 s gap, so each one waits for its first token: the state a burst's
setup is in when its memory peaks. After 2 s and a collection, the heap is compared with the
heap before the streams, by allocation traceback.

Printed: the growth per stream, then the allocations whose innermost frame is this library's
code (the line that allocated, bytes per stream), then the growth by the innermost frame's
library. RSS-based figures (``burst_memory.py``) include the allocator's layout and move by
megabytes between runs; this one counts live Python data only, and repeats within ~0.1 KiB.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import linecache
import sys
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
_WAIT_S = 2.0
_GAP_US = 8_000_000


def _where(frame: tracemalloc.Frame) -> str:
    name = frame.filename
    if "lionagi/" in name:
        return "lionagi:" + name.split("lionagi/")[-1]
    if "site-packages/" in name:
        return name.split("site-packages/")[-1].split("/")[0]
    return name.rsplit("/", 1)[-1]


async def _trace(name: str, base: str, hold: str, streams: int, top: int) -> None:
    sys.path.insert(0, str(HERE))
    import peers

    contender = peers.make_contender(name)
    await contender.stream(base)
    await contender.stream(base)
    gc.collect()
    tracemalloc.start(40)
    before = tracemalloc.take_snapshot()
    tasks = [asyncio.create_task(contender.stream(hold)) for _ in range(streams)]
    try:
        await asyncio.sleep(_WAIT_S)
        if any(task.done() for task in tasks):
            raise RuntimeError("a stream ended before the heap was read")
        gc.collect()
        held = tracemalloc.take_snapshot()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await contender.aclose()
    grown = [s for s in held.compare_to(before, "traceback") if s.size_diff > 0]
    print(f"{name}: {sum(s.size_diff for s in grown) / streams / 1024:.2f} KiB a stream held\n")
    own: dict[str, int] = {}
    libraries: dict[str, int] = {}
    for stat in grown:
        frame = stat.traceback[-1]  # the innermost frame: the line that allocated
        libraries[_where(frame)] = libraries.get(_where(frame), 0) + stat.size_diff
        if "lionagi/" in frame.filename:
            line = linecache.getline(frame.filename, frame.lineno).strip()[:80]
            key = f"{_where(frame)}:{frame.lineno}  {line}"
            own[key] = own.get(key, 0) + stat.size_diff
    print("allocated by this library's own lines, B a stream:")
    for key, size in sorted(own.items(), key=lambda item: -item[1])[:top]:
        print(f"  {size / streams:7.0f}  {key}")
    print("\nby the innermost frame's library, B a stream:")
    for key, size in sorted(libraries.items(), key=lambda item: -item[1])[:top]:
        print(f"  {size / streams:7.0f}  {key}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("contender", choices=("raw", "endpoint", "imodel", "imodel_timeout"))
    parser.add_argument("--streams", type=int, default=256)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    import peers

    with peers.server(HERE / "sse_server.py") as url:
        base = peers.mode_base(url, "event", 20)
        hold = peers.mode_base(url, "paced", 2, _GAP_US)
        asyncio.run(_trace(args.contender, base, hold, args.streams, args.top))


if __name__ == "__main__":
    main()
