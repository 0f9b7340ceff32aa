"""Which configured values the process remembers as secrets, and what redaction does with them.

A remembered value is replaced in every error text of the process, so the set must hold the
credentials (and hide every echo of them) without taking ordinary words with it:

- a harmless header value (``x-fake-behaviour: context_length``) used to blank that word out of
  every provider message (``"code":"[REDACTED]_exceeded"``);
- a configured ``Authorization: Bearer <token>`` remembered only whole missed the provider's
  echo of the bare token;
- a weak secret that is itself a credential word (``password``) turned ``password: value`` into
  ``[REDACTED]: value``, showing the value the pair rule exists to hide;
- a credential configured again was still the first dropped by the bound.

It also holds the ``max_retries`` refusal to a message that says what the count means.
"""

from __future__ import annotations

import random
import string
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from lionagi.service import EndpointConfig, EndpointConfigurationError, iModel
from lionagi.service._base import secrets
from lionagi.service._base.secrets import REDACTED, redact, remember_secret
from lionagi.service_testing import FakeProviderServer

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def _letters(label: str) -> str:
    """A unique value of letters only: not shaped like a generated credential, no key format."""
    rng = random.Random(uuid.uuid4().int)
    return label + "".join(rng.choice(string.ascii_letters) for _ in range(24))


def _generated(label: str) -> str:
    """A unique value shaped like a generated credential (letters and digits, no key format)."""
    return f"Q{label}{uuid.uuid4().hex}"


def _config(**fields: Any) -> EndpointConfig:
    return EndpointConfig(
        **{"name": "n", "provider": "p", "endpoint": "e", "auth_type": "none", **fields}
    )


@pytest.fixture
def remembered_state() -> Iterator[None]:
    """Restore the process-wide set after a test that fills it past its bound."""
    known = secrets._KNOWN
    with known.lock:
        saved = dict(known.remembered)
    yield
    with known.lock:
        known.remembered.clear()
        known.remembered.update(saved)
        known.version += 1


# -- which header values are remembered ------------------------------------------------------


async def test_a_harmless_header_value_leaves_provider_error_text_alone() -> None:
    async with FakeProviderServer() as server:
        model = iModel(
            provider="openai",
            endpoint="chat",
            model="gpt-4.1",
            api_key=_generated("key"),
            base_url=f"{server.base_url}/v1",
            allow_local_network=True,
            max_retries=1,
            default_headers={"x-fake-behaviour": "context_length"},
        )
        async with model:
            call = await model.invoke(messages=[{"role": "user", "content": "hi"}])
    error = str(call.execution.error)
    assert '"code":"context_length_exceeded"' in error, error
    assert REDACTED not in error


@pytest.mark.parametrize(
    "name",
    [
        "Authorization",
        "Proxy-Authorization",
        "Cookie",
        "X-Custom-Token",
        "Helicone-Auth",
        "Ocp-Apim-Subscription-Key",
        "x-goog-api-key",
        "X-Api-Secret",
        "X-Session-Id",
    ],
)
def test_a_credential_named_header_value_is_remembered(name: str) -> None:
    value = _letters("hdr")  # a word-like value: the name alone makes it a credential
    config = _config(default_headers={name: value})
    assert config.to_dict()["default_headers"][name] == REDACTED
    assert redact(f"server said: you sent {value}.") == f"server said: you sent {REDACTED}."


def test_a_generated_value_under_any_other_name_is_remembered() -> None:
    value = _generated("team")  # X-Honeycomb-Team style: a key under a name saying nothing
    _config(default_headers={"X-Honeycomb-Team": value})
    assert value not in redact(f"unknown team {value}")


def test_an_ordinary_value_under_an_unlisted_name_is_hidden_in_dumps_only() -> None:
    value = _letters("app")
    config = _config(
        default_headers={"X-Title": value}, client_kwargs={"headers": {"X-Org": value}}
    )
    dumped = config.to_dict()
    assert dumped["default_headers"]["X-Title"] == REDACTED
    assert dumped["client_kwargs"]["headers"]["X-Org"] == REDACTED
    assert value not in repr(config)
    assert redact(f"the app {value} is not allowed") == f"the app {value} is not allowed"


def test_client_kwargs_headers_follow_the_same_rule() -> None:
    secret, plain = _letters("ck"), _letters("plain")
    _config(client_kwargs={"headers": {"X-Auth-Token": secret, "X-Purpose": plain}})
    assert redact(f"{secret} {plain}") == f"{REDACTED} {plain}"


@pytest.mark.parametrize("scheme", ["Bearer", "Token", "ApiKey"])
def test_the_credential_of_a_schemed_header_value_is_remembered_alone(scheme: str) -> None:
    token = _letters("tok")
    _config(default_headers={"Authorization": f"{scheme} {token}"})
    # The provider quotes the token it was sent, without the scheme.
    assert redact(f"Incorrect API key provided: {token}.") == (
        f"Incorrect API key provided: {REDACTED}."
    )


async def test_a_bearer_header_echoed_by_a_401_never_shows() -> None:
    token = _generated("bearer")
    async with FakeProviderServer() as server:
        model = iModel(
            provider="openai",
            endpoint="chat",
            model="gpt-4.1",
            auth_type="none",
            base_url=f"{server.base_url}/v1",
            allow_local_network=True,
            max_retries=1,
            default_headers={"Authorization": f"Bearer {token}", "x-fake-behaviour": "401"},
        )
        async with model:
            call = await model.invoke(messages=[{"role": "user", "content": "hi"}])
    error = str(call.execution.error)
    assert "401" in error
    assert token not in error and token[:12] not in error, error


# -- a known secret that names a pair ---------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "password: hunter22hunter",
        "  password:  hunter22hunter\n",
        "{'password': 'hunter22hunter'}",
        '"password": "hunter22hunter"',
        'password: "hunter22hunter"',
        "password=hunter22hunter",
    ],
)
def test_a_weak_secret_that_is_a_credential_word_still_hides_the_pairs_value(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    # A development database password of exactly "password": without it the pair rule hides
    # the value; with it the name is replaced first, and the value must still go.
    assert "hunter22hunter" not in redact(text)
    monkeypatch.setenv("LIONAGI_TEST_DB_PASSWORD", "password")
    assert "hunter22hunter" not in redact(text)


def test_a_secret_before_a_bare_colon_in_a_path_keeps_the_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LIONAGI_TEST_TENANT_TOKEN", "tenantdeployment")
    text = redact("POST https://h/v1/models/tenantdeployment:generateContent failed")
    assert text == f"POST https://h/v1/models/{REDACTED}:generateContent failed"


# -- the bound -------------------------------------------------------------------------------


@pytest.mark.usefixtures("remembered_state")
def test_a_credential_configured_again_counts_as_recent() -> None:
    key = _generated("again")
    _config(api_key=key, auth_type="bearer")
    for _ in range(secrets._REMEMBER_LIMIT - 1):
        remember_secret(_generated("fill"))
    _config(api_key=key, auth_type="bearer")  # configured again: among the most recent
    remember_secret(_generated("last"))
    assert redact(f"echo {key}") == f"echo {REDACTED}"


# -- max_retries -----------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, -1])
def test_max_retries_below_one_says_what_one_means(value: int) -> None:
    for build in (
        lambda: _config(max_retries=value),
        lambda: iModel(model="openai/gpt-4.1", api_key=_generated("k"), max_retries=value),
    ):
        with pytest.raises(EndpointConfigurationError) as caught:
            build()
        assert caught.value.field == "max_retries"
        message = str(caught.value)
        assert "max_retries=1" in message and "one attempt" in message, message
        assert "never retries" in message
