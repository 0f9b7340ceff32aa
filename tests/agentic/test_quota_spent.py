"""A spent quota or credit is its own family, told from a rate limit by core, for every adapter.

"Slow down and retry" (``ProviderQuotaError``, ``ProviderStreamQuotaError``) and "the account's
quota or credit is used up" (``ProviderQuotaSpentError``, its stream twin
``ProviderStreamQuotaExhaustedError``) were one retryable family in core's classification: a
CLI (codex, pi, claude) or an HTTP error chunk reporting a spent balance read ``retryable=True``,
and only Gemini CLI, through a vendor special case, got the non-retryable class.

Each text names its source. "OpenAI" texts are the API's documented ``insufficient_quota``
answer (the Responses stream's ``error`` event carries the same message and code); "codex" texts
are codex-rs ``protocol/src/error.rs``; "Google" texts are the Gemini API's 429 bodies as
relayed verbatim by clients.
"""

from __future__ import annotations

import copy
import pickle

import pytest

import lionagi.service as service
from lionagi.service import (
    ProviderClientError,
    ProviderQuotaError,
    ProviderQuotaExhaustedError,
    ProviderQuotaSpentError,
    ProviderRateLimitError,
    ProviderStatusError,
    ProviderStreamError,
    ProviderStreamQuotaError,
    ProviderStreamQuotaExhaustedError,
    classify_provider_error,
    classify_stream_error,
)
from lionagi.service.agentic import ProviderErrorPattern

OPENAI_INSUFFICIENT_QUOTA = (
    "You exceeded your current quota, please check your plan and billing details. For more "
    "information on this error, read the docs: "
    "https://platform.openai.com/docs/guides/error-codes/api-errors."
)
GOOGLE_PREFIX = (
    "You exceeded your current quota, please check your plan and billing details. For more "
    "information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. "
    "To monitor your current usage, head to: https://ai.dev/rate-limit. \n"
)
# Google: a model with no free-tier allowance at all ("limit: 0"); no wait changes it.
GOOGLE_LIMIT_ZERO = GOOGLE_PREFIX + (
    "* Quota exceeded for metric: generativelanguage.googleapis.com/"
    "generate_content_free_tier_requests, limit: 0, model: gemini-2.0-flash"
)
# Google: the per-minute limit, in the same opening sentence as OpenAI's billing error.
GOOGLE_PER_MINUTE = GOOGLE_PREFIX + (
    "* Quota exceeded for metric: generativelanguage.googleapis.com/"
    "generate_content_free_tier_requests, limit: 5, model: gemini-2.5-flash\n"
    "Please retry in 20.70617005s."
)
# codex: a ChatGPT Plus plan's usage window; it resets at the time it names.
CODEX_USAGE_LIMIT = (
    "You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit "
    "https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 3:06 PM."
)

SPENT = [
    pytest.param(OPENAI_INSUFFICIENT_QUOTA, id="OpenAI insufficient_quota message"),
    pytest.param(f"429 {OPENAI_INSUFFICIENT_QUOTA}", id="OpenAI message as pi relays it"),
    pytest.param('{"error":{"code":"insufficient_quota"}}', id="OpenAI code"),
    pytest.param("billing_hard_limit_reached", id="OpenAI hard billing limit code"),
    pytest.param("Quota exceeded. Check your plan and billing details.", id="codex QuotaExceeded"),
    pytest.param(
        "Your workspace is out of credits. Add credits to continue.", id="codex out of credits"
    ),
    pytest.param(
        "You hit your spend cap set in your workspace. Increase your spend cap to continue.",
        id="codex spend cap",
    ),
    pytest.param(
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & "
        "Billing to upgrade or purchase credits.",
        id="Anthropic credit balance",
    ),
    pytest.param("Credit balance is too low", id="claude capture quota.jsonl"),
    pytest.param("Insufficient Balance", id="DeepSeek 402"),
    pytest.param(
        "[API Error: You have exhausted your daily quota on this model.]", id="Gemini CLI daily"
    ),
    pytest.param(GOOGLE_LIMIT_ZERO, id="Google limit 0"),
]

RATE_LIMITED = [
    pytest.param("429 Rate limit reached for requests. Please try again later.", id="pi 429"),
    pytest.param(GOOGLE_PER_MINUTE, id="Google per-minute"),
    pytest.param(
        "You exceeded your current quota, please check your plan and billing details.",
        id="the shared sentence alone",
    ),
    pytest.param(CODEX_USAGE_LIMIT, id="codex usage window"),
    pytest.param("You've hit your usage limit. Try again at 3:05 PM.", id="codex other plans"),
    pytest.param("usage limit reached", id="table"),
    pytest.param(
        '[API Error: {"error":{"code":429,"message":"Resource has been exhausted (e.g. check '
        'quota).","status":"RESOURCE_EXHAUSTED"}}]',
        id="Gemini resource exhausted",
    ),
    pytest.param(
        GOOGLE_PER_MINUTE.replace("limit: 5", "limit: 0.5"), id="a limit that is not zero"
    ),
]


# -- the classes ---------------------------------------------------------------------------------


def test_the_family_is_public_and_takes_the_pattern_constructor() -> None:
    assert "ProviderQuotaSpentError" in service.__all__
    assert ProviderQuotaSpentError.__module__ == "lionagi.service._base.errors"
    error = ProviderQuotaSpentError("codex: quota used up", stderr_tail="tail", raw="raw")
    assert (error.stderr_tail, error.raw, error.retryable) == ("tail", "raw", False)
    # a vendor pattern can name it (ProviderStatusError subclasses are refused there)
    ProviderErrorPattern("quota_exhausted", ProviderQuotaSpentError, r"out of credits")


def test_every_form_is_the_family_and_a_quota_error_but_never_a_rate_limit() -> None:
    for cls in (ProviderQuotaSpentError, ProviderQuotaExhaustedError,
                ProviderStreamQuotaExhaustedError):  # fmt: skip
        assert issubclass(cls, ProviderQuotaSpentError)
        assert issubclass(cls, ProviderQuotaError)
        assert not cls.retryable
        assert not issubclass(cls, ProviderRateLimitError | ProviderStreamQuotaError)
    assert not issubclass(ProviderQuotaSpentError, ProviderStreamError | ProviderStatusError)
    # the HTTP form keeps its status fields and client-error family
    http = ProviderQuotaExhaustedError("billing", status=429, body_excerpt="b")
    assert isinstance(http, ProviderClientError)
    assert (http.status, http.body_excerpt) == (429, "b")
    assert ProviderQuotaError.retryable and ProviderStreamQuotaError.retryable  # unchanged


@pytest.mark.parametrize("clone", [lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy])
def test_the_family_round_trips(clone) -> None:  # type: ignore[no-untyped-def]
    error = classify_provider_error("Credit balance is too low", returncode=1, provider="claude")
    back = clone(error)
    assert type(back) is ProviderQuotaSpentError
    assert (str(back), back.raw, back.returncode) == (str(error), error.raw, 1)


# -- a CLI's text or exit ------------------------------------------------------------------------


@pytest.mark.parametrize("text", SPENT)
def test_a_spent_quota_from_a_cli_is_not_retryable(text: str) -> None:
    error = classify_provider_error(text, returncode=1, stderr_tail=text, provider="cli")
    assert type(error) is ProviderQuotaSpentError
    assert error.retryable is False
    assert error.returncode == 1
    assert str(error).startswith("cli: quota or credit used up (exit code 1)")


@pytest.mark.parametrize("text", RATE_LIMITED)
def test_a_rate_limit_from_a_cli_stays_retryable(text: str) -> None:
    error = classify_provider_error(text, provider="cli")
    assert type(error) is ProviderQuotaError
    assert error.retryable is True


# -- an error chunk (an agentic CLI's error event, an HTTP stream's error object) -----------------


@pytest.mark.parametrize("text", SPENT)
def test_a_spent_quota_in_an_error_chunk_is_the_exhausted_twin(text: str) -> None:
    error = classify_stream_error(text, {"status": 429}, provider="p")
    assert type(error) is ProviderStreamQuotaExhaustedError
    assert (error.kind, error.status, error.retryable) == ("quota_exhausted", 429, False)


@pytest.mark.parametrize("text", RATE_LIMITED)
def test_a_rate_limit_in_an_error_chunk_stays_the_retryable_twin(text: str) -> None:
    error = classify_stream_error(text, {"status": 429}, provider="p")
    assert type(error) is ProviderStreamQuotaError
    assert error.kind == "quota"


@pytest.mark.parametrize(
    "metadata",
    [
        # OpenAI's Responses stream: ``{"type":"error","code":"insufficient_quota",...}``; chat
        # completions' error object as core's projector makes it a chunk (code, then type).
        {"code": "insufficient_quota"},
        {"code": "insufficient_quota", "type": "insufficient_quota", "status": 429},
        {"code": "billing_hard_limit_reached"},
        # No words at all, but HTTP 402 Payment Required.
        {"status": 402},
    ],
)
def test_the_code_or_a_402_alone_decides(metadata: dict[str, object]) -> None:
    error = classify_stream_error("request failed", metadata)
    assert type(error) is ProviderStreamQuotaExhaustedError


def test_a_vendor_subclass_of_the_family_gets_the_exhausted_twin() -> None:
    class VendorCreditsError(ProviderQuotaSpentError):
        pass

    rule = ProviderErrorPattern("credits", VendorCreditsError, r"wallet empty")
    chunk = classify_stream_error("wallet empty; rate limit exceeded", extra_patterns=[rule])
    assert type(chunk) is ProviderStreamQuotaExhaustedError
    assert chunk.kind == "credits"
    stderr = classify_provider_error("wallet empty", returncode=2, extra_patterns=[rule])
    assert type(stderr) is VendorCreditsError
    assert stderr.retryable is False
