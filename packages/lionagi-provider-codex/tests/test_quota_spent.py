"""A codex run whose account is out of quota or credit fails with the non-retryable family.

Codex prints its own texts for a spent quota (codex-rs ``protocol/src/error.rs``: ``QuotaExceeded``
"Quota exceeded. Check your plan and billing details.", a workspace "out of credits" or at its
"spend cap"), as an ``error`` event then ``turn.failed``, and exits 1. Core's classification read
them as the retryable quota family; codex itself never retries them. Its ChatGPT-plan usage
window ("You've hit your usage limit ... try again at 3:06 PM") and the 429 its retries gave up
on (``captures/codex-429.jsonl``) stay the retryable family.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.providers.codex._events import CodexEventParser
from lionagi.service import (
    EventStatus,
    ProviderQuotaSpentError,
    ProviderStreamQuotaError,
    ProviderStreamQuotaExhaustedError,
    StreamChunk,
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


def _failed_run(message: str) -> list[dict[str, Any]]:
    """The events ``codex exec --json`` prints for a turn the API refused."""
    return [
        {"type": "thread.started", "thread_id": "019a0000-0000-7000-8000-0000000000b2"},
        {"type": "turn.started"},
        {"type": "error", "message": message},
        {"type": "turn.failed", "error": {"message": message}},
    ]


def _error_chunk(events: list[dict[str, Any]]) -> StreamChunk:
    parser = CodexEventParser(model="m")
    for event in events:
        for chunk in parser.feed(event):
            if chunk.type == "error":
                return chunk
    raise AssertionError("no error chunk")


@pytest.mark.parametrize("message", [QUOTA_EXCEEDED, OUT_OF_CREDITS])
def test_a_spent_quota_event_is_the_exhausted_twin(message: str) -> None:
    error = CodexCliEndpoint().stream_error(_error_chunk(_failed_run(message)))
    assert type(error) is ProviderStreamQuotaExhaustedError
    assert error.retryable is False


def test_the_usage_window_and_the_captured_429_stay_retryable() -> None:
    window = CodexCliEndpoint().stream_error(_error_chunk(_failed_run(USAGE_LIMIT)))
    assert type(window) is ProviderStreamQuotaError
    lines = (CAPTURES / "codex-429.jsonl").read_text(encoding="utf-8").splitlines()
    captured = [json.loads(line) for line in lines if line.strip()]
    assert type(CodexCliEndpoint().stream_error(_error_chunk(captured))) is ProviderStreamQuotaError


async def _invoke(tmp_path: Path, **plan: Any) -> Any:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    async with iModel(endpoint=CodexCliEndpoint(argv=replay_argv(path))) as model:
        return await model.invoke(prompt="hi")


async def test_a_fake_codex_out_of_quota_fails_with_the_exhausted_twin(tmp_path: Path) -> None:
    call = await _invoke(tmp_path, events=_failed_run(QUOTA_EXCEEDED), exit_code=1)
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
