"""A key or header HTTP cannot carry is refused where it is configured, never shown when sent.

Before, an API key with the trailing newline of the file or variable it was read from reached
h11, whose refusal quotes the header's bytes: the key appeared in full in the typed error (for an
``x-api-key`` header) and in the chained httpx exception of every provider. A copy-pasted
zero-width or non-breaking space surfaced as a bare ``UnicodeEncodeError`` mid-call, and a bad
header name as a provider failure.
"""

from __future__ import annotations

import traceback
from typing import Any

import pytest

from lionagi.service import (
    EndpointConfig,
    EndpointConfigurationError,
    ProviderProtocolError,
    iModel,
)

KEY = "ZZdistinctiveQQ42secretvalueXY"
BASE: dict[str, Any] = {"name": "t", "provider": "t", "endpoint": "chat/completions"}


def _refusal(**fields: Any) -> EndpointConfigurationError:
    with pytest.raises(EndpointConfigurationError) as info:
        EndpointConfig(**BASE, **fields)
    return info.value


@pytest.mark.parametrize("key", [KEY + "\n", KEY + "\r\n", " " + KEY, KEY + "\t"])
def test_a_key_with_surrounding_whitespace_is_refused_without_showing_it(key: str) -> None:
    error = _refusal(api_key=key)
    assert error.field == "api_key"
    assert "strip it" in str(error)
    assert KEY not in str(error) and KEY not in repr(error)


@pytest.mark.parametrize(("char", "code"), [("\u200b", "U+200B"), ("\u00a0", "U+00A0")])
def test_a_key_with_a_pasted_non_ascii_character_is_refused_naming_it(char: str, code: str) -> None:
    error = _refusal(api_key=KEY[:10] + char + KEY[10:])
    assert error.field == "api_key"
    assert code in str(error) and "position 11" in str(error)
    assert KEY[:10] not in str(error)


def test_a_key_with_an_inner_line_break_is_refused() -> None:
    error = _refusal(api_key=KEY[:5] + "\n" + KEY[5:])
    assert error.field == "api_key" and "control character" in str(error)


def test_a_key_from_the_environment_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIONAGI_TEST_KEY_FILE_READ", KEY + "\n")
    error = _refusal(api_key_env="LIONAGI_TEST_KEY_FILE_READ")
    assert error.field == "api_key_env"
    assert "$LIONAGI_TEST_KEY_FILE_READ" in str(error)
    assert KEY not in str(error)


def test_a_facade_refuses_it_at_construction() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(
            model="openai/gpt-4.1",
            base_url="http://127.0.0.1:9/v1",
            allow_local_network=True,
            api_key=KEY + "\n",
        )
    assert info.value.field == "api_key" and KEY not in str(info.value)


def test_keys_http_can_carry_are_accepted() -> None:
    for key in (KEY, "sk-proj-abc_DEF-123.456/789+=", "a b"):  # inner space: h11 takes it
        assert EndpointConfig(**BASE, api_key=key).secret_value() == key


def test_default_headers_with_a_bad_name_or_value_are_refused() -> None:
    error = _refusal(default_headers={"bad header": "v"})
    assert error.field == "default_headers.bad header" and "header name" in str(error)
    error = _refusal(default_headers={"X-Org": "acme\ncorp"})
    assert error.field == "default_headers.X-Org"
    assert "acme" not in str(error)  # a non-harmless header value may be a credential
    assert EndpointConfig(**BASE, default_headers={"X-Org": "acme corp"}).default_headers


async def test_a_per_call_extra_header_is_refused_before_any_request(
    serve: Any, make_endpoint: Any, wire: Any
) -> None:
    server = await serve(lambda req: wire.full(200, "{}"))
    ep = make_endpoint(server.base_url)
    for headers, field in (
        ({"X-Trace": "a\u00a0b"}, "headers.X-Trace"),
        ({"a b": "v"}, "headers.a b"),
    ):
        with pytest.raises(EndpointConfigurationError) as info:
            await ep.call({"model": "m"}, extra_headers=headers)
        assert info.value.field == field
    assert server.requests == []


async def test_h11_quoting_a_header_never_shows_it(
    serve: Any, make_endpoint: Any, wire: Any
) -> None:
    # A configuration changed after its checks (a mutated header dict) still reaches h11: its
    # refusal quotes the bytes, which are redacted, and the raw httpx error is not chained.
    server = await serve(lambda req: wire.full(200, "{}"))
    ep = make_endpoint(server.base_url)
    ep.config.default_headers["X-Org"] = "orgsecret-" + KEY + "\n"
    with pytest.raises(ProviderProtocolError) as info:
        await ep.call({"model": "m"})
    rendered = "".join(traceback.format_exception(info.value))
    assert "LocalProtocolError" in str(info.value)
    assert "orgsecret" not in rendered
    assert info.value.__cause__ is None
