"""A pi run whose account is out of quota or credit fails with the non-retryable family.

pi relays the model API's error text as the assistant message's ``errorMessage`` (``stopReason``
``error``) and exits 0. ``captures/429.jsonl`` is pi's real run against a rate limit; the runs
here are that capture with the ``errorMessage`` of a spent account instead: OpenAI's documented
``insufficient_quota`` answer and Anthropic's "credit balance is too low", as pi prints them
("<status> <message>"). Core's classification read both as the retryable quota family.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.pi import PiCliEndpoint
from lionagi.providers.pi._events import PiEventProjector
from lionagi.service import (
    EventStatus,
    ProviderStreamQuotaError,
    ProviderStreamQuotaExhaustedError,
    StreamChunk,
    iModel,
)
from lionagi.service_testing.conformance import replay_argv

CAPTURES = Path(__file__).resolve().parent / "captures"
RATE_LIMIT = "429 Rate limit reached for requests. Please try again later."
OPENAI_SPENT = (
    "429 You exceeded your current quota, please check your plan and billing details. For more "
    "information on this error, read the docs: "
    "https://platform.openai.com/docs/guides/error-codes/api-errors."
)
ANTHROPIC_SPENT = (
    '400 {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance '
    "is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or "
    'purchase credits."}}'
)


def _run(error_message: str) -> list[dict[str, Any]]:
    """pi's captured 429 run, its ``errorMessage`` replaced (every event repeats it)."""
    text = (CAPTURES / "429.jsonl").read_text(encoding="utf-8")
    assert RATE_LIMIT in text
    lines = text.replace(RATE_LIMIT, error_message.replace('"', '\\"')).splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _error_chunk(events: list[dict[str, Any]]) -> StreamChunk:
    projector = PiEventProjector()
    chunks = [chunk for event in events for chunk in projector.feed(event)]
    (error,) = [c for c in chunks + projector.finish() if c.type == "error"]
    return error


@pytest.mark.parametrize("message", [OPENAI_SPENT, ANTHROPIC_SPENT], ids=["openai", "anthropic"])
def test_a_spent_account_is_the_exhausted_twin(message: str) -> None:
    error = PiCliEndpoint().stream_error(_error_chunk(_run(message)))
    assert type(error) is ProviderStreamQuotaExhaustedError
    assert error.retryable is False


def test_the_captured_rate_limit_stays_retryable() -> None:
    assert type(PiCliEndpoint().stream_error(_error_chunk(_run(RATE_LIMIT)))) is (
        ProviderStreamQuotaError
    )


async def test_a_fake_pi_out_of_quota_fails_with_the_exhausted_twin(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": _run(OPENAI_SPENT), "exit_code": 0}), encoding="utf-8")
    async with iModel(endpoint=PiCliEndpoint(argv=replay_argv(plan))) as model:
        call = await model.invoke(prompt="hi")
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderStreamQuotaExhaustedError, repr(call.exception)
    assert call.exception.status == 429
