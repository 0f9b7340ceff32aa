"""RFC 9457 problem details: an `application/problem+json` answer is an error report.

Gateways and frameworks (Azure API Management, Kong, Spring's `ProblemDetail`, NVIDIA's hosted
NIM) answer errors as a JSON object whose `title` summarises the problem type, `detail` explains
this occurrence and `status` is an advisory copy of the HTTP status (RFC 9457 §3.1). The media
type says the body is a problem report, never an answer and never an event stream, so the
transport reads it by its label on every path:

- a non-2xx status is typed by the status line like any status error (`status.status_error`),
  whose message then says `title: detail` instead of quoting the JSON;
- a 2xx (a gateway policy that rewrote the status, or one that never set it) is the provider's
  error, as a 2xx body holding an error object is: `problem_chunk` is its error chunk, which
  `stream()` yields and `call()` raises classified, so both fail with one class and message.

A leaf module (`status` imports it), so it parses and redacts with `_base` helpers only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from ..._base.chunk import StreamChunk
from ..._base.secrets import bounded, redact

__all__ = [
    "PROBLEM_MEDIA_TYPE",
    "is_problem",
    "problem_chunk",
    "problem_document",
    "problem_summary",
]

PROBLEM_MEDIA_TYPE: Final = "application/problem+json"

_LABEL_LIMIT: Final = 300
"""Characters of a problem `type` URI or `code` kept on a chunk (as `classify` keeps labels)."""

_NO_TYPE: Final = "about:blank"
"""The `type` that says nothing beyond the HTTP status (RFC 9457 §4.2.1): no label."""


def is_problem(content_type: str | None) -> bool:
    """Whether a `Content-Type` value names `application/problem+json` (parameters ignored)."""
    return (content_type or "").partition(";")[0].strip().lower() == PROBLEM_MEDIA_TYPE


def problem_document(body: bytes) -> dict[str, Any] | None:
    """The JSON object `body` holds, or None when it holds no JSON object.

    Bad JSON and nesting too deep to decode (what `status.BAD_JSON` names) give None: a
    problem report that cannot be read is the caller's to refuse with the body's excerpt. One
    leading byte order mark is skipped, as for every other JSON body (`json.loads` refuses it).
    """
    try:
        document = json.loads(body.decode("utf-8", "replace").removeprefix("\ufeff"))
    except (ValueError, RecursionError):
        return None
    return document if type(document) is dict else None


def problem_summary(document: Mapping[str, Any]) -> str:
    """`title: detail`, or whichever of the two is text; `""` when neither is.

    Only these two members are shown: `instance` and extension members may name the request
    (a path with its query, an account), and a message has no use for them.
    """
    parts = [
        value.strip()
        for value in (document.get("title"), document.get("detail"))
        if isinstance(value, str) and value.strip()
    ]
    return ": ".join(parts)


def _label(value: object, secrets: tuple[str, ...]) -> str | None:
    """A short, redacted `type` or `code` label; numbers written out, other shapes None."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value).strip()
    if not text or text == _NO_TYPE:
        return None
    return bounded(redact(text, secrets), _LABEL_LIMIT)


def problem_chunk(
    document: Mapping[str, Any],
    *,
    status: int,
    retry_after: float | None,
    secrets: Iterable[str] = (),
) -> StreamChunk:
    """The error chunk a problem document answered with the 2xx `status` stands for.

    `content` is the redacted `title: detail`; `metadata` carries what error classification
    reads: the document's `status` (advisory, but the only status that names the failure when
    the status line says success), its `code` extension and its `type` URI as labels, and the
    response's Retry-After as `retry_after`.
    """
    secrets = tuple(secrets)
    summary = problem_summary(document)
    content = (
        bounded(redact(summary, secrets))
        if summary
        else f"HTTP {status} answered with a problem document ({PROBLEM_MEDIA_TYPE}) that has "
        "no title or detail"
    )
    meta: dict[str, Any] = {}
    advisory = document.get("status")
    if type(advisory) is int and 100 <= advisory <= 599:
        meta["status"] = advisory
    code = _label(document.get("code"), secrets)
    if code is not None:
        meta["code"] = code
    kind = _label(document.get("type"), secrets)
    if kind is not None:
        meta["type"] = kind
    if retry_after is not None:
        meta["retry_after"] = retry_after
    return StreamChunk(type="error", content=content, is_error=True, metadata=meta)
