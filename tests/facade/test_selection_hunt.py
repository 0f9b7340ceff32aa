"""Selection keywords the facade dropped or echoed.

``iModel(endpoint=<Endpoint>, yolo=True)``: a selection keyword an instance cannot take.

Before, ``yolo``, ``bypass``, ``fast`` and ``openai_compatible`` were silently ignored next to a
constructed endpoint (the other selection and config keywords were already refused): the caller
asked for a permission or speed mode and the model ran without it. They apply the catalog's
model policy (or fallback) while ``iModel`` selects an endpoint, which an instance skips.

``iModel("scripted", None, "sk-...")``: an API key written in a selection slot (the positional
order is provider, base_url, endpoint, api_key) was echoed by the catalog's error.
"""

from __future__ import annotations

import pytest

from lionagi.service import EndpointConfigurationError, EndpointNotFound, iModel

KEY = "sk-proj-ZZfacadeHuntQQ1234567890"


@pytest.mark.parametrize("name", ["yolo", "bypass", "fast", "openai_compatible"])
def test_endpoint_instance_refuses_selection_modes(scripted_endpoint, name):
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(endpoint=scripted_endpoint, **{name: True})
    assert info.value.field == name


def test_endpoint_instance_accepts_the_modes_left_off(scripted_endpoint):
    model = iModel(
        endpoint=scripted_endpoint, yolo=False, bypass=False, fast=False, openai_compatible=False
    )
    assert model.endpoint is scripted_endpoint


@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        (("scripted", None, KEY), {}, EndpointNotFound),
        ((KEY,), {}, EndpointNotFound),
        ((), {"model": KEY}, EndpointConfigurationError),
        ((), {"provider": KEY, "model": "demo"}, EndpointNotFound),
    ],
)
def test_a_key_in_a_selection_slot_is_never_echoed(args, kwargs, error):
    with pytest.raises(error) as info:
        iModel(*args, **kwargs)
    text = f"{info.value} {vars(info.value)!r}"
    assert "ZZfacadeHuntQQ".casefold() not in text.casefold()
    assert "api_key" in str(info.value)  # and it says where a key goes


# ``iModel(provider="", model="gpt-4o")``: the facade joined the two into ``"/gpt-4o"`` and the
# error named ``model`` and quoted that join, a string the caller never wrote.
@pytest.mark.parametrize("provider", ["", "  ", "\t"])
@pytest.mark.parametrize("model", ["gpt-4o", "openai/gpt-4o", None])
def test_a_blank_provider_is_named_as_the_provider(provider, model):
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(provider=provider, model=model)
    assert info.value.field == "provider"
    assert "non-empty string" in str(info.value)
    assert "/gpt-4o" not in str(info.value)


def test_a_provider_that_is_not_a_string_is_named_before_the_model():
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(provider=3, model="gpt-4o")  # type: ignore[arg-type]
    assert info.value.field == "provider"
    assert "3/gpt-4o" not in str(info.value)
