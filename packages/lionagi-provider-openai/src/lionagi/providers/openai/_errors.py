"""OpenAI's in-band error codes core's dialect does not read: policy, image input, throttling.

OpenAI refuses a prompt its safety policy flags with codes the shared OpenAI dialect does not
read (core's :func:`openai_status_error` knows ``content_filter`` and
``content_policy_violation``):

- ``bio_policy``, ``cyber_policy``, ``misalignment_policy_violation`` and
  ``image_content_policy_violation``: whole codes naming a policy (the Responses API's
  ``ResponseError.code`` values, and the 400, or for ``cyber_policy`` sometimes 403, bodies of
  both text rows);
- ``invalid_prompt``, which also names malformed input, so only its two policy sentences count:
  "your prompt was flagged as potentially violating our usage policy" (reasoning models) and
  "we've limited access to this content for safety reasons".

Why a family and not the status: the same content is refused again, so it is never retried, and
one caller's flagged prompts say nothing about the service's health, so the circuit ignores it
(see "A content-filter refusal is the caller's" in docs/decisions.md). Without this, a 403
``cyber_policy`` read as a refused key, and the stream and one-shot forms (``response.failed``,
a chat error chunk, a failed Responses object) were unclassified errors the circuit counted.

Two more in-band families, read from the code alone (the stream and one-shot forms only; their
HTTP forms, a 400 and a 429, are typed by the status):

- the Responses ``ResponseError.code`` values refusing an image the request carries
  (`IMAGE_INPUT_CODES`: ``invalid_image``, ``image_too_large``, ``failed_to_download_image``,
  ...) are core's invalid-request family: the caller's input, never retried and neutral to the
  circuit, as the HTTP 400 for the same image is;
- ``too_many_requests``, the code of the Responses stream's ``error`` event when the stream is
  throttled (``{"type": "error", "error": {"code": "too_many_requests", "message": "Too Many
  Requests"}}``, openai-dotnet#881), is core's rate-limit family, retryable as its 429 is.

And three more ``ResponseError.code`` values the Responses API reference lists:

- ``vector_store_timeout``: the ``file_search`` tool's vector-store query ran out of time on
  OpenAI's side; nothing in the request is wrong, so it is core's server-fault family, retryable
  as the ``server_error`` beside it is (`VECTOR_STORE_TIMEOUT_PATTERN`);
- ``data_residency_mismatch``: the request does not fit the project's data-residency region
  (a model or endpoint the region does not serve, or the wrong regional host). Resent unchanged
  it fails again, and it says nothing of the service's health, so it is the invalid-request
  family: never retried, neutral to the circuit (`RESIDENCY_PATTERN`);
- ``invalid_prompt`` without the policy wording: a prompt the API cannot use (its HTTP form a
  400), the invalid-request family too (`INVALID_PROMPT_PATTERN`; `POLICY_PATTERN`, tried
  first, keeps the two policy sentences a content-filter refusal).
"""

from __future__ import annotations

import re

from lionagi.service import (
    ProviderContentFilterError,
    ProviderError,
    ProviderInvalidRequestError,
    ProviderQuotaError,
    ProviderServerFaultError,
    ProviderStatusContentFilterError,
)
from lionagi.service.http import HTTPErrorInfo, ProviderErrorPattern

__all__ = [
    "IMAGE_INPUT_CODES",
    "IMAGE_INPUT_PATTERN",
    "INVALID_PROMPT_PATTERN",
    "POLICY_CODES",
    "POLICY_PATTERN",
    "RESIDENCY_PATTERN",
    "THROTTLED_PATTERN",
    "VECTOR_STORE_TIMEOUT_PATTERN",
    "openai_policy_error",
]


def _whole_code(*codes: str) -> str:
    """A pattern matching one of ``codes`` as a whole line of the classified text.

    Core classifies an error's message, code and type joined by newlines, so a code is a line
    of its own; matching it whole keeps ``invalid_prompt`` from matching ``invalid_prompt_x``.
    """
    return rf"(?:^|\n)(?:{'|'.join(sorted(codes))})(?:\n|$)"


POLICY_CODES = frozenset(
    {
        "bio_policy",
        "cyber_policy",
        "misalignment_policy_violation",
        "image_content_policy_violation",
    }
)
"""Codes that name a safety-policy refusal whatever the message says (whole values only)."""

# The two refusals ``invalid_prompt`` carries; its other uses (a malformed schema) do not match.
_POLICY_WORDING = (
    r"flagged as potentially violating our usage policy"
    r"|limited access to this content for safety reasons"
)
_WORDING = re.compile(_POLICY_WORDING, re.IGNORECASE)

POLICY_PATTERN = ProviderErrorPattern(
    "content_filter",
    ProviderContentFilterError,
    # Classification searches the message, then the code and the type, one per line: a code
    # matches only as a whole line, so a longer code that contains one of these does not.
    rf"{_whole_code(*POLICY_CODES)}|{_POLICY_WORDING}",
    summary="refused by OpenAI's safety policy",
)
"""The stream and one-shot form (an error chunk, ``response.failed``, a failed response)."""

IMAGE_INPUT_CODES = frozenset(
    {
        "invalid_image",
        "invalid_image_format",
        "invalid_base64_image",
        "invalid_image_url",
        "image_too_large",
        "image_too_small",
        "image_parse_error",
        "invalid_image_mode",
        "image_file_too_large",
        "unsupported_image_media_type",
        "empty_image_file",
        "failed_to_download_image",
        "image_file_not_found",
    }
)
"""``ResponseError.code`` values (openai-python) that refuse an image input; whole codes only."""

IMAGE_INPUT_PATTERN = ProviderErrorPattern(
    "invalid_request",
    ProviderInvalidRequestError,
    _whole_code(*IMAGE_INPUT_CODES),
    summary="an image in the request was refused",
)
"""A ``response.failed`` (or failed response) refusing the request's image: the caller's input."""

THROTTLED_PATTERN = ProviderErrorPattern(
    "quota",
    ProviderQuotaError,
    _whole_code("too_many_requests"),
    summary="rate limited (too many requests)",
)
"""A Responses stream's ``error`` event throttling the stream: the in-band form of a 429."""

VECTOR_STORE_TIMEOUT_PATTERN = ProviderErrorPattern(
    "server",
    ProviderServerFaultError,
    _whole_code("vector_store_timeout"),
    summary="the file search's vector store timed out",
)
"""A failed response whose vector-store query timed out on OpenAI's side: a transient fault."""

RESIDENCY_PATTERN = ProviderErrorPattern(
    "invalid_request",
    ProviderInvalidRequestError,
    _whole_code("data_residency_mismatch"),
    summary="the request does not match the project's data residency",
)
"""A failed response refused for the project's data-residency region: the caller's setup."""

INVALID_PROMPT_PATTERN = ProviderErrorPattern(
    "invalid_request",
    ProviderInvalidRequestError,
    _whole_code("invalid_prompt"),
    summary="the prompt was refused as invalid",
)
"""A failed response whose ``invalid_prompt`` is not a policy refusal (``POLICY_PATTERN`` first)."""


def openai_policy_error(info: HTTPErrorInfo) -> ProviderError | None:
    """``ProviderStatusContentFilterError`` for a 4xx (not 429) policy refusal, else None.

    Checked before the status mapping, so a 403 ``cyber_policy`` is the refused content it
    names, not a refused key; a 429 or 5xx keeps its status type (they decide retrying).
    """
    if not 400 <= info.status < 500 or info.status == 429:
        return None
    error = info.error
    names = {value for value in (error.get("code"), error.get("type")) if isinstance(value, str)}
    message = error.get("message")
    if not names & POLICY_CODES and not (
        isinstance(message, str) and _WORDING.search(message) is not None
    ):
        return None
    return ProviderStatusContentFilterError(
        f"{info.where} refused the request: OpenAI's safety policy blocked it (HTTP "
        f"{info.status}; the same content is refused again, so it is not retried){info.suffix}",
        status=info.status,
        body_excerpt=info.excerpt,
    )
