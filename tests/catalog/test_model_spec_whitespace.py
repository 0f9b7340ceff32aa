"""Surrounding whitespace is dropped on both sides of ``provider/model`` (audit 27, item 4).

``model=" openai / gpt-4.1 "`` trimmed the provider part (a canonical key) but sent the model
``' gpt-4.1'``. The rest of model parsing trims surrounding whitespace (the whole spec, the
provider prefix, a model alias key, an alias target at build); the model part now does too.
Inner spelling and case stay the caller's.
"""

from __future__ import annotations

import pytest

from lionagi.service import EndpointConfigurationError, ProviderCatalog, iModel

from .conftest import Dists

ACME = """
PROVIDER_SPECS = (api('acme', 'chat', request_options=ChatRequest),)
MODEL_POLICIES = (
    ProviderModelPolicy(provider='acme', effort_mode='kwarg', effort_kwarg='temperature'),
)
"""


@pytest.fixture
def catalog(dists: Dists) -> ProviderCatalog:
    dists.provider("acme", ACME)
    return dists.catalog()


@pytest.mark.parametrize(
    ("spec", "model", "kwargs"),
    [
        (" acme / Big-Model ", "acme/Big-Model", {}),
        ("acme/\tx-high ", "acme/x", {"temperature": "high"}),
        ("ACME /org/name", "ACME/org/name", {}),
    ],
)
def test_both_parts_are_trimmed(
    catalog: ProviderCatalog, spec: str, model: str, kwargs: dict[str, str]
) -> None:
    parsed = catalog.parse_model_spec(spec)
    assert (parsed.model, parsed.provider, dict(parsed.kwargs)) == (model, "acme", kwargs)
    assert parsed.model_name == model.split("/", 1)[1]


def test_a_blank_model_part_is_still_no_model(catalog: ProviderCatalog) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        catalog.parse_model_spec("acme /  ")
    assert info.value.field == "model"
    assert "names provider 'acme' but no model" in str(info.value)


def test_imodel_sends_the_trimmed_name(dists: Dists, default_catalog: ProviderCatalog) -> None:
    dists.provider("acme", ACME)
    for model in (
        iModel(model=" acme / m-1 ", api_key="k"),
        iModel("acme", model=" m-1 ", api_key="k"),
    ):
        assert model.endpoint.config.request_defaults["model"] == "m-1"
