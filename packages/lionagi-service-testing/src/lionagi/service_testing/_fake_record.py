"""What the fake server remembers about each request, with credentials already redacted.

Tests assert on recorded requests (which route, which model, which headers), so the record must
be safe to print: credential headers and a ``key`` query parameter are stored as ``[REDACTED]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

__all__ = ["REDACTED", "SECRET_HEADERS", "RecordedRequest", "credential_of", "record"]

REDACTED = "[REDACTED]"
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "api-key"}
)
_SECRET_QUERY = frozenset({"key", "api_key"})


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request as the fake server saw it.

    Attributes:
        method: HTTP method, e.g. ``"POST"``.
        path: Path without the query, e.g. ``"/v1/messages"``.
        query: Query parameters (last value wins); ``key`` is redacted.
        headers: Lower-case header names to values; credential headers are redacted.
        json: The parsed JSON body, or None when the body was empty or not JSON.
        scenario: The scenario selector as sent (``x-fake-behaviour`` header, else the
            ``/scenario/<names>/`` path prefix), ``"text"`` when neither was given. ``path`` is
            the path after that prefix, as routed.
    """

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    json: Any
    scenario: str = "text"

    def prompt_text(self) -> str:
        """Every conversation text in the body, in the body's order, one per line, in any dialect.

        Collects the strings under ``content``, ``text``, ``prompt``, ``input``, ``system``,
        ``instructions`` and ``query`` (messages, parts, Responses input items, Ollama prompts,
        search queries), so a test can assert what reached the provider without knowing its
        wire shape.
        """
        found: list[str] = []
        _collect(self.json, found)
        return "\n".join(found)


_TEXT_KEYS = frozenset({"content", "text", "prompt", "input", "system", "instructions", "query"})


def _collect(value: Any, found: list[str], texty: bool = False) -> None:
    """Walk ``value``; strings count under a text key, or in a list held by one."""
    if isinstance(value, dict):
        for key, item in value.items():
            _collect(item, found, key in _TEXT_KEYS)
    elif isinstance(value, list):
        for item in value:
            _collect(item, found, texty)
    elif isinstance(value, str) and texty:
        found.append(value)


def record(
    method: str,
    path: str,
    query: str,
    headers: dict[str, str],
    body: Any,
    scenario: str = "text",
) -> RecordedRequest:
    """Build a :class:`RecordedRequest`, redacting credentials."""
    params = {
        name: REDACTED if name in _SECRET_QUERY else value
        for name, value in parse_qsl(query, keep_blank_values=True)
    }
    safe = {name: REDACTED if name in SECRET_HEADERS else value for name, value in headers.items()}
    return RecordedRequest(method, path, params, safe, body, scenario)


def credential_of(headers: dict[str, str], query: str) -> str:
    """The credential the client sent, for the 401 body that echoes it back."""
    auth = headers.get("authorization")
    if auth:
        scheme, _, token = auth.partition(" ")
        return token.strip() or scheme
    for name in ("x-api-key", "x-goog-api-key", "api-key"):
        if headers.get(name):
            return headers[name]
    for name, value in parse_qsl(query):
        if name in _SECRET_QUERY:
            return value
    return ""
