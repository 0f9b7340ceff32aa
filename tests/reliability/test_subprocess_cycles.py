"""Subprocess cycles: start, then cancel / close / time out, against hostile fake CLIs.

Every agentic adapter in the catalog (codex, claude_code, gemini_code, pi) runs the ``replay``
fake CLI from ``lionagi.service_testing`` as its ``binary`` (a two-line ``exec`` wrapper, so the
adapter's own flags follow and no shell stays in between). The plans misbehave the ways real
CLIs do: ignore SIGTERM, spawn grandchildren, ``setsid`` away (tool shells with a child of their
own), flood stderr, print a 70 MB line, hang. Each cycle starts a stream and ends it one of three
ways, chosen by a seeded random generator: the caller cancels, the consumer calls ``aclose()``,
or the deadline fires. After every cycle no process carrying the run's tag may be alive (tagged
grandchildren are found in ``/proc`` whatever their session), and after the run this process has
no new descendant, thread, task or descriptor and admission is back to zero.

The teardown time of each cycle (from the cancel / ``aclose()`` / deadline to the call being
back with the caller) is recorded; its maximum is bounded generously (terminate grace + 3 s).

Size: ``LIONAGI_CYCLES`` cycles per adapter (CI default 12); the issue's full run is
``LIONAGI_CYCLES=1000`` (see ``docs/reliability.md``). ``LIONAGI_RELIABILITY_REPORT=<file>``
appends the figures as one JSON line.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import stat
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from lionagi.service import Endpoint, EndpointRegistry, RequestDeadlineExceeded, iModel
from lionagi.service_testing.conformance import LeakCheck, tagged_pids
from lionagi.service_testing.fake_clis import script_path

from .conftest import env_int

pytestmark = pytest.mark.soak

CYCLES = env_int("LIONAGI_CYCLES", 12)
GRACE = 0.2
DEADLINE = 0.5
TEARDOWN_BOUND = GRACE + 3.0
LINE_BYTES = 70 * 1024 * 1024

_ADAPTERS = {
    "codex": ("lionagi.providers.codex", "CodexCliEndpoint"),
    "claude_code": ("lionagi.providers.claude_code", "ClaudeCodeEndpoint"),
    "gemini_code": ("lionagi.providers.gemini_cli", "GeminiCodeEndpoint"),
    "pi": ("lionagi.providers.pi", "PiCliEndpoint"),
}
PLANS: dict[str, dict[str, Any]] = {
    "ignores_sigterm": {"ignore_term": True, "stall": True},
    "grandchildren": {"children": 2, "stall": True},
    "setsid_away": {"children": 2, "setsid": True, "ignore_term": True, "stall": True},
    "stderr_flood": {"stderr_bytes": 4 * 1024 * 1024, "stall": True},
    "line_70mb": {"line_bytes": LINE_BYTES, "stall": True},
    "hang": {"stall": True},
}


@dataclass
class Figures:
    """What one adapter's run measured."""

    adapter: str
    cycles: int = 0
    survivors: int = 0
    teardown: list[float] = field(default_factory=list)
    endings: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        ordered = sorted(self.teardown)
        return {
            "suite": "subprocess_cycles",
            "adapter": self.adapter,
            "cycles": self.cycles,
            "survivors": self.survivors,
            "teardown_p50_s": round(ordered[len(ordered) // 2], 4),
            "teardown_p99_s": round(ordered[int(len(ordered) * 0.99)], 4),
            "teardown_max_s": round(ordered[-1], 4),
            "endings": self.endings,
            "errors": self.errors,
        }


def test_the_cycle_table_names_every_agentic_adapter() -> None:
    """A new subprocess CLI adapter in the catalog must join the cycles (``scripted`` and the
    in-process/remote AG2 endpoints run no process)."""
    from lionagi.service.agentic import SubprocessCliEndpoint

    snapshot = EndpointRegistry.snapshot()
    programs = {
        p["provider"]
        for p in EndpointRegistry.list_providers()
        for e in p["endpoints"]
        if e["endpoint_type"] == "agentic"
        and issubclass(
            snapshot.provider(p["provider"]).endpoints[e["endpoint"]].resolved_class,
            SubprocessCliEndpoint,
        )
    }
    assert programs == set(_ADAPTERS)


def _wrapper(folder: Path, name: str, plan: dict[str, Any], tag: str) -> Path:
    plan_path = folder / f"{name}.json"
    plan_path.write_text(json.dumps({**plan, "tag": tag}), encoding="utf-8")
    script = folder / f"fake-{name}"
    replay = script_path("replay")
    script.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -I -S "{replay}" "{plan_path}" "$@"\n',
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def _endpoint(adapter: str, binary: Path) -> Endpoint:
    module, name = _ADAPTERS[adapter]
    cls = getattr(__import__(module, fromlist=[name]), name)
    endpoint: Endpoint = cls(
        terminate_grace=GRACE, settings={"binary": str(binary), "config_home": "isolated"}
    )
    return endpoint


async def _cycle(model: iModel, rng: random.Random, figures: Figures) -> None:
    """One start and one ending; the teardown is the time from the ending to the call's return."""
    ending = rng.choice(("cancel", "aclose", "deadline"))
    figures.endings[ending] = figures.endings.get(ending, 0) + 1
    wait = rng.uniform(0.0, 0.25)
    started = anyio.current_time()
    stream = model.stream(prompt="hello cycles", timeout=DEADLINE if ending == "deadline" else 30)
    teardown = 0.0
    error: BaseException | None = None
    try:
        if ending == "cancel":
            with anyio.move_on_after(wait) as scope:
                async for _chunk in stream:
                    pass
            if scope.cancelled_caught:
                teardown = anyio.current_time() - scope.deadline
        elif ending == "aclose":
            with anyio.move_on_after(wait):
                await stream.__anext__()
            closing = anyio.current_time()
            await stream.aclose()
            teardown = anyio.current_time() - closing
        else:
            async for _chunk in stream:
                pass
    except Exception as exc:
        error = exc
    finally:
        await stream.aclose()
    if isinstance(error, RequestDeadlineExceeded):
        teardown = anyio.current_time() - (started + DEADLINE)
    if error is not None:
        kind = type(error).__name__
        figures.errors[kind] = figures.errors.get(kind, 0) + 1
    figures.teardown.append(max(0.0, teardown))


async def _run_adapter(adapter: str, folder: Path, cycles: int) -> Figures:
    figures = Figures(adapter)
    tag = f"lionagi-cycles-{uuid.uuid4().hex[:12]}"
    wrappers = {
        name: _wrapper(folder, f"{adapter}-{name}", plan, tag) for name, plan in PLANS.items()
    }
    rng = random.Random(f"cycles-{adapter}")
    names = list(PLANS)
    for index in range(cycles):
        plan = names[index % len(names)]
        async with iModel(endpoint=_endpoint(adapter, wrappers[plan])) as model:
            await _cycle(model, rng, figures)
            snap = model.admission_snapshot()
            assert (snap.queued, snap.active) == (0, 0), f"{adapter} {plan}: {snap}"
        figures.cycles += 1
        left = tagged_pids(tag)
        if left:
            figures.survivors += len(left)
            for pid in left:  # keep the machine clean, then fail below
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, 9)
    return figures


@pytest.mark.parametrize("adapter", sorted(_ADAPTERS))
def test_subprocess_cycles(adapter: str, tmp_path: Path) -> None:
    """``LIONAGI_CYCLES`` start/cancel/close cycles: zero survivors, bounded teardown."""

    async def main() -> Figures:
        leaks = LeakCheck(settle=3.0)
        leaks.start()
        figures = await _run_adapter(adapter, tmp_path, CYCLES)
        await leaks.verify()
        return figures

    figures = anyio.run(main, backend="asyncio")
    report = os.environ.get("LIONAGI_RELIABILITY_REPORT")
    if report:
        with open(report, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(figures.record()) + "\n")
    assert figures.cycles == CYCLES
    assert figures.survivors == 0, f"{figures.survivors} processes survived: {figures.record()}"
    assert max(figures.teardown) <= TEARDOWN_BOUND, figures.record()
