"""The credentials an accepted ``extra_body`` carries join the carried set; other values do not.

``extra_body`` is never validated, so no ``remember_request_secret`` validator runs for its
fields; ``build_payload`` walks it instead. These tests pin which keys count (a key's last word,
not a word anywhere in it), what is read under them, and that nothing is carried for an
``extra_body`` that is refused.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, SecretStr

from lionagi.service import EndpointConfig, EndpointConfigurationError
from lionagi.service._base import secrets
from lionagi.service._base.secrets import REDACTED, redact
from lionagi.service._transport.http.payload import build_payload

pytestmark = pytest.mark.usefixtures("carried_state")


def _token(label: str = "tok") -> str:
    return f"{label}{uuid.uuid4().hex}"


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str
    temperature: float | None = None


def _config(options: type[BaseModel] | None = _Request) -> EndpointConfig:
    return EndpointConfig(
        name="x", provider="x", endpoint="chat", base_url="https://x.example",
        request_options=options,
    )  # fmt: skip


def _carried() -> set[str]:
    return set(secrets._KNOWN.carried)


@pytest.mark.parametrize(
    "key",
    [
        "authorization",
        "Authorization",
        "authorization_token",
        "api_key",
        "apiKey",
        "APIKey",
        "x-api-key",
        "x-goog-api-key",
        "token",
        "accessToken",
        "password",
        "passwd",
        "secret",
        "client_secret",
        "clientSecret",
        "auth",
        "credentials",
        "private_key",
    ],
)
def test_a_key_whose_last_word_names_a_credential_is_carried(key: str) -> None:
    value = _token()
    body = build_payload(_config(), {"model": "m", "extra_body": {key: value}})
    assert body[key] == value  # sent as written
    assert value in _carried()


@pytest.mark.parametrize(
    "key",
    [
        "user",
        "metadata",
        "key",  # the name of a key/value pair, not a key
        "token_budget",
        "auth_type",
        "token_url",
        "tokenizer",
        "session_id",
        "signature",  # a thinking or tool signature: opaque, the provider's own
    ],
)
def test_other_keys_are_left_alone(key: str) -> None:
    credential = _token("credential")
    extra = {key: _token(), "api_key": credential}
    build_payload(_config(), {"model": "m", "extra_body": extra})
    assert _carried() == {credential}


def test_only_strings_of_at_least_min_env_secret_characters_are_carried() -> None:
    credential = _token("credential")
    extra = {
        "max_tokens": 123456789,
        "token": "short1",
        "secret": True,
        "password": None,
        "api_key": credential,
    }
    build_payload(_config(), {"model": "m", "extra_body": extra})
    assert _carried() == {credential}


def test_nested_mappings_and_lists_are_walked() -> None:
    mcp, listed, deep = _token("mcp"), _token("listed"), _token("deep")
    extra = {
        "mcp_servers": [{"url": "https://mcp.example", "authorization_token": mcp}],
        "api_keys_by_region": {"tokens": [], "fallback": {"secret": [listed, 5]}},
        "options": [[{"provider": {"apiKey": deep, "name": "documentation"}}]],
        "user": "reader-0123456789",
    }
    build_payload(_config(), {"model": "m", "extra_body": extra})
    assert _carried() == {mcp, listed, deep}


def test_a_headers_mapping_keeps_what_a_configured_header_would() -> None:
    bearer, named, shaped = _token("bearer"), _token("named"), _token("shaped")
    headers = {
        "Authorization": f"Bearer {bearer}",
        "X-Api-Key": named,
        "X-Request-Tag": shaped,  # not credential-named, but shaped like a generated one
        "X-Team": "documentation",
        "Accept": "application/json",
    }
    extra = {"tools_beta": [{"type": "mcp", "headers": headers}]}
    build_payload(_config(), {"model": "m", "extra_body": extra})
    assert _carried() == {f"Bearer {bearer}", bearer, named, shaped}


def test_a_scheme_value_yields_its_credential_and_a_secret_str_is_read() -> None:
    bearer, wrapped = _token("bearer"), _token("wrapped")
    extra = {"authorization": f"Bearer {bearer}", "client_secret": SecretStr(wrapped)}
    build_payload(_config(None), {"model": "m", "extra_body": extra})
    assert {bearer, wrapped} <= _carried()
    assert redact(f"refused {bearer}") == f"refused {REDACTED}"


def test_an_open_endpoint_without_a_request_model_carries_them_too() -> None:
    token = _token()
    body = build_payload(_config(None), {"model": "m", "extra_body": {"api_key": token}})
    assert body == {"model": "m", "api_key": token}
    assert redact(f"echo {token}") == f"echo {REDACTED}"


def test_an_open_endpoints_own_body_fields_are_carried_too() -> None:
    # Without a request model nothing validates the body, so a credential-named field of its
    # own (an API that takes its key in the body) is carried as one in extra_body would be.
    token, user = _token(), _token("reader")
    body = build_payload(_config(None), {"model": "m", "api_key": token, "user": user})
    assert body == {"model": "m", "api_key": token, "user": user}
    assert _carried() == {token}


class _OpenRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    model: str
    api_key_hint: str | None = None


def test_an_open_request_models_undeclared_fields_are_carried() -> None:
    # An open model (extra="allow") validates its declared fields only; the rest go out as
    # given, unvalidated like extra_body, so a credential-named one among them is carried.
    token, user = _token(), _token("reader")
    body = build_payload(_config(_OpenRequest), {"model": "m", "token": token, "user": user})
    assert body == {"model": "m", "token": token, "user": user}
    assert _carried() == {token}
    assert redact(f"echo {token} for {user}") == f"echo {REDACTED} for {user}"


def test_a_refused_extra_body_carries_nothing() -> None:
    refused, accepted = _token("refused"), _token("accepted")
    with pytest.raises(EndpointConfigurationError):
        build_payload(
            _config(), {"model": "m", "extra_body": {"temperature": 1.0, "api_key": refused}}
        )
    build_payload(_config(), {"model": "m", "extra_body": {"api_key": accepted}})
    assert _carried() == {accepted}


def test_a_cycle_in_extra_body_ends_the_walk() -> None:
    token = _token()
    cyclic: dict[str, Any] = {"token": token}
    cyclic["self"] = cyclic
    secrets.remember_body_credentials({"holder": cyclic, "again": [cyclic, cyclic]})
    assert _carried() == {token}


def test_the_configured_set_is_unchanged() -> None:
    version, token = secrets._KNOWN.version, _token()
    build_payload(_config(), {"model": "m", "extra_body": {"api_key": token}})
    assert _carried() == {token}
    # Carried apart from the configured values: their compiled pattern is not rebuilt.
    assert secrets._KNOWN.version == version


PAIRS = [
    pytest.param({"name": "Authorization", "value": "Bearer {}"}, id="name_authorization_bearer"),
    pytest.param({"key": "X-Api-Key", "value": "{}"}, id="key_x_api_key"),
    pytest.param({"name": "GITHUB_PERSONAL_ACCESS_TOKEN", "value": "{}"}, id="env_style_token"),
    pytest.param({"name": "clientSecret", "value": "{}", "required": True}, id="more_entries"),
]


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("under", ["headers", "env", "params"])
def test_a_name_value_pair_naming_a_credential_carries_its_value(
    pair: dict[str, Any], under: str
) -> None:
    # The shape tool and MCP configurations use for header and environment lists: the name
    # is one entry's value, so the key rule alone saw only `name`, `key` and `value`.
    token = _token()
    filled = {k: v.format(token) if k == "value" else v for k, v in pair.items()}
    extra = {"mcp_servers": [{"url": "https://mcp.example/sse", under: [filled]}]}
    build_payload(_config(), {"model": "m", "extra_body": extra})
    assert token in _carried()


def test_a_pair_is_read_by_the_body_key_rule_outside_headers() -> None:
    credential, nested = _token("credential"), _token("nested")
    settings = [
        {"key": "department", "value": _token("department")},  # the documented non-credential
        {"name": "auth_type", "value": _token("authtype")},  # a setting, as a body key is
        {"name": "session_id", "value": _token("session")},
        {"name": 12345678, "value": _token("number")},  # a name that is no string: no pair
        {"value": _token("anonymous")},
        {"key": "api_key", "value": credential},
        {"name": "fallback_token", "value": [nested, 3]},  # a list value is read item by item
    ]
    build_payload(_config(), {"model": "m", "extra_body": {"settings": settings}})
    assert _carried() == {credential, nested}


def test_in_a_headers_list_pairs_and_mappings_are_read_as_headers() -> None:
    # Under `headers`, what `remember_request_headers` keeps of a headers mapping: the
    # header-name rule (`X-Session` is no credential body key) and a generated-looking value.
    phrase, shaped, mapped = "correct horse battery staple", _token("shaped"), _token("mapped")
    headers = [
        {"name": "X-Session", "value": phrase},
        {"name": "X-Request-Tag", "value": shaped},
        {"key": "X-Team", "value": "documentation"},
        {"name": "Accept", "value": "application/json"},
        {"Authorization": f"Bearer {mapped}"},  # a headers mapping in the list
    ]
    extra = {"tools_beta": [{"type": "mcp", "headers": headers}]}
    build_payload(_config(), {"model": "m", "extra_body": extra})
    assert _carried() == {phrase, shaped, f"Bearer {mapped}", mapped}
