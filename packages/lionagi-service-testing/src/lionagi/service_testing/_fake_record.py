"""What the fake server remembers about each request, with credentials already redacted.

Tests assert on recorded requests (which route, which model, which headers), so the record must
be safe to print: credential headers and a ``key`` query parameter are stored as ``[REDACTED]``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

__all__ = [
    "CONVERSATION_KEYS",
    "REDACTED",
    "SECRET_HEADERS",
    "RecordedRequest",
    "conversation_texts",
    "credential_digest",
    "credential_of",
    "record",
]

REDACTED = "[REDACTED]"
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "api-key"}
)
_SECRET_QUERY = frozenset({"key", "api_key"})
# Body keys under which the four wire formats carry conversation text: chat and Messages
# ``messages[].content``, Responses ``input`` / ``instructions``, Gemini ``contents[].parts[].text``
# and ``systemInstruction``, Messages ``system``, Ollama ``/api/generate``'s ``prompt`` and the
# generic JSON (search) endpoint's ``query``.
CONVERSATION_KEYS = frozenset(
    {
        "messages",
        "input",
        "instructions",
        "system",
        "contents",
        "systemInstruction",
        "prompt",
        "query",
    }
)
_TEXT_KEYS = frozenset({"content", "text", "input", "output", "instructions", "system"})


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request as the fake server saw it.

    Attributes:
        method: HTTP method, e.g. ``"POST"``.
        path: Path without the query, e.g. ``"/v1/messages"``.
        query: Query parameters (last value wins); ``key`` is redacted.
        headers: Lower-case header names to values; credential headers are redacted.
        json: The parsed JSON body, or None when the body was empty or not JSON.
        scenario: The scenario selector as sent (the ``x-fake-behaviour`` header, else the
            ``/scenario/<names>/`` path prefix), ``"text"`` when neither was given. ``path`` is
            the path after that prefix, as routed.
        credential_sha256: :func:`credential_digest` of the credential the request carried
            (``""`` when it carried none). The value itself is redacted everywhere else; the
            digest lets a test check *which* key arrived (``credential_digest(key)``) without
            the record ever holding it.
    """

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    json: Any
    scenario: str = "text"
    credential_sha256: str = field(default="", repr=False, compare=False)

    def conversation_text(self) -> str:
        """Every text the request carried as conversation, in body order, one per line.

        Vendor-neutral: it reads the conversation keys of the chat, Responses, Messages and
        Gemini formats (:data:`CONVERSATION_KEYS`), so a test can ask "did turn two send turn
        one's prompt and answer?" without knowing which format the client spoke.
        """
        return "\n".join(conversation_texts(self.json))

    def prompt_text(self) -> str:
        """The last text of the conversation: the newest user prompt (or tool result)."""
        texts = conversation_texts(self.json)
        return texts[-1] if texts else ""


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
    digest = credential_digest(credential_of(headers, query))
    return RecordedRequest(method, path, params, safe, body, scenario, digest)


def credential_digest(credential: str) -> str:
    """The SHA-256 hex digest :attr:`RecordedRequest.credential_sha256` holds (``""`` for none)."""
    return hashlib.sha256(credential.encode()).hexdigest() if credential else ""


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


def conversation_texts(body: Any) -> list[str]:
    """The strings under ``body``'s conversation keys, in order (roles and ids left out)."""
    if not isinstance(body, dict):
        return []
    found: list[str] = []
    for key, value in body.items():
        if key in CONVERSATION_KEYS:
            _collect(value, found, text_slot=True)
    return found


def _collect(value: Any, found: list[str], *, text_slot: bool) -> None:
    if isinstance(value, str):
        if text_slot and value:
            found.append(value)
    elif isinstance(value, list):
        for item in value:
            _collect(item, found, text_slot=text_slot)
    elif isinstance(value, dict):
        for key, item in value.items():
            _collect(item, found, text_slot=key in _TEXT_KEYS or key == "parts")
