"""Credentials a request carries in its body are redacted like configured keys.

An adapter declares a request field holding a credential (an MCP server's token, a one-time
credit token) with ``remember_request_secret`` / ``remember_request_headers`` from
``lionagi.service.http`` as its pydantic after-validator. Before, adapters had no way to reach
core's known-secret set (``remember_secret`` is private), so a provider that echoed such a
value in an error put it into the error text, its excerpt and the log.

The values are letters and digits without a key prefix, quoted bare: no credential shape of
core's catches them, only the value itself.
"""

from __future__ import annotations

import uuid
from typing import Annotated

from pydantic import AfterValidator, BaseModel, SecretStr

from lionagi.service import http
from lionagi.service._base import secrets
from lionagi.service._base.secrets import (
    FRAGMENT,
    REDACTED,
    REQUEST_SECRET_LIMIT,
    redact,
    remember_request_headers,
    remember_request_secret,
    remember_secret,
)


def _token(label: str = "tok") -> str:
    return f"{label}{uuid.uuid4().hex}"


class _McpServer(BaseModel):
    """An adapter's request model, declaring its credential field as documented."""

    url: str
    token: Annotated[str | None, AfterValidator(remember_request_secret)] = None
    credit: Annotated[SecretStr | None, AfterValidator(remember_request_secret)] = None


def test_the_adapter_module_exports_the_core_functions() -> None:
    assert http.remember_request_secret is remember_request_secret
    assert http.remember_request_headers is remember_request_headers
    assert {"remember_request_secret", "remember_request_headers"} <= set(http.__all__)


def test_a_validated_field_is_redacted_from_later_error_text() -> None:
    token = _token()
    server = _McpServer(url="https://mcp.example", token=token)
    assert server.token == token  # the body still sends it
    text = f"upstream refused the credential {token} for https://mcp.example"
    assert redact(text) == f"upstream refused the credential {REDACTED} for https://mcp.example"


def test_an_echo_cut_short_is_redacted_too() -> None:
    token = _token()
    remember_request_secret(token)
    cut = token[: FRAGMENT + 3]
    assert redact(f"refused '{cut}...'") == f"refused '{REDACTED}...'"


def test_a_secret_str_is_read_and_returned_as_it_came() -> None:
    token = _token("credit")
    wrapped = SecretStr(token)
    assert remember_request_secret(wrapped) is wrapped
    assert redact(f"credit {token} spent") == f"credit {REDACTED} spent"
    model = _McpServer(url="u", credit=_token("model"))
    assert model.credit is not None
    assert model.credit.get_secret_value() not in redact(model.credit.get_secret_value())


def test_none_and_short_values_are_ignored(carried_state: None) -> None:
    before = secrets._KNOWN.carried_view
    assert remember_request_secret(None) is None
    assert remember_request_headers(None) is None
    remember_request_secret("short1")  # below MIN_ENV_SECRET: would blank ordinary words
    assert secrets._KNOWN.carried_view == before
    assert redact("a short1 word") == "a short1 word"


def test_a_request_without_the_field_adds_nothing(carried_state: None) -> None:
    before = secrets._KNOWN.carried_view
    _McpServer(url="https://mcp.example")
    assert secrets._KNOWN.carried_view is before


def test_headers_keep_what_a_configured_header_would(carried_state: None) -> None:
    bearer, named = _token("bearer"), _token("named")
    headers = {
        "Authorization": f"Bearer {bearer}",
        "X-Api-Key": named,
        "X-Team": "documentation",
        "Accept": "application/json",
    }
    assert remember_request_headers(headers) is headers
    text = f"refused {bearer} and {named} for documentation, application/json"
    assert redact(text) == f"refused {REDACTED} and {REDACTED} for documentation, application/json"


def test_the_bound_drops_the_oldest_and_a_value_carried_again_counts_as_recent(
    carried_state: None,
) -> None:
    first, again = _token("first"), _token("again")
    remember_request_secret(first)
    remember_request_secret(again)
    for _ in range(REQUEST_SECRET_LIMIT - 2):
        remember_request_secret(_token("fill"))
    remember_request_secret(again)  # carried again: among the most recent
    remember_request_secret(_token("last"))
    assert len(secrets._KNOWN.carried) == REQUEST_SECRET_LIMIT
    assert redact(f"echo {first}") == f"echo {first}"
    assert redact(f"echo {again}") == f"echo {REDACTED}"


def test_carried_values_never_push_out_a_configured_key(carried_state: None) -> None:
    key = _token("configured")
    remember_secret(key)
    version = secrets._KNOWN.version
    for _ in range(REQUEST_SECRET_LIMIT + 10):
        remember_request_secret(_token("fill"))
    assert redact(f"echo {key}") == f"echo {REDACTED}"
    # The configured values' compiled pattern is not rebuilt for a carried value.
    assert secrets._KNOWN.version == version
