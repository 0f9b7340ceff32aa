"""Gemini CLI's ``Fatal*Error`` kinds and its terminal quota keep their meaning for the caller.

Every ``Fatal*Error`` but authentication and an untrusted folder was a bare ``ProviderError``
(exit code) or a bare ``ProviderStreamError`` (result event): a refused input, a broken CLI
configuration and a turn limit read like any other failure. And a used-up daily quota (the
CLI's ``TerminalQuotaError``, which the CLI itself never retries) was a retryable
``ProviderStreamQuotaError``, the same as a per-minute 429. The texts follow Gemini CLI's
sources (``packages/core/src/utils/errors.ts`` for the ``Fatal*`` names and exit codes,
``googleQuotaErrors.ts`` for the terminal quota, ``errorParsing.ts`` for how a result event
words it).
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.providers.gemini_cli import (
    GeminiCodeEndpoint,
    GeminiConfigError,
    GeminiEventProjector,
    GeminiInputError,
    GeminiQuotaExhaustedError,
    GeminiToolExecutionError,
    GeminiTurnLimitError,
)
from lionagi.providers.gemini_cli._errors import classify_exit
from lionagi.service import (
    ProviderConfigError,
    ProviderError,
    ProviderInvalidRequestError,
    ProviderQuotaError,
    ProviderStreamError,
    ProviderStreamQuotaError,
    ProviderStreamQuotaExhaustedError,
    ProviderTurnLimitError,
    StreamChunk,
)

RATE_LIMIT_TAIL = (
    "\nPlease wait and try again later. To increase your limits, request a quota increase "
    "through AI Studio, or switch to another /auth method"
)


def failed_result(error_type: str, message: str) -> StreamChunk:
    """The error chunk the projector makes of a failed ``result`` event."""
    event: dict[str, Any] = {
        "type": "result",
        "status": "error",
        "error": {"type": error_type, "message": message},
        "stats": {"total_tokens": 0, "input_tokens": 0, "output_tokens": 0},
    }
    (chunk,) = GeminiEventProjector().project(event)
    assert chunk.type == "error"
    return chunk


# -- exit codes: the vendor classes are core's families ---------------------------------------


@pytest.mark.parametrize(
    ("code", "vendor", "family"),
    [
        (42, GeminiInputError, ProviderInvalidRequestError),
        (44, GeminiConfigError, ProviderConfigError),
        (52, GeminiConfigError, ProviderConfigError),
        (53, GeminiTurnLimitError, ProviderTurnLimitError),
    ],
)
def test_an_exit_code_is_typed_by_its_family(
    code: int, vendor: type[ProviderError], family: type[ProviderError]
) -> None:
    error = classify_exit("Warning: Basic terminal detected", returncode=code)
    assert type(error) is vendor
    assert isinstance(error, family)  # ``except ProviderInvalidRequestError`` catches exit 42
    assert not error.retryable


def test_a_terminal_quota_on_stderr_is_never_retryable() -> None:
    stderr = "[API Error: You have exhausted your daily quota on this model.]" + RATE_LIMIT_TAIL
    error = classify_exit(stderr, returncode=173)  # 429 % 256
    assert type(error) is GeminiQuotaExhaustedError
    assert isinstance(error, ProviderQuotaError)
    assert not error.retryable


def test_exit_173_alone_stays_a_retryable_quota_error() -> None:
    # Without the CLI's words the two quotas cannot be told apart: the rate limit is the guess
    # the exit code already made.
    error = classify_exit("Warning: Basic terminal detected", returncode=173)
    assert type(error) is ProviderQuotaError
    assert error.retryable


def test_a_fatal_tool_failure_in_a_result_names_its_tool_error_type() -> None:
    # The CLI reports FatalToolExecutionError with the tool's own error type, no_space_left.
    error = classify_exit("Error executing tool write_file: no_space_left", returncode=1)
    assert type(error) is GeminiToolExecutionError


# -- a terminal quota in a result event ----------------------------------------------------------


@pytest.mark.parametrize(
    ("error_type", "message"),
    [
        # TerminalQuotaError for a per-day QuotaFailure: the CLI's own message.
        ("unknown", "[API Error: You have exhausted your daily quota on this model.]"),
        ("TerminalQuotaError", "[API Error: You have exhausted your daily quota on this model.]"),
        # Google's free-tier "limit: 0", which the CLI also treats as terminal.
        (
            "unknown",
            "[API Error: Quota exceeded for metric: generativelanguage.googleapis.com/"
            "generate_content_free_tier_requests, limit: 0, model: gemini-2.5-pro]",
        ),
        # Code Assist's terminal reasons.
        ("TerminalQuotaError", "[API Error: QUOTA_EXHAUSTED]"),
        ("unknown", "[API Error: Insufficient credits (INSUFFICIENT_G1_CREDITS_BALANCE)]"),
    ],
)
def test_a_used_up_quota_is_the_exhausted_twin(error_type: str, message: str) -> None:
    chunk = failed_result(error_type, message + RATE_LIMIT_TAIL)
    raised = GeminiCodeEndpoint().stream_error(chunk)  # what invoke() and stream() raise
    assert type(raised) is ProviderStreamQuotaExhaustedError
    assert isinstance(raised, ProviderQuotaError)
    assert not isinstance(raised, ProviderStreamQuotaError)  # not "slow down and retry"
    assert not raised.retryable
    assert raised.kind == "quota_exhausted"
    assert raised.provider == "gemini_code"
    assert raised.raw  # the fields survive the retyping


def test_a_terminal_quota_keeps_the_delay_the_cli_named() -> None:
    # A RetryInfo delay beyond the CLI's patience is terminal too; the delay still reaches
    # retry_after for a caller scheduling its own later attempt.
    message = (
        "[API Error: You have exhausted your daily quota on this model.\n"
        "Suggested retry after 3600s.]"
    )
    raised = GeminiCodeEndpoint().stream_error(failed_result("TerminalQuotaError", message))
    assert type(raised) is ProviderStreamQuotaExhaustedError
    assert raised.retry_after == 3600.0


@pytest.mark.parametrize(
    "message",
    [
        "[API Error: Resource has been exhausted (e.g. check quota).\nSuggested retry after 1s.]",
        "[API Error: Quota exceeded for metric: x, limit: 10. Please retry in 12.3s.]",
    ],
)
def test_a_rate_limit_stays_the_retryable_twin(message: str) -> None:
    raised = GeminiCodeEndpoint().stream_error(failed_result("unknown", message + RATE_LIMIT_TAIL))
    assert type(raised) is ProviderStreamQuotaError
    assert raised.retryable


@pytest.mark.parametrize(
    ("error_type", "message"),
    [
        ("no_space_left", "Error executing tool write_file: No space left on device"),
        ("FatalCancellationError", "Operation cancelled."),
    ],
)
def test_a_fatal_tool_failure_or_a_cancellation_stays_a_plain_stream_error(
    error_type: str, message: str
) -> None:
    # No family fits either: a full disk is the machine's state, a cancellation the caller's.
    raised = GeminiCodeEndpoint().stream_error(failed_result(error_type, message))
    assert type(raised) is ProviderStreamError
    assert raised.code == error_type
    assert not raised.retryable


# -- the terminal quota is core's spent-quota family, not a vendor special case -------------------


def test_the_vendor_class_is_core_s_spent_quota_family() -> None:
    from lionagi.service import ProviderQuotaSpentError

    assert issubclass(GeminiQuotaExhaustedError, ProviderQuotaSpentError)
    assert not GeminiQuotaExhaustedError.retryable


def test_core_s_classification_alone_gives_the_exhausted_twin() -> None:
    # Any caller of core's classify_stream_error with the vendor's patterns (the endpoint
    # itself, a consumer of the chunks) gets the twin: no stream_error override retypes it.
    from lionagi.providers.gemini_cli import GEMINI_ERROR_PATTERNS
    from lionagi.service import classify_stream_error

    chunk = failed_result("TerminalQuotaError", "[API Error: QUOTA_EXHAUSTED]")
    raised = classify_stream_error(
        chunk.content, chunk.metadata, extra_patterns=GEMINI_ERROR_PATTERNS
    )
    assert type(raised) is ProviderStreamQuotaExhaustedError
    assert raised.kind == "quota_exhausted"
