"""What telemetry costs per call and per stream chunk (issue 18 item 1; run by hand).

    uv run python benchmarks/otel_bench.py [--rounds 5] [--calls 400] [--streams 20] [--chunks 1000]

Three modes, each round in a fresh worker process (the order rotated per round), against the
fake provider server in its own process:

* ``absent``  ``opentelemetry`` cannot be imported (a meta-path finder refuses it before
              ``lionagi.service`` is imported), as when the ``[otel]`` extra is not installed;
* ``off``     installed, ``instrument()`` never called (the default);
* ``on``      ``instrument()`` with the SDK's TracerProvider (``SimpleSpanProcessor`` into an
              ``InMemorySpanExporter``) and a MeterProvider with an ``InMemoryMetricReader``.

Each worker runs ``--calls`` sequential ``iModel.invoke`` calls and ``--streams`` sequential
streams of ``--chunks`` chunks (after a warm-up) and reports wall throughput and its own CPU
(``time.process_time``) per call and per chunk. Medians over rounds; trust ratios, not numbers.
"""

from __future__ import annotations

import argparse
import importlib.abc
import json
import subprocess
import sys
import time
from typing import Any

from _common import fake_server, machine_note, markdown_table, median, rotated

MODES = ("absent", "off", "on")
MODEL = "fake-model"
MESSAGES = [{"role": "user", "content": "hi"}]


class _RefuseOtel(importlib.abc.MetaPathFinder):
    """Makes ``import opentelemetry`` fail, as when the package is not installed."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ImportError(f"{name} refused (otel_bench mode 'absent')")
        return None


def _setup(mode: str) -> None:
    if mode == "absent":
        sys.meta_path.insert(0, _RefuseOtel())
        return
    if mode == "on":
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        from lionagi.service.telemetry import instrument

        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
        meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
        instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)


def _model(base: str, chunks: int | None) -> Any:
    from lionagi.service import iModel

    headers = {"x-fake-behaviour": "text"}
    if chunks is not None:
        headers["x-fake-chunks"] = str(chunks)
    return iModel(
        provider="bench",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url=f"{base}/v1",
        api_key="sk-bench",
        allow_local_network=True,
        request_defaults={"model": MODEL},
        default_headers=headers,
    )


async def _work(base: str, calls: int, streams: int, chunks: int) -> dict[str, float]:
    invoker = _model(base, None)
    streamer = _model(base, chunks)
    try:
        for _ in range(20):  # warm-up: connections, lazy builds
            await invoker.invoke(messages=MESSAGES)
        async for _chunk in streamer.stream(messages=MESSAGES):
            pass
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            await invoker.invoke(messages=MESSAGES)
        call_wall, call_cpu = time.perf_counter() - wall, time.process_time() - cpu
        seen = 0
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(streams):
            async for _chunk in streamer.stream(messages=MESSAGES):
                seen += 1
        chunk_wall, chunk_cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        await invoker.close()
        await streamer.close()
    return {
        "calls_per_s": calls / call_wall,
        "cpu_us_per_call": call_cpu / calls * 1e6,
        "chunks_per_s": seen / chunk_wall,
        "cpu_us_per_chunk": chunk_cpu / seen * 1e6,
    }


def worker(mode: str, base: str, calls: int, streams: int, chunks: int) -> None:
    _setup(mode)
    import anyio

    result = anyio.run(_work, base, calls, streams, chunks)
    result["otel_loaded"] = float(any(m.startswith("opentelemetry") for m in sys.modules))
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--streams", type=int, default=20)
    parser.add_argument("--chunks", type=int, default=1000)
    parser.add_argument("--worker", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--base", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.base, args.calls, args.streams, args.chunks)
        return
    samples: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
    with fake_server() as base:
        for index in range(args.rounds):
            for mode in rotated(MODES, index):
                out = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--worker",
                        mode,
                        "--base",
                        base,
                        "--calls",
                        str(args.calls),
                        "--streams",
                        str(args.streams),
                        "--chunks",
                        str(args.chunks),
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                samples[mode].append(json.loads(out.stdout.strip().splitlines()[-1]))
    off_call = median([s["cpu_us_per_call"] for s in samples["absent"]])
    off_chunk = median([s["cpu_us_per_chunk"] for s in samples["absent"]])
    rows = []
    for mode in MODES:
        runs = samples[mode]
        call_cpu = median([s["cpu_us_per_call"] for s in runs])
        chunk_cpu = median([s["cpu_us_per_chunk"] for s in runs])
        rows.append(
            [
                mode,
                f"{median([s['calls_per_s'] for s in runs]):.0f}",
                f"{call_cpu:.0f} ({call_cpu / off_call:.2f}x)",
                f"{median([s['chunks_per_s'] for s in runs]):.0f}",
                f"{chunk_cpu:.2f} ({chunk_cpu / off_chunk:.2f}x)",
                "yes" if any(s["otel_loaded"] for s in runs) else "no",
            ]
        )
    header = [
        "mode",
        "invoke calls/s",
        "CPU µs/call (vs absent)",
        "stream chunks/s",
        "CPU µs/chunk (vs absent)",
        "opentelemetry imported",
    ]
    print(markdown_table(header, rows))
    print(
        f"\nrounds={args.rounds} calls={args.calls} streams={args.streams}x{args.chunks}  "
        + machine_note()
    )


if __name__ == "__main__":
    main()
