"""lionagi-service against its peers on a one-event-per-write server (run by hand, one command).

    python3 -m uv run --group benchmarks python benchmarks/peers.py            # full size, docs
    python3 -m uv run --group benchmarks python benchmarks/peers.py --quick    # development
    ... peers.py --sections stream,concurrent --rounds 5 --out /tmp/peers     # a subset

Contenders, each in its own worker process (so no contender warms another's caches or shares its
GIL), against the same loopback server (``sse_server.py``, its own process):

* ``raw``            ``httpx.AsyncClient`` + ``httpx_sse`` ``aiter_sse`` + ``json.loads``
* ``endpoint``       ``iModel(...).endpoint``: ``Endpoint.call`` / ``Endpoint.stream``
* ``imodel``         ``iModel.invoke`` / ``iModel.stream``
* ``imodel_timeout`` the same with ``timeout=600``
* ``openai``         ``openai.AsyncOpenAI``
* ``litellm``        ``litellm.acompletion`` (``openai/`` model prefix, ``api_base``)
* ``pydantic_ai``    ``pydantic_ai.Agent`` over ``OpenAIChatModel``, ``stream_text(delta=True,
                     debounce_by=None)``

Sections (``--sections``, default all): ``oneshot`` (p50/p99 per call), ``stream`` (1,000-chunk
stream in the ``event``, ``paced`` and ``batched`` server modes: throughput and client CPU per
chunk), ``concurrent`` (64/256/512 streams x 200 chunks, a fresh process per burst: wall, CPU,
peak RSS), ``cold`` (``python -c`` import and import + construct + one call), ``micro``
(admission acquire/release and ``match_endpoint``, against ``anyio.Semaphore`` and
``EndpointConfig`` construction), ``ndjson`` (NDJSON intake from a subprocess pipe against plain
loops, and the agentic spawn path against a bare spawn), ``crosscheck`` (raw and ``iModel``
against this server and ``--crosscheck-server``, interleaved; only when that path is given).

Every timed section interleaves its contenders round by round, the order rotated each round; a
ratio to raw is taken per round and reported as the median with the range over rounds. Output:
``OUT/peers.json`` (every sample), ``OUT/peers.md`` (tables, machine, versions, command),
``OUT/overhead.png`` and ``OUT/concurrency.png``; a full run also rewrites the block between the
``peers:begin``/``peers:end`` markers in ``docs/benchmarks.md`` (``--no-doc`` to skip). This module
imports only the standard library at the top: the contenders' libraries are imported inside their
worker processes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import resource
import selectors
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DOC = ROOT / "docs" / "benchmarks.md"
DOC_BEGIN = "<!-- peers:begin (written by benchmarks/peers.py) -->"
DOC_END = "<!-- peers:end -->"

CONTENDERS = ("raw", "endpoint", "imodel", "imodel_timeout", "openai", "litellm", "pydantic_ai")
LABELS = {
    "raw": "raw httpx + httpx-sse",
    "endpoint": "`Endpoint`",
    "imodel": "`iModel`",
    "imodel_timeout": "`iModel` with `timeout=600`",
    "openai": "openai `AsyncOpenAI`",
    "litellm": "`litellm.acompletion`",
    "pydantic_ai": "pydantic-ai `Agent`",
    "raw_pydantic": "floor: raw + ADR-0027's pydantic types",
}
# Burst-only rows: a floor, not a client library (no ratio of its own in the headline table).
BURST_FLOORS = ("raw_pydantic",)
# The contenders a cold-start row exists for (``Endpoint`` and the ``timeout=`` variant share
# ``iModel``'s import and construction).
COLD_CONTENDERS = ("raw", "imodel", "openai", "litellm", "pydantic_ai")
SECTIONS = ("oneshot", "stream", "concurrent", "cold", "micro", "ndjson", "crosscheck")
MODEL = "bench-model"
API_KEY = "sk-bench"
PROMPT = "Say hello in a short sentence, please."
MESSAGES = [{"role": "user", "content": PROMPT}]
SERVER_START_TIMEOUT_S = 30.0
WORKER_TIMEOUT_S = 900.0
# LiteLLM fetches its model price list over the network at import unless told to use its copy.
CHILD_ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}


@dataclass(frozen=True)
class Size:
    """How much work each section does; ``--quick`` is for development, full size for the doc."""

    rounds: int
    oneshot_calls: int
    stream_chunks: int
    streams_per_round: int
    paced_chunks: int
    paced_delay_us: int
    levels: tuple[int, ...]
    burst_chunks: int
    burst_rounds: int
    cold_rounds: int
    micro_iterations: int
    ndjson_mb: int
    spawns: int


FULL = Size(
    rounds=7,
    oneshot_calls=200,
    stream_chunks=1000,
    streams_per_round=3,
    paced_chunks=200,
    paced_delay_us=1000,
    levels=(64, 256, 512),
    burst_chunks=200,
    burst_rounds=3,
    cold_rounds=11,
    micro_iterations=20_000,
    ndjson_mb=32,
    spawns=40,
)
QUICK = Size(
    rounds=2,
    oneshot_calls=30,
    stream_chunks=300,
    streams_per_round=1,
    paced_chunks=50,
    paced_delay_us=1000,
    levels=(16, 64),
    burst_chunks=50,
    burst_rounds=1,
    cold_rounds=2,
    micro_iterations=2000,
    ndjson_mb=4,
    spawns=5,
)


# ================================================================================================
# Worker side: one contender per process.
# ================================================================================================


class Contender(Protocol):
    """One client library; ``base`` is the server URL prefix in front of ``/v1``."""

    async def oneshot(self, base: str) -> None:
        """One chat completion, response parsed."""

    async def stream(self, base: str) -> int:
        """Consume one stream; return the number of text deltas the library handed over."""

    async def aclose(self) -> None:
        """Release the library's clients."""


class Raw:
    def __init__(self) -> None:
        import httpx
        from httpx_sse import EventSource

        self._event_source = EventSource
        # The endpoint's pool limits: with httpx's default cap of 100 connections a burst queues.
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=100)
        self.client = httpx.AsyncClient(limits=limits, timeout=60.0)
        self.headers = {"Authorization": f"Bearer {API_KEY}"}

    async def oneshot(self, base: str) -> None:
        payload = {"model": MODEL, "messages": MESSAGES}
        resp = await self.client.post(
            f"{base}/v1/chat/completions", json=payload, headers=self.headers
        )
        resp.raise_for_status()
        resp.json()

    async def stream(self, base: str) -> int:
        payload = {"model": MODEL, "messages": MESSAGES, "stream": True}
        count = 0
        loads = json.loads
        async with self.client.stream(
            "POST", f"{base}/v1/chat/completions", json=payload, headers=self.headers
        ) as resp:
            resp.raise_for_status()
            async for sse in self._event_source(resp).aiter_sse():
                if sse.data == "[DONE]":
                    break
                for choice in loads(sse.data).get("choices") or ():
                    if (choice.get("delta") or {}).get("content"):
                        count += 1
        return count

    async def aclose(self) -> None:
        await self.client.aclose()


class RawPydanticFloor(Raw):
    """Raw, plus the pydantic types ADR-0027 makes public, each defined and validated once.

    A burst-only floor: nothing of ours runs, so its peak RSS against raw's is the part of
    ``iModel``'s memory no work on our code can remove while ``EndpointConfig`` and the request
    models are pydantic models (the cold-call floor in ``cold_start_bench.py`` is the same code).
    """

    def __init__(self) -> None:
        super().__init__()
        from pydantic import BaseModel, ConfigDict, SecretStr

        class Config(BaseModel):
            model_config = ConfigDict(extra="forbid")
            provider: str
            base_url: str
            api_key: SecretStr | None = None
            timeout: float = 600.0

        class Message(BaseModel):
            role: str
            content: str

        class Request(BaseModel):
            model: str
            messages: list[Message]
            temperature: float | None = None

        self.floor = (
            Config(provider="bench", base_url="http://127.0.0.1/v1", api_key=API_KEY),
            Request(model=MODEL, messages=MESSAGES).model_dump(exclude_none=True),
        )


class Ours:
    """``iModel`` (``via="imodel"``) or its ``Endpoint`` (``via="endpoint"``), one per base."""

    def __init__(self, via: str, timeout: float | None = None) -> None:
        from lionagi.service import iModel

        self._factory = iModel
        self.via = via
        self.timeout = timeout
        self.models: dict[str, Any] = {}

    def _model(self, base: str) -> Any:
        found = self.models.get(base)
        if found is None:
            found = self.models[base] = self._factory(
                provider="bench",
                endpoint="chat/completions",
                openai_compatible=True,
                base_url=f"{base}/v1",
                api_key=API_KEY,
                allow_local_network=True,
                request_defaults={"model": MODEL},
            )
        return found

    async def oneshot(self, base: str) -> None:
        model = self._model(base)
        if self.via == "endpoint":
            await model.endpoint.call({"messages": MESSAGES})
            return
        call = await model.invoke(messages=MESSAGES, timeout=self.timeout)
        if call.status.value != "completed":
            raise RuntimeError(f"iModel call ended {call.status.value}: {call.exception!r}")

    async def stream(self, base: str) -> int:
        model = self._model(base)
        if self.via == "endpoint":
            source = model.endpoint.stream({"messages": MESSAGES})
        else:
            source = model.stream(messages=MESSAGES, timeout=self.timeout)
        count = 0
        async for chunk in source:
            if chunk.type == "text":
                count += 1
        return count

    async def aclose(self) -> None:
        for model in self.models.values():
            await model.close()


class OpenAISDK:
    def __init__(self) -> None:
        from openai import AsyncOpenAI

        self._factory = AsyncOpenAI
        self.clients: dict[str, Any] = {}

    def _client(self, base: str) -> Any:
        found = self.clients.get(base)
        if found is None:
            # The raw client's 60 s for every phase: the SDK's default 5 s connect timeout
            # fails a 512-stream burst on a loaded machine (the listen backlog drains slowly).
            found = self.clients[base] = self._factory(
                base_url=f"{base}/v1", api_key=API_KEY, max_retries=0, timeout=60.0
            )
        return found

    async def oneshot(self, base: str) -> None:
        await self._client(base).chat.completions.create(model=MODEL, messages=MESSAGES)

    async def stream(self, base: str) -> int:
        count = 0
        source = await self._client(base).chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True
        )
        async for chunk in source:
            if chunk.choices and chunk.choices[0].delta.content:
                count += 1
        return count

    async def aclose(self) -> None:
        for client in self.clients.values():
            await client.close()


class LiteLLM:
    def __init__(self) -> None:
        import litellm

        self._acompletion = litellm.acompletion

    async def oneshot(self, base: str) -> None:
        await self._acompletion(
            model=f"openai/{MODEL}",
            messages=MESSAGES,
            api_base=f"{base}/v1",
            api_key=API_KEY,
            max_retries=0,
        )

    async def stream(self, base: str) -> int:
        count = 0
        source = await self._acompletion(
            model=f"openai/{MODEL}",
            messages=MESSAGES,
            api_base=f"{base}/v1",
            api_key=API_KEY,
            max_retries=0,
            stream=True,
        )
        async for chunk in source:
            if chunk.choices and chunk.choices[0].delta.content:
                count += 1
        return count

    async def aclose(self) -> None:
        """LiteLLM keeps its clients in a process-wide cache; nothing per contender."""


class PydanticAI:
    def __init__(self) -> None:
        from pydantic_ai import Agent
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        self._agent = Agent
        self._model = OpenAIChatModel
        self._provider = OpenAIProvider
        self.agents: dict[str, Any] = {}

    def _agent_for(self, base: str) -> Any:
        found = self.agents.get(base)
        if found is None:
            provider = self._provider(base_url=f"{base}/v1", api_key=API_KEY)
            found = self.agents[base] = self._agent(self._model(MODEL, provider=provider))
        return found

    async def oneshot(self, base: str) -> None:
        await self._agent_for(base).run(PROMPT)

    async def stream(self, base: str) -> int:
        count = 0
        async with self._agent_for(base).run_stream(PROMPT) as result:
            async for text in result.stream_text(delta=True, debounce_by=None):
                if text:
                    count += 1
        return count

    async def aclose(self) -> None:
        """The agents' providers own their clients; the process exit releases them."""


def make_contender(name: str) -> Contender:
    factories: dict[str, Callable[[], Contender]] = {
        "raw": Raw,
        "raw_pydantic": RawPydanticFloor,
        "endpoint": lambda: Ours("endpoint"),
        "imodel": lambda: Ours("imodel"),
        "imodel_timeout": lambda: Ours("imodel", timeout=600.0),
        "openai": OpenAISDK,
        "litellm": LiteLLM,
        "pydantic_ai": PydanticAI,
    }
    return factories[name]()


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _current_rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def _handle(contender: Contender, cmd: dict[str, Any]) -> dict[str, Any]:
    op = cmd["op"]
    if op == "warm":
        for base in cmd["bases"]:
            for _ in range(cmd.get("calls", 20)):
                await contender.oneshot(base)
        for base in cmd["stream_bases"]:
            for _ in range(cmd.get("streams", 2)):
                await contender.stream(base)
        return {}
    if op == "oneshot":
        clock = time.perf_counter_ns
        latencies = []
        for _ in range(cmd["calls"]):
            t0 = clock()
            await contender.oneshot(cmd["base"])
            latencies.append((clock() - t0) / 1000)
        return {"lat_us": latencies}
    if op == "stream":
        walls, cpus, seen = [], [], []
        for _ in range(cmd["repeat"]):
            w0, c0 = time.perf_counter(), time.process_time()
            seen.append(await contender.stream(cmd["base"]))
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
        return {"wall_s": walls, "cpu_s": cpus, "seen": seen}
    raise ValueError(f"unknown worker op {op!r}")


def run_worker(name: str) -> int:
    """Serve JSON commands from stdin, one per line, on one event loop kept across commands."""
    with asyncio.Runner() as runner:
        contender = make_contender(name)
        print(json.dumps({"ready": name}), flush=True)
        try:
            for line in sys.stdin:
                cmd = json.loads(line)
                if cmd["op"] == "quit":
                    break
                print(json.dumps(runner.run(_handle(contender, cmd))), flush=True)
        finally:
            runner.run(contender.aclose())
    return 0


async def _burst(contender: Contender, base: str, streams: int) -> dict[str, Any]:
    await contender.stream(base)  # warm-up: imports, pools, first-use caches
    rss_before = _current_rss_mib()
    seen: list[int] = []

    async def one() -> None:
        seen.append(await contender.stream(base))

    w0, c0 = time.perf_counter(), time.process_time()
    async with asyncio.TaskGroup() as tg:
        for _ in range(streams):
            tg.create_task(one())
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    await contender.aclose()
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "rss_before_mib": rss_before,
        "peak_rss_mib": _peak_rss_mib(),
        "seen_min": min(seen),
        "seen_max": max(seen),
    }


def run_burst(name: str, base: str, streams: int) -> int:
    result = asyncio.run(_burst(make_contender(name), base, streams))
    print(json.dumps(result), flush=True)
    return 0


# -- micro and ndjson workers: reuse the existing benchmarks' pieces ----------------------------


def run_micro(iterations: int, rounds: int) -> int:
    import anyio
    from admission_bench import admission_cases, measure
    from catalog_bench import median_us, synthetic_inventory

    from lionagi.service import ProviderCatalog

    async def admission() -> dict[str, list[float]]:
        cases = admission_cases()
        samples: dict[str, list[float]] = {name: [] for name in cases}
        names = list(cases)
        for r in range(rounds):
            for name in rotated(names, r):
                samples[name].append(await measure(cases[name], iterations, 1))
        return samples

    out = anyio.run(admission)
    inventory = synthetic_inventory(100, "peers")
    catalog = ProviderCatalog(lambda: inventory)
    snapshot = catalog.snapshot()
    meta = snapshot.providers["p50"].endpoints["chat/completions"].meta
    lookups: dict[str, Callable[[], object]] = {
        "EndpointConfig(...) alone": meta.create_config,
        "match_endpoint, canonical keys": lambda: catalog.match("p50", "chat/completions"),
        "match_endpoint, aliases + case/space": lambda: catalog.match(" P50-AI ", "Chat"),
        "match_endpoint, OpenAI-compatible fallback": lambda: catalog.match(
            "custom", "", openai_compatible=True, base_url="http://127.0.0.1:8000/v1"
        ),
    }
    for name in lookups:
        out[name] = []
    for r in range(rounds):
        for name in rotated(list(lookups), r):
            out[name].append(median_us(lookups[name], max(iterations // 4, 500)))
    print(json.dumps(out), flush=True)
    return 0


def run_ndjson(megabytes: int, rounds: int, spawns: int) -> int:
    import tempfile

    from ndjson_bench import (
        make_file,
        spawn_bare,
        spawn_ours,
        timed,
        via_blocks,
        via_ours,
        via_readline,
    )

    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        with tempfile.TemporaryDirectory() as tmp:
            path, size, events = make_file(Path(tmp), megabytes)
            intake = {
                "readline() loop": lambda: via_readline(path),
                "64 KiB blocks, split as str": lambda: via_blocks(path),
                "json_events_from_process": lambda: via_ours(path),
            }
            seconds: dict[str, list[float]] = {name: [] for name in intake}
            for r in range(rounds):
                for name in rotated(list(intake), r):
                    elapsed, count = await timed(intake[name])
                    if count != events:
                        raise RuntimeError(f"{name}: {count} events, expected {events}")
                    seconds[name].append(elapsed)
        out["ndjson_mb"] = size / 1e6
        out["ndjson_events"] = events
        out["ndjson_s"] = seconds
        for _ in range(3):
            await spawn_bare()
            await spawn_ours()
        spawn: dict[str, list[float]] = {"bare spawn": [], "json_events_from_process": []}
        fns = {"bare spawn": spawn_bare, "json_events_from_process": spawn_ours}
        for r in range(spawns):
            for name in rotated(list(fns), r):
                spawn[name].append((await timed(fns[name]))[0])
        out["spawn_s"] = spawn
        return out

    print(json.dumps(asyncio.run(main())), flush=True)
    return 0


# ================================================================================================
# Orchestrator side.
# ================================================================================================


def rotated(names: Sequence[str], round_index: int) -> list[str]:
    """``names`` rotated by ``round_index`` so no contender always runs first."""
    k = round_index % len(names) if names else 0
    return [*names[k:], *names[:k]]


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(CHILD_ENV)
    return env


def _popen(args: list[str], **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, *args],
        stdin=kwargs.pop("stdin", subprocess.DEVNULL),
        stdout=subprocess.PIPE,
        text=True,
        env=_child_env(),
        cwd=HERE,
        **kwargs,
    )


def _read_line(proc: subprocess.Popen[str], timeout: float, what: str) -> str:
    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout=timeout):
            raise RuntimeError(f"{what}: no answer within {timeout:.0f} s")
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError(f"{what}: process exited (rc={proc.wait()})")
    return line.strip()


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            stream.close()


@contextmanager
def server(script: Path, port_arg: Callable[[int], list[str]] | None = None) -> Iterator[str]:
    """Start a benchmark server in its own process; yield ``http://127.0.0.1:PORT``.

    ``port_arg`` is for a server that takes a fixed port (the reference ``fast_server.py``): a
    free port is picked and passed, and readiness is polled with a TCP connect.
    """
    import socket

    if port_arg is None:
        proc = _popen([str(script), "--port", "0"])
        try:
            from sse_server import LISTENING_PREFIX

            line = _read_line(proc, SERVER_START_TIMEOUT_S, str(script))
            if not line.startswith(LISTENING_PREFIX):
                raise RuntimeError(f"unexpected server output: {line!r}")
            yield line[len(LISTENING_PREFIX) :]
        finally:
            _stop(proc)
        return
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = _popen([str(script), *port_arg(port)])
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{script} did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)


class Worker:
    """A warmed contender process answering one JSON command per line."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.proc = _popen([str(HERE / "peers.py"), "--worker", name], stdin=subprocess.PIPE)
        ready = json.loads(_read_line(self.proc, WORKER_TIMEOUT_S, f"worker {name}"))
        if ready != {"ready": name}:
            raise RuntimeError(f"worker {name}: unexpected greeting {ready!r}")

    def ask(self, **cmd: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = json.loads(
            _read_line(self.proc, WORKER_TIMEOUT_S, f"worker {self.name} {cmd['op']}")
        )
        return answer

    def close(self) -> None:
        try:
            if self.proc.poll() is None and self.proc.stdin is not None:
                self.proc.stdin.write('{"op": "quit"}\n')
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            pass
        _stop(self.proc)


@contextmanager
def workers(names: Sequence[str]) -> Iterator[dict[str, Worker]]:
    started: dict[str, Worker] = {}
    try:
        for name in names:
            started[name] = Worker(name)
        yield started
    finally:
        for worker in started.values():
            worker.close()


def mode_base(url: str, mode: str, chunks: int, param: int = 0) -> str:
    return f"{url}/s/{chunks}/{mode}/{param}"


def stream_modes(url: str, size: Size) -> dict[str, tuple[str, int]]:
    """Mode name -> (base URL, content chunks per stream)."""
    return {
        "event": (mode_base(url, "event", size.stream_chunks), size.stream_chunks),
        "paced": (
            mode_base(url, "paced", size.paced_chunks, size.paced_delay_us),
            size.paced_chunks,
        ),
        "batched": (mode_base(url, "batched", size.stream_chunks), size.stream_chunks),
    }


def _progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def bench_calls_and_streams(
    url: str, names: Sequence[str], size: Size, sections: set[str]
) -> dict[str, Any]:
    """One-shot and stream sections: one warmed worker per contender, rounds interleaved."""
    modes = stream_modes(url, size) if "stream" in sections else {}
    oneshot: dict[str, list[list[float]]] = {name: [] for name in names}
    streams: dict[str, dict[str, list[dict[str, Any]]]] = {
        mode: {name: [] for name in names} for mode in modes
    }
    with workers(names) as pool:
        for name, worker in pool.items():
            _progress(f"warming {name}")
            worker.ask(
                op="warm",
                bases=[url] if "oneshot" in sections else [],
                stream_bases=[base for base, _ in modes.values()],
                calls=20,
                streams=1,
            )
        for r in range(size.rounds):
            _progress(f"calls/streams round {r + 1}/{size.rounds}")
            if "oneshot" in sections:
                for name in rotated(names, r):
                    got = pool[name].ask(op="oneshot", base=url, calls=size.oneshot_calls)
                    oneshot[name].append(got["lat_us"])
            for mode, (base, chunks) in modes.items():
                for name in rotated(names, r):
                    got = pool[name].ask(op="stream", base=base, repeat=size.streams_per_round)
                    got["chunks"] = chunks
                    streams[mode][name].append(got)
    return {"oneshot": oneshot, "stream": streams} if oneshot or streams else {}


def bench_concurrent(
    url: str,
    names: Sequence[str],
    size: Size,
    caps: dict[str, int],
    done: dict[str, dict[str, list[dict[str, Any]]]],
    checkpoint: Callable[[], None],
) -> dict[str, Any]:
    """Bursts, a fresh process each; ``done`` holds bursts a resumed run already measured.

    A contender capped at a level (``--cap litellm=64``) is not run above it: its row says so.
    """
    base = mode_base(url, "event", size.burst_chunks)
    out = done
    burst_names = [*names, *BURST_FLOORS] if "raw" in names else list(names)
    for level in size.levels:
        per_level = out.setdefault(str(level), {})
        for r in range(size.burst_rounds):
            for name in rotated(burst_names, r):
                if level > caps.get(name, level):
                    continue
                runs = per_level.setdefault(name, [])
                if len(runs) > r:
                    continue
                _progress(f"burst {level} streams, {name}, round {r + 1}/{size.burst_rounds}")
                proc = _popen(
                    [
                        str(HERE / "peers.py"),
                        "--burst",
                        name,
                        "--base",
                        base,
                        "--streams",
                        str(level),
                    ]
                )
                try:
                    got = json.loads(_read_line(proc, WORKER_TIMEOUT_S, f"burst {name}"))
                    proc.wait(timeout=60)
                finally:
                    _stop(proc)
                got["chunks"] = size.burst_chunks
                runs.append(got)
                checkpoint()
    return out


def cold_snippets(url: str) -> tuple[dict[str, str], dict[str, str]]:
    """``python -c`` code per contender: import only, and import + construct + one call."""
    imports = {
        "bare": "pass",
        "raw": "import httpx",
        "raw_anchor": "import httpx, pydantic, anyio",
        "imodel": "from lionagi.service import iModel",
        "openai": "from openai import AsyncOpenAI",
        "litellm": "import litellm",
        "pydantic_ai": (
            "from pydantic_ai import Agent\n"
            "from pydantic_ai.models.openai import OpenAIChatModel\n"
            "from pydantic_ai.providers.openai import OpenAIProvider"
        ),
    }
    msg = repr(MESSAGES)
    calls = {
        "bare": "pass",
        "raw": (
            "import asyncio, httpx\n"
            "async def main():\n"
            "    async with httpx.AsyncClient() as client:\n"
            f"        r = await client.post('{url}/v1/chat/completions',"
            f" json={{'model': '{MODEL}', 'messages': {msg}}},"
            f" headers={{'Authorization': 'Bearer {API_KEY}'}})\n"
            "        r.raise_for_status(); r.json()\n"
            "asyncio.run(main())"
        ),
        "imodel": (
            "import asyncio\n"
            "from lionagi.service import iModel\n"
            "async def main():\n"
            "    im = iModel(provider='bench', endpoint='chat/completions',"
            f" openai_compatible=True, base_url='{url}/v1', api_key='{API_KEY}',"
            " allow_local_network=True,"
            f" request_defaults={{'model': '{MODEL}'}})\n"
            "    try:\n"
            f"        call = await im.invoke(messages={msg})\n"
            "        assert call.status.value == 'completed', call.exception\n"
            "    finally:\n"
            "        await im.close()\n"
            "asyncio.run(main())"
        ),
        "openai": (
            "import asyncio\n"
            "from openai import AsyncOpenAI\n"
            "async def main():\n"
            f"    async with AsyncOpenAI(base_url='{url}/v1', api_key='{API_KEY}') as client:\n"
            f"        await client.chat.completions.create(model='{MODEL}', messages={msg})\n"
            "asyncio.run(main())"
        ),
        "litellm": (
            "import asyncio\n"
            "import litellm\n"
            "async def main():\n"
            f"    await litellm.acompletion(model='openai/{MODEL}', messages={msg},"
            f" api_base='{url}/v1', api_key='{API_KEY}')\n"
            "asyncio.run(main())"
        ),
        "pydantic_ai": (
            "import asyncio\n"
            "from pydantic_ai import Agent\n"
            "from pydantic_ai.models.openai import OpenAIChatModel\n"
            "from pydantic_ai.providers.openai import OpenAIProvider\n"
            "async def main():\n"
            f"    provider = OpenAIProvider(base_url='{url}/v1', api_key='{API_KEY}')\n"
            f"    await Agent(OpenAIChatModel('{MODEL}', provider=provider)).run({PROMPT!r})\n"
            "asyncio.run(main())"
        ),
    }
    return imports, calls


def _time_child(code: str) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=_child_env(),
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=WORKER_TIMEOUT_S,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"cold run failed ({done.returncode}): {code!r}\n{done.stderr[-2000:]}")
    return elapsed * 1000


def bench_cold(url: str, names: Sequence[str], size: Size) -> dict[str, Any]:
    imports, calls = cold_snippets(url)
    keep = {"bare", "raw_anchor", *names}
    imports = {k: v for k, v in imports.items() if k in keep}
    calls = {k: v for k, v in calls.items() if k in keep}
    out: dict[str, dict[str, list[float]]] = {"import_ms": {}, "call_ms": {}}
    for kind, snippets in (("import_ms", imports), ("call_ms", calls)):
        for code in snippets.values():  # warm the page cache and bytecode caches
            _time_child(code)
        samples: dict[str, list[float]] = {name: [] for name in snippets}
        for r in range(size.cold_rounds):
            _progress(f"cold {kind} round {r + 1}/{size.cold_rounds}")
            for name in rotated(list(snippets), r):
                samples[name].append(_time_child(snippets[name]))
        out[kind] = samples
    return out


def _json_child(args: list[str], what: str) -> Any:
    proc = _popen([str(HERE / "peers.py"), *args])
    try:
        answer = json.loads(_read_line(proc, WORKER_TIMEOUT_S, what))
        proc.wait(timeout=60)
        return answer
    finally:
        _stop(proc)


def bench_crosscheck(url: str, reference: Path, size: Size) -> dict[str, Any]:
    """Raw and ``iModel`` against our server and the reference server, interleaved."""
    names = ("raw", "imodel")
    with server(reference, lambda port: [str(port)]) as ref_url:
        targets = {
            "sse_server.py": (url, mode_base(url, "event", size.stream_chunks)),
            reference.name: (ref_url, f"{ref_url}/n/{size.stream_chunks}"),
        }
        out: dict[str, Any] = {t: {"oneshot": {}, "stream": {}} for t in targets}
        with workers(names) as pool:
            for worker in pool.values():
                worker.ask(
                    op="warm",
                    bases=[one for one, _ in targets.values()],
                    stream_bases=[s for _, s in targets.values()],
                    calls=20,
                    streams=1,
                )
            for target in targets:
                for name in names:
                    out[target]["oneshot"][name] = []
                    out[target]["stream"][name] = []
            for r in range(size.rounds):
                _progress(f"crosscheck round {r + 1}/{size.rounds}")
                for target in rotated(list(targets), r):
                    one, stream_base = targets[target]
                    for name in rotated(names, r):
                        got = pool[name].ask(op="oneshot", base=one, calls=size.oneshot_calls)
                        out[target]["oneshot"][name].append(got["lat_us"])
                        got = pool[name].ask(
                            op="stream", base=stream_base, repeat=size.streams_per_round
                        )
                        got["chunks"] = size.stream_chunks
                        out[target]["stream"][name].append(got)
    return out


# -- reporting ------------------------------------------------------------------------------------


def med(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


@dataclass
class Ratio:
    """Median of the per-round ratios to raw, with their range."""

    mid: float
    low: float
    high: float

    @classmethod
    def of(cls, ours: Sequence[float], raw: Sequence[float]) -> Ratio:
        per_round = [a / b for a, b in zip(ours, raw, strict=False) if b]
        if not per_round:
            return cls(float("nan"), float("nan"), float("nan"))
        return cls(med(per_round), min(per_round), max(per_round))

    def text(self, bold: bool = False) -> str:
        if self.mid != self.mid:  # nan
            return "–"
        core = f"{self.mid:.2f}×"
        if bold:
            core = f"**{core}**"
        if f"{self.low:.2f}" == f"{self.high:.2f}":
            return core
        return f"{core} ({self.low:.2f}–{self.high:.2f})"


def stream_metrics(rounds: list[dict[str, Any]]) -> tuple[list[float], list[float]]:
    """Per round: chunks/s (server chunks over wall) and client CPU µs per chunk."""
    rates, cpus = [], []
    for got in rounds:
        total = got["chunks"] * len(got["wall_s"])
        rates.append(total / sum(got["wall_s"]))
        cpus.append(sum(got["cpu_s"]) / total * 1e6)
    return rates, cpus


def summarize(results: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """Derived figures (medians, ratios) from the raw samples, for tables and plots."""
    s: dict[str, Any] = {}
    one = results.get("oneshot") or {}
    if one:
        p50 = {n: [med(r) for r in one[n]] for n in names}
        p99 = {n: [pct(r, 0.99) for r in one[n]] for n in names}
        s["oneshot"] = {
            n: {
                "p50_us": med(p50[n]),
                "p99_us": pct([x for r in one[n] for x in r], 0.99),
                "p50_ratio": Ratio.of(p50[n], p50["raw"]),
                "p99_ratio": Ratio.of(p99[n], p99["raw"]),
            }
            for n in names
        }
    for mode, per_name in (results.get("stream") or {}).items():
        rates = {n: stream_metrics(per_name[n]) for n in names}
        s[f"stream_{mode}"] = {
            n: {
                "rate": med(rates[n][0]),
                "cpu_us": med(rates[n][1]),
                "rate_ratio": Ratio.of(rates[n][0], rates["raw"][0]),
                "cpu_ratio": Ratio.of(rates[n][1], rates["raw"][1]),
                "seen": sorted({x for got in per_name[n] for x in got["seen"]}),
            }
            for n in names
        }
    conc = results.get("concurrent") or {}
    if conc:
        s["concurrent"] = {}
        for level, per_name in conc.items():
            ran = [n for n in (*names, *BURST_FLOORS) if per_name.get(n)]
            walls = {n: [g["wall_s"] for g in per_name[n]] for n in ran}
            cpus = {n: [g["cpu_s"] for g in per_name[n]] for n in ran}
            rss = {n: [g["peak_rss_mib"] for g in per_name[n]] for n in ran}
            s["concurrent"][level] = {
                n: {
                    "wall_s": med(walls[n]),
                    "cpu_s": med(cpus[n]),
                    "peak_rss_mib": med(rss[n]),
                    "rss_before_mib": med([g["rss_before_mib"] for g in per_name[n]]),
                    "rss_over_raw": med(rss[n]) - med(rss["raw"]),
                    "wall_ratio": Ratio.of(walls[n], walls["raw"]),
                    "cpu_ratio": Ratio.of(cpus[n], cpus["raw"]),
                    "seen": (
                        min(g["seen_min"] for g in per_name[n]),
                        max(g["seen_max"] for g in per_name[n]),
                    ),
                }
                for n in ran
            }
    cold = results.get("cold") or {}
    if cold:
        s["cold"] = {}
        for kind in ("import_ms", "call_ms"):
            samples = cold[kind]
            bare = samples["bare"]
            over = {k: [a - b for a, b in zip(v, bare, strict=False)] for k, v in samples.items()}
            s["cold"][kind] = {
                k: {
                    "ms": med(v),
                    "over_bare": med(over[k]),
                    "ratio": Ratio.of(v, samples["raw"]) if "raw" in samples else None,
                    "over_ratio": Ratio.of(over[k], over["raw"]) if "raw" in over else None,
                }
                for k, v in samples.items()
            }
    return s


def versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {"python": platform.python_version()}
    for dist in (
        "httpx",
        "httpx-sse",
        "anyio",
        "pydantic",
        "lionagi-service-core",
        "openai",
        "litellm",
        "pydantic-ai-slim",
        "starlette",
        "uvicorn",
        "uvloop",
        "httptools",
        "matplotlib",
    ):
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "kernel": platform.release(),
        "load_at_start": ", ".join(f"{x:.2f}" for x in load),
        "commit": commit + (" (with uncommitted changes)" if dirty else ""),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return "\n".join(lines)


def render(results: dict[str, Any], s: dict[str, Any], names: Sequence[str]) -> str:
    meta = results["meta"]
    size = meta["size"]
    parts: list[str] = []
    ours = {"endpoint", "imodel", "imodel_timeout"}

    def label(n: str) -> str:
        return LABELS.get(n, n)

    # Headline: every contender's ratio to raw, one event per write.
    head = ["contender"]
    cols: list[Callable[[str], str]] = []
    if "oneshot" in s:
        head += ["one-shot p50", "one-shot p99"]
        cols += [
            lambda n: s["oneshot"][n]["p50_ratio"].text(n in ours),
            lambda n: s["oneshot"][n]["p99_ratio"].text(),
        ]
    if "stream_event" in s:
        head += ["stream throughput", "CPU/chunk"]
        cols += [
            lambda n: s["stream_event"][n]["rate_ratio"].text(n in ours),
            lambda n: s["stream_event"][n]["cpu_ratio"].text(n in ours),
        ]
    conc = s.get("concurrent") or {}
    for level in conc:
        head += [f"{level} streams wall", f"{level} streams peak RSS"]
        cols += [
            lambda n, lv=level: (
                conc[lv][n]["wall_ratio"].text(n in ours) if n in conc[lv] else "not run"
            ),
            lambda n, lv=level: (
                "not run"
                if n not in conc[lv]
                else f"{conc[lv][n]['peak_rss_mib']:.0f} MiB"
                if n == "raw"
                else f"{conc[lv][n]['rss_over_raw']:+.0f} MiB"
            ),
        ]
    cold = s.get("cold") or {}

    def cold_key(n: str) -> str | None:
        return n if n in COLD_CONTENDERS else ("imodel" if n == "imodel_timeout" else None)

    if cold:
        head += ["cold import (over bare)", "cold first call"]

        def cold_import(n: str) -> str:
            k = cold_key(n)
            if k is None or k not in cold["import_ms"] or n == "imodel_timeout":
                return "–"
            row = cold["import_ms"][k]
            return f"+{row['over_bare']:.0f} ms ({row['over_ratio'].text()})"

        def cold_call(n: str) -> str:
            k = cold_key(n)
            if k is None or k not in cold["call_ms"] or n == "imodel_timeout":
                return "–"
            row = cold["call_ms"][k]
            return f"{row['ms']:.0f} ms ({row['ratio'].text()})"

        cols += [cold_import, cold_call]
    rows = [[label(n)] + [c(n) for c in cols] for n in names]
    parts.append(
        "### Headline: one SSE event per write, every contender against raw\n\n"
        "Ratios to raw httpx (+ httpx-sse for streams) taken in one run: median of the per-round "
        "ratios, range over rounds in brackets. Throughput: higher is better; everything else: "
        "lower is better. Peak RSS is the difference to raw's peak in MiB; cold rows show the "
        "time and, in brackets, the ratio to raw doing the same steps (for imports: of the time "
        "over bare `python -c pass`).\n\n" + _table(head, rows)
    )
    # Absolutes.
    if "oneshot" in s:
        rows = [
            [
                label(n),
                f"{s['oneshot'][n]['p50_us']:.0f}",
                s["oneshot"][n]["p50_ratio"].text(),
                f"{s['oneshot'][n]['p99_us']:.0f}",
                s["oneshot"][n]["p99_ratio"].text(),
            ]
            for n in names
        ]
        parts.append(
            f"### One-shot call\n\n{size['oneshot_calls']} calls per contender per round, "
            f"{size['rounds']} rounds; p50 per round, p99 over every call (ratio: per-round p99)."
            "\n\n" + _table(["contender", "p50 µs", "p50 vs raw", "p99 µs", "p99 vs raw"], rows)
        )
    mode_titles = {
        "event": f"{size['stream_chunks']:,}-chunk stream, one event per write (headline mode)",
        "paced": (
            f"{size['paced_chunks']:,}-chunk stream, paced: one event per write every "
            f"{size['paced_delay_us']} µs (throughput is set by the pacing; CPU/chunk is the "
            "figure)"
        ),
        "batched": (
            f"{size['stream_chunks']:,}-chunk stream, batched: the whole stream in one write "
            "(parse-bound, secondary)"
        ),
    }
    for mode, title in mode_titles.items():
        key = f"stream_{mode}"
        if key not in s:
            continue
        rows = [
            [
                label(n),
                f"{s[key][n]['rate']:,.0f}",
                s[key][n]["rate_ratio"].text(),
                f"{s[key][n]['cpu_us']:.1f}",
                s[key][n]["cpu_ratio"].text(),
                ", ".join(str(x) for x in s[key][n]["seen"]),
            ]
            for n in names
        ]
        parts.append(
            f"### Stream: {title}\n\n{size['streams_per_round']} streams per contender per round, "
            f"{size['rounds']} rounds. chunks/s counts the server's content chunks over wall "
            'time; CPU is the client process\'s `time.process_time()`; "deltas seen" is what '
            "the library handed to the caller per stream.\n\n"
            + _table(
                ["contender", "chunks/s", "vs raw", "CPU µs/chunk", "CPU vs raw", "deltas seen"],
                rows,
            )
        )
    if conc:
        rows = []
        for level, per in conc.items():
            for n in (*names, *(f for f in BURST_FLOORS if f in per)):
                if n not in per:
                    rows.append([level, label(n), *(["not run (--cap)"] + ["–"] * 6)])
                    continue
                g = per[n]
                rows.append(
                    [
                        level,
                        label(n),
                        f"{g['wall_s']:.2f}",
                        g["wall_ratio"].text(),
                        f"{g['cpu_s']:.2f}",
                        g["cpu_ratio"].text(),
                        f"{g['rss_before_mib']:.0f}",
                        f"{g['peak_rss_mib']:.0f}",
                        "—" if n == "raw" else f"{g['rss_over_raw']:+.1f}",
                    ]
                )
        parts.append(
            f"### Concurrent streams × {size['burst_chunks']} chunks, one event per write\n\n"
            f"A fresh process per burst (one warm-up stream, then every stream at once in one "
            f"task group), {size['burst_rounds']} rounds per level. RSS from `/proc` before the "
            "burst and `ru_maxrss` after it. The floor row is raw's client with the pydantic types "
            "ADR-0027 makes public (a configuration and a request model) defined and validated "
            "once before the burst: what any implementation of the ADR holds, none of our code.\n\n"
            + _table(
                [
                    "streams",
                    "contender",
                    "wall s",
                    "vs raw",
                    "CPU s",
                    "CPU vs raw",
                    "RSS before MiB",
                    "peak RSS MiB",
                    "MiB over raw",
                ],
                rows,
            )
        )
    if cold:
        rows = []
        imp, call = cold["import_ms"], cold["call_ms"]
        for k in ("bare", "raw", "raw_anchor", "imodel", "openai", "litellm", "pydantic_ai"):
            if k not in imp:
                continue
            code = results["cold_code"]["import"][k].replace("\n", "; ")
            ratio = imp[k]["over_ratio"]
            rows.append(
                [
                    f"`{code}`",
                    f"{imp[k]['ms']:.0f}",
                    "—" if k == "bare" else f"+{imp[k]['over_bare']:.0f}",
                    "—" if k in ("bare", "raw") or ratio is None else ratio.text(),
                ]
            )
        parts.append(
            f"### Cold import\n\nSubprocess wall time, {size['cold_rounds']} interleaved rounds "
            "after a warm-up run each (page and bytecode caches warm: a fresh interpreter, "
            "not a cold disk).\n\n"
            + _table(["`python -c`", "ms", "ms over bare", "over-bare vs raw"], rows)
        )
        rows = []
        for k in ("bare", "raw", "imodel", "openai", "litellm", "pydantic_ai"):
            if k not in call:
                continue
            rows.append(
                [
                    "bare `python -c pass`" if k == "bare" else label(k),
                    f"{call[k]['ms']:.0f}",
                    "—" if k == "bare" else call[k]["ratio"].text(),
                ]
            )
        parts.append(
            "### Cold first call\n\nA fresh process imports, constructs its client and makes one "
            "one-shot call against the server, under `asyncio.run`; process wall time.\n\n"
            + _table(["contender", "ms", "vs raw"], rows)
        )
    micro = results.get("micro")
    if micro:
        base_adm = micro["anyio.Semaphore baseline"]
        base_cfg = micro["EndpointConfig(...) alone"]
        rows = []
        for name, values in micro.items():
            ref = base_cfg if name.startswith(("match", "EndpointConfig")) else base_adm
            ref_name = "`EndpointConfig`" if ref is base_cfg else "`anyio.Semaphore`"
            rows.append([name, f"{med(values):.2f}", f"{Ratio.of(values, ref).text()} {ref_name}"])
        parts.append(
            f"### Admission and `match_endpoint`\n\nTight loops in one process, {size['rounds']} "
            "interleaved rounds (`admission_bench.py`, `catalog_bench.py` pieces).\n\n"
            + _table(["case", "µs/call", "vs baseline"], rows)
        )
    nd = results.get("ndjson")
    if nd:
        mb = nd["ndjson_mb"]
        secs = nd["ndjson_s"]
        ref = secs["readline() loop"]
        rows = [[name, f"{mb / med(v):.1f}", Ratio.of(ref, v).text()] for name, v in secs.items()]
        parts.append(
            f"### NDJSON intake from a subprocess pipe\n\n`cat` of {mb:.1f} MB "
            f"({nd['ndjson_events']:,} events), every line parsed to a dict; {size['rounds']} "
            "interleaved rounds (`ndjson_bench.py` pieces). Ratio: throughput vs the "
            "`readline()` loop.\n\n" + _table(["contender", "MB/s", "vs readline"], rows)
        )
        sp = nd["spawn_s"]
        bare = med(sp["bare spawn"])
        rows = [
            [
                name,
                f"{med(v) * 1e3:.2f}",
                "—" if name == "bare spawn" else f"{(med(v) - bare) * 1e3:+.2f} ms",
                Ratio.of(v, sp["bare spawn"]).text(),
            ]
            for name, v in sp.items()
        ]
        parts.append(
            f"### Agentic spawn overhead\n\n`python -I -S -c pass` to completion, {size['spawns']} "
            "interleaved spawns each: bare `asyncio.create_subprocess_exec` + `communicate()` vs "
            "the agentic transport's `json_events_from_process` (per-call containment "
            "included).\n\n" + _table(["path", "median ms", "overhead", "vs bare"], rows)
        )
    cross = results.get("crosscheck")
    if cross:
        rows = []
        for target, per in cross.items():
            raw_p50 = [med(r) for r in per["oneshot"]["raw"]]
            raw_rate, raw_cpu = stream_metrics(per["stream"]["raw"])
            for n in per["oneshot"]:
                p50 = [med(r) for r in per["oneshot"][n]]
                rate, cpu = stream_metrics(per["stream"][n])
                rows.append(
                    [
                        f"`{target}`",
                        label(n),
                        f"{med(p50):.0f}",
                        Ratio.of(p50, raw_p50).text(),
                        f"{med(rate):,.0f}",
                        Ratio.of(rate, raw_rate).text(),
                        f"{med(cpu):.1f}",
                        Ratio.of(cpu, raw_cpu).text(),
                    ]
                )
        parts.append(
            "### Cross-check against the reference server\n\nThe same two contenders against "
            "this harness's server and the reference `fast_server.py` (the anchors' server), "
            "interleaved in one run; streams are one event per write on both.\n\n"
            + _table(
                [
                    "server",
                    "contender",
                    "one-shot p50 µs",
                    "vs raw",
                    "stream chunks/s",
                    "vs raw",
                    "CPU µs/chunk",
                    "vs raw",
                ],
                rows,
            )
        )
    m, v = meta["machine"], meta["versions"]
    parts.append(
        "### Machine, versions, command\n\n"
        f"- machine: {m['cpu']}, {m['cores']} cores, Linux {m['kernel']}; load average at start "
        f"{m['load_at_start']}, at the end {m.get('load_at_end', '?')} (the VM is shared: trust "
        "ratios, not microseconds)\n"
        f"- taken {m['date']} at commit {m['commit']}\n"
        "- versions: " + ", ".join(f"{k} {val}" for k, val in v.items()) + "\n"
        f"- command: `{meta['command']}`\n"
        + (
            f"- resumed: sections {', '.join(meta['resumed']['kept'])} were measured by "
            f"`{meta['resumed']['command']}` at {meta['resumed']['from']} and kept\n"
            if meta.get("resumed")
            else ""
        )
        + (
            "- caps: "
            + ", ".join(f"{k} up to {v} streams" for k, v in meta["caps"].items())
            + " (not run above)\n"
            if meta.get("caps")
            else ""
        )
        + "- sizes: "
        + ", ".join(f"{k}={val}" for k, val in size.items())
    )
    return "\n\n".join(parts) + "\n"


def plot(s: dict[str, Any], names: Sequence[str], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written: list[Path] = []
    labels = [LABELS[n].replace("`", "") for n in names]
    panels = []
    if "oneshot" in s:
        panels.append(
            (
                "one-shot call, p50 (µs)",
                [s["oneshot"][n]["p50_us"] for n in names],
                [s["oneshot"][n]["p50_ratio"] for n in names],
            )
        )
    if "stream_event" in s:
        panels.append(
            (
                "stream, client CPU per chunk (µs), one event per write",
                [s["stream_event"][n]["cpu_us"] for n in names],
                [s["stream_event"][n]["cpu_ratio"] for n in names],
            )
        )
    # A section left out of this run (--sections) is summarised as NaN: no panel for it.
    panels = [panel for panel in panels if all(math.isfinite(v) for v in panel[1])]
    if panels:
        fig, axes = plt.subplots(
            1, len(panels), figsize=(6.5 * len(panels), 0.55 * len(names) + 1.6)
        )
        axes = [axes] if len(panels) == 1 else list(axes)
        colours = [
            "#4c72b0"
            if n in ("endpoint", "imodel", "imodel_timeout")
            else ("#55a868" if n == "raw" else "#c44e52")
            for n in names
        ]
        for ax, (title, values, ratios) in zip(axes, panels, strict=True):
            ypos = list(range(len(names)))[::-1]
            ax.barh(ypos, values, color=colours)
            ax.set_xscale("log")
            ax.set_yticks(ypos, labels)
            ax.set_title(title, fontsize=10)
            ax.axvline(values[0], color="#55a868", linestyle="--", linewidth=1)
            for y, value, ratio in zip(ypos, values, ratios, strict=True):
                ax.text(value * 1.05, y, f" {ratio.mid:.2f}× raw", va="center", fontsize=8)
            ax.set_xlim(min(values) * 0.5, max(values) * 4)
        fig.tight_layout()
        path = out / "overhead.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    conc = s.get("concurrent") or {}
    if conc:
        levels = sorted(int(k) for k in conc)
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.6))
        for n, lab in zip(names, labels, strict=True):
            ran = [lv for lv in levels if n in conc[str(lv)]]
            if not ran:
                continue
            walls = [conc[str(lv)][n]["wall_s"] for lv in ran]
            rss = [conc[str(lv)][n]["peak_rss_mib"] for lv in ran]
            style = "-" if n in ("raw", "endpoint", "imodel", "imodel_timeout") else "--"
            ax1.plot(ran, walls, style, marker="o", label=lab)
            ax2.plot(ran, rss, style, marker="o", label=lab)
        ax1.set_xscale("log", base=2)
        ax1.set_yscale("log")
        ax1.set_xticks(levels, [str(lv) for lv in levels])
        ax1.set_xlabel("concurrent streams (one event per write)")
        ax1.set_ylabel("wall s for the burst")
        ax1.set_title("concurrency scaling: wall", fontsize=10)
        ax2.set_xscale("log", base=2)
        ax2.set_xticks(levels, [str(lv) for lv in levels])
        ax2.set_xlabel("concurrent streams")
        ax2.set_ylabel("peak RSS MiB")
        ax2.set_title("concurrency scaling: peak RSS", fontsize=10)
        ax1.legend(fontsize=8)
        fig.tight_layout()
        path = out / "concurrency.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, Ratio):
        return {"median": obj.mid, "low": obj.low, "high": obj.high}
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    return obj


def update_doc(markdown: str, images: Sequence[Path]) -> None:
    text = DOC.read_text(encoding="utf-8")
    if DOC_BEGIN not in text or DOC_END not in text:
        raise RuntimeError(f"{DOC} has no {DOC_BEGIN!r} ... {DOC_END!r} block to rewrite")
    pictures = "\n".join(f"![{p.stem}]({p.relative_to(DOC.parent).as_posix()})" for p in images)
    block = f"{DOC_BEGIN}\n\n{pictures}\n\n{markdown}\n{DOC_END}"
    head, rest = text.split(DOC_BEGIN, 1)
    _, tail = rest.split(DOC_END, 1)
    DOC.write_text(head + block + tail, encoding="utf-8")


def parse_size(args: argparse.Namespace) -> Size:
    """``FULL`` or ``QUICK`` with ``--rounds`` and every ``--set key=value`` applied."""
    values = dict((QUICK if args.quick else FULL).__dict__)
    if args.rounds:
        values["rounds"] = args.rounds
    for item in args.set:
        key, sep, text = item.partition("=")
        if not sep or key not in values:
            raise SystemExit(f"--set {item!r}: expected KEY=VALUE with KEY one of {sorted(values)}")
        if key == "levels":
            values[key] = tuple(int(x) for x in text.split(",") if x)
        else:
            values[key] = int(text)
    return Size(**values)


def report(results: dict[str, Any], out: Path, write_doc: bool) -> int:
    """Tables, plots and (for a full run into docs/benchmarks) the doc block, from results."""
    names = results["meta"]["contenders"]
    summary = summarize(results, names)
    markdown = render(results, summary, names)
    (out / "peers.json").write_text(
        json.dumps(_jsonable({"results": results, "summary": summary}), indent=1), encoding="utf-8"
    )
    (out / "peers.md").write_text(markdown, encoding="utf-8")
    images = plot(summary, names, out)
    if write_doc and out.resolve() == (ROOT / "docs" / "benchmarks"):
        update_doc(markdown, images)
    print(markdown)
    _progress(f"wrote {out / 'peers.md'}, {out / 'peers.json'}, " + ", ".join(map(str, images)))
    return 0


def orchestrate(args: argparse.Namespace) -> int:
    size = parse_size(args)
    names = [n for n in args.contenders.split(",") if n]
    for n in names:
        if n not in CONTENDERS:
            raise SystemExit(f"unknown contender {n!r}; choose from {', '.join(CONTENDERS)}")
    if "raw" not in names:
        names.insert(0, "raw")
    sections = set(args.sections.split(",")) if args.sections else set(SECTIONS)
    unknown = sections - set(SECTIONS)
    if unknown:
        raise SystemExit(f"unknown sections {sorted(unknown)}; choose from {', '.join(SECTIONS)}")
    if "crosscheck" in sections and args.crosscheck_server is None:
        sections.discard("crosscheck")
    default_out = Path("/tmp/peers-quick") if args.quick else ROOT / "docs" / "benchmarks"
    out = Path(args.out) if args.out else default_out
    out.mkdir(parents=True, exist_ok=True)
    if args.render:
        saved = json.loads(Path(args.render).read_text(encoding="utf-8"))
        return report(saved.get("results", saved), out, not args.no_doc)
    command = "python3 -m uv run --group benchmarks python benchmarks/peers.py " + " ".join(
        sys.argv[1:]
    )
    results: dict[str, Any] = {
        "meta": {
            "machine": machine(),
            "versions": versions(),
            "size": size.__dict__,
            "contenders": names,
            "command": command.strip(),
        }
    }
    caps: dict[str, int] = {}
    for item in args.cap:
        name, sep, level = item.partition("=")
        if not sep or name not in CONTENDERS:
            raise SystemExit(f"--cap {item!r}: expected CONTENDER=LEVEL")
        caps[name] = int(level)
    results["meta"]["caps"] = caps
    if args.resume:
        # Sections a cut-short run (same sizes) already measured are kept, not re-run.
        earlier = json.loads(Path(args.resume).read_text(encoding="utf-8"))
        earlier = earlier.get("results", earlier)
        kept = [k for k in ("oneshot", "stream", "concurrent", "cold", "cold_code") if k in earlier]
        for key in kept:
            results[key] = earlier[key]
        results["meta"]["resumed"] = {
            "from": earlier["meta"]["machine"]["date"],
            "command": earlier["meta"]["command"],
            "kept": kept,
        }
    partial = out / "peers.partial.json"

    def checkpoint() -> None:
        # A long run on a shared machine keeps what it has measured: ``--render`` reads it back.
        partial.write_text(json.dumps(results), encoding="utf-8")

    with server(HERE / "sse_server.py") as url:
        _progress(f"server at {url}")
        if sections & {"oneshot", "stream"} and not ("oneshot" in results or "stream" in results):
            results.update(bench_calls_and_streams(url, names, size, sections))
            checkpoint()
        if "concurrent" in sections:
            results["concurrent"] = bench_concurrent(
                url, names, size, caps, results.setdefault("concurrent", {}), checkpoint
            )
            checkpoint()
        if "cold" in sections and "cold" not in results:
            cold_names = [n for n in names if n in COLD_CONTENDERS]
            results["cold"] = bench_cold(url, cold_names, size)
            imports, calls = cold_snippets("http://127.0.0.1:PORT")
            results["cold_code"] = {"import": imports, "call": calls}
            checkpoint()
        if "crosscheck" in sections:
            results["crosscheck"] = bench_crosscheck(url, Path(args.crosscheck_server), size)
            checkpoint()
    if "micro" in sections:
        _progress("admission and match_endpoint")
        results["micro"] = _json_child(
            ["--micro", "--iterations", str(size.micro_iterations), "--rounds", str(size.rounds)],
            "micro",
        )
        checkpoint()
    if "ndjson" in sections:
        _progress("ndjson intake and spawn")
        results["ndjson"] = _json_child(
            [
                "--ndjson",
                "--mb",
                str(size.ndjson_mb),
                "--rounds",
                str(size.rounds),
                "--spawns",
                str(size.spawns),
            ],
            "ndjson",
        )
        checkpoint()
    results["meta"]["machine"]["load_at_end"] = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return report(results, out, not args.quick and not args.no_doc)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for development")
    parser.add_argument("--rounds", type=int, default=0, help="override the rounds per section")
    parser.add_argument("--sections", default="", help=f"comma list of {', '.join(SECTIONS)}")
    parser.add_argument("--contenders", default=",".join(CONTENDERS))
    parser.add_argument("--out", default="", help="output directory (default docs/benchmarks)")
    parser.add_argument("--no-doc", action="store_true", help="do not rewrite docs/benchmarks.md")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one size field (e.g. cold_rounds=5, levels=64,256,512)",
    )
    parser.add_argument(
        "--cap",
        action="append",
        default=[],
        metavar="CONTENDER=LEVEL",
        help="run CONTENDER's bursts only up to LEVEL streams (reported as not run above it)",
    )
    parser.add_argument(
        "--resume",
        default="",
        metavar="JSON",
        help="keep the sections a cut-short run saved in peers.partial.json",
    )
    parser.add_argument(
        "--render", default="", metavar="JSON", help="only render a saved peers(.partial).json"
    )
    parser.add_argument(
        "--crosscheck-server",
        default=None,
        help="path of a reference server script taking PORT as its argument (fast_server.py)",
    )
    # Internal: the worker processes.
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--burst", help=argparse.SUPPRESS)
    parser.add_argument("--base", help=argparse.SUPPRESS)
    parser.add_argument("--streams", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--micro", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--ndjson", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--iterations", type=int, default=20_000, help=argparse.SUPPRESS)
    parser.add_argument("--mb", type=int, default=32, help=argparse.SUPPRESS)
    parser.add_argument("--spawns", type=int, default=40, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return run_worker(args.worker)
    if args.burst:
        return run_burst(args.burst, args.base, args.streams)
    if args.micro:
        return run_micro(args.iterations, args.rounds or 5)
    if args.ndjson:
        return run_ndjson(args.mb, args.rounds or 3, args.spawns)
    return orchestrate(args)


if __name__ == "__main__":
    sys.exit(main())
