"""The fault matrix: every HTTP catalog row against every connection and protocol fault.

For each row (``conftest.ROWS``, checked against the installed catalog) and each fault in
:data:`FAULTS`, one ``invoke()`` and, when the row streams, one ``stream()`` run against the fake
provider server. Each asserts the exact outcome ADR-0029 promises for that fault:

- the terminal status of the call event (COMPLETED, FAILED, ABORTED);
- the error type (an exact family from ``lionagi.service``);
- the attempt count *seen by the server* (requests carrying the case's own tag header);
- no replay: the answer text is sequence-tagged (``[00][01]...``, one tag per delta), and what
  the consumer saw is always an in-order, duplicate-free prefix of it. A stream that yielded any
  chunk is never attempted again (the replay boundary); one that yielded none follows the policy.

All cases of one row run concurrently on one event loop and one server, each with its own
``iModel``; a :class:`LeakCheck` brackets the row (descriptors, descendants, threads, tasks) and
every model's admission counters and pool connections must be idle before close.

``LIONAGI_RELIABILITY_REPORT=<file>`` appends one JSON line per row (cases run, cases failed).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

from lionagi.service import (
    APICalling,
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    ProviderConnectionError,
    ProviderProtocolError,
    ProviderRateLimitError,
    ProviderServerError,
    RequestDeadlineExceeded,
    StreamChunk,
    iModel,
)
from lionagi.service_testing import FakeProviderServer
from lionagi.service_testing.conformance import LeakCheck, model_leaks, response_text

from .conftest import ROWS, Row, catalog_http_rows

MAX_ATTEMPTS = 3
TAGS = 12
TAGGED_TEXT = "".join(f"[{i:02d}]" for i in range(TAGS))
_TAG = re.compile(r"\[(\d\d)\]")
# A generous budget for calls that should finish on their own; the stall cases use STALL_DEADLINE.
BUDGET = 20.0
STALL_DEADLINE = 3.0
# How late a deadline may fire on a loaded 2-core CI machine before the case fails.
DEADLINE_GRACE = 2.0
# Retry-After "beyond the deadline": longer than BUDGET, shorter than the policy's max_delay, so
# only the deadline forbids the sleep.
BEYOND = "25"
POLICY = AttemptPolicy(
    max_attempts=MAX_ATTEMPTS, base_delay=0.01, max_delay=30.0, jitter_factor=0.0
)
CASE_HEADER = "x-reliability-case"

# What a fault does to the attempt count: the policy's maximum, exactly one, or (streams) one
# when a chunk was yielded before the failure and the policy's maximum otherwise.
POLICY_MAX, ONE, BOUNDARY = "policy", "one", "boundary"


@dataclass(frozen=True)
class Expect:
    """The promised outcome of one fault in one mode."""

    status: EventStatus
    error: type[BaseException] | None
    attempts: str
    chunks: bool | None = None  # True: at least one chunk before the error; False: none

    def describe(self) -> str:
        name = self.error.__name__ if self.error else "-"
        return f"{self.status.value}/{name}/{self.attempts}"


@dataclass(frozen=True)
class Fault:
    """One fault: the fake server behaviour, its knobs, its budget and its outcomes."""

    name: str
    behaviour: str
    invoke: Expect
    stream: Expect
    knobs: dict[str, str] = field(default_factory=dict)
    budget: float = BUDGET
    text_only: bool = False
    quick: bool = False  # must end well before the budget (no sleep it cannot afford)


_DONE = Expect(EventStatus.COMPLETED, None, ONE)


def _failed(error: type[BaseException], attempts: str, chunks: bool | None = None) -> Expect:
    return Expect(EventStatus.FAILED, error, attempts, chunks)


def _aborted(chunks: bool | None) -> Expect:
    return Expect(EventStatus.ABORTED, RequestDeadlineExceeded, ONE, chunks)


def _retry_after(name: str, status: str, error: type[BaseException]) -> list[Fault]:
    inside = _failed(error, POLICY_MAX, chunks=False)
    beyond = _failed(error, ONE, chunks=False)
    date = {"retry_after_format": "date"}
    return [
        Fault(f"{name}_seconds_inside", status, inside, inside, {"retry_after": "0.05"}),
        Fault(
            f"{name}_seconds_beyond", status, beyond, beyond, {"retry_after": BEYOND}, quick=True
        ),
        Fault(f"{name}_date_inside", status, inside, inside, {"retry_after": "1", **date}),
        Fault(
            f"{name}_date_beyond",
            status,
            beyond,
            beyond,
            {"retry_after": BEYOND, **date},
            quick=True,
        ),
    ]


CONN = ProviderConnectionError
FAULTS: tuple[Fault, ...] = (
    Fault(
        "reset_before_headers",
        "disconnect_before",
        _failed(CONN, POLICY_MAX),
        _failed(CONN, POLICY_MAX, chunks=False),
    ),
    Fault(
        "reset_after_headers",
        "disconnect_after_head",
        _failed(CONN, POLICY_MAX),
        _failed(CONN, POLICY_MAX, chunks=False),
    ),
    Fault(
        "reset_after_first_chunk",
        "disconnect_after",
        _failed(CONN, POLICY_MAX),
        _failed(CONN, ONE, chunks=True),
    ),
    Fault("reset_mid_line", "reset_mid_line", _failed(CONN, POLICY_MAX), _failed(CONN, BOUNDARY)),
    Fault(
        "stall_before_output",
        "stall_before",
        _aborted(None),
        _aborted(chunks=False),
        budget=STALL_DEADLINE,
    ),
    Fault(
        "stall_after_first_output",
        "stall",
        _aborted(None),
        _aborted(chunks=True),
        budget=STALL_DEADLINE,
    ),
    Fault("slow_drip", "drip", _DONE, _DONE),
    *_retry_after("429", "429", ProviderRateLimitError),
    *_retry_after("503", "503", ProviderServerError),
    Fault(
        "malformed_sse",
        "malformed",
        _failed(ProviderProtocolError, ONE),
        _failed(ProviderProtocolError, ONE),
    ),
    Fault("oversized_line", "oversized", _DONE, _DONE, text_only=True),
    Fault(
        "invalid_utf8",
        "invalid_utf8",
        _failed(ProviderProtocolError, ONE),
        _failed(ProviderProtocolError, ONE),
        text_only=True,
    ),
    Fault("hostile_content_type", "hostile_content_type", _DONE, _DONE),
    Fault(
        "non_json_200",
        "non_json_200",
        _failed(ProviderProtocolError, ONE),
        _failed(ProviderProtocolError, ONE),
    ),
)


@dataclass
class Outcome:
    """What one case observed."""

    status: EventStatus | None
    error: BaseException | None
    attempts: int
    elapsed: float
    chunks: list[StreamChunk]
    text: str


def _streams(model: iModel) -> bool:
    return getattr(type(model.endpoint), "projector", None) is not None


def _tags_in_order(text: str) -> list[int]:
    return [int(t) for t in _TAG.findall(text)]


class RowRun:
    """One row's cases on one server."""

    def __init__(self, row: Row, server: FakeProviderServer) -> None:
        self.row = row
        self.server = server
        self.models: list[iModel] = []

    async def warm_model(self) -> iModel:
        """A model that already answered once: imports, pool and projector are warm.

        The stall cases' short deadline must be spent on the stalled request, not on a first
        call's setup on a loaded machine (where it once expired before the request was sent).
        """
        model = self.model()
        warm = model.create_api_calling(**self.row.request())
        warm.headers[CASE_HEADER] = "warm-up"
        await model.invoke(api_call=warm, timeout=BUDGET)
        assert warm.execution.status is EventStatus.COMPLETED, warm.execution.error
        return model

    def model(self) -> iModel:
        endpoint = self.row.make_endpoint(self.server.base_url)
        # A circuit that never opens: the attempt counts must reflect the policy only.
        model = iModel(
            endpoint=endpoint,
            attempt_policy=POLICY,
            circuit_policy=CircuitPolicy(failure_threshold=10_000),
        )
        self.models.append(model)
        return model

    def call(self, model: iModel, fault: Fault, case: str) -> APICalling:
        call = model.create_api_calling(**self.row.request())
        call.headers["x-fake-behaviour"] = fault.behaviour
        call.headers[CASE_HEADER] = case
        if self.row.text:
            call.headers["x-fake-text"] = TAGGED_TEXT
            call.headers["x-fake-chunks"] = str(TAGS)
        for knob, value in fault.knobs.items():
            call.headers[f"x-fake-{knob.replace('_', '-')}"] = value
        return call

    def attempts(self, case: str) -> int:
        return sum(1 for r in self.server.requests if r.headers.get(CASE_HEADER) == case)

    async def invoke(self, fault: Fault) -> Outcome:
        case = f"{fault.name}/invoke"
        model = await self.warm_model()
        call = self.call(model, fault, case)
        started = anyio.current_time()
        error: BaseException | None = None
        try:
            await model.invoke(api_call=call, timeout=fault.budget)
        except RequestDeadlineExceeded as exc:
            error = exc
        elapsed = anyio.current_time() - started
        error = error or call.execution.exception
        text = ""
        if call.execution.status is EventStatus.COMPLETED and self.row.text:
            text = response_text(self.row.dialect, call.execution.response)
        return Outcome(call.execution.status, error, self.attempts(case), elapsed, [], text)

    async def stream(self, fault: Fault) -> Outcome:
        case = f"{fault.name}/stream"
        model = await self.warm_model()
        call = self.call(model, fault, case)
        chunks: list[StreamChunk] = []
        error: BaseException | None = None
        started = anyio.current_time()
        stream = model.stream(api_call=call, timeout=fault.budget)
        try:
            async for chunk in stream:
                chunks.append(chunk)
        except Exception as exc:
            error = exc
        finally:
            await stream.aclose()
        elapsed = anyio.current_time() - started
        text = "".join(c.content or "" for c in chunks if c.type == "text")
        return Outcome(call.execution.status, error, self.attempts(case), elapsed, chunks, text)


def check(row: Row, fault: Fault, mode: str, expect: Expect, out: Outcome) -> list[str]:
    """Every way ``out`` differs from ``expect``, as readable lines (empty: as promised)."""
    where = f"{row.key} {fault.name} {mode}"
    problems: list[str] = []
    if out.status is not expect.status:
        problems.append(f"{where}: status {out.status} != {expect.status}")
    if expect.error is None:
        if out.error is not None:
            problems.append(f"{where}: unexpected {type(out.error).__name__}: {out.error}")
    elif type(out.error) is not expect.error and not isinstance(out.error, expect.error):
        got = type(out.error).__name__ if out.error else "no error"
        problems.append(f"{where}: {got} ({out.error}) is not a {expect.error.__name__}")
    wanted = {POLICY_MAX: MAX_ATTEMPTS, ONE: 1}.get(expect.attempts)
    if expect.attempts == BOUNDARY:
        wanted = 1 if out.chunks else MAX_ATTEMPTS
    if out.attempts != wanted:
        problems.append(
            f"{where}: the server saw {out.attempts} attempts, expected {wanted} "
            f"({expect.attempts}; {len(out.chunks)} chunks yielded)"
        )
    if expect.chunks is True and not out.chunks:
        problems.append(f"{where}: no chunk was yielded before the fault")
    if expect.chunks is False and out.chunks:
        problems.append(f"{where}: {len(out.chunks)} chunks yielded before a pre-output fault")
    bounded = expect.status is EventStatus.ABORTED or fault.quick
    if bounded and out.elapsed > fault.budget + DEADLINE_GRACE:
        problems.append(f"{where}: ended after {out.elapsed:.2f}s, budget {fault.budget}s")
    if fault.quick and out.elapsed > 5.0:
        problems.append(f"{where}: slept {out.elapsed:.2f}s for a Retry-After it could not afford")
    if row.text:
        tags = _tags_in_order(out.text)
        if tags != list(range(len(tags))):
            problems.append(f"{where}: text replayed or reordered: tags {tags}")
        if (
            out.status is EventStatus.COMPLETED
            and fault.behaviour != "oversized"
            and tags != list(range(TAGS))
        ):
            problems.append(f"{where}: completed with tags {tags}, expected all {TAGS}")
    for chunk in out.chunks:
        if chunk.type == "error" and out.chunks[-1] is not chunk:
            problems.append(f"{where}: a chunk followed the error chunk")
    return problems


def faults_for(row: Row) -> list[Fault]:
    return [f for f in FAULTS if row.text or not f.text_only]


async def run_row(row: Row) -> tuple[int, list[str]]:
    """Every fault against ``row``; returns (cases run, problems)."""
    leaks = LeakCheck(settle=3.0)
    leaks.start()
    problems: list[str] = []
    cases = 0
    async with FakeProviderServer() as server:
        run = RowRun(row, server)
        streams = _streams(run.model())
        results: list[tuple[Fault, str, Expect, Outcome]] = []

        async def one(fault: Fault, mode: str) -> None:
            runner: Callable[[Fault], Any] = run.stream if mode == "stream" else run.invoke
            expect = fault.stream if mode == "stream" else fault.invoke
            results.append((fault, mode, expect, await runner(fault)))

        async with anyio.create_task_group() as tg:
            for fault in faults_for(row):
                tg.start_soon(one, fault, "invoke")
                if streams:
                    tg.start_soon(one, fault, "stream")
        for fault, mode, expect, outcome in results:
            cases += 1
            problems.extend(check(row, fault, mode, expect, outcome))
        problems.extend(model_leaks(run.models))
        for model in run.models:
            await model.close()
    try:
        await leaks.verify()
    except AssertionError as exc:
        problems.append(f"{row.key}: {exc}")
    return cases, problems


def test_every_http_catalog_row_is_in_the_matrix() -> None:
    """The row table names exactly the installed catalog's HTTP endpoints."""
    assert {row.key for row in ROWS} == catalog_http_rows()


@pytest.mark.parametrize("row", ROWS, ids=[row.key for row in ROWS])
def test_fault_matrix(row: Row) -> None:
    """Every fault on one row ends exactly as promised, with nothing replayed or left behind."""
    cases, problems = anyio.run(run_row, row, backend="asyncio")
    report = os.environ.get("LIONAGI_RELIABILITY_REPORT")
    if report:
        figures = {"suite": "fault_matrix", "row": row.key, "cases": cases, "failed": len(problems)}
        with open(report, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(figures) + "\n")
    assert cases >= len(faults_for(row))
    assert not problems, "\n".join(problems)
