"""Error replies in each dialect's own shape, status and wording.

An error *kind* (``"401"``, ``"context_length"``, ``"quota"``, ...) is vendor-neutral; this module
maps it to what that vendor really answers, so one scripted scenario reads true on every wire:
``overloaded`` is Anthropic's 529 but a 503 elsewhere, ``quota`` is OpenAI's 429
``insufficient_quota`` but Anthropic's 400 "credit balance is too low", a Gemini 429 carries
its ``google.rpc.RetryInfo`` in ``error.details``, ``model_not_found`` is each vendor's 404
for a model it does not serve (named :data:`UNKNOWN_MODEL` in the text), and
``unsupported_capability`` each vendor's 400 for a model asked for something it cannot do
(named :data:`LIMITED_MODEL` where the vendor names the model).

A 401 body deliberately echoes the credential the client sent (at most 64 characters), the way
OpenAI's "Incorrect API key provided: ..." does, so client tests can prove that error messages
are redacted before they leave the library.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Literal

from ._fake_wire import dumps

__all__ = [
    "CAPABILITY_MESSAGES",
    "CONTENT_FILTER_MESSAGE",
    "ERROR_KINDS",
    "LIMITED_MODEL",
    "UNKNOWN_MODEL",
    "Vendor",
    "anthropic_error",
    "error_body",
    "error_status",
    "gemini_error",
    "ollama_error",
    "openai_error",
]

Vendor = Literal["openai", "anthropic", "gemini", "ollama", "json"]
# Behaviours answered with an HTTP error instead of a model answer.
ERROR_KINDS: tuple[str, ...] = (
    "401",
    "403",
    "429",
    "500",
    "503",
    "context_length",
    "quota",
    "overloaded",
    "retry_after_date",
    "model_not_found",
    "unsupported_capability",
)
# The model a ``model_not_found`` reply names: a fixed name, so the reply stays one template.
UNKNOWN_MODEL = "fake-unknown-model"
# The model an ``unsupported_capability`` reply names (served, but unable to do what was asked).
LIMITED_MODEL = "fake-limited-model"
# Each vendor's refusal of a capability the model lacks, verbatim but for the model's name, as
# users report it: OpenAI's 400 for an image sent to a text-only model (its chat completions'
# "Invalid content type" error, the one capability refusal the API words itself), Anthropic's
# 400 for thinking asked of a model without it, Gemini's 400 INVALID_ARGUMENT for function
# calling asked of a Gemma model, Ollama's 400 for tools offered to a model whose template has
# none (its native API's flat error). Each names one capability core's shared rule reads
# (vision, thinking, tools, tools); the JSON dialect (Exa) documents no such refusal.
CAPABILITY_MESSAGES: Mapping[str, str] = MappingProxyType(
    {
        "openai": "Invalid content type. image_url is only supported by certain models.",
        "anthropic": f"'{LIMITED_MODEL}' does not support thinking.",
        "gemini": f"Function calling is not enabled for models/{LIMITED_MODEL}",
        "ollama": f"registry.ollama.ai/library/{LIMITED_MODEL}:latest does not support tools",
    }
)
_ECHO_LIMIT = 64
_STATUS = {
    "401": 401,
    "403": 403,
    "429": 429,
    "500": 500,
    "503": 503,
    "context_length": 400,
    "quota": 429,
    "overloaded": 503,
    "retry_after_date": 429,
    "model_not_found": 404,
    "unsupported_capability": 400,
    # Not an ERROR_KINDS member: a streamed request gets the refusal inside a 200 stream (see
    # ``_fake_chat.chat_stream``); only the one-shot answer is this status.
    "content_filter": 400,
}
_VENDOR_STATUS: dict[tuple[Vendor, str], int] = {
    ("anthropic", "overloaded"): 529,
    ("anthropic", "quota"): 400,
}


def _echo(credential: str) -> str:
    return credential[:_ECHO_LIMIT] if credential else "(none)"


def _kind_of(kind: str | int) -> str:
    """Accept a bare status (``404``, ``400``) for the server's own routing errors."""
    return str(kind)


def error_status(vendor: Vendor, kind: str | int) -> int:
    """The HTTP status ``vendor`` answers an error of ``kind`` with."""
    name = _kind_of(kind)
    return _VENDOR_STATUS.get((vendor, name), _STATUS.get(name) or int(name))


_OPENAI: dict[str, tuple[str, str, str | None]] = {
    "403": (
        "Country, region, or territory not supported",
        "request_forbidden",
        "unsupported_country_region_territory",
    ),
    "429": (
        "Rate limit reached for requests. Please try again later.",
        "requests",
        "rate_limit_exceeded",
    ),
    "retry_after_date": (
        "Rate limit reached for requests. Please try again later.",
        "requests",
        "rate_limit_exceeded",
    ),
    "quota": (
        "You exceeded your current quota, please check your plan and billing details.",
        "insufficient_quota",
        "insufficient_quota",
    ),
    "context_length": (
        "This model's maximum context length is 128000 tokens. However, your messages "
        "resulted in 131072 tokens. Please reduce the length of the messages.",
        "invalid_request_error",
        "context_length_exceeded",
    ),
    "503": ("The server is overloaded or not ready yet.", "server_error", None),
    "overloaded": (
        "The engine is currently overloaded, please try again later.",
        "server_error",
        None,
    ),
    "500": (
        "The server had an error while processing your request. Sorry about that!",
        "server_error",
        None,
    ),
    "404": ("Not found.", "invalid_request_error", "not_found"),
    "model_not_found": (
        f"The model `{UNKNOWN_MODEL}` does not exist or you do not have access to it.",
        "invalid_request_error",
        "model_not_found",
    ),
    "unsupported_capability": (
        CAPABILITY_MESSAGES["openai"],
        "invalid_request_error",
        None,
    ),
}


# Azure OpenAI's filtered-prompt refusal, as its chat completions answer it (HTTP 400) and as
# users report it verbatim (e.g. compl-ai/compl-ai#20, stanford-crfm/helm#3327): top-level
# ``code: "content_filter"``, ``innererror.code: "ResponsibleAIPolicyViolation"`` and the
# per-category ``content_filter_result`` (one category filtered).
CONTENT_FILTER_MESSAGE = (
    "The response was filtered due to the prompt triggering Azure OpenAI's content management "
    "policy. Please modify your prompt and retry. To learn more about our content filtering "
    "policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766"
)
_CONTENT_FILTER_RESULT: dict[str, dict[str, Any]] = {
    "hate": {"filtered": False, "severity": "safe"},
    "jailbreak": {"filtered": False, "detected": False},
    "self_harm": {"filtered": False, "severity": "safe"},
    "sexual": {"filtered": False, "severity": "safe"},
    "violence": {"filtered": True, "severity": "medium"},
}


def _content_filter_error(message: str | None) -> dict[str, Any]:
    """Azure's refusal object; a new dict each time (renderers may add fields to it)."""
    result = {name: dict(verdict) for name, verdict in _CONTENT_FILTER_RESULT.items()}
    return {
        "error": {
            "message": message or CONTENT_FILTER_MESSAGE,
            "type": None,
            "param": "prompt",
            "code": "content_filter",
            "status": 400,
            "innererror": {
                "code": "ResponsibleAIPolicyViolation",
                "content_filter_result": result,
            },
        }
    }


def openai_error(
    kind: str | int, credential: str = "", message: str | None = None, **_: Any
) -> dict[str, Any]:
    """The ``{"error": {...}}`` object OpenAI-compatible APIs return.

    ``content_filter`` is Azure OpenAI's refusal object (``innererror`` included), the shape
    OpenAI-compatible clients meet for a filtered prompt.
    """
    name = _kind_of(kind)
    if name == "content_filter":
        return _content_filter_error(message)
    text, kind_, code = _OPENAI.get(name, ("Invalid request.", "invalid_request_error", None))
    if name == "401":
        text, code = f"Incorrect API key provided: {_echo(credential)}.", "invalid_api_key"
    param = "messages" if name == "context_length" else None
    if name == "unsupported_capability":
        # No code: OpenAI says it in the message only, and names the refused content part.
        param = "messages.[0].content.[1].type"
    return {"error": {"message": message or text, "type": kind_, "param": param, "code": code}}


_ANTHROPIC: dict[str, tuple[str, str]] = {
    "400": ("invalid_request_error", "Invalid request."),
    "403": (
        "permission_error",
        "Your API key does not have permission to use the specified resource.",
    ),
    "404": ("not_found_error", "Not found."),
    "model_not_found": ("not_found_error", f"model: {UNKNOWN_MODEL}"),
    "unsupported_capability": ("invalid_request_error", CAPABILITY_MESSAGES["anthropic"]),
    "429": ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
    "retry_after_date": (
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit",
    ),
    "quota": (
        "invalid_request_error",
        "Your credit balance is too low to access the Anthropic API. "
        "Please go to Plans & Billing to upgrade or purchase credits.",
    ),
    "context_length": (
        "invalid_request_error",
        "prompt is too long: 210000 tokens > 200000 maximum",
    ),
    "500": ("api_error", "Internal server error"),
    "503": ("overloaded_error", "Overloaded"),
    "overloaded": ("overloaded_error", "Overloaded"),
}


def anthropic_error(
    kind: str | int, credential: str = "", message: str | None = None, **_: Any
) -> dict[str, Any]:
    """The ``{"type": "error", "error": {...}}`` object the Anthropic API returns."""
    name = _kind_of(kind)
    if name == "401":
        kind_, text = "authentication_error", f"invalid x-api-key: {_echo(credential)}"
    else:
        kind_, text = _ANTHROPIC.get(name, ("api_error", "Internal server error"))
    return {"type": "error", "error": {"type": kind_, "message": message or text}}


_GEMINI: dict[str, tuple[str, str]] = {
    "400": ("INVALID_ARGUMENT", "Request contains an invalid argument."),
    "403": ("PERMISSION_DENIED", "The caller does not have permission"),
    "404": ("NOT_FOUND", "Requested entity was not found."),
    "model_not_found": (
        "NOT_FOUND",
        f"models/{UNKNOWN_MODEL} is not found for API version v1beta, or is not supported for "
        "{method}. Call ListModels to see the list of available models and their "
        "supported methods.",
    ),
    "unsupported_capability": ("INVALID_ARGUMENT", CAPABILITY_MESSAGES["gemini"]),
    "429": ("RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
    "retry_after_date": ("RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
    "quota": (
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details.",
    ),
    "context_length": (
        "INVALID_ARGUMENT",
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
    ),
    "500": ("INTERNAL", "An internal error has occurred. Please retry."),
    "503": ("UNAVAILABLE", "The model is overloaded. Please try again later."),
    "overloaded": ("UNAVAILABLE", "The model is overloaded. Please try again later."),
}
_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"
_QUOTA_FAILURE = "type.googleapis.com/google.rpc.QuotaFailure"
# The used-up daily free-tier quota a ``quota`` reply names, by the method called, as real 429
# bodies name it: generation counts against ``generate_content_free_tier_requests``
# (``GenerateRequestsPerDayPerProjectPerModel-FreeTier``), both embeddings methods against
# ``embed_content_free_tier_requests`` (each text of a batch is one request), whose daily id is
# ``EmbedContentRequestsPerDayPerUserPerProjectPerModel-FreeTier``. The embed metric and its
# per-minute id (``EmbedContentRequestsPerMinutePerUserPerProjectPerModel-FreeTier``) are in
# users' captured 429 bodies; the daily id is as users quote it for the 1,000-a-day cap.
_GENERATE_QUOTA = {
    "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
    "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
}
_EMBED_QUOTA = {
    "quotaMetric": "generativelanguage.googleapis.com/embed_content_free_tier_requests",
    "quotaId": "EmbedContentRequestsPerDayPerUserPerProjectPerModel-FreeTier",
}
_DAILY_QUOTAS = {"embedContent": _EMBED_QUOTA, "batchEmbedContents": _EMBED_QUOTA}


def _duration(seconds: float) -> str:
    """Protobuf Duration JSON: whole seconds as ``"13s"``, fractions with up to 9 digits."""
    text = f"{seconds:.9f}".rstrip("0").rstrip(".")
    return f"{text}s"


def gemini_error(
    kind: str | int,
    credential: str = "",
    message: str | None = None,
    *,
    retry_seconds: float | None = None,
    method: str = "generateContent",
    **_: Any,
) -> dict[str, Any]:
    """The ``{"error": {"code", "message", "status"[, "details"]}}`` object Gemini returns.

    A 429 carries ``google.rpc.RetryInfo`` (``retryDelay: "<n>s"``, a protobuf Duration, so
    ``"13s"`` or ``"0.05s"``) when the delay is known, and
    ``quota`` a ``google.rpc.QuotaFailure`` too, as the real service does. ``method`` is the
    API method the request called (``embedContent``, ...), which the service's "model is not
    found" text names, and whose daily quota a ``quota`` reply's violation names (the
    embeddings methods' own, not generation's).
    """
    name = _kind_of(kind)
    if name == "401":
        status = "UNAUTHENTICATED"
        text = f"API key not valid ({_echo(credential)}). Please pass a valid API key."
    else:
        status, text = _GEMINI.get(name, ("INTERNAL", "An internal error has occurred."))
        text = text.replace("{method}", method)
    error: dict[str, Any] = {
        "code": error_status("gemini", name),
        "message": message or text,
        "status": status,
    }
    details: list[dict[str, Any]] = []
    if name == "quota":
        # The method's daily free-tier quota, as the real service names it: used up, not a
        # rate limit.
        violation = dict(_DAILY_QUOTAS.get(method, _GENERATE_QUOTA))
        details.append({"@type": _QUOTA_FAILURE, "violations": [violation]})
    if status == "RESOURCE_EXHAUSTED" and retry_seconds is not None:
        details.append({"@type": _RETRY_INFO, "retryDelay": _duration(retry_seconds)})
    if details:
        error["details"] = details
    return {"error": error}


_OLLAMA: dict[str, str] = {
    "400": "invalid request",
    "401": "unauthorized",
    "403": "forbidden",
    "404": "model not found, try pulling it first",
    "model_not_found": f'model "{UNKNOWN_MODEL}" not found, try pulling it first',
    "unsupported_capability": CAPABILITY_MESSAGES["ollama"],
    "429": "too many requests, please try again later",
    "retry_after_date": "too many requests, please try again later",
    "quota": "you have reached your usage limit, please upgrade to continue",
    "context_length": "the input length exceeds the context length",
    "500": "llama runner process has terminated: exit status 2",
    "503": "server busy, please try again.  maximum pending requests exceeded",
    "overloaded": "server busy, please try again.  maximum pending requests exceeded",
}


def ollama_error(
    kind: str | int, credential: str = "", message: str | None = None, **_: Any
) -> dict[str, Any]:
    """Ollama's flat ``{"error": "<text>"}`` object (its native API has no error codes)."""
    name = _kind_of(kind)
    text = _OLLAMA.get(name, "internal server error")
    if name == "401" and credential:
        text = f"unauthorized: invalid token {_echo(credential)}"
    return {"error": message or text}


_JSON_TAGS: dict[str, str] = {
    "400": "INVALID_REQUEST_BODY",
    "401": "INVALID_API_KEY",
    "403": "ACCESS_DENIED",
    "404": "NOT_FOUND",
    "model_not_found": "NOT_FOUND",
    "429": "RATE_LIMIT_EXCEEDED",
    "retry_after_date": "RATE_LIMIT_EXCEEDED",
    "quota": "NO_MORE_CREDITS",
    "context_length": "INVALID_REQUEST_BODY",
    "500": "INTERNAL_ERROR",
    "503": "SERVICE_UNAVAILABLE",
    "overloaded": "SERVICE_UNAVAILABLE",
}


def json_error(
    kind: str | int,
    credential: str = "",
    message: str | None = None,
    *,
    request_id: str = "",
    **_: Any,
) -> dict[str, Any]:
    """The Exa-like ``{"requestId", "error", "tag"}`` object of the generic JSON endpoint."""
    name = _kind_of(kind)
    tag = _JSON_TAGS.get(name, "INTERNAL_ERROR")
    text = tag.replace("_", " ").lower()
    if name == "401":
        text = f"invalid API key: {_echo(credential)}"
    return {"requestId": request_id, "error": message or text, "tag": tag}


_BUILDERS: dict[Vendor, Callable[..., dict[str, Any]]] = {
    "openai": openai_error,
    "anthropic": anthropic_error,
    "gemini": gemini_error,
    "ollama": ollama_error,
    "json": json_error,
}


def error_body(
    vendor: Vendor,
    kind: str | int,
    credential: str = "",
    message: str | None = None,
    **extra: Any,
) -> bytes:
    """Serialized error body for ``vendor``; ``message`` overrides the stock wording.

    ``extra`` carries what only some dialects report: ``retry_seconds`` (Gemini's RetryInfo),
    ``method`` (the Gemini method a "model is not found" text names),
    ``request_id`` (the generic JSON endpoint's ``requestId``).
    """
    return dumps(_BUILDERS[vendor](kind, credential, message, **extra))
