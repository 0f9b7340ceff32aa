"""Model selection defects found by probing the resolver with odd input (one test per defect).

1. A model alias spelled like another provider's key or alias made ``model="<that name>"``
   select the alias's provider: the model-alias table and the provider index answered the same
   name with two providers, and the user's prompt went to the one they did not name.
2. A bare model string naming an installed provider whose module failed to import was reported
   as "names no provider ... (providers: none installed)" instead of ``ProviderUnavailable``.
3. A credential passed in a selection slot (``iModel("openai", None, "sk-...")``: the third
   positional parameter is ``endpoint``) was echoed in ``EndpointNotFound`` or the ``model``
   error, and kept on the exception's ``provider`` / ``endpoint`` attributes.
"""

from __future__ import annotations

import pytest

from lionagi.service import (
    CatalogValidationError,
    EndpointConfigurationError,
    EndpointNotFound,
    ProviderCatalog,
    ProviderUnavailable,
    match_endpoint,
    parse_model_spec,
)

from .conftest import Dists

BETA = "PROVIDER_SPECS = (api('beta', 'chat', provider_aliases=('bee',)),)\n"


def _acme_with_alias(alias: str) -> str:
    return (
        "PROVIDER_SPECS = (api('acme', 'chat', provider_aliases=('acme-ai',)),)\n"
        f"MODEL_POLICIES = (ProviderModelPolicy('acme', model_aliases={{{alias!r}: 'acme/x'}}),)\n"
    )


# -- 1: a model alias may not take another provider's name ---------------------------------------


@pytest.mark.parametrize("alias", ["Bee", "BETA", " beta "])
def test_model_alias_may_not_take_another_providers_name(dists: Dists, alias: str) -> None:
    dists.provider("beta", BETA)
    dists.provider("acme", _acme_with_alias(alias))
    with pytest.raises(CatalogValidationError) as info:
        dists.catalog().snapshot()
    (diag,) = info.value.diagnostics
    assert (diag.code, diag.provider, diag.key) == (
        "invalid_model_policy",
        "acme",
        alias.strip().casefold(),
    )
    assert "beta" in diag.message
    assert diag.distributions == (f"{dists.prefix}-acme", f"{dists.prefix}-beta")


def test_model_alias_may_not_take_an_unavailable_providers_name(dists: Dists) -> None:
    dists.provider("broken", "raise ImportError('vendor sdk missing')\n")
    dists.provider("acme", _acme_with_alias("broken"))
    with pytest.raises(CatalogValidationError) as info:
        dists.catalog().snapshot()
    codes = {(d.code, d.key) for d in info.value.diagnostics}
    assert ("invalid_model_policy", "broken") in codes


def test_model_alias_may_repeat_its_own_providers_name(
    dists: Dists, default_catalog: ProviderCatalog
) -> None:
    """The bundled shape (``claude`` is claude_code's provider alias and model alias) stays."""
    dists.provider("beta", BETA)
    dists.provider("acme", _acme_with_alias("acme-ai"))
    parsed = parse_model_spec("ACME-AI")
    assert (parsed.model, parsed.provider) == ("acme/x", "acme")


# -- 2: a bare name of an installed but broken provider ------------------------------------------


@pytest.mark.parametrize("spec", ["broken", " BROKEN "])
def test_bare_name_of_an_unavailable_provider_is_provider_unavailable(
    dists: Dists, default_catalog: ProviderCatalog, spec: str
) -> None:
    dists.provider("beta", BETA)
    dists.provider("broken", "raise ImportError('vendor sdk missing')\n")
    with pytest.raises(ProviderUnavailable) as info:
        parse_model_spec(spec)
    assert info.value.provider == "broken"
    assert "vendor sdk missing" in str(info.value)


def test_bare_unknown_name_is_still_a_model_error(
    dists: Dists, default_catalog: ProviderCatalog
) -> None:
    dists.provider("beta", BETA)
    dists.provider("broken", "raise ImportError('vendor sdk missing')\n")
    with pytest.raises(EndpointConfigurationError) as info:
        parse_model_spec("gpt-4o")
    assert info.value.field == "model"


# -- 3: credentials in a selection slot are never echoed ------------------------------------------

KEYS = [
    "sk-proj-ZZhuntKeyQQ1234567890abcd",
    "AIzaSyZZhuntKeyQQ12345678901234567",  # case matters to the shape; the key is casefolded
]


def _assert_hidden(exc: BaseException, key: str) -> None:
    text = f"{exc} {exc.args!r} {vars(exc)!r}"
    assert key not in text
    assert key.casefold() not in text.casefold()
    assert "ZZhuntKeyQQ".casefold() not in text.casefold()


@pytest.mark.parametrize("key", KEYS)
def test_credential_in_the_endpoint_slot_is_not_echoed(
    dists: Dists, default_catalog: ProviderCatalog, key: str
) -> None:
    dists.provider("beta", BETA)
    with pytest.raises(EndpointNotFound) as info:
        match_endpoint("beta", key)
    _assert_hidden(info.value, key)
    assert info.value.provider == "beta"
    assert info.value.available == ("chat",)
    assert "credential" in str(info.value)


@pytest.mark.parametrize("key", KEYS)
def test_credential_in_the_provider_slot_is_not_echoed(
    dists: Dists, default_catalog: ProviderCatalog, key: str
) -> None:
    dists.provider("beta", BETA)
    with pytest.raises(EndpointNotFound) as info:
        match_endpoint(key, "")
    _assert_hidden(info.value, key)
    assert "credential" in str(info.value)


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("shape", ["{}", " {} ", "gamma/{}-high", "{}-high", "/{}"])
def test_credential_in_the_model_string_is_not_echoed(
    dists: Dists, default_catalog: ProviderCatalog, key: str, shape: str
) -> None:
    dists.provider(
        "gamma",
        "PROVIDER_SPECS = (agentic('gamma', 'cli'),)\n"
        "MODEL_POLICIES = (ProviderModelPolicy('gamma', effort_mode='none'),)\n",
    )
    spec = shape.format(key)
    with pytest.raises(EndpointConfigurationError) as info:
        parse_model_spec(spec)
    assert info.value.field == "model"
    _assert_hidden(info.value, key)


def test_ordinary_misses_still_echo_what_was_typed(
    dists: Dists, default_catalog: ProviderCatalog
) -> None:
    dists.provider("beta", BETA)
    with pytest.raises(EndpointNotFound) as info:
        match_endpoint("beta", "chatt")
    assert (info.value.endpoint, info.value.suggestion) == ("chatt", "chat")
    with pytest.raises(EndpointNotFound) as info:
        match_endpoint("betta", "")
    assert (info.value.provider, info.value.suggestion) == ("betta", "beta")
    with pytest.raises(EndpointConfigurationError, match="'gpt-4o' names no provider"):
        parse_model_spec("gpt-4o")
