"""A key typed where configuration expects a name is refused and never repeated.

`api_key_env` names the variable holding the key; a key pasted there used to be accepted,
shown by the config's repr and dumps, and quoted in the "set <name>" hint of the missing-key
error. An unknown configuration keyword is caller text too: a key passed as a keyword's name
was echoed as the error's field.
"""

from __future__ import annotations

import pytest

from lionagi.service import EndpointConfig, EndpointConfigurationError, iModel, match_endpoint
from lionagi.service._transport.config import check_config_fields

KEY = "sk-proj-Zq81sd7Hh2LmNp4Rt6Vx9Ab3Cd5Ef7Gh"


def _refused(exc: pytest.ExceptionInfo[EndpointConfigurationError]) -> None:
    assert exc.value.field == "api_key_env"
    assert "NAME of an environment variable" in str(exc.value)
    assert KEY not in str(exc.value) and KEY[:12] not in str(exc.value)


@pytest.mark.parametrize("value", [KEY, "", "1ST", "OPENAI API KEY", "A-B"])
def test_an_api_key_env_that_is_not_a_variable_name_is_refused(value: str) -> None:
    with pytest.raises(EndpointConfigurationError) as exc:
        EndpointConfig(
            provider="p", endpoint="e", base_url="https://x.example/v1", api_key_env=value
        )
    assert exc.value.field == "api_key_env"
    assert value not in str(exc.value).replace("api_key_env", "") or value == ""


def test_a_key_pasted_as_api_key_env_is_refused_by_every_entry_point() -> None:
    with pytest.raises(EndpointConfigurationError) as exc:
        match_endpoint("openai", "chat", api_key_env=KEY)
    _refused(exc)
    with pytest.raises(EndpointConfigurationError) as exc:
        iModel(provider="openai", model="gpt-4.1", api_key_env=KEY)
    _refused(exc)


def test_a_registration_naming_a_key_as_its_env_fails_the_catalog_check() -> None:
    data = {"provider": "p", "endpoint": "e", "base_url": "https://x.example/v1"}
    with pytest.raises(EndpointConfigurationError) as exc:
        check_config_fields({**data, "api_key_env": KEY})
    _refused(exc)
    check_config_fields({**data, "api_key_env": "ACME_API_KEY"})  # a name passes


def test_a_variable_name_still_reads_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_TEST_KEY_ENV_NAME", KEY)
    config = EndpointConfig(
        name="n",
        provider="p",
        endpoint="e",
        base_url="https://x.example/v1",
        api_key_env="ACME_TEST_KEY_ENV_NAME",
    )
    assert config.secret_value() == KEY


def test_an_unknown_keyword_holding_a_key_is_not_echoed() -> None:
    with pytest.raises(EndpointConfigurationError) as exc:
        match_endpoint("openai", "chat", **{KEY: 1})
    assert KEY[:12] not in str(exc.value)
    assert KEY[:12] not in exc.value.field
    assert "unknown endpoint configuration field" in str(exc.value)


def test_a_request_default_key_holding_a_key_is_not_echoed() -> None:
    with pytest.raises(EndpointConfigurationError) as exc:
        match_endpoint("openai", "chat", request_defaults={KEY: 1})
    assert exc.value.field.startswith("request_defaults.")
    assert KEY[:12] not in str(exc.value) and KEY[:12] not in exc.value.field
