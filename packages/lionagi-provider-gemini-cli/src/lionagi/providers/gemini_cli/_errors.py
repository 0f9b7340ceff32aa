"""Gemini CLI's failure grammar: its exit codes and error names, mapped to typed errors.

Gemini CLI ends a headless run with a ``Fatal*Error`` whose class fixes the exit code (41 auth,
42 input, 44 sandbox, 52 config, 53 turn limit, 54 tool execution, 55 untrusted workspace, 130
cancelled); an API failure exits with the HTTP status modulo 256 (401 -> 145). In stream-json
mode most failures are also reported on the terminal ``result`` event (the adapter turns that
into one error chunk); a failure before the first event (no key, a bad ``--resume`` id, an
untrusted folder) is only an exit code and stderr, which :func:`classify_exit` maps.

Text is evidence before exit codes: the CLI's error names and core's phrases are searched first,
and an exit code decides only when no text matched.

Each ``Fatal*Error`` maps to core's failure family, so a caller tells a refused input
(:class:`~lionagi.service.ProviderInvalidRequestError`), a broken CLI configuration
(:class:`~lionagi.service.ProviderConfigError`) or a turn limit
(:class:`~lionagi.service.ProviderTurnLimitError`) from a transient failure however the CLI
reported it: as an exit code these vendor classes, as a failed ``result`` event the family's
``ProviderStream*`` twin. A quota the CLI calls terminal (Gemini CLI's ``TerminalQuotaError``:
the daily quota, a free-tier limit of 0, used-up credits) is :class:`GeminiQuotaExhaustedError`,
a vendor subclass of core's spent-quota family
(:class:`~lionagi.service.ProviderQuotaSpentError`), or, in a result event, that family's twin
:class:`~lionagi.service.ProviderStreamQuotaExhaustedError`; neither is retryable, unlike the
per-minute 429 the CLI asks to retry after a delay.
"""

from __future__ import annotations

from lionagi.service import (
    ProviderAuthError,
    ProviderCapacityError,
    ProviderConfigError,
    ProviderConnectionError,
    ProviderContentFilterError,
    ProviderDisconnectError,
    ProviderError,
    ProviderInvalidRequestError,
    ProviderPermissionError,
    ProviderProcessError,
    ProviderProtocolError,
    ProviderQuotaError,
    ProviderQuotaSpentError,
    ProviderTurnLimitError,
    classify_provider_error,
)
from lionagi.service.agentic import ProviderErrorPattern

__all__ = [
    "GEMINI_ERROR_PATTERNS",
    "GEMINI_EXIT_PATTERNS",
    "GeminiCancelledError",
    "GeminiConfigError",
    "GeminiInputError",
    "GeminiQuotaExhaustedError",
    "GeminiToolExecutionError",
    "GeminiTurnLimitError",
    "GeminiUntrustedWorkspaceError",
    "classify_exit",
]

PROVIDER_LABEL = "gemini_code"


QUOTA_EXHAUSTED_KIND = "quota_exhausted"
"""``kind`` of the rule that finds a quota the CLI calls terminal (core's spent-quota kind)."""


class GeminiInputError(ProviderInvalidRequestError):
    """Gemini CLI refused its input (exit 42), e.g. an unknown ``--resume`` session id."""


class GeminiConfigError(ProviderConfigError):
    """Gemini CLI's settings or sandbox are invalid (exit 52, or 44 for the sandbox)."""


class GeminiTurnLimitError(ProviderTurnLimitError):
    """The run hit the session's ``maxSessionTurns`` (exit 53)."""


class GeminiQuotaExhaustedError(ProviderQuotaSpentError):
    """A quota Gemini CLI calls terminal is used up: the daily quota, a limit of 0, credits.

    Core's spent-quota family (:class:`~lionagi.service.ProviderQuotaSpentError`, a
    :class:`~lionagi.service.ProviderQuotaError` that is not retryable): the CLI's own
    ``TerminalQuotaError``, which it never retries either, unlike the per-minute limit it
    asks to retry after a delay. Only stderr gives this class (a result event gives the
    family's twin, :class:`~lionagi.service.ProviderStreamQuotaExhaustedError`, through core's
    classification); exit code 173 alone (HTTP 429) cannot tell the two quotas apart and stays a
    plain ``ProviderQuotaError``.
    """


class GeminiToolExecutionError(ProviderError):
    """A tool failed fatally, e.g. no space left on the device (exit 54)."""


class GeminiUntrustedWorkspaceError(ProviderPermissionError):
    """The working directory is not trusted (exit 55); isolated mode trusts it."""


class GeminiCancelledError(ProviderError):
    """Gemini CLI was interrupted (exit 130)."""


def _http(status: int) -> int:
    """The exit code Gemini CLI uses for an API error with this HTTP status."""
    return status % 256


def _rule(
    kind: str,
    error_type: type[ProviderError],
    summary: str,
    *,
    text: str | None = None,
    codes: frozenset[int] = frozenset(),
) -> tuple[ProviderErrorPattern | None, ProviderErrorPattern | None]:
    by_text = ProviderErrorPattern(kind, error_type, text, summary=summary) if text else None
    by_code = (
        ProviderErrorPattern(kind, error_type, returncodes=codes, summary=summary)
        if codes
        else None
    )
    return by_text, by_code


_RULES = (
    # Before every other rule: a terminal quota's message also quotes the 429 wording.
    _rule(
        QUOTA_EXHAUSTED_KIND,
        GeminiQuotaExhaustedError,
        "quota used up",
        # Gemini CLI's TerminalQuotaError: its name (a result's error.type), its daily-quota
        # message, the Code Assist reasons it treats as terminal, and Google's "limit: 0" (a
        # model with no free-tier allowance), which the CLI also reads as terminal.
        text=(
            r"\bTerminalQuotaError\b|exhausted your daily quota|\bQUOTA_EXHAUSTED\b"
            r"|\bINSUFFICIENT_G1_CREDITS_BALANCE\b|quota exceeded[^\n]{0,300}?\blimit:\s*0(?![.\d])"
        ),
    ),
    _rule(
        "auth",
        ProviderAuthError,
        "authentication failed",
        text=r"FatalAuthenticationError",
        codes=frozenset({41, _http(401), _http(403)}),
    ),
    # Node's fetch when the API cannot be reached: "[API Error: exception TypeError: fetch failed
    # sending request]", what 0.61.0 prints for a refused connection and for a host name that
    # does not resolve alike. undici rejects fetch() with "fetch failed" only before a response
    # arrived (a body cut later is "terminated"), so nothing was answered: core's connection
    # family, retryable like an HTTP connect failure. Node's own codes for the same causes
    # (ECONNREFUSED, ENOTFOUND, ...) are core's phrases, read after these rules.
    _rule(
        "connection",
        ProviderConnectionError,
        "could not reach the model API",
        text=r"\bfetch failed\b",
    ),
    # The model's stream cut off: "[API Error: terminated]" (undici's abort of a body already
    # arriving), and Node's reset of the connection ("ECONNRESET", "socket hang up"), which may
    # come after the answer started. Core's disconnect family, never retried.
    _rule(
        "stream_disconnect",
        ProviderDisconnectError,
        "the model API's stream was cut off",
        text=r"\bECONNRESET\b|socket hang up|\[API Error: terminated\]",
    ),
    # A stream that ended before any candidate's finishReason, with no tool call: the CLI's
    # InvalidStreamError NO_FINISH_REASON, reported in its own words on an error event once
    # its mid-stream retries are spent. The cut core's Gemini HTTP adapter raises as a
    # protocol error; not retried, as the CLI already retried it.
    _rule(
        "protocol",
        ProviderProtocolError,
        "the model's stream ended without a finish reason",
        text=r"model stream ended without a finish reason",
    ),
    # An empty answer the model's safety or recitation filter stopped (finishReason SAFETY or
    # RECITATION): the CLI reports it only in its own words (SAFETY_BLOCKED_MESSAGE,
    # RECITATION_BLOCKED_MESSAGE) on an error event, then a failed result with no error object.
    # Core's content-filter family: the same content is refused again, so it is never retried.
    # OTHER ("blocked due to other policy settings") is left out: Gemini's OTHER names no cause.
    _rule(
        "content_filter",
        ProviderContentFilterError,
        "the model's response was blocked by its safety or recitation filter",
        text=r"model response was blocked due to (?:safety settings|recitation/copyright filters)",
    ),
    _rule(
        "quota", ProviderQuotaError, "quota or rate limit exhausted", codes=frozenset({_http(429)})
    ),
    _rule("capacity", ProviderCapacityError, "model at capacity", codes=frozenset({_http(503)})),
    _rule(
        "untrusted_workspace",
        GeminiUntrustedWorkspaceError,
        "the working directory is not a trusted folder",
        text=r"FatalUntrustedWorkspaceError",
        codes=frozenset({55}),
    ),
    _rule(
        "input", GeminiInputError, "input refused", text=r"FatalInputError", codes=frozenset({42})
    ),
    _rule(
        "config",
        GeminiConfigError,
        "configuration error",
        text=r"Fatal(?:Config|Sandbox)Error",
        codes=frozenset({44, 52}),
    ),
    _rule(
        "turn_limit",
        GeminiTurnLimitError,
        "session turn limit reached",
        text=r"FatalTurnLimitedError",
        codes=frozenset({53}),
    ),
    _rule(
        "tool_execution",
        GeminiToolExecutionError,
        "a tool failed fatally",
        # A result event names the tool's error type (``no_space_left``, the one fatal type)
        # rather than FatalToolExecutionError.
        text=r"FatalToolExecutionError|\bno_space_left\b",
        codes=frozenset({54}),
    ),
    _rule(
        "cancelled",
        GeminiCancelledError,
        "cancelled",
        text=r"FatalCancellationError",
        codes=frozenset({130}),
    ),
)

GEMINI_ERROR_PATTERNS: tuple[ProviderErrorPattern, ...] = tuple(t for t, _ in _RULES if t)
"""Text rules: Gemini CLI's ``Fatal*Error`` names (a result event's ``error.type``, stderr).

They are the endpoint's ``error_patterns`` and are checked before core's generic phrases.
"""

GEMINI_EXIT_PATTERNS: tuple[ProviderErrorPattern, ...] = tuple(c for _, c in _RULES if c)
"""Exit-code rules, used only when no text rule (vendor or generic) matched: a 42 whose
stderr quotes a refused key is still an auth error."""


def classify_exit(
    text: str, *, returncode: int | None = None, stderr_tail: str = ""
) -> ProviderError:
    """Core's ``ErrorClassifier`` for a gemini process that exited non-zero (text is redacted)."""
    error = classify_provider_error(
        text,
        returncode=returncode,
        stderr_tail=stderr_tail,
        provider=PROVIDER_LABEL,
        extra_patterns=GEMINI_ERROR_PATTERNS,
    )
    if returncode is None or type(error) is not ProviderProcessError:
        return error
    return classify_provider_error(
        text,
        returncode=returncode,
        stderr_tail=stderr_tail,
        provider=PROVIDER_LABEL,
        extra_patterns=GEMINI_EXIT_PATTERNS,
    )
