"""Claude Code's ``billing_error`` is the spent-quota family; its ``rate_limit`` stays retryable.

The Agent SDK's assistant-message ``error`` codes name the failure. ``billing_error`` ("Credit
balance is too low": the account's credit is used up) was typed with ``rate_limit`` as the
retryable quota family, so a caller was told to try again where only buying credits helps.
``captures/quota.jsonl`` is the real CLI's run against the fake server's ``quota`` scenario
(exit 1).
"""

from __future__ import annotations

import json
from pathlib import Path

from lionagi.providers.claude_code import ClaudeCodeEndpoint, ClaudeEventMapper
from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderQuotaError,
    ProviderQuotaSpentError,
    ProviderStreamQuotaError,
    ProviderStreamQuotaExhaustedError,
    StreamChunk,
    iModel,
)
from lionagi.service.agentic import ErrorClassifier
from lionagi.service.lifecycle import counts_as_circuit_failure, is_retryable
from lionagi.service_testing.conformance import replay_argv

CAPTURES = Path(__file__).parent / "captures"


def _stderr(endpoint: ClaudeCodeEndpoint) -> ErrorClassifier:
    """The classifier core gives the run's process (the endpoint's patterns before core's)."""
    classify = endpoint.stderr_classifier()
    assert classify is not None
    return classify


def _quota_events() -> list[dict[str, object]]:
    lines = (CAPTURES / "quota.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _error_chunk(events: list[dict[str, object]]) -> StreamChunk:
    mapper = ClaudeEventMapper()
    chunks = [chunk for event in events for chunk in mapper.feed(event)]
    (error,) = [c for c in chunks if c.type == "error"]
    return error


def test_the_captured_billing_error_is_the_exhausted_twin() -> None:
    error = ClaudeCodeEndpoint().stream_error(_error_chunk(_quota_events()))
    assert type(error) is ProviderStreamQuotaExhaustedError
    assert (error.code, error.status, error.kind) == ("billing_error", 400, "quota_exhausted")
    assert not is_retryable(error, AttemptPolicy())
    assert not counts_as_circuit_failure(error, AttemptPolicy())


def test_a_rate_limit_code_stays_the_retryable_twin() -> None:
    chunk = StreamChunk(
        "error",
        "API Error: Request rejected (429) · this may be a temporary capacity issue",
        is_error=True,
        metadata={"code": "rate_limit", "status": 429},
    )
    error = ClaudeCodeEndpoint().stream_error(chunk)
    assert type(error) is ProviderStreamQuotaError
    assert error.retryable


def test_billing_error_on_stderr_is_the_family_and_rate_limit_is_not() -> None:
    endpoint = ClaudeCodeEndpoint()
    billing = _stderr(endpoint)("error: billing_error", returncode=1)
    assert type(billing) is ProviderQuotaSpentError
    assert billing.retryable is False
    limited = _stderr(endpoint)("error: rate_limit", returncode=1)
    assert type(limited) is ProviderQuotaError
    assert limited.retryable is True


async def test_a_fake_claude_out_of_credit_fails_the_call_with_the_exhausted_twin(
    tmp_path: Path,
) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": _quota_events(), "exit_code": 1}), encoding="utf-8")
    async with iModel(endpoint=ClaudeCodeEndpoint(argv=replay_argv(plan))) as model:
        call = await model.invoke(prompt="hi")
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderStreamQuotaExhaustedError, repr(call.exception)
    assert "Credit balance is too low" in str(call.exception)
