"""A run stopped at ``--max-budget-usd`` fails with the budget limit, never a provider failure.

Recorded (``captures/2.1.332/max-budget.jsonl``): the fake server's ``text`` scenario with
``--max-budget-usd 0.0001``: the answer, then ``result`` ``error_max_budget_usd`` (``is_error``,
"Reached maximum budget ($0.0001)", ``terminal_reason: "budget_exhausted"``), exit 1. Typed as
a plain ``ProviderStreamError`` it counted against the provider's health: five budget-capped
runs opened the circuit and hid every later call, whoever made it, behind
``CircuitOpenError``. The budget is the caller's own limit, as the turn limit is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from claude_captures import capture, replay

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.service import (
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    ProviderBudgetLimitError,
    ProviderRunLimitError,
    ProviderStreamBudgetLimitError,
    iModel,
)
from lionagi.service.lifecycle import is_retryable
from lionagi.service_testing.conformance import record_argv

REACHED = "Reached maximum budget ($0.0001)"


def test_the_recorded_result_is_the_budget_limit_error_chunk() -> None:
    *_, last = replay(capture("max-budget", "2.1.332"))
    assert last.type == "error"
    assert last.content == REACHED
    assert last.metadata["type"] == "error_max_budget_usd"
    error = ClaudeCodeEndpoint().stream_error(last)
    assert type(error) is ProviderStreamBudgetLimitError, repr(error)
    assert isinstance(error, ProviderBudgetLimitError)
    assert isinstance(error, ProviderRunLimitError)


async def test_a_budget_capped_run_is_one_launch_and_never_retried(tmp_path: Path) -> None:
    plan, record = _plan(tmp_path)
    async with iModel(endpoint=ClaudeCodeEndpoint(argv=record_argv(plan, record))) as model:
        calls = [await model.invoke(prompt="hello", max_budget_usd=0.0001) for _ in range(2)]
    launches = _launches(record)
    assert [c.status for c in calls] == [EventStatus.FAILED] * 2
    for call in calls:
        assert type(call.exception) is ProviderStreamBudgetLimitError, repr(call.exception)
        assert call.exception.retryable is False
        assert is_retryable(call.exception, AttemptPolicy()) is False
        assert REACHED in str(call.exception)
    assert len(launches) == 2  # one launch per call
    args = launches[0]["args"]
    assert args[args.index("--max-budget-usd") + 1] == "0.0001"


class _WithCircuit(ClaudeCodeEndpoint):
    """The adapter opted into an attempt policy, so its runs go through a circuit breaker.

    The shipped endpoint runs each call exactly once and gets no circuit; an adapter that opts
    in (a remote agent, a subclass) hears each run's typed error in its circuit, and there a
    budget-capped run must not count against the provider.
    """

    attempt_policy_options: ClassVar[Mapping[str, Any] | None] = {"base_delay": 0.0}


async def test_budget_capped_runs_leave_the_circuit_closed(tmp_path: Path) -> None:
    plan, record = _plan(tmp_path)
    errors: list[BaseException] = []
    model = iModel(
        endpoint=_WithCircuit(argv=record_argv(plan, record)),
        circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60),
    )
    async with model:
        for _ in range(3):
            try:
                async for _chunk in model.stream(prompt="hello", max_budget_usd=0.0001):
                    pass
            except Exception as exc:
                errors.append(exc)
        assert model.circuit_breaker is not None
        state = model.circuit_breaker.state.value
    # Every call reached the CLI (no CircuitOpenError), once each (never re-run).
    assert [type(e) for e in errors] == [ProviderStreamBudgetLimitError] * 3, errors
    assert len(_launches(record)) == 3
    assert state == "closed"


def _plan(tmp_path: Path) -> tuple[Path, Path]:
    plan, record = tmp_path / "plan.json", tmp_path / "record.jsonl"
    events = capture("max-budget", "2.1.332")
    plan.write_text(json.dumps({"events": events, "exit_code": 1}), encoding="utf-8")
    return plan, record


def _launches(record: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
