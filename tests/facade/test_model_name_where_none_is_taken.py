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


def test_a_bare_provider_that_takes_no_model_is_not_told_to_name_one() -> None:
    # "write 'exa/<model>'" only led to the error above; a provider whose requests take no
    # model is told to name the endpoint instead. One that takes a model keeps its hint.
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="exa", api_key=KEY)
    assert "iModel(provider='exa', endpoint=...)" in str(info.value)
    assert "exa/<model>" not in str(info.value)
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="openai", api_key=KEY)
    assert "'openai/<model>'" in str(info.value)
