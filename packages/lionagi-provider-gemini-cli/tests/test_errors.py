"""Gemini CLI exit codes and stderr -> typed errors (a process that printed no result event)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lionagi.providers.gemini_cli import (
    GeminiCancelledError,
    GeminiConfigError,
    GeminiInputError,
    GeminiToolExecutionError,
    GeminiTurnLimitError,
    GeminiUntrustedWorkspaceError,
)
from lionagi.providers.gemini_cli._errors import classify_exit
from lionagi.service import (
    ProviderAuthError,
    ProviderCapacityError,
    ProviderError,
    ProviderPermissionError,
    ProviderProcessError,
    ProviderQuotaError,
)

CAPTURES = Path(__file__).parent / "captures"


@pytest.mark.parametrize(
    ("code", "error_type"),
    [
        (41, ProviderAuthError),
        (145, ProviderAuthError),  # 401 % 256
        (147, ProviderAuthError),  # 403 % 256
        (173, ProviderQuotaError),  # 429 % 256
        (247, ProviderCapacityError),  # 503 % 256
        (42, GeminiInputError),
        (44, GeminiConfigError),
        (52, GeminiConfigError),
        (53, GeminiTurnLimitError),
        (54, GeminiToolExecutionError),
        (55, GeminiUntrustedWorkspaceError),
        (130, GeminiCancelledError),
    ],
)
def test_exit_codes_map_to_typed_errors(code: int, error_type: type[ProviderError]) -> None:
    error = classify_exit("Warning: Basic terminal detected", returncode=code)
    assert type(error) is error_type
    assert error.returncode == code


def test_untrusted_workspace_is_a_permission_error() -> None:
    assert issubclass(GeminiUntrustedWorkspaceError, ProviderPermissionError)


def test_other_exit_codes_stay_process_errors() -> None:
    error = classify_exit("something odd", returncode=1)
    assert type(error) is ProviderProcessError


def test_text_beats_the_exit_code() -> None:
    stderr = (CAPTURES / "gemini-fake-401.stderr").read_text()
    assert type(classify_exit(stderr, returncode=42)) is ProviderAuthError


def test_captured_no_key_exit_is_auth() -> None:
    stderr = (CAPTURES / "gemini-p-nokey.stderr").read_text()
    error = classify_exit(stderr, returncode=41)
    assert isinstance(error, ProviderAuthError)
    assert "GEMINI_API_KEY" in str(error)


def test_captured_401_stderr_is_auth() -> None:
    stderr = (CAPTURES / "gemini-fake-401.stderr").read_text()
    assert isinstance(classify_exit(stderr, returncode=145), ProviderAuthError)
