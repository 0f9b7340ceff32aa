"""Cold-start benchmark (run by hand): import cost, cold first call, catalog build.

    uv run python benchmarks/cold_start_bench.py [--rounds 21] [--sections import,coldcall,...]
        [--python /path/to/lean/venv/bin/python]

Every sample is a fresh ``python`` process; rounds are interleaved (each contender once per round,
order rotated) and medians are reported. Children run with bytecode caching on
(``PYTHONDONTWRITEBYTECODE`` removed from their environment) and two warm-up runs each, so the
figures are what an installed application sees, not source compilation. Wall and CPU time (the
child's rusage) are both reported: on a loaded machine CPU time is the steadier figure.

* ``import``   ``python -c`` over bare Python for the public entry points, plus the number of
               modules each loads; ``-X importtime`` self time of
               ``from lionagi.service import iModel`` grouped by top-level package (where the
               time goes).
* ``coldcall`` import + construct + one chat call against the fake server, raw httpx doing the
               same steps as the baseline. Two iModel rows: an OpenAI-compatible endpoint and a
               catalog provider (``openai`` with ``base_url`` pointed at the fake server).
* ``catalog``  in a fresh process that already imported ``lionagi.service``: the first
               ``ProviderCatalog().snapshot()`` over every installed provider, and which modules
               that build loaded.
* ``phases``   CPU ms of each step of one cold call (imports, catalog snapshot, construction,
               client + first call), ours against raw httpx: where the time goes.

``--python`` runs the children with another interpreter. Use one from a lean environment that
holds only what a user installs (``lionagi-service-core``, ``lionagi-provider-openai`` and their
dependencies): ``import httpx`` also imports httpx's own command line when click, rich and
pygments are all installed, as they are in the workspace's dev environment (mkdocs brings
click), which adds tens of milliseconds to the raw baseline alone and flatters every ratio. The
bench says so when it finds that in the children's interpreter.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from _common import fake_server, interleave_sync, machine_note, markdown_table, median

SECTIONS = ("import", "coldcall", "catalog", "phases")
TIMEOUT_S = 120.0

IMPORTS: Mapping[str, str] = {
    "bare python": "pass",
    "import httpx": "import httpx",
    "import pydantic": "import pydantic",
    "import lionagi.service": "import lionagi.service",
    "from lionagi.service import iModel": "from lionagi.service import iModel",
}

_COUNT_MODULES = "import sys\n{code}\nprint(len(sys.modules))\n"

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

# The floor ADR-0027 sets for any implementation of it: raw httpx's call, plus what the ADR makes
# public pydantic types (a configuration model holding the key as a secret, a request model for
# the payload), each defined and validated once. Nothing of ours runs: the gap between this and
# raw is the part of the cold first call no work on our code can remove while those types stay
# pydantic models.
_COLD_PYDANTIC_FLOOR = """\
import time
t0 = time.perf_counter()
import asyncio, sys
import httpx
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

async def main(base):
    config = Config(provider="bench", base_url=base + "/v1", api_key="sk-bench")
    body = Request(model="bench-model", messages=[{"role": "user", "content": "hi"}])
    async with httpx.AsyncClient(timeout=config.timeout) as client:
        resp = await client.post(
            config.base_url + "/chat/completions",
            json=body.model_dump(exclude_none=True),
            headers={
                "Authorization": "Bearer " + config.api_key.get_secret_value(),
                "x-fake-behaviour": "text",
            },
        )
        resp.raise_for_status()
        resp.json()

asyncio.run(main(sys.argv[1]))
print((time.perf_counter() - t0) * 1000)
"""

_COLD_OURS = """\
import time
t0 = time.perf_counter()
import asyncio, sys
from lionagi.service import iModel

async def main(base):
    async with iModel({kwargs}) as model:
        call = await model.invoke(messages=[{{"role": "user", "content": "hi"}}])
        assert call.status.value == "completed", call.exception

asyncio.run(main(sys.argv[1]))
print((time.perf_counter() - t0) * 1000)
"""

_COMPATIBLE_KWARGS = (
    'provider="bench", endpoint="chat/completions", openai_compatible=True, '
    'base_url=base + "/v1", api_key="sk-bench", allow_local_network=True, '
    'request_defaults={"model": "bench-model"}, default_headers={"x-fake-behaviour": "text"}'
)
_CATALOG_KWARGS = (
    'provider="openai", endpoint="chat", model="bench-model", base_url=base + "/v1", '
    'api_key="sk-bench", allow_local_network=True, default_headers={"x-fake-behaviour": "text"}'
)

# `gemini/<model>` is chat through Gemini's OpenAI compatibility layer, which the fake server
# speaks: the flagship install (`lionagi-service-core lionagi-provider-gemini`), run only when the
# children's interpreter has the Gemini distribution.
_GEMINI_KWARGS = (
    'model="gemini/bench-model", base_url=base + "/v1", api_key="AIza-bench-key-0123456789", '
    'allow_local_network=True, default_headers={"x-fake-behaviour": "text"}'
)
_GEMINI_ROW = "iModel (catalog provider gemini)"

_CATALOG_BUILD = """\
import json, sys, time
import lionagi.service
from lionagi.service import ProviderCatalog
before = set(sys.modules)
t0, c0 = time.perf_counter(), time.process_time()
snap = ProviderCatalog().snapshot()
ms, cpu_ms = (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000
loaded = sorted(set(sys.modules) - before)
print(json.dumps({"ms": ms, "cpu_ms": cpu_ms, "providers": len(snap.providers), "loaded": loaded}))
"""


_PHASES_RAW = """\
import json, sys, time
pt = time.process_time
marks = [pt()]
import asyncio
import httpx
marks.append(pt())

async def main(base):
    client = httpx.AsyncClient(timeout=60.0)
    resp = await client.post(
        base + "/v1/chat/completions",
        json={"model": "bench-model", "messages": [{"role": "user", "content": "hi"}]},
        headers={"Authorization": "Bearer sk-bench", "x-fake-behaviour": "text"},
    )
    resp.json()
    marks.append(pt())
    await client.aclose()

asyncio.run(main(sys.argv[1]))
names = ["import httpx", "client + first call"]
print(json.dumps(dict(zip(names, [(b - a) * 1000 for a, b in zip(marks, marks[1:])]))))
"""

_PHASES_OURS = """\
import json, sys, time
pt = time.process_time
marks = [pt()]
import asyncio
import httpx
marks.append(pt())
import pydantic
marks.append(pt())
from lionagi.service import iModel
marks.append(pt())
from lionagi.service import EndpointRegistry
EndpointRegistry.snapshot()
marks.append(pt())

async def main(base):
    model = iModel(
        provider="openai", endpoint="chat", model="bench-model", base_url=base + "/v1",
        api_key="sk-bench", allow_local_network=True,
        default_headers={"x-fake-behaviour": "text"},
    )
    marks.append(pt())
    call = await model.invoke(messages=[{"role": "user", "content": "hi"}])
    assert call.status.value == "completed", call.exception
    marks.append(pt())
    await model.close()

asyncio.run(main(sys.argv[1]))
names = ["import httpx", "import pydantic", "import iModel", "catalog snapshot", "iModel(...)",
         "client + first call"]
print(json.dumps(dict(zip(names, [(b - a) * 1000 for a, b in zip(marks, marks[1:])]))))
"""


_VERSIONS = (
    "import sys, httpx, pydantic\n"
    "print(f'python {sys.version.split()[0]}, httpx {httpx.__version__}, "
    "pydantic {pydantic.VERSION}')\n"
)
_HTTPX_CLI = "import sys, httpx\nprint('httpx._main' in sys.modules)\n"


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


class Sample(NamedTuple):
    """One child run: wall and CPU (user + system) milliseconds, and its output."""

    wall: float
    cpu: float
    out: str
    err: str


_children_cpu_ms = [0.0]
# The interpreter children run with (``--python``); the fake server stays in this one.
_child_python = [sys.executable]


def _reaped_cpu_ms() -> float:
    """CPU ms of the children reaped since the previous call (``RUSAGE_CHILDREN`` delta)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = (usage.ru_utime + usage.ru_stime) * 1000
    delta, _children_cpu_ms[0] = total - _children_cpu_ms[0], total
    return delta


def run_child(code: str, *args: str, flags: Sequence[str] = ()) -> Sample:
    """Run ``python [flags] -c code args`` once; wall and CPU time of the whole process.

    On a shared, loaded machine CPU time moves far less than wall time, so both are reported.
    The fake server is a child too, but it is reaped only at the end, so it never counts here.
    """
    start = time.perf_counter()
    proc = subprocess.run(
        [_child_python[0], *flags, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
        env=_child_env(),
    )
    wall = (time.perf_counter() - start) * 1000
    cpu = _reaped_cpu_ms()
    if proc.returncode != 0:
        raise RuntimeError(f"child failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return Sample(wall, cpu, proc.stdout, proc.stderr)


def _child_has(module: str) -> bool:
    """Whether the children's interpreter can import ``module`` (an optional distribution)."""
    probe = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    done = subprocess.run([_child_python[0], "-c", probe], capture_output=True, check=False)
    return done.returncode == 0


def _warm(codes: Mapping[str, tuple[str, ...]]) -> None:
    for code, *args in codes.values():
        run_child(code, *args)
        run_child(code, *args)


def _interleaved(
    codes: Mapping[str, tuple[str, ...]], rounds: int
) -> tuple[dict[str, float], dict[str, float], dict[str, list[str]]]:
    """Median wall ms, median CPU ms and the stdouts of each contender over interleaved rounds."""
    cpu: dict[str, list[float]] = {name: [] for name in codes}
    outs: dict[str, list[str]] = {name: [] for name in codes}

    def contender(name: str) -> Callable[[], float]:
        def once() -> float:
            sample = run_child(*codes[name])
            cpu[name].append(sample.cpu)
            outs[name].append(sample.out)
            return sample.wall

        return once

    walls = interleave_sync({name: contender(name) for name in codes}, rounds)
    return (
        {name: median(v) for name, v in walls.items()},
        {name: median(v) for name, v in cpu.items()},
        outs,
    )


def importtime_groups(code: str, top: int = 14) -> list[tuple[str, float, int]]:
    """``-X importtime`` self time of ``code`` grouped by top-level package (lionagi by layer)."""
    err = run_child(code, flags=("-X", "importtime")).err
    self_us: collections.Counter[str] = collections.Counter()
    count: collections.Counter[str] = collections.Counter()
    for line in err.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        fields = line[len("import time:") :].split("|")
        name = fields[2].strip()
        parts = name.split(".")
        key = ".".join(parts[:3]) if parts[0] == "lionagi" else parts[0]
        self_us[key] += int(fields[0])
        count[key] += 1
    return [(key, us / 1000, count[key]) for key, us in self_us.most_common(top)]


def bench_import(rounds: int) -> dict[str, float]:
    codes = {name: (code,) for name, code in IMPORTS.items()}
    _warm(codes)
    wall, cpu, _ = _interleaved(codes, rounds)
    bare_wall, bare_cpu = wall["bare python"], cpu["bare python"]
    modules = {
        name: int(run_child(_COUNT_MODULES.format(code=code)).out) for name, code in IMPORTS.items()
    }
    print(f"## Cold import (python -c, median of {rounds} interleaved fresh processes)\n")
    rows = [
        [
            f"`{IMPORTS[name]}`",
            f"{wall[name]:.1f}",
            f"{wall[name] - bare_wall:+.1f}",
            f"{cpu[name]:.1f}",
            f"{cpu[name] - bare_cpu:+.1f}",
            str(modules[name]),
        ]
        for name in codes
    ]
    header = ["python -c", "wall ms", "over bare", "CPU ms", "over bare", "sys.modules"]
    print(markdown_table(header, rows))
    print("\n`-X importtime` self time of `from lionagi.service import iModel`, by package:\n")
    groups = importtime_groups(IMPORTS["from lionagi.service import iModel"])
    print(
        markdown_table(
            ["package", "self ms", "modules"], [[k, f"{v:.1f}", str(n)] for k, v, n in groups]
        )
    )
    print()
    key = "from lionagi.service import iModel"
    return {
        "import iModel, wall ms over bare": wall[key] - bare_wall,
        "import iModel, CPU ms over bare": cpu[key] - bare_cpu,
        "import httpx, CPU ms over bare": cpu["import httpx"] - bare_cpu,
    }


def bench_coldcall(base: str, rounds: int) -> dict[str, float]:
    codes: dict[str, tuple[str, ...]] = {
        "bare python": ("pass",),
        "raw httpx": (_COLD_RAW, base),
        "raw httpx + two pydantic models (the floor)": (_COLD_PYDANTIC_FLOOR, base),
        "iModel (openai_compatible)": (_COLD_OURS.format(kwargs=_COMPATIBLE_KWARGS), base),
        "iModel (catalog provider openai)": (_COLD_OURS.format(kwargs=_CATALOG_KWARGS), base),
    }
    if _child_has("lionagi.providers.gemini"):
        codes[_GEMINI_ROW] = (_COLD_OURS.format(kwargs=_GEMINI_KWARGS), base)
    _warm(codes)
    wall, cpu, outs = _interleaved(codes, rounds)
    inner = {
        name: median([float(o.strip().splitlines()[-1]) for o in values if o.strip()])
        for name, values in outs.items()
        if any(o.strip() for o in values)
    }
    raw_wall, raw_cpu = wall["raw httpx"], cpu["raw httpx"]
    print(
        f"## Cold first call: import + construct + one call (median of {rounds} interleaved "
        "fresh processes)\n"
    )
    rows = [
        [
            name,
            f"{wall[name]:.1f}",
            f"{inner[name]:.1f}" if name in inner else "-",
            f"{wall[name] / raw_wall:.2f}x",
            f"{cpu[name]:.1f}",
            f"{cpu[name] / raw_cpu:.2f}x",
        ]
        for name in codes
    ]
    header = ["contender", "wall ms", "in-process ms", "wall vs raw", "CPU ms", "CPU vs raw"]
    print(markdown_table(header, rows))
    print()
    ours = tuple(name for name in codes if name not in ("bare python", "raw httpx"))
    return {
        **{f"coldcall wall ratio, {name}": wall[name] / raw_wall for name in ours},
        **{f"coldcall CPU ratio, {name}": cpu[name] / raw_cpu for name in ours},
    }


def bench_catalog(rounds: int) -> dict[str, float]:
    run_child(_CATALOG_BUILD)
    results = [json.loads(run_child(_CATALOG_BUILD).out) for _ in range(rounds)]
    wall_ms = median([r["ms"] for r in results])
    cpu_ms = median([r["cpu_ms"] for r in results])
    last = results[-1]
    vendor = [m for m in last["loaded"] if m.startswith("lionagi.providers.")]
    print(f"## Catalog build, every installed provider (median of {rounds} fresh processes)\n")
    header = ["providers", "snapshot() wall ms", "CPU ms", "modules loaded", "lionagi.providers.*"]
    row = [str(last["providers"]), f"{wall_ms:.1f}", f"{cpu_ms:.1f}", str(len(last["loaded"]))]
    print(markdown_table(header, [[*row, str(len(vendor))]]))
    print()
    return {"catalog build, wall ms": wall_ms, "catalog build, CPU ms": cpu_ms}


def bench_phases(base: str, rounds: int) -> dict[str, float]:
    """In-process CPU ms of each step of one cold call (``time.process_time`` marks)."""
    codes = {
        "raw httpx": (_PHASES_RAW, base),
        "iModel (catalog provider openai)": (_PHASES_OURS, base),
    }
    _warm(codes)
    _, _, outs = _interleaved(codes, rounds)
    phases = {name: [json.loads(o) for o in values] for name, values in outs.items()}
    steps = list(dict.fromkeys(step for rows in phases.values() for step in rows[0]))
    table = {
        name: {step: median([r[step] for r in rows if step in r]) for step in steps}
        for name, rows in phases.items()
    }
    totals = {name: median([sum(r.values()) for r in rows]) for name, rows in phases.items()}
    print(f"## Cold call phases, in-process CPU ms (median of {rounds} interleaved processes)\n")
    rows = [
        [step, *(f"{table[name][step]:.1f}" if step in phases[name][0] else "-" for name in codes)]
        for step in steps
    ]
    rows.append(["**total**", *(f"**{totals[name]:.1f}**" for name in codes)])
    print(markdown_table(["phase", *codes], rows))
    print()
    raw, ours = totals["raw httpx"], totals["iModel (catalog provider openai)"]
    return {"phases CPU ratio (in-process total)": ours / raw}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--sections", default=",".join(SECTIONS))
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="interpreter of the children (a lean environment: see the module docstring)",
    )
    args = parser.parse_args(argv)
    _child_python[0] = args.python
    sections = [s for s in args.sections.split(",") if s]
    unknown = sorted(set(sections) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown sections {unknown}; choose from {list(SECTIONS)}")
    print(f"# Cold start ({machine_note()}, rounds={args.rounds})\n")
    print(f"children: `{args.python}`, {run_child(_VERSIONS).out.strip()}\n")
    if run_child(_HTTPX_CLI).out.strip() == "True":
        print(
            "**Warning:** `import httpx` imports httpx's command line in this interpreter (click, "
            "rich and pygments are installed), which inflates the raw baseline: pass `--python` "
            "with a lean environment for figures a user sees.\n"
        )
    summary: dict[str, float] = {}
    if "import" in sections:
        summary.update(bench_import(args.rounds))
    if "coldcall" in sections:
        with fake_server() as base:
            summary.update(bench_coldcall(base, args.rounds))
    if "catalog" in sections:
        summary.update(bench_catalog(args.rounds))
    if "phases" in sections:
        with fake_server() as base:
            summary.update(bench_phases(base, args.rounds))
    print("## Summary\n")
    print(markdown_table(["figure", "value"], [[k, f"{v:.2f}"] for k, v in summary.items()]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
