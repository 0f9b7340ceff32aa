"""A codex run whose account is out of quota or credit fails with the non-retryable family.

Codex prints its own texts for a spent quota (codex-rs ``protocol/src/error.rs``: ``QuotaExceeded``
"Quota exceeded. Check your plan and billing details.", a workspace "out of credits" or at its
"spend cap"), as an ``error`` event then ``turn.failed``, and exits 1. Core's classification read
them as the retryable quota family; codex itself never retries them. Nor does it retry its
ChatGPT-plan usage window ("You've hit your usage limit ... try again at 3:06 PM"), whose reset
is hours or days away: the codex package's own pattern makes it the spent family too, as an
event and on stderr. Plain rate-limit wording and the 429 codex's retries gave up on
(``captures/codex-429.jsonl``) stay the retryable family.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from codex_runs import error_chunk, failed_run

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.service import (
    EventStatus,
    ProviderQuotaError,
    ProviderQuotaSpentError,
    ProviderStreamQuotaError,
    ProviderStreamQuotaExhaustedError,
    iModel,
)
from lionagi.service_testing.conformance import replay_argv

CAPTURES = Path(__file__).parent / "captures"
QUOTA_EXCEEDED = "Quota exceeded. Check your plan and billing details."
OUT_OF_CREDITS = "Your workspace is out of credits. Add credits to continue."
USAGE_LIMIT = (
    "You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit "
    "https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 3:06 PM."
)
# Every variant of codex-rs ``UsageLimitReachedError``'s text (by plan, a named model's own
# limit, a reset on another day, no reset time).
USAGE_LIMITS = (
    USAGE_LIMIT,
    "You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase "
    "more credits or try again at Dec 9th, 2026 3:06 PM.",
    "You've hit your usage limit. To get more access now, send a request to your admin or try "
    "again at 3:06 PM.",
    "You've hit your usage limit. Upgrade to Plus to continue using Codex "
    "(https://chatgpt.com/explore/plus), or try again later.",
    "You've hit your usage limit for GPT-5.3-Codex-Spark. Switch to another model now, or try "
    "again at 3:06 PM.",
    "You've hit your usage limit. Try again later.",
)
# Rate limits, which a wait of seconds fixes: OpenAI's TPM message as codex relays it, the
# generic phrases, and the 429 codex's own retries gave up on.
RATE_LIMITS = (
    "Rate limit reached for gpt-5.2-codex in organization org-x on tokens per min (TPM): Limit "
    "30000, Used 29000, Requested 2000. Please try again in 2s.",
    "rate limit exceeded",
    "exceeded retry limit, last status: 429 Too Many Requests, request id: req_1",
)


@pytest.mark.parametrize("message", [QUOTA_EXCEEDED, OUT_OF_CREDITS])
def test_a_spent_quota_event_is_the_exhausted_twin(message: str) -> None:
    error = CodexCliEndpoint().stream_error(error_chunk(failed_run(message)))
    assert type(error) is ProviderStreamQuotaExhaustedError
    assert error.retryable is False


@pytest.mark.parametrize("message", USAGE_LIMITS)
def test_the_usage_window_is_the_exhausted_twin(message: str) -> None:
    error = CodexCliEndpoint().stream_error(error_chunk(failed_run(message)))
    assert type(error) is ProviderStreamQuotaExhaustedError
    assert error.retryable is False
    assert error.kind == "quota_exhausted"
    assert str(error) == message  # codex's text, with its reset time, as it came


@pytest.mark.parametrize("message", RATE_LIMITS)
def test_rate_limit_wording_stays_retryable(message: str) -> None:
    error = CodexCliEndpoint().stream_error(error_chunk(failed_run(message)))
    assert type(error) is ProviderStreamQuotaError
    assert error.retryable is True


def test_the_captured_429_stays_retryable() -> None:
    lines = (CAPTURES / "codex-429.jsonl").read_text(encoding="utf-8").splitlines()
    captured = [json.loads(line) for line in lines if line.strip()]
    assert type(CodexCliEndpoint().stream_error(error_chunk(captured))) is ProviderStreamQuotaError


async def _invoke(tmp_path: Path, **plan: Any) -> Any:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    async with iModel(endpoint=CodexCliEndpoint(argv=replay_argv(path))) as model:
        return await model.invoke(prompt="hi")


async def test_a_fake_codex_out_of_quota_fails_with_the_exhausted_twin(tmp_path: Path) -> None:
    call = await _invoke(tmp_path, events=failed_run(QUOTA_EXCEEDED), exit_code=1)
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderStreamQuotaExhaustedError, repr(call.exception)
    assert QUOTA_EXCEEDED in str(call.exception)


async def test_a_fake_codex_reporting_it_on_stderr_only_is_the_family(tmp_path: Path) -> None:
    # Before any event (codex prints "ERROR: <message>" and exits 1): classified from stderr.
    call = await _invoke(tmp_path, events=[], stderr=f"ERROR: {QUOTA_EXCEEDED}\n", exit_code=1)
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderQuotaSpentError, repr(call.exception)
    assert call.exception.returncode == 1
    assert call.exception.retryable is False


async def test_a_fake_codex_at_its_usage_limit_fails_not_retryable(tmp_path: Path) -> None:
    call = await _invoke(tmp_path, events=failed_run(USAGE_LIMIT), exit_code=1)
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderStreamQuotaExhaustedError, repr(call.exception)
    assert call.exception.retryable is False


async def test_the_usage_window_on_stderr_only_is_the_family(tmp_path: Path) -> None:
    # codex's own patterns also read stderr: core's phrases alone called it retryable there.
    call = await _invoke(tmp_path, events=[], stderr=f"ERROR: {USAGE_LIMIT}\n", exit_code=1)
    assert type(call.exception) is ProviderQuotaSpentError, repr(call.exception)
    assert call.exception.retryable is False
    assert call.exception.returncode == 1
    assert "3:06 PM" in str(call.exception)


async def test_a_rate_limit_on_stderr_only_stays_retryable(tmp_path: Path) -> None:
    call = await _invoke(tmp_path, events=[], stderr=f"ERROR: {RATE_LIMITS[0]}\n", exit_code=1)
    assert type(call.exception) is ProviderQuotaError, repr(call.exception)
    assert call.exception.retryable is True
