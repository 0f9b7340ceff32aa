"""Machine instructions per paced agentic event, counted by valgrind (issue 15, agentic path).

CPU time per event on a shared 2-core VM varies by a third between identical runs, which hides
any change smaller than that. Instructions executed do not: this script runs each contender
once with ``--small`` and once with ``--large`` events under ``valgrind --tool=callgrind`` and
reports ``(large - small) / (large - small events)``, the per-event count with imports, process
start and teardown cancelled out. It counts work, not time: cache misses and the kernel's part
are not in it, so it complements ``stream_path_bench.py --sections agentic`` and does not
replace it.

Needs ``valgrind`` (``apt-get install valgrind``); run by hand, e.g.::

    uv run python benchmarks/agentic_instructions.py

The child writes one event every ``--pace-ms`` (5 ms: under valgrind this process is about 50
times slower, and each event must still arrive in a pipe read of its own, as on a real CLI).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CONTENDERS = (
    "bare",
    "bare under a 3600 s limit",
    "blocks + project_event",
    "Endpoint.stream_batches",
    "Endpoint.stream",
    "iModel.stream",
)


async def _contender(name: str, events: int, pace_ms: int) -> int:
    import anyio
    from stream_path_bench import _child_argv, _ours_once

    from lionagi.service import iModel
    from lionagi.service.agentic import json_events_from_process
    from lionagi.service_testing.reference_cli import ReferenceCliEndpoint, project_event

    argv = _child_argv(events, "paced", pace_ms * 1000)
    endpoint = ReferenceCliEndpoint(argv=argv)
    count = 0
    if name in ("bare", "bare under a 3600 s limit"):
        with anyio.fail_after(3600 if name != "bare" else None):
            async with json_events_from_process(argv, prompt="hi") as stream:
                async for event in stream:
                    count += event.get("type") == "text"
    elif name == "blocks + project_event":
        async with json_events_from_process(argv, prompt="hi") as stream:
            async for block in stream.blocks():
                for event in block:
                    chunk = project_event(event)
                    count += chunk is not None and chunk.type == "text"
    elif name == "Endpoint.stream_batches":
        async for batch in endpoint.stream_batches({"prompt": "hi"}):
            count += sum(chunk.type == "text" for chunk in batch)
    elif name == "Endpoint.stream":
        count = await _ours_once(endpoint.stream({"prompt": "hi"}))
    else:
        async with iModel(endpoint=endpoint) as model:
            count = await _ours_once(model.stream(prompt="hi"))
    return count


def _child(name: str, events: int, pace_ms: int) -> None:
    import anyio

    got = anyio.run(_contender, name, events, pace_ms)
    if got != events:
        raise SystemExit(f"{name}: {got} text events, expected {events}")


def _instructions(name: str, events: int, pace_ms: int, out: Path) -> int:
    cmd = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        sys.executable,
        __file__,
        "--child",
        name,
        str(events),
        str(pace_ms),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode or found is None:
        raise SystemExit(f"{name}: valgrind failed\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--small", type=int, default=100)
    p.add_argument("--large", type=int, default=1100)
    p.add_argument("--pace-ms", type=int, default=5)
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    if args.child:
        name, events, pace = args.child
        _child(name, int(events), int(pace))
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    per_event: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in CONTENDERS:
            small = _instructions(name, args.small, args.pace_ms, Path(tmp, "s.out"))
            large = _instructions(name, args.large, args.pace_ms, Path(tmp, "l.out"))
            per_event[name] = (large - small) / (args.large - args.small)
    base = per_event["bare"]
    print(f"instructions per paced event ({args.small} vs {args.large} events, one per read)")
    for name, count in per_event.items():
        print(f"{name:26} {count:9.0f}   vs bare {count / base:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
