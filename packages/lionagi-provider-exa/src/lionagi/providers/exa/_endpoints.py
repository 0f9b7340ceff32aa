"""Exa's endpoint classes: one class per catalog row.

Contents and find-similar answer a request with one JSON document and have no stream: those
classes declare no stream dialect (``projector = None``) and no stream flag, so ``stream()`` is
refused with ``EndpointConfigurationError(field="stream")`` before a payload is built or a
request sent. ``/answer`` streams when asked (``"stream": true``): its class declares Exa's
answer stream (:class:`~._answer.ExaAnswerProjector`) and the flag. ``/search`` streams the same
grammar when asked (exa-py ``stream_search``, exa-js ``streamSearch``), so it declares the same.

Errors: Exa's body is ``{"requestId", "error": "<message>", "tag": "<TAG>"}``. The status says
most of it (401 key, 403 access, 429 rate); the tag says what the status cannot: running out of
credits (``NO_MORE_CREDITS``, ``API_KEY_BUDGET_EXCEEDED``) is billing, not a rate limit, so it is
a :class:`~lionagi.service.ProviderQuotaExhaustedError` and is never retried. A 403 tagged
``PROHIBITED_CONTENT`` is Exa's content policy refusing the request, not the key: a
:class:`~lionagi.service.ProviderStatusContentFilterError`, never retried (Exa counts each
refusal toward a warning).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from lionagi.service import (
    Endpoint,
    ProviderContentFilterError,
    ProviderError,
    ProviderProtocolError,
    ProviderQuotaExhaustedError,
    ProviderQuotaSpentError,
    ProviderStatusContentFilterError,
)
from lionagi.service.http import HTTPErrorInfo, ProviderErrorPattern, StreamProjector, json_kind

from ._answer import ExaAnswerProjector, ExaSearchProjector, exa_error_object

if TYPE_CHECKING:
    import httpx

__all__ = [
    "ExaAnswerEndpoint",
    "ExaContentsEndpoint",
    "ExaEndpoint",
    "ExaFindSimilarEndpoint",
    "ExaSearchEndpoint",
]

_QUOTA_TAGS = frozenset({"NO_MORE_CREDITS", "API_KEY_BUDGET_EXCEEDED"})
# Exa's content policy (https://exa.ai/docs/reference/content-policy): a 403 with this tag.
_POLICY_TAG = "PROHIBITED_CONTENT"


def exa_tag(info: HTTPErrorInfo) -> str | None:
    """The ``tag`` of an Exa error body, or None."""
    body = info.body
    if isinstance(body, dict):
        tag = body.get("tag")
        if isinstance(tag, str) and tag:
            return tag
    return None


class ExaEndpoint(Endpoint):
    """What every Exa endpoint shares: Exa's error tags; one-shot unless a row declares a stream."""

    projector: ClassVar[type[StreamProjector] | None] = None
    stream_flag: ClassVar[str | None] = None
    # The same tags in an error event of the answer stream (or a 2xx error body): a spent
    # balance, never retried, as the HTTP mapping below makes it. Without this the tag fell to
    # the generic rules and the message ("You have run out of credits") matched none.
    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = (
        ProviderErrorPattern(
            "quota_exhausted",
            ProviderQuotaSpentError,
            r"\b(?:" + "|".join(sorted(_QUOTA_TAGS)) + r")\b",
            summary="the Exa account is out of credits",
        ),
        ProviderErrorPattern(
            "content_filter",
            ProviderContentFilterError,
            rf"\b{_POLICY_TAG}\b",
            summary="refused by Exa's content policy",
        ),
    )

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """Credits used up -> quota exhausted; a content-policy refusal -> content filter.

        Neither is retried. The refusal comes as a 403, which the status alone types as refused
        credentials: the tag says the key works and the request is what Exa refuses.
        """
        tag = exa_tag(info)
        if tag == _POLICY_TAG and 400 <= info.status < 500 and info.status != 429:
            return ProviderStatusContentFilterError(
                f"{info.where} refused the request: Exa's content policy blocked it (HTTP "
                f"{info.status}, {tag}; the same request is refused again, so it is not "
                f"retried){info.suffix}",
                status=info.status,
                body_excerpt=info.excerpt,
            )
        if tag in _QUOTA_TAGS:
            return ProviderQuotaExhaustedError(
                f"{info.where}: the Exa account is out of credits (HTTP {info.status}; billing, "
                f"not a rate limit, so it is not retried){info.suffix}",
                status=info.status,
                body_excerpt=info.excerpt,
            )
        return super().map_status_error(info)


class ExaSearchEndpoint(ExaEndpoint):
    """``POST /search``: a one-shot results body, or Exa's search stream with ``stream()``.

    The stream (``"stream": true``) is the answer stream's grammar: the synthesized text as
    chat-completions deltas and the pages as ``citations`` (exa-py ``stream_search``).
    """

    projector: ClassVar[type[StreamProjector] | None] = ExaSearchProjector
    stream_flag: ClassVar[str | None] = "stream"


class ExaContentsEndpoint(ExaEndpoint):
    """``POST /contents``."""


class ExaFindSimilarEndpoint(ExaEndpoint):
    """``POST /findSimilar``."""


class ExaAnswerEndpoint(ExaEndpoint):
    """``POST /answer``: a one-shot answer body, or Exa's answer stream with ``stream()``."""

    projector: ClassVar[type[StreamProjector] | None] = ExaAnswerProjector
    stream_flag: ClassVar[str | None] = "stream"

    def check_response(self, body: Any, response: httpx.Response) -> Any:
        """``body`` when it is an answer: an object with ``answer`` and a ``citations`` list.

        ``answer`` is text, or an object when the request gave an ``outputSchema``. A 2xx body
        that is no answer (not an object, no ``answer``, ``citations`` missing or not a list)
        is refused rather than handed over as if it were one.

        A 2xx body carrying Exa's error object (``{"requestId", "error", "tag"}``) fails as the
        same object does in the answer stream (:meth:`error_object_error`), so ``invoke()`` and
        ``stream()`` raise the same class and ``code`` for it; it used to be refused as "no
        'answer'", hiding Exa's message and tag.

        Raises:
            ProviderStreamError: the body is Exa's error object (classified by its message and
                tag, see :attr:`error_patterns`).
            ProviderProtocolError: the body is not an answer object (not retried: the server
                answered, with no answer).
        """
        if type(body) is dict and body.get("error"):
            raise self.error_object_error(exa_error_object(body))
        problem: str | None = None
        if type(body) is not dict:
            problem = f"JSON {json_kind(body)}"
        elif not isinstance(body.get("answer"), (str, dict)):
            problem = "no 'answer' text or object"
        elif type(body.get("citations")) is not list:
            problem = "no 'citations' list"
        if problem is not None:
            raise ProviderProtocolError(
                f"{self.config.provider} {self.config.endpoint}: the answer is not an Exa "
                f"answer object ({problem})"
            )
        return body
