"""``iModel(model="exa/x")``, where the endpoint takes no model, says so in the caller's terms.

Before, the name written in ``model=`` was reported as ``request_defaults.model: is not a field
of ExaSearchRequest``, a setting the caller never passed.
"""

from __future__ import annotations

import pytest

from lionagi.service import EndpointConfigurationError, iModel

KEY = "k-123456789abcdef"


def test_a_model_name_for_an_endpoint_without_one_names_model_and_the_fix() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="exa/some-model", endpoint="search", api_key=KEY)
    assert info.value.field == "model"
    assert "iModel(provider='exa', endpoint='search')" in str(info.value)
    assert iModel(provider="exa", endpoint="search", api_key=KEY).endpoint.config.provider == "exa"


def test_a_model_in_the_callers_own_defaults_keeps_the_defaults_error() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(provider="exa", endpoint="search", request_defaults={"model": "m"}, api_key=KEY)
    assert info.value.field == "request_defaults.model"
