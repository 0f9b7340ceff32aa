"""A run stopped at a limit its caller set (turns, budget) is never retried and never counted.

Claude Code run with ``--max-budget-usd`` that reaches it ends on a ``result`` of subtype
``error_max_budget_usd``; typed as a plain ``ProviderStreamError`` it counted against the
provider, so a few budget-capped runs opened the circuit and every later call, whoever made
it, got ``CircuitOpenError`` although the provider was healthy. The budget is the caller's own
limit, as the turn limit is: both belong to one family, ``ProviderRunLimitError``, which the
circuit reads as neutral and the attempt policy never retries.
"""

from __future__ import annotations

import pytest

import lionagi.service as service
from lionagi.service import (
    AttemptPolicy,
    ProviderBudgetLimitError,
    ProviderError,
    ProviderRunLimitError,
    ProviderStreamBudgetLimitError,
    ProviderStreamError,
    ProviderStreamTurnLimitError,
    ProviderTurnLimitError,
    classify_stream_error,
)
from lionagi.service._lifecycle.retry import counts_as_circuit_failure, is_retryable
from lionagi.service.agentic import ProviderErrorPattern

POLICY = AttemptPolicy()


def test_the_turn_limit_is_a_run_limit() -> None:
    # Added as a base: every `except ProviderTurnLimitError` still catches what it caught.
    assert issubclass(ProviderTurnLimitError, ProviderRunLimitError)
    assert issubclass(ProviderStreamTurnLimitError, ProviderRunLimitError)
    assert issubclass(ProviderRunLimitError, ProviderError)


def test_the_budget_limit_is_a_run_limit_and_its_twin_a_stream_error() -> None:
    assert issubclass(ProviderBudgetLimitError, ProviderRunLimitError)
    assert not issubclass(ProviderBudgetLimitError, ProviderTurnLimitError)
    assert issubclass(ProviderStreamBudgetLimitError, ProviderStreamError)
    assert issubclass(ProviderStreamBudgetLimitError, ProviderBudgetLimitError)


def test_the_new_names_are_public() -> None:
    for name in (
        "ProviderRunLimitError",
        "ProviderBudgetLimitError",
        "ProviderStreamBudgetLimitError",
    ):
        assert name in service.__all__, name
        assert getattr(service, name).__module__ == "lionagi.service._base.errors", name


@pytest.mark.parametrize(
    "error",
    [
        ProviderRunLimitError("stopped at a limit"),
        ProviderBudgetLimitError("Reached maximum budget ($0.0001)"),
        ProviderStreamBudgetLimitError("Reached maximum budget ($0.0001)"),
        ProviderStreamTurnLimitError("Reached maximum number of turns (1)"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_a_run_limit_is_neutral_for_the_circuit_and_never_retried(error: ProviderError) -> None:
    assert error.retryable is False
    assert counts_as_circuit_failure(error, POLICY) is False
    assert is_retryable(error, POLICY) is False


def test_an_error_chunk_a_vendor_names_a_budget_limit_is_its_stream_twin() -> None:
    pattern = ProviderErrorPattern(
        "budget_limit",
        ProviderBudgetLimitError,
        r"\berror_max_budget_usd\b",
        summary="stopped at the maximum budget",
    )
    error = classify_stream_error(
        "Reached maximum budget ($0.0001)",
        {"type": "error_max_budget_usd"},
        provider="claude_code",
        extra_patterns=(pattern,),
    )
    assert type(error) is ProviderStreamBudgetLimitError
    assert error.retryable is False
    assert counts_as_circuit_failure(error, POLICY) is False
