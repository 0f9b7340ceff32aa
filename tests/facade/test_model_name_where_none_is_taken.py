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
    # "write '<provider>/<model>'" would only lead to the error above; a provider none of whose
    # requests take a model (AG2's in-process agents) is told to name the endpoint instead.
    # One that takes a model on any endpoint keeps its hint: exa's answer endpoint takes one.
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="ag2", api_key=KEY)
    assert "iModel(provider='ag2', endpoint=...)" in str(info.value)
    assert "ag2/<model>" not in str(info.value)
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="exa", api_key=KEY)
    assert "'exa/<model>'" in str(info.value)
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="openai", api_key=KEY)
    assert "'openai/<model>'" in str(info.value)


def test_a_model_name_the_row_refuses_is_not_called_a_missing_field() -> None:
    # Exa's answer row has a model field with a closed list: the refusal is of the name, and
    # saying "its request has no 'model' field" would send the caller the wrong way.
    for kwargs in ({"provider": "exa", "endpoint": "answer"}, {}):
        with pytest.raises(EndpointConfigurationError) as info:
            iModel(model="exa/exa-ultra" if not kwargs else "exa-ultra", api_key=KEY, **kwargs)
        assert info.value.field == "model"
        assert "no 'model' field" not in str(info.value)
        assert "'exa' or 'exa-pro'" in str(info.value)
