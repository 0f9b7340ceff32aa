"""Codex's own wording for a server fault and for refused ChatGPT credentials or plan.

Codex 0.171.0 does not print the status of an HTTP 500: codex-rs maps it (and a 500 its
retries gave up on) to ``InternalServerError``, whose text is "We\u2019re currently
experiencing high demand, which may cause temporary errors." (``captures/codex-500.jsonl``,
the real binary against the fake server's ``500`` scenario). Without the codex pattern it was
an unclassified, never retried stream error, while a 502 or 504 ("exceeded retry limit, last
status: 502 ...") was the retryable server-fault family.

A ChatGPT sign-in whose refresh token expired, was reused or was revoked fails with "Your
access token could not be refreshed because your refresh token ... Please log out and sign in
again." (codex-rs ``RefreshTokenFailed``, which codex reports as ``Unauthorized``): the auth
family. A ChatGPT plan without Codex fails with "To use Codex with your ChatGPT plan, upgrade to
Plus: ..." (``UsageNotIncluded``, which codex reports as ``UsageLimitExceeded`` and never
retries): the spent-quota family. Both texts are in the 0.171.0 binary.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from codex_runs import captured_error, error_chunk, failed_run, stderr_only_failure

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.service import (
    EventStatus,
    ProviderAuthError,
    ProviderQuotaSpentError,
    ProviderServerFaultError,
    ProviderStreamAuthError,
    ProviderStreamError,
    ProviderStreamQuotaExhaustedError,
    ProviderStreamServerError,
    iModel,
)
from lionagi.service_testing import FakeProviderServer
from lionagi.service_testing.real_clis import require_real_cli
from lionagi.service_testing.real_tier import isolated_settings, scenario_url

HIGH_DEMAND = "We\u2019re currently experiencing high demand, which may cause temporary errors."
REFRESH_FAILED = tuple(
    "Your access token could not be refreshed because your refresh token "
    f"{reason}. Please log out and sign in again."
    for reason in ("has expired", "was already used", "was revoked")
)
NOT_INCLUDED = (
    "To use Codex with your ChatGPT plan, upgrade to Plus: https://chatgpt.com/explore/plus."
)


def _classify(message: str) -> ProviderStreamError:
    return CodexCliEndpoint().stream_error(error_chunk(failed_run(message)))


def test_the_captured_500_is_the_server_fault_twin() -> None:
    error = captured_error("codex-500.jsonl", HIGH_DEMAND)
    assert type(error) is ProviderStreamServerError, repr(error)
    assert error.retryable is True


def test_the_500_text_with_a_plain_apostrophe_is_the_family_too() -> None:
    assert type(_classify(HIGH_DEMAND.replace("\u2019", "'"))) is ProviderStreamServerError


@pytest.mark.parametrize("message", REFRESH_FAILED)
def test_a_refresh_token_codex_cannot_use_is_the_auth_twin(message: str) -> None:
    error = _classify(message)
    assert type(error) is ProviderStreamAuthError, repr(error)
    assert error.retryable is False


def test_a_plan_without_codex_is_the_spent_quota_twin() -> None:
    error = _classify(NOT_INCLUDED)
    assert type(error) is ProviderStreamQuotaExhaustedError, repr(error)
    assert error.retryable is False


@pytest.mark.parametrize(
    ("stderr", "family"),
    [
        (HIGH_DEMAND, ProviderServerFaultError),
        (REFRESH_FAILED[0], ProviderAuthError),
        (NOT_INCLUDED, ProviderQuotaSpentError),
    ],
)
async def test_on_stderr_only_the_same_texts_are_the_families(
    stderr: str, family: type[Exception], tmp_path: Path
) -> None:
    error = await stderr_only_failure(stderr, tmp_path)
    assert type(error) is family, repr(error)


@pytest.mark.real_cli
@pytest.mark.timeout(180)
async def test_the_real_codex_answered_500_fails_with_the_server_fault_twin(
    real_cli_marker: str, tmp_path: Path
) -> None:
    binary = require_real_cli("codex")
    with FakeProviderServer.running_in_thread() as server:
        settings = isolated_settings(
            binary,
            scenario_url(server, "500"),
            real_cli_marker,
            api_key="sk-fake-codex-key",
            cwd=tmp_path,
        )
        async with iModel(
            model="codex",
            request_defaults={"skip_git_repo_check": True},
            agentic_settings=settings,
        ) as model:
            call = await model.invoke(prompt="hi", timeout=60.0)
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderStreamServerError, repr(call.exception)
    assert "high demand" in str(call.exception)
