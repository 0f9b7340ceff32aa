"""Error bodies in each vendor's JSON shape, with the real services' wording.

A 401 body deliberately echoes the credential the client sent (at most 64 characters), the way
OpenAI's "Incorrect API key provided: ..." does, so client tests can prove that error messages
are redacted before they leave the library.
"""

from __future__ import annotations

from typing import Any, Literal

from ._fake_wire import dumps

__all__ = ["Vendor", "anthropic_error", "error_body", "gemini_error", "openai_error"]

Vendor = Literal["openai", "anthropic", "gemini"]
_ECHO_LIMIT = 64


def _echo(credential: str) -> str:
    return credential[:_ECHO_LIMIT] if credential else "(none)"


def openai_error(status: int, credential: str = "", message: str | None = None) -> dict[str, Any]:
    """The ``{"error": {...}}`` object OpenAI-compatible APIs return."""
    if status == 401:
        text = f"Incorrect API key provided: {_echo(credential)}."
        kind, code = "invalid_request_error", "invalid_api_key"
    elif status == 429:
        text = "Rate limit reached for requests. Please try again later."
        kind, code = "requests", "rate_limit_exceeded"
    elif status == 503:
        text, kind, code = "The server is overloaded or not ready yet.", "server_error", None
    elif status >= 500:
        text = "The server had an error while processing your request. Sorry about that!"
        kind, code = "server_error", None
    else:
        text, kind, code = "Invalid request.", "invalid_request_error", None
    return {"error": {"message": message or text, "type": kind, "param": None, "code": code}}


_ANTHROPIC_KINDS = {
    400: ("invalid_request_error", "Invalid request."),
    404: ("not_found_error", "Not found."),
    429: ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
    500: ("api_error", "Internal server error"),
    503: ("overloaded_error", "Overloaded"),
}


def anthropic_error(
    status: int, credential: str = "", message: str | None = None
) -> dict[str, Any]:
    """The ``{"type": "error", "error": {...}}`` object the Anthropic API returns."""
    if status == 401:
        kind, text = "authentication_error", f"invalid x-api-key: {_echo(credential)}"
    else:
        kind, text = _ANTHROPIC_KINDS.get(status, ("api_error", "Internal server error"))
    return {"type": "error", "error": {"type": kind, "message": message or text}}


_GEMINI_KINDS = {
    400: ("INVALID_ARGUMENT", "Request contains an invalid argument."),
    404: ("NOT_FOUND", "Requested entity was not found."),
    429: ("RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
    500: ("INTERNAL", "An internal error has occurred. Please retry."),
    503: ("UNAVAILABLE", "The model is overloaded. Please try again later."),
}


def gemini_error(status: int, credential: str = "", message: str | None = None) -> dict[str, Any]:
    """The ``{"error": {"code", "message", "status"}}`` object the Gemini API returns."""
    if status == 401:
        kind = "UNAUTHENTICATED"
        text = f"API key not valid ({_echo(credential)}). Please pass a valid API key."
    else:
        kind, text = _GEMINI_KINDS.get(status, ("INTERNAL", "An internal error has occurred."))
    return {"error": {"code": status, "message": message or text, "status": kind}}


_BUILDERS = {"openai": openai_error, "anthropic": anthropic_error, "gemini": gemini_error}


def error_body(
    vendor: Vendor, status: int, credential: str = "", message: str | None = None
) -> bytes:
    """Serialized error body for ``vendor``; ``message`` overrides the stock wording."""
    return dumps(_BUILDERS[vendor](status, credential, message))
