"""Soak: many mixed calls with random faults, cancellations, closes, abandons and deadlines.

One event loop, one fake provider server, a handful of shared ``iModel`` s: HTTP rows of every
dialect (``conftest.ROWS``, one per dialect) and an agentic subprocess adapter (the reference
CLI adapter from ``lionagi.service_testing`` over the ``replay`` fake CLI, with plans that answer,
stall, fail, ignore SIGTERM with grandchildren, ``setsid`` away, or flood stderr). Every call
draws, from a seeded generator: its target, one-shot or stream, a fault, a deadline from 0.3
to 3 s, and what the caller does: wait for the end, cancel at a random moment, ``aclose()``
the stream after a few chunks, or abandon it (drop the generator unclosed).

Promised and checked:

- every call is back with its caller within its deadline + 1 s, and its event is terminal
  (COMPLETED, FAILED, ABORTED or CANCELLED; never PENDING or PROCESSING);
- the errors are the typed ones (``lionagi.service`` families, cancellation);
- afterwards every model's admission snapshot is back to zero with no busy pool connection,
  and this process has no new descendant, thread, task or descriptor (:class:`LeakCheck`);
- RSS is flat: the resident size after the run exceeds the one after the warm-up (the first
  tenth of the calls) by less than :data:`RSS_SLACK`.

Size: ``LIONAGI_SOAK_CALLS`` (CI default 300; the full run is 10,000, see
``docs/reliability.md``). ``LIONAGI_RELIABILITY_REPORT=<file>`` appends the figures as JSON.
"""

from __future__ import annotations

import gc
import json
import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from lionagi.service import (
    APICalling,
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    ProviderError,
    RequestDeadlineExceeded,
    iModel,
)
from lionagi.service_testing import FakeProviderServer
from lionagi.service_testing.conformance import LeakCheck, model_leaks, replay_argv
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

from .conftest import ROWS, Row, env_int

pytestmark = pytest.mark.soak

CALLS = env_int("LIONAGI_SOAK_CALLS", 300)
CONCURRENCY = 12
LATE = 1.0  # the promise: back with the caller within deadline + 1 s
RSS_SLACK = 64 * 1024 * 1024
_TERMINAL = {EventStatus.COMPLETED, EventStatus.FAILED, EventStatus.ABORTED, EventStatus.CANCELLED}
HTTP_FAULTS = (
    "text",
    "text",
    "text",
    "usage",
    "disconnect_before",
    "disconnect_after_head",
    "disconnect_after",
    "reset_mid_line",
    "stall_before",
    "stall",
    "drip",
    "429",
    "503",
    "500",
    "malformed",
    "invalid_utf8",
    "non_json_200",
    "hostile_content_type",
    "stream_error",
)
_SESSION = {"type": "session", "session_id": "s-soak", "model": "m"}
_RESULT = {"type": "result", "content": "", "session_id": "s-soak", "usage": {"output_tokens": 3}}
_TEXT = [{"type": "text", "content": f"[{i:02d}]", "delta": True} for i in range(6)]
AGENTIC_PLANS: dict[str, dict[str, Any]] = {
    "answer": {"events": [_SESSION, *_TEXT, _RESULT]},
    "answer_split": {"events": [_SESSION, *_TEXT, _RESULT], "framing": "split", "pause": 0.001},
    "stall": {"events": [_SESSION, _TEXT[0]], "stall": True},
    "fail": {"events": [_SESSION, {"type": "error", "message": "boom", "kind": "auth"}]},
    "exit_1": {"events": [_SESSION], "exit_code": 1, "stderr": "fatal: soak"},
    "ignore_term_tree": {
        "events": [_SESSION, _TEXT[0]],
        "children": 2,
        "ignore_term": True,
        "stall": True,
    },
    "setsid_tree": {
        "events": [_SESSION, _TEXT[0]],
        "children": 1,
        "setsid": True,
        "ignore_term": True,
        "stall": True,
    },
    "stderr_flood": {"events": [_SESSION, *_TEXT, _RESULT], "stderr_bytes": 1024 * 1024},
}
_SOAK_ROWS = {
    "openai/chat/completions",
    "openai/responses",
    "anthropic/messages",
    "gemini/generate_content",
    "ollama/generate",
    "openai/embeddings",
    "exa/search",
}


def _rss() -> int:
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except OSError:
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


@dataclass
class Figures:
    """What the soak measured."""

    calls: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    actions: Counter[str] = field(default_factory=Counter)
    late: list[str] = field(default_factory=list)
    worst: list[tuple[float, str]] = field(default_factory=list)
    untyped: list[str] = field(default_factory=list)
    not_terminal: list[str] = field(default_factory=list)
    max_overshoot: float = float("-inf")
    rss_warm: int = 0
    rss_end: int = 0
    seconds: float = 0.0

    def record(self) -> dict[str, Any]:
        return {
            "suite": "soak",
            "calls": self.calls,
            "seconds": round(self.seconds, 1),
            "max_overshoot_s": round(self.max_overshoot, 3),
            "late": len(self.late),
            "untyped": len(self.untyped),
            "not_terminal": len(self.not_terminal),
            "rss_warm_mib": round(self.rss_warm / 2**20, 1),
            "rss_end_mib": round(self.rss_end / 2**20, 1),
            "late_by_target": dict(Counter(item.split()[1] for item in self.late)),
            "worst": [f"{o:+.2f}s {label}" for o, label in sorted(self.worst, reverse=True)[:10]],
            "actions": dict(self.actions),
            "outcomes": dict(self.outcomes.most_common()),
        }


@dataclass
class Target:
    """A shared model and how to ask it for one call."""

    name: str
    model: iModel
    streams: bool
    request: Any
    faults: tuple[str, ...]


def _http_targets(server: FakeProviderServer) -> list[Target]:
    policy = AttemptPolicy(max_attempts=3, base_delay=0.01, max_delay=1.0, jitter_factor=0.2)
    circuit = CircuitPolicy(failure_threshold=50, recovery_time=0.2)
    targets = []
    for row in ROWS:
        if row.key not in _SOAK_ROWS:
            continue
        endpoint = row.make_endpoint(server.base_url)
        model = iModel(endpoint=endpoint, attempt_policy=policy, circuit_policy=circuit)
        streams = getattr(type(endpoint), "projector", None) is not None
        faults = HTTP_FAULTS if row.text else tuple(f for f in HTTP_FAULTS if f != "invalid_utf8")
        targets.append(Target(row.key, model, streams, _request_for(row), faults))
    return targets


def _request_for(row: Row) -> Any:
    return row.request


def _agentic_targets(folder: Path) -> list[Target]:
    targets = []
    for name, plan in AGENTIC_PLANS.items():
        path = folder / f"{name}.json"
        path.write_text(json.dumps({**plan, "tag": f"lionagi-soak-{os.getpid()}"}))
        endpoint = ReferenceCliEndpoint(argv=replay_argv(path), terminate_grace=0.2)
        targets.append(Target(f"agentic/{name}", iModel(endpoint=endpoint), True, _prompt, ("-",)))
    return targets


def _prompt() -> dict[str, Any]:
    return {"prompt": "soak"}


def _outcome(call: APICalling, error: BaseException | None) -> str:
    exc = error or call.execution.exception
    return f"{call.execution.status.value}/{type(exc).__name__ if exc else '-'}"


class Soak:
    """Draws and runs the calls; collects the figures."""

    def __init__(self, targets: list[Target], agentic: list[Target], seed: str) -> None:
        self.targets = targets
        self.agentic = agentic
        self.rng = random.Random(seed)
        self.figures = Figures()
        self.abandoned: list[APICalling] = []

    def draw(self) -> tuple[Target, str, str, float, str]:
        rng = self.rng
        target = rng.choice(self.agentic) if rng.random() < 0.2 else rng.choice(self.targets)
        mode = "stream" if target.streams and rng.random() < 0.6 else "invoke"
        fault = rng.choice(target.faults)
        deadline = rng.uniform(0.3, 3.0)
        actions = ["wait", "wait", "cancel"]
        if mode == "stream":
            actions += ["aclose", "abandon"]
        return target, mode, fault, deadline, rng.choice(actions)

    def prepared(self, target: Target, fault: str) -> APICalling:
        call = target.model.create_api_calling(**target.request())
        if fault != "-":
            call.headers["x-fake-behaviour"] = fault
            call.headers["x-fake-retry-after"] = "0.05"
            call.headers["x-fake-text"] = "".join(f"[{i:02d}]" for i in range(8))
            call.headers["x-fake-chunks"] = "8"
        return call

    async def one(self, index: int) -> None:
        target, mode, fault, deadline, action = self.draw()
        cancel_at = self.rng.uniform(0.0, deadline)
        stop_after = self.rng.randint(0, 3)
        call = self.prepared(target, fault)
        label = f"#{index} {target.name} {mode} {fault} {action} deadline={deadline:.2f}"
        self.figures.actions[f"{mode}/{action}"] += 1
        started = anyio.current_time()
        error: BaseException | None = None
        try:
            with anyio.CancelScope() as scope:
                if action == "cancel":
                    scope.deadline = started + cancel_at
                if mode == "invoke":
                    await target.model.invoke(api_call=call, timeout=deadline)
                else:
                    await self._consume(target, call, deadline, action, stop_after)
        except (ProviderError, RequestDeadlineExceeded) as exc:
            error = exc
        except Exception as exc:  # anything outside the typed tree is a finding
            error = exc
            self.figures.untyped.append(f"{label}: {type(exc).__name__}: {exc}")
        returned = anyio.current_time() - started
        if action == "abandon":
            self.abandoned.append(call)
        elif call.execution.status not in _TERMINAL:
            self.figures.not_terminal.append(f"{label}: {call.execution.status}")
        overshoot = returned - deadline
        self.figures.max_overshoot = max(self.figures.max_overshoot, overshoot)
        self.figures.worst.append((overshoot, label))
        if len(self.figures.worst) > 40:
            self.figures.worst = sorted(self.figures.worst, reverse=True)[:10]
        if overshoot > LATE:
            self.figures.late.append(f"{label}: returned after {returned:.2f}s")
        if action != "abandon":  # an abandoned call is counted once its finalizer ended it
            self.figures.outcomes[_outcome(call, error)] += 1
        self.figures.calls += 1

    async def _consume(
        self, target: Target, call: APICalling, deadline: float, action: str, stop_after: int
    ) -> None:
        stream = target.model.stream(api_call=call, timeout=deadline)
        seen = 0
        if action == "abandon":
            async for _chunk in stream:
                seen += 1
                if seen > stop_after:
                    break
            del stream  # dropped unclosed: the generator's finalizer must clean up
            return
        try:
            async for _chunk in stream:
                seen += 1
                if action == "aclose" and seen > stop_after:
                    break
        finally:
            await stream.aclose()

    async def run(self, calls: int) -> None:
        limiter = anyio.CapacityLimiter(CONCURRENCY)
        warm = max(1, calls // 10)

        async def guarded(index: int) -> None:
            async with limiter:
                await self.one(index)
                if index == warm:
                    gc.collect()
                    self.figures.rss_warm = _rss()

        started = time.monotonic()
        async with anyio.create_task_group() as tg:
            for index in range(calls):
                await limiter.acquire_on_behalf_of(index)  # bound the tasks alive at once
                limiter.release_on_behalf_of(index)
                tg.start_soon(guarded, index)
        self.figures.seconds = time.monotonic() - started


async def _soak(folder: Path, calls: int) -> Figures:
    leaks = LeakCheck(settle=5.0)
    leaks.start()
    async with FakeProviderServer(record_requests=False) as server:
        soak = Soak(_http_targets(server), _agentic_targets(folder), seed="soak-v1")
        models = [t.model for t in (*soak.targets, *soak.agentic)]
        try:
            await soak.run(calls)
            gc.collect()
            # Abandoned streams are finalized by the loop; give their cleanup its deadline.
            with anyio.move_on_after(5.0):
                while any(c.execution.status not in _TERMINAL for c in soak.abandoned):  # noqa: ASYNC110
                    await anyio.sleep(0.05)
            for call in soak.abandoned:
                soak.figures.outcomes[f"abandoned:{_outcome(call, None)}"] += 1
                if call.execution.status not in _TERMINAL:
                    soak.figures.not_terminal.append(
                        f"abandoned {call.id}: {call.execution.status}"
                    )
            held = model_leaks(models)
            assert not held, "; ".join(held)
        finally:
            for model in models:
                await model.close()
    gc.collect()
    soak.figures.rss_end = _rss()
    await leaks.verify()
    return soak.figures


def test_soak(tmp_path: Path) -> None:
    """``LIONAGI_SOAK_CALLS`` mixed calls: all typed, terminal and on time; nothing left over."""
    figures = anyio.run(_soak, tmp_path, CALLS, backend="asyncio")
    report = os.environ.get("LIONAGI_RELIABILITY_REPORT")
    if report:
        with open(report, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(figures.record()) + "\n")
    summary = json.dumps(figures.record(), indent=1)
    assert figures.calls == CALLS, summary
    assert not figures.untyped, "\n".join(figures.untyped[:20])
    assert not figures.not_terminal, "\n".join(figures.not_terminal[:20])
    assert not figures.late, "\n".join(figures.late[:20]) + "\n" + summary
    assert figures.rss_end - figures.rss_warm < RSS_SLACK, summary
