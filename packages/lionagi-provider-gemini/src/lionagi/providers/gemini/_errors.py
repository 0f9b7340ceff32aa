"""Gemini's error vocabulary (``google.rpc.Status`` bodies) into core's typed error tree.

Google APIs answer ``{"error": {"code", "message", "status", "details"}}``; the string
``status`` says what the HTTP status alone cannot:

- ``RESOURCE_EXHAUSTED`` (429) -> :class:`ProviderRateLimitError`, its ``retry_after`` taken from
  the ``google.rpc.RetryInfo`` detail's ``retryDelay`` (a protobuf Duration, ``"13s"``), else
  from a ``Retry-After`` header. Gemini reports per-minute and per-day quota alike this way;
  when the ``google.rpc.QuotaFailure`` detail names only per-day quotas (``quotaId``
  ``...PerDay...``) the error is :class:`ProviderQuotaExhaustedError` instead, never retried:
  Google still attaches a ``retryDelay`` of seconds, and every retry within the day fails the
  same way. So is a message naming a quota whose ``limit`` is 0 ("Quota exceeded for metric:
  ..., limit: 0": a model with no allowance at all on this tier), which core's classification
  reads the same way in a stream's error chunk. A per-minute (or unnamed) violation stays a
  retryable rate limit. The per-day rule is :func:`spent_daily_quotas`, read by the status path
  and by the stream projectors' error chunk alike (the chunk's ``type`` becomes
  :data:`DAILY_QUOTA_TYPE`, which :data:`DAILY_QUOTA_PATTERN` classifies as the spent family),
  so an error event in a stream, or a 2xx body ``invoke()`` checks, is not retried either; a
  retryable one there keeps its ``retryDelay`` as the chunk's ``retry_after``
  (`quota_retry_delay`), so its retry waits as the HTTP 429's does.
- ``INVALID_ARGUMENT`` whose message says the input is over the model's token limit ->
  :class:`ProviderStatusContextError` (the prompt will not fit however often it is sent).
- ``UNAUTHENTICATED`` / ``PERMISSION_DENIED`` (and any 401/403) ->
  :class:`ProviderUnauthorizedError`; an invalid key is a 400 ``INVALID_ARGUMENT`` with reason
  ``API_KEY_INVALID`` on this API, mapped the same way.
- ``UNAVAILABLE`` (503, "The model is overloaded") -> :class:`ProviderStatusCapacityError`.
- ``NOT_FOUND`` (404) whose message names the model (``models/<name> is not found for API
  version v1beta, or is not supported for generateContent ...``) ->
  :class:`ProviderStatusUnsupportedModelError`, never retried: the same name is refused again.
  A 404 naming anything else (a wrong path, a file) stays a plain client error.

A prompt the API refuses outright is no error status: ``generateContent`` answers HTTP 200 with
``promptFeedback.blockReason`` and no candidate. The projector turns it into an error object of
``type`` ``prompt_blocked`` (:data:`BLOCKED_PROMPT_TYPE`), which the endpoint's
``error_patterns`` classify as a :class:`ProviderStreamContentFilterError`: the caller's content
was refused, so it is neither retried nor counted against the circuit.

The compatibility layer (``/v1beta/openai``) sends the same object, sometimes wrapped in a
one-element list; both shapes are read. Messages carry only the redacted excerpt.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from lionagi.service import (
    ProviderError,
    ProviderQuotaExhaustedError,
    ProviderQuotaSpentError,
    ProviderRateLimitError,
    ProviderStatusCapacityError,
    ProviderStatusContextError,
    ProviderUnauthorizedError,
)
from lionagi.service.http import HTTPErrorInfo, ProviderErrorPattern

__all__ = [
    "BLOCKED_PROMPT_TYPE",
    "DAILY_QUOTA_PATTERN",
    "DAILY_QUOTA_TYPE",
    "gemini_error_object",
    "gemini_status_error",
    "quota_retry_delay",
    "retry_delay_seconds",
    "spent_daily_quotas",
]

# The ``type`` of the error object a blocked prompt becomes (see ``blocked_prompt_error``).
BLOCKED_PROMPT_TYPE = "prompt_blocked"
# The ``type`` a stream's error chunk carries when its error object is a used-up daily quota
# (:func:`spent_daily_quotas`): the verdict, in the one field core's classification reads besides
# the message and code. It replaces the status word ``RESOURCE_EXHAUSTED``, which says less.
DAILY_QUOTA_TYPE = "daily_quota_exhausted"
# Its classification: the spent-quota family (never retried, neutral for the circuit), matched on
# the whole label only, so no message text can select it.
DAILY_QUOTA_PATTERN = ProviderErrorPattern(
    "quota_exhausted",
    ProviderQuotaSpentError,
    rf"(?:^|\n){DAILY_QUOTA_TYPE}(?:\n|$)",
    summary="the daily quota is used up",
)

_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"
_ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
_QUOTA_FAILURE = "type.googleapis.com/google.rpc.QuotaFailure"
_PER_DAY = re.compile(r"PerDay", re.IGNORECASE)
# "* Quota exceeded for metric: generativelanguage.googleapis.com/..., limit: 0, model: ...".
_NO_ALLOWANCE = re.compile(r"quota exceeded for metric[^\n]{0,300}?\blimit:\s*0(?![.\d])", re.I)
_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)s\s*")
# The token-limit wording: "The input token count (N) exceeds the maximum number of tokens
# allowed (M)", and the older "... exceeds the maximum ... token limit".
_CONTEXT_TEXT = re.compile(r"token count.*exceeds|exceeds the maximum.*tokens?", re.IGNORECASE)
# "models/<name> is not found for API version v1beta, or is not supported for generateContent."
_UNKNOWN_MODEL_TEXT = re.compile(r"\s*models/\S+ is not found\b")
_AUTH_STATUSES = frozenset({"UNAUTHENTICATED", "PERMISSION_DENIED"})
_AUTH_REASONS = frozenset({"API_KEY_INVALID", "API_KEY_SERVICE_BLOCKED", "API_KEY_EXPIRED"})


def gemini_error_object(body: object) -> Mapping[str, Any]:
    """The ``error`` object of a Google error body (also inside a one-element list), else ``{}``."""
    if isinstance(body, list) and len(body) == 1:
        body = body[0]
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict):
            return inner
    return {}


def retry_delay_seconds(error: Mapping[str, Any]) -> float | None:
    """Seconds from the ``google.rpc.RetryInfo`` detail's ``retryDelay``, if one is given.

    A Duration is a decimal number of seconds with an ``s`` suffix; anything else is not a
    delay (None), never guessed.
    """
    for detail in _details(error, _RETRY_INFO):
        delay = detail.get("retryDelay")
        if isinstance(delay, str):
            match = _DURATION.fullmatch(delay)
            if match:
                seconds = float(match.group(1))
                return seconds if math.isfinite(seconds) else None
    return None


def _details(error: Mapping[str, Any], kind: str) -> list[Mapping[str, Any]]:
    """The error's ``details`` entries whose ``@type`` is ``kind`` (malformed entries skipped)."""
    details = error.get("details")
    if not isinstance(details, list):
        return []
    return [d for d in details if isinstance(d, dict) and d.get("@type") == kind]


def _reasons(error: Mapping[str, Any]) -> set[str]:
    return {str(d["reason"]) for d in _details(error, _ERROR_INFO) if d.get("reason")}


def _quota_ids(error: Mapping[str, Any]) -> list[str]:
    """The ``quotaId`` of every violation in the error's ``google.rpc.QuotaFailure`` details.

    A violation without a string ``quotaId`` is listed as ``""``: it names no quota, so it
    cannot be shown to be a per-day one.
    """
    found: list[str] = []
    for detail in _details(error, _QUOTA_FAILURE):
        violations = detail.get("violations")
        for violation in violations if isinstance(violations, list) else ():
            quota = violation.get("quotaId") if isinstance(violation, dict) else None
            found.append(quota if isinstance(quota, str) else "")
    return found


def _resource_exhausted(error: Mapping[str, Any], status: int | None) -> bool:
    """Google's quota status word, or (a body without one) HTTP 429."""
    word = error.get("status")
    return word == "RESOURCE_EXHAUSTED" or (status == 429 and not word)


def spent_daily_quotas(error: Mapping[str, Any], status: int | None) -> tuple[str, ...]:
    """The per-day quotas a used-up daily quota names (sorted, once each); else ``()``.

    The one per-day rule, for an HTTP status and for a stream's error object alike: ``error``
    is a Google ``error`` object, ``status`` the HTTP status (the response's, or the object's
    integer ``code`` in a stream). It is a daily quota only when the error is a quota error
    (``RESOURCE_EXHAUSTED``, or a 429 naming no status) and every ``QuotaFailure`` violation
    names a per-day quota: one per-minute or unnamed violation keeps it a rate limit, which a
    wait does fix.
    """
    if not _resource_exhausted(error, status):
        return ()
    quotas = _quota_ids(error)
    if quotas and all(_PER_DAY.search(q) for q in quotas):
        return tuple(sorted(set(quotas)))
    return ()


def quota_retry_delay(error: Mapping[str, Any], status: int | None) -> float | None:
    """The ``RetryInfo`` seconds of a quota error (one `spent_daily_quotas` would read).

    What a rate limit's ``retry_after`` is over HTTP, for the same object met elsewhere (a
    stream's error event, a 2xx body): None when the error is no quota error or names no
    delay. A spent daily quota still has one here; the caller, which never retries it,
    drops it.
    """
    return retry_delay_seconds(error) if _resource_exhausted(error, status) else None


def gemini_status_error(info: HTTPErrorInfo) -> ProviderError | None:
    """The typed error a Gemini error body names, or None for the generic status mapping."""
    error = gemini_error_object(info.body)
    status = error.get("status")
    message = error.get("message")
    text = message if isinstance(message, str) else ""
    where, suffix = info.where, info.suffix
    if _resource_exhausted(error, info.status):
        daily = spent_daily_quotas(error, info.status)
        if daily:
            return ProviderQuotaExhaustedError(
                f"{where}: the daily quota is used up ({', '.join(daily)}; "
                f"HTTP {info.status} RESOURCE_EXHAUSTED, not retried: it resets with the day)"
                f"{suffix}",
                status=info.status,
                body_excerpt=info.excerpt,
            )
        if _NO_ALLOWANCE.search(text):
            return ProviderQuotaExhaustedError(
                f"{where}: the quota for this model is 0 on this tier (HTTP {info.status} "
                f"RESOURCE_EXHAUSTED, not retried: no wait gives it an allowance){suffix}",
                status=info.status,
                body_excerpt=info.excerpt,
            )
        delay = retry_delay_seconds(error)
        retry_after = delay if delay is not None else info.retry_after
        # The status word only when the body said it (the OpenAI-compatible surface answers a
        # 429 with OpenAI's body), and the wait as every other provider's 429 shows it.
        label = f"HTTP {info.status} {status}" if status else f"HTTP {info.status}"
        hint = f" (retry after {retry_after:g}s)" if retry_after is not None else ""
        return ProviderRateLimitError(
            f"{where} is rate limited ({label}){hint}{suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
            retry_after=retry_after,
        )
    if status in _AUTH_STATUSES or info.status in (401, 403) or _reasons(error) & _AUTH_REASONS:
        return ProviderUnauthorizedError(
            f"{where} refused the credentials (HTTP {info.status} {status or ''}".rstrip()
            + f"){suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
        )
    if status == "INVALID_ARGUMENT" and _CONTEXT_TEXT.search(text):
        return ProviderStatusContextError(
            f"{where} refused the request: it does not fit the model's context window "
            f"(HTTP {info.status}){suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
        )
    if info.status == 404 and status == "NOT_FOUND" and _UNKNOWN_MODEL_TEXT.match(text):
        return info.unsupported_model("NOT_FOUND")
    if status == "UNAVAILABLE" and info.status >= 500:
        return ProviderStatusCapacityError(
            f"{where} is at capacity (HTTP {info.status} UNAVAILABLE){suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
            retry_after=info.retry_after,
        )
    return None
