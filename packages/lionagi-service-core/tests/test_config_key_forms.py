"""EndpointConfig checks the API key alike whether it is given plain or as a `SecretStr`.

Both checks that run before pydantic (an empty key, a key that cannot be a header value) read
the key through one unwrap, so neither form slips past one of them.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import SecretStr

from lionagi.service import EndpointConfig, EndpointConfigurationError

BASE: dict[str, Any] = {
    "name": "plain",
    "provider": "plain",
    "endpoint": "chat",
    "base_url": "https://example.invalid/v1",
}
KEY = "sk-test-ConfigKeyFormsQQ42distinct"


@pytest.mark.parametrize("form", [str, SecretStr])
def test_an_empty_key_is_refused_in_either_form(form: Any) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        EndpointConfig(**BASE, api_key=form(""))
    assert info.value.field == "api_key"
    assert "is empty" in str(info.value)


@pytest.mark.parametrize("form", [str, SecretStr])
def test_a_key_that_is_no_header_value_is_refused_in_either_form(form: Any) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        EndpointConfig(**BASE, api_key=form(KEY + "\n"))
    assert info.value.field == "api_key"
    assert str(info.value).startswith("api_key: the key ")
    assert KEY not in str(info.value)


@pytest.mark.parametrize("form", [str, SecretStr])
def test_a_good_key_is_kept_in_either_form(form: Any) -> None:
    config = EndpointConfig(**BASE, api_key=form(KEY))
    assert config.api_key is not None
    assert config.api_key.get_secret_value() == KEY
