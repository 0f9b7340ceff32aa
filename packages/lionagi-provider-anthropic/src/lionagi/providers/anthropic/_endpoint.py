"""The Messages endpoint: its dialect, its fixed version header and its error vocabulary.

Anthropic answers every request with an ``{"type": "error", "error": {"type", "message"}}``
body; the status alone cannot tell a context overflow or an empty credit balance (both HTTP 400)
from any other refused request, nor an unknown model from a wrong path (both HTTP 404), so
:func:`anthropic_status_error` reads the error type and text:

=======================================  ============================================  ===========
body                                     typed error                                   retried
=======================================  ============================================  ===========
``overloaded_error`` / HTTP 529          :class:`ProviderStatusCapacityError`          yes
"prompt is too long", "exceed context"   :class:`ProviderStatusContextError`           no
"credit balance is too low", billing     :class:`ProviderQuotaExhaustedError`          no
spend cap (``details.error_code``) [1]_  :class:`ProviderQuotaExhaustedError`          no
HTTP 404 ``not_found_error`` "model: x"  :class:`ProviderStatusUnsupportedModelError`  no
``rate_limit_error`` / HTTP 429          :class:`ProviderRateLimitError` (base)        yes
HTTP 401 / 403                           :class:`ProviderUnauthorizedError` (base)     no
=======================================  ============================================  ===========

.. [1] A spend limit reached: HTTP 429 ``rate_limit_error`` whose ``error.details.error_code``
   is ``enforced_spend_limit_reached`` (the usage tier's monthly cap) or
   ``contract_spend_limit_reached``, sent without ``retry-after`` (usage resumes at the next
   month or contract change, not in seconds); or a 4xx "You have reached your specified
   (workspace) API usage limits" (a limit the organization set itself). A 429 without that
   code stays a rate limit, retried after ``retry-after``.

Messages carry only the bounded, redacted body excerpt core prepared.

The same error object can come after a 200 (a stream's ``event: error``, a gateway's one-shot
body). Core's classification reads it first; one it leaves unclassified whose type Anthropic
documents as a 4xx (``invalid_request_error`` 400, ``not_found_error`` 404, ``request_too_large``
413) is read with the rules above at that status (:meth:`AnthropicMessagesEndpoint.stream_error`):
the family they name (an unknown model, a spend limit), else the invalid-request family a plain
4xx is. Either way it is not retried and neutral for the circuit, as the status is.

A 2xx one-shot answer is checked too (:meth:`AnthropicMessagesEndpoint.checked_message`): an
``{"type": "error"}`` body raises the error a stream's ``event: error`` raises, and a message
cut by ``max_tokens``, ``model_context_window_exceeded`` or ``refusal`` in the middle of a tool
call raises the error a stream cut there ends with.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import httpx
from pydantic import BaseModel, ValidationError

from lionagi.service import (
    Endpoint,
    EndpointConfig,
    EndpointConfigurationError,
    ProviderContentFilterError,
    ProviderError,
    ProviderInvalidRequestError,
    ProviderProtocolError,
    ProviderQuotaExhaustedError,
    ProviderStatusCapacityError,
    ProviderStatusContextError,
    ProviderStatusError,
    ProviderStreamError,
    StreamChunk,
    classify_stream_error,
)
from lionagi.service.http import (
    HTTPErrorInfo,
    ProviderErrorPattern,
    Resolver,
    StreamProjector,
    estimate_tokens,
    excerpt,
    json_kind,
    validation_failure,
)

from ._projector import (
    CUT_STOPS,
    REFUSAL_STOP,
    TOOL_BLOCKS,
    AnthropicMessagesProjector,
    stop_cut,
)
from ._request import BETA_HEADER, HEADER_PARAMS, _AnthropicContextManagement

__all__ = [
    "ANTHROPIC_VERSION",
    "BETA_HEADER",
    "HEADER_PARAMS",
    "INTERLEAVED_THINKING_BETA",
    "VERSION_HEADER",
    "AnthropicMessagesEndpoint",
    "anthropic_status_error",
]

VERSION_HEADER = "anthropic-version"
ANTHROPIC_VERSION = "2023-06-01"
"""The API version every request names (Anthropic refuses a request without one)."""
INTERLEAVED_THINKING_BETA = "interleaved-thinking-"
"""The prefix of the interleaved-thinking beta's names (``interleaved-thinking-2025-05-14``):
with it, ``thinking.budget_tokens`` covers every thinking block of the turn and may exceed
``max_tokens``. A prefix, so a later dated version of the same beta is recognized too."""

_EXTRA_BODY = "extra_body"
_CONTEXT_MANAGEMENT = "context_management"
_COMPACTION = "compaction"

_OVERLOADED = 529
_CONTEXT_PHRASES = ("prompt is too long", "exceed context limit", "exceeds the context window")
_CREDIT_PHRASES = ("credit balance is too low",)
# A spend limit: the error codes Anthropic puts in ``error.details.error_code`` of a 429
# ``rate_limit_error`` (the same type as a rate limit, so only the code tells them apart), and
# the 400 wording of a limit the organization or workspace set itself. Waiting seconds does not
# lift either, so neither is retried.
_SPEND_LIMIT_CODES = ("enforced_spend_limit_reached", "contract_spend_limit_reached")
_SPEND_LIMIT_PHRASES = (
    "reached your specified api usage limits",
    "reached your specified workspace api usage limits",
)
_RATE_LIMITED = 429
# A model the API does not serve: HTTP 404, ``not_found_error``, message ``model: <name>`` or,
# in newer answers, ``model '<name>' not found``. The same type with another message (an unknown
# path or resource) is no statement about the model.
_NOT_FOUND = "not_found_error"
_MODEL_PREFIXES = ("model:", "model '", 'model "')
# The documented HTTP status of each error type core's stream classification has no family for
# (docs.claude.com/en/api/errors): an in-band error of one is read as that status's body.
_CLIENT_ERROR_STATUS = {
    "invalid_request_error": 400,
    "not_found_error": 404,
    "request_too_large": 413,
}


# The request members whose text is input tokens: the conversation, the instructions and the
# tool definitions (names, descriptions, input schemas).
_ESTIMATED = ("messages", "system", "tools")


def _text(value: object) -> str:
    return value.casefold() if isinstance(value, str) else ""


def anthropic_status_error(info: HTTPErrorInfo) -> ProviderError | None:
    """The typed error an Anthropic error body names, or None for core's status mapping."""
    error = info.error
    kind = _text(error.get("type"))
    message = _text(error.get("message")) or info.excerpt.casefold()
    if info.status >= 500 and (info.status == _OVERLOADED or kind == "overloaded_error"):
        return ProviderStatusCapacityError(
            f"{info.where} is overloaded (HTTP {info.status}; temporary, retried){info.suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
            retry_after=info.retry_after,
        )
    if 400 <= info.status < 500 and any(p in message for p in _CONTEXT_PHRASES):
        return ProviderStatusContextError(
            f"{info.where} refused the request: it does not fit the model's context window "
            f"(HTTP {info.status}){info.suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
        )
    if info.status == 404 and kind == _NOT_FOUND and message.lstrip().startswith(_MODEL_PREFIXES):
        return info.unsupported_model()
    if kind == "billing_error" or any(p in message for p in _CREDIT_PHRASES):
        return ProviderQuotaExhaustedError(
            f"{info.where}: the account's credit balance is exhausted (HTTP {info.status}; "
            f"billing, not a rate limit, so it is not retried){info.suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
        )
    if _spend_limit(info, message):
        return ProviderQuotaExhaustedError(
            f"{info.where}: the organization's API spend limit is reached (HTTP {info.status}; "
            f"usage resumes when the limit resets or is raised, not in seconds, so it is not "
            f"retried){info.suffix}",
            status=info.status,
            body_excerpt=info.excerpt,
        )
    return None


def _spend_limit(info: HTTPErrorInfo, message: str) -> bool:
    """Whether a 4xx body says a spend limit is reached (see ``_SPEND_LIMIT_CODES``).

    The code decides at any 4xx. The wording decides except at 429: Anthropic documents one
    429 with that wording and a ``retry-after`` (a Claude Code workspace's limit), which is a
    wait, and the tier's cap at 429 always carries the code.
    """
    if not 400 <= info.status < 500:
        return False
    details = info.error.get("details")
    code = details.get("error_code") if isinstance(details, dict) else None
    if isinstance(code, str) and code.casefold() in _SPEND_LIMIT_CODES:
        return True
    return info.status != _RATE_LIMITED and any(p in message for p in _SPEND_LIMIT_PHRASES)


def _names_version(headers: Mapping[str, str]) -> bool:
    return any(name.lower() == VERSION_HEADER for name in headers)


def _interleaved_thinking(headers: Mapping[str, str]) -> bool:
    """Whether an ``anthropic-beta`` header (any case) lists the interleaved-thinking beta."""
    for name, value in headers.items():
        if name.lower() == BETA_HEADER and isinstance(value, str):
            betas = (token.strip().lower() for token in value.split(","))
            if any(beta.startswith(INTERLEAVED_THINKING_BETA) for beta in betas):
                return True
    return False


def _member(value: Any, key: str) -> Any:
    """A created payload's nested value: a mapping's key, or a model's attribute."""
    if isinstance(value, Mapping):
        return value.get(key)
    return getattr(value, key, None) if isinstance(value, BaseModel) else None


def _check_billed_profile(payload: Mapping[str, Any], headers: Mapping[str, str]) -> None:
    """Refuse billing a user profile when the request names none.

    ``billing_policy.bill_to: "user_profile"`` bills the profile named by the
    ``anthropic-user-profile-id`` header; without one the API refuses the request
    (anthropic-sdk-python's ``UserProfileRequiredErrorDetails``, ``user_profile_required``).
    The header is part of the request like the body, so the rule is checked where both are
    known (``default_headers`` and a call's ``extra_headers`` merged).
    """
    if _member(payload.get("billing_policy"), "bill_to") != "user_profile":
        return
    profile = HEADER_PARAMS["user_profile_id"]
    if any(name.lower() == profile and value for name, value in headers.items()):
        return
    raise EndpointConfigurationError(
        "billing_policy.bill_to",
        f"is 'user_profile' but the request names no user profile: send its id in the "
        f"{profile!r} header (default_headers={{{profile!r}: ...}} on iModel or the endpoint, "
        f"or extra_headers on an endpoint's call()/stream()), or bill 'self'",
    )


def _check_thinking_budget(payload: Mapping[str, Any], headers: Mapping[str, str]) -> None:
    """Refuse a manual thinking budget that does not fit ``max_tokens``, unless interleaved.

    Without the interleaved-thinking beta the API refuses ``budget_tokens >= max_tokens``
    (thinking tokens are part of the output); with it the budget is the whole turn's, across
    the thinking blocks between tool calls, and may exceed ``max_tokens``. The header is part
    of the request like the body, so the rule is checked where both are known.
    """
    thinking = payload.get("thinking")
    if _member(thinking, "type") != "enabled":
        return
    budget, limit = _member(thinking, "budget_tokens"), payload.get("max_tokens")
    if not (isinstance(budget, int) and isinstance(limit, int)) or budget < limit:
        return  # the request model checked both types; a missing max_tokens is the API's 400
    if _interleaved_thinking(headers):
        return
    raise EndpointConfigurationError(
        "thinking.budget_tokens",
        f"must be less than max_tokens ({limit}): thinking tokens are part of the output; "
        "raise max_tokens or lower the budget (with the interleaved-thinking beta, "
        f"'{BETA_HEADER}: interleaved-thinking-2025-05-14', the budget covers the whole turn "
        "and may exceed max_tokens)",
    )


def _effective_extra_body(
    defaults: Mapping[str, Any],
    request: Mapping[str, Any] | BaseModel,
    overrides: Mapping[str, Any],
) -> Any:
    """The ``extra_body`` core would merge: the call's keywords over the request over defaults.

    The last given replaces the others whole (core does not merge them). None when none is.
    """
    if _EXTRA_BODY in overrides:
        return overrides[_EXTRA_BODY]
    if isinstance(request, Mapping) and _EXTRA_BODY in request:
        return request[_EXTRA_BODY]
    return defaults.get(_EXTRA_BODY)


def _escaped_context_management(
    defaults: Mapping[str, Any], request: Mapping[str, Any] | BaseModel, overrides: dict[str, Any]
) -> tuple[Any, dict[str, Any]] | None:
    """``extra_body``'s ``context_management`` and the overrides that send the rest of it.

    The ``extra_body`` in effect is the one core would merge (a call's keywords over the
    request over ``request_defaults``; the last given replaces the others whole). When it holds
    ``context_management``, core would refuse the key (a field of the request model must be
    validated); the adapter takes it out and checks it itself (see
    :meth:`AnthropicMessagesEndpoint.create_payload`), and the returned overrides give core
    the remaining ``extra_body``. None when there is nothing to take (or ``extra_body`` is not
    a mapping, which core refuses).
    """
    extra = _effective_extra_body(defaults, request, overrides)
    if not isinstance(extra, Mapping) or _CONTEXT_MANAGEMENT not in extra:
        return None
    rest = {key: value for key, value in extra.items() if key != _CONTEXT_MANAGEMENT}
    return extra[_CONTEXT_MANAGEMENT], {**overrides, _EXTRA_BODY: rest}


def _checked_escape(value: Any, payload: Mapping[str, Any]) -> Any:
    """The escape hatch's ``context_management``, checked, as a copy of what the caller wrote.

    Raises:
        EndpointConfigurationError: the request also has ``context_management`` (given twice,
            ``field="extra_body.context_management"``), or ``compaction``, which the API
            refuses beside it (``field="compaction"``, as for the request field), or a known
            part of it is malformed (``field`` is its path under
            ``extra_body.context_management``).
    """
    where = f"{_EXTRA_BODY}.{_CONTEXT_MANAGEMENT}"
    if _CONTEXT_MANAGEMENT in payload:
        raise EndpointConfigurationError(
            where,
            "is also a request field here: give context_management once (as a request field, "
            "checked, or in extra_body for an edit type newer than the adapter)",
        )
    if _COMPACTION in payload:
        raise EndpointConfigurationError(
            _COMPACTION,
            "cannot be combined with context_management (the API refuses the pair; here it is "
            "in extra_body): a compaction request summarizes the whole conversation; leave one "
            "out",
        )
    if not isinstance(value, Mapping):
        raise EndpointConfigurationError(where, "must be an object: {edits: [...]}")
    try:
        _AnthropicContextManagement.model_validate(value)
    except ValidationError as exc:
        field, message = validation_failure(exc, "", _AnthropicContextManagement)
        raise EndpointConfigurationError(f"{where}.{field}" if field else where, message) from None
    return copy.deepcopy(dict(value))


class AnthropicMessagesEndpoint(Endpoint):
    """``POST {base_url}/messages``: one-shot JSON or an SSE event stream.

    Streams are projected by :class:`AnthropicMessagesProjector`; ``stream: true`` is the
    stream flag. Every request carries ``anthropic-version: 2023-06-01``: it is added to the
    config's ``default_headers`` at construction, so it is sent on every path (including a
    payload created earlier and sent with ``skip_payload_creation``), shows in ``to_dict``,
    and a caller's own ``anthropic-version`` (in ``default_headers`` or ``extra_headers``)
    wins over it.
    """

    projector: ClassVar[type[StreamProjector] | None] = AnthropicMessagesProjector
    # A tool call a refusal cut (the projector's error chunk, code ``refusal``, the stop reason):
    # Anthropic's classifiers refused the caller's conversation, so it is the content-filter
    # family, never retried and neutral for the circuit, as core reports other refusals. Only
    # the whole code line is matched, first: the explanation Anthropic writes beside it is
    # free text that must not pick another family.
    error_patterns: ClassVar[tuple[ProviderErrorPattern, ...]] = (
        ProviderErrorPattern(
            "content_filter",
            ProviderContentFilterError,
            rf"(?:^|\n){REFUSAL_STOP}(?:\n|$)",
            summary="the answer was refused",
        ),
    )

    def __init__(
        self,
        config: EndpointConfig | Mapping[str, Any] | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        resolver: Resolver | None = None,
        **overrides: Any,
    ) -> None:
        """Bind a config (see :class:`Endpoint`) and make sure it names the API version."""
        super().__init__(config, transport=transport, resolver=resolver, **overrides)
        current = self.config
        if not _names_version(current.default_headers):
            # The config is immutable and bound by the base; binding the versioned copy the
            # same way keeps one code path for catalog-built and hand-built endpoints. Nothing
            # was opened yet (the client is created on first use), so nothing is left behind.
            headers = {VERSION_HEADER: ANTHROPIC_VERSION, **current.default_headers}
            versioned = current.with_updates(default_headers=headers)
            super().__init__(versioned, transport=transport, resolver=resolver)

    def create_payload(
        self,
        request: Mapping[str, Any] | BaseModel,
        extra_headers: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """The base's payload and headers, then the thinking budget against ``max_tokens``.

        The budget rule depends on a header (the interleaved-thinking beta lifts it), which the
        request model cannot see; here the headers are the ones sent, ``default_headers`` and
        the call's ``extra_headers`` merged (``iModel`` passes the former, an endpoint's own
        ``call()``/``stream()`` both).

        ``context_management`` is a checked request field whose unknown edit types are
        refused; an edit type newer than the adapter is sent through
        ``extra_body={"context_management": {...}}``. Core refuses a declared field in
        ``extra_body``, so it is taken out here before the base runs: the known edits in it
        are checked as strictly as the field's, a newer type goes out as written, and the
        object is sent as the caller wrote it.

        A parameter the SDK sends as a header (:data:`HEADER_PARAMS`: ``workspace_id``,
        ``user_profile_id``, ``betas``) written as a request field is refused by core, naming
        the header to send instead (the request model's ``refused_fields``).

        Raises:
            EndpointConfigurationError: what the base raises, ``thinking.budget_tokens`` not
                below ``max_tokens`` with no interleaved-thinking beta in ``anthropic-beta``,
                a malformed (or second) ``extra_body.context_management`` (or one beside
                ``compaction``), a :data:`HEADER_PARAMS` name in the body, or
                ``billing_policy.bill_to: "user_profile"`` with no
                ``anthropic-user-profile-id`` header.
        """
        escaped = _escaped_context_management(self.config.request_defaults, request, kwargs)
        if escaped is not None:
            value, kwargs = escaped
        payload, headers = super().create_payload(request, extra_headers, **kwargs)
        if escaped is not None:
            payload[_CONTEXT_MANAGEMENT] = _checked_escape(value, payload)
        _check_thinking_budget(payload, headers)
        _check_billed_profile(payload, headers)
        return payload, headers

    def map_status_error(self, info: HTTPErrorInfo) -> ProviderError | None:
        """Anthropic's error types and texts (:func:`anthropic_status_error`), then the base's."""
        return anthropic_status_error(info) or super().map_status_error(info)

    def stream_error(self, chunk: StreamChunk) -> ProviderStreamError:
        """Core's classification; an unclassified documented 4xx type as its status reads.

        An ``invalid_request_error``, ``not_found_error`` or ``request_too_large`` after a 200
        (an ``event: error``, a 200 error body) that core's rules leave unclassified is read by
        :func:`anthropic_status_error` at the type's documented status, so ``model: x`` is an
        unknown model in both forms; what that names no family of is the invalid-request
        family, the stream form of the plain client error the status is. Unclassified, it was
        counted by the circuit as the provider's failure, while the status form is neutral.
        """
        error = super().stream_error(chunk)
        status = _CLIENT_ERROR_STATUS.get(error.code or "")
        if type(error) is not ProviderStreamError or status is None:
            return error
        text = chunk.content or ""
        body = {"type": "error", "error": {"type": error.code, "message": text}}
        where = f"{self.config.provider} {self.config.endpoint}"
        info = HTTPErrorInfo(
            status=status,
            where=where,
            body=body,
            excerpt=text,
            retry_after=None,
            headers=httpx.Headers(),
        )
        # Error path only: the agentic surface is not loaded by an HTTP vendor's import.
        from lionagi.service.agentic import DEFAULT_ERROR_PATTERNS

        family = _family(anthropic_status_error(info))
        kind = next((p.kind for p in DEFAULT_ERROR_PATTERNS if p.error_type is family), None)
        # The code as a whole line of the classified text: the pattern matches this error only.
        rule = rf"(?:^|\n){re.escape(error.code or '')}(?:\n|$)"
        pattern = ProviderErrorPattern(kind or "invalid_request", family, rule)
        return classify_stream_error(
            chunk.content,
            chunk.metadata,
            provider=self.config.provider,
            extra_patterns=(pattern,),
            secrets=self._secrets(),
            reached=self.error_chunks_are_answers,
        )

    def estimate_tokens(self, payload: Mapping[str, Any]) -> int | None:
        """Core's estimate over ``messages`` and the ``system`` and ``tools`` this API keeps apart.

        Core's default counts ``messages`` only, so a long system prompt was left out of the
        ``limit_tokens`` reservation, and so were the tool definitions, which Anthropic bills
        (and counts against the input-token rate limit) as input tokens on every turn.
        """
        return estimate_tokens(payload, _ESTIMATED)

    def check_response(self, body: Any, response: httpx.Response) -> Any:
        """A 2xx one-shot body through :meth:`checked_message` (core's hook for it)."""
        return self.checked_message(body)

    def checked_message(self, body: Any) -> dict[str, Any]:
        """``body`` when it is a message a caller can use as it is; else the typed error.

        What the same content raises when it arrives as a stream, so ``invoke()`` and
        ``stream()`` fail alike:

        Raises:
            ProviderStreamError: ``{"type": "error", "error": {...}}`` (some gateways answer
                errors with a 200): classified like a stream's ``event: error`` (its family
                twin, e.g. ``ProviderStreamCapacityError`` for ``overloaded_error``, and
                ``code`` = the error type); or a message whose ``stop_reason`` is
                ``max_tokens`` and whose last block is a tool call: the limit cut the call's
                input short (Anthropic's own guidance is to retry with a higher
                ``max_tokens``), ``code="max_tokens"``, not retried; the same with
                ``model_context_window_exceeded``, the context window's cut:
                ``ProviderStreamContextError``, ``code`` that stop reason, not retried; the
                same with ``refusal`` (Anthropic's classifiers stopped the answer):
                ``ProviderStreamContentFilterError``, ``code="refusal"``, the
                ``stop_details`` category and explanation in its text, not retried; and that
                error for a refused message with a caller's ``tool_use`` anywhere in it (the
                refused turn's calls are no request to run a tool). A refused message ending in
                a server-run call (``server_tool_use``, ``mcp_tool_use``) is returned as sent,
                as one ending in text is: the caller runs none of it.
            ProviderProtocolError: the body is not a JSON object, names another ``type``
                than ``message``, or has no ``content`` list (``{}`` is no answer: every
                message carries its content blocks, an empty list included).
        """
        where = f"{self.config.provider} {self.config.endpoint}"
        if not isinstance(body, dict):
            raise ProviderProtocolError(
                f"{where}: the answer is not a message object (got JSON {json_kind(body)})"
            )
        kind = body.get("type")
        if kind == "error":
            raise self.error_object_error(body.get("error") or body)
        if kind is not None and kind != "message":
            # Server text: redacted (the endpoint's key included) and bounded before it is shown.
            label = excerpt(kind, self._secrets(), 40) if isinstance(kind, str) else kind
            raise ProviderProtocolError(f"{where}: the answer's type is {label!r}, not 'message'")
        content = body.get("content")
        if type(content) is not list:
            got = (
                "no 'content' list"
                if content is None
                else f"'content' is JSON {json_kind(content)}, not a list"
            )
            raise ProviderProtocolError(f"{where}: the answer is not a message object ({got})")
        stop_reason = body.get("stop_reason")
        if stop_reason == "max_tokens" or stop_reason in CUT_STOPS:
            last = content[-1] if content else None
            # A refused turn ending in a call the server runs is a refused answer like one
            # ending in text (the stream completes it alike): nothing in it is the caller's to run.
            kinds = ("tool_use",) if stop_reason == REFUSAL_STOP else TOOL_BLOCKS
            if isinstance(last, dict) and last.get("type") in kinds:
                name = last.get("name")
                if stop_reason in CUT_STOPS:
                    projector = AnthropicMessagesProjector(self._secrets())
                    details = body.get("stop_details")
                    raise self.stream_error(stop_cut(projector, stop_reason, name, None, details))
                raise self.stream_error(_cut_tool_call(name))
        if stop_reason == REFUSAL_STOP:
            # Whole calls before the refused turn's last block: no request to run a tool either
            # (the stream ends the same turn with the same error).
            calls = [
                b.get("name") for b in content if type(b) is dict and b.get("type") == "tool_use"
            ]
            if calls:
                projector = AnthropicMessagesProjector(self._secrets())
                details = body.get("stop_details")
                cut = stop_cut(projector, REFUSAL_STOP, calls, None, details, written=True)
                raise self.stream_error(cut)
        return body


def _family(error: ProviderError | None) -> type[ProviderError]:
    """The failure family a status error names: its class less the status part.

    A plain client error (or None, core's plain 4xx) names none: the invalid-request family, the
    caller's request, refused again as sent.
    """
    mro = type(error).__mro__ if error is not None else ()
    return next(
        (
            c
            for c in mro
            if issubclass(c, ProviderError)
            and not issubclass(c, ProviderStatusError)
            and c is not ProviderError
        ),
        ProviderInvalidRequestError,
    )


def _cut_tool_call(name: object) -> StreamChunk:
    """The error chunk for a one-shot message whose last tool call ``max_tokens`` cut short.

    The stream's own (:meth:`ProjectorBase.cut_short`): an input cut anywhere leaves at most
    an unfinished object, which ``"{"`` stands for.
    """
    label = name if isinstance(name, str) else None
    chunk = AnthropicMessagesProjector().cut_short(label, "{", "max_tokens")
    assert chunk is not None  # "{" never parses
    return chunk
