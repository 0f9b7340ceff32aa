"""Resolution state machine (ADR-0028 D4): every branch, through ``match_endpoint``."""

from __future__ import annotations

import sys

import pytest

from lionagi.service import (
    AgenticEndpoint,
    Endpoint,
    EndpointConfigurationError,
    EndpointNotFound,
    OpenAIChatCompletionsRequest,
    ProviderCatalog,
    ProviderUnavailable,
    match_endpoint,
)
from lionagi.service.http import OpenAIChatEndpoint

from .conftest import Dists

SECRET = "ZZmatchsecretQQ77"

ACME = """
PROVIDER_SPECS = (
    api(
        "acme",
        "chat/completions",
        provider_aliases=("acme-ai",),
        endpoint_aliases=("chat",),
        request_options=ChatRequest,
        request_defaults={"temperature": 0.5, "stream_options": {"include_usage": True}},
        api_key_env="ACME_TEST_KEY",
    ),
    api("acme", "embeddings", provider_aliases=("acme-ai",), endpoint_aliases=("embed",)),
    api("acme", "findSimilar", provider_aliases=("acme-ai",), endpoint_aliases=("find_similar",)),
)
"""
SOLO = "PROVIDER_SPECS = (api('solo', 'generate', base_url='https://solo.test'),)\n"
AGENT = "PROVIDER_SPECS = (agentic('agent', 'query_cli', endpoint_aliases=('cli',)),)\n"


@pytest.fixture
def catalog(dists: Dists, default_catalog: ProviderCatalog) -> ProviderCatalog:
    dists.provider("acme", ACME)
    dists.provider("solo", SOLO)
    dists.provider("agent", AGENT)
    dists.provider("broken", "raise ImportError('vendor sdk missing')\n")
    return default_catalog


@pytest.mark.parametrize(
    ("provider", "endpoint", "path"),
    [
        ("acme", "chat/completions", "chat/completions"),
        ("ACME ", " Chat ", "chat/completions"),
        ("acme-ai", "embed", "embeddings"),
        ("acme", "FINDSIMILAR", "findSimilar"),
        ("acme", "find_similar", "findSimilar"),
    ],
)
def test_known_match(catalog: ProviderCatalog, provider: str, endpoint: str, path: str) -> None:
    ep = match_endpoint(provider, endpoint)
    assert type(ep).__name__ == f"acme_{path}".replace("/", "_")
    assert (ep.config.provider, ep.config.endpoint) == ("acme", path)
    assert ep.config.openai_compatible is False


def test_known_match_wins_over_compatible_flag(catalog: ProviderCatalog) -> None:
    ep = match_endpoint("acme", "chat", openai_compatible=True, base_url="https://other.test/v1")
    assert type(ep) is not Endpoint
    assert ep.config.openai_compatible is False
    assert ep.config.base_url == "https://other.test/v1"  # a declared override still applies


def test_empty_endpoint_selects_the_only_endpoint(catalog: ProviderCatalog) -> None:
    assert match_endpoint("solo", "").config.endpoint == "generate"
    assert isinstance(match_endpoint("agent", ""), AgenticEndpoint)


def test_empty_endpoint_on_multi_endpoint_provider_is_not_found(catalog: ProviderCatalog) -> None:
    with pytest.raises(EndpointNotFound) as info:
        match_endpoint("acme-ai", "")
    err = info.value
    assert (err.provider, err.endpoint) == ("acme", "")
    assert err.available == ("chat/completions", "embeddings", "findsimilar")


def test_unknown_endpoint_of_known_provider(catalog: ProviderCatalog) -> None:
    with pytest.raises(EndpointNotFound) as info:
        match_endpoint("acme", "Chat/Completion")
    err = info.value
    assert (err.provider, err.endpoint) == ("acme", "chat/completion")
    assert err.available == ("chat/completions", "embeddings", "findsimilar")
    assert err.suggestion == "chat/completions"
    assert "did you mean 'chat/completions'" in str(err)


def test_single_endpoint_provider_no_longer_accepts_any_string(catalog: ProviderCatalog) -> None:
    with pytest.raises(EndpointNotFound):
        match_endpoint("solo", "chat")


def test_unknown_provider(catalog: ProviderCatalog) -> None:
    with pytest.raises(EndpointNotFound) as info:
        match_endpoint("acmee", "chat")
    err = info.value
    assert (err.provider, err.endpoint, err.suggestion) == ("acmee", "chat", "acme")
    assert err.available == ("acme", "agent", "solo")
    assert "openai_compatible=True" in str(err)


def test_unavailable_provider_is_never_masked(catalog: ProviderCatalog) -> None:
    for compatible in (False, True):
        with pytest.raises(ProviderUnavailable) as info:
            match_endpoint(
                "Broken", "chat", openai_compatible=compatible, base_url="https://x.test/v1"
            )
        assert info.value.diagnostic.code == "import_error"
        assert "vendor sdk missing" in str(info.value)


def test_compatible_fallback_for_unknown_provider_has_the_marked_config(
    catalog: ProviderCatalog,
) -> None:
    defaults = {"model": "llama3", "stream_options": {"include_usage": True}}
    ep = match_endpoint(
        " MyVLLM ",
        "",
        openai_compatible=True,
        base_url="http://127.0.0.1:8000/v1",
        request_defaults=defaults,
        api_key=SECRET,
    )
    assert type(ep) is OpenAIChatEndpoint  # the chat dialect, declared, not guessed
    c = ep.config
    assert (c.name, c.provider, c.base_url, c.endpoint, c.method) == (
        "openai_compatible_chat",
        "myvllm",
        "http://127.0.0.1:8000/v1",
        "chat/completions",
        "POST",
    )
    assert (c.auth_type, c.content_type, c.request_options) == (
        "bearer",
        "application/json",
        OpenAIChatCompletionsRequest,
    )
    assert c.openai_compatible is True
    assert c.requires_tokens is True
    assert c.request_defaults == defaults
    assert c.request_defaults is not defaults
    assert c.request_defaults["stream_options"] is not defaults["stream_options"]
    assert SECRET not in repr(ep)
    assert SECRET not in str(c.to_dict())


def test_compatible_fallback_for_unknown_endpoint_keeps_path_spelling(
    catalog: ProviderCatalog,
) -> None:
    ep = match_endpoint("acme", "v2/Chat", openai_compatible=True, base_url="https://a.test")
    assert (ep.config.provider, ep.config.endpoint) == ("acme", "v2/Chat")
    assert ep.config.openai_compatible is True


def test_compatible_fallback_for_ambiguous_empty_endpoint(catalog: ProviderCatalog) -> None:
    ep = match_endpoint("acme", "", openai_compatible=True, base_url="https://a.test")
    assert ep.config.endpoint == "chat/completions"
    assert ep.config.openai_compatible is True


@pytest.mark.parametrize("base_url", [None, "", "   "])
def test_compatible_fallback_requires_base_url(
    catalog: ProviderCatalog, base_url: str | None
) -> None:
    kwargs = {} if base_url is None else {"base_url": base_url}
    with pytest.raises(EndpointConfigurationError) as info:
        match_endpoint("custom", "chat", openai_compatible=True, **kwargs)
    assert info.value.field == "base_url"


def test_compatible_name_is_fixed(catalog: ProviderCatalog) -> None:
    with pytest.raises(EndpointConfigurationError) as fixed:
        match_endpoint("custom", "", openai_compatible=True, base_url="https://c.test", name="x")
    assert fixed.value.field == "name"


def test_compatible_request_defaults_are_checked_against_the_chat_model(
    catalog: ProviderCatalog,
) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        match_endpoint(
            "custom",
            "",
            openai_compatible=True,
            base_url="https://c.test",
            request_defaults={"max_token": 5},
        )
    assert info.value.field == "request_defaults.max_token"


def test_schema_less_compatible_endpoint_accepts_any_json_default(
    catalog: ProviderCatalog,
) -> None:
    ep = match_endpoint(
        "custom",
        "",
        openai_compatible=True,
        base_url="https://c.test",
        request_options=None,
        request_defaults={"top_k": 40},
    )
    assert ep.config.request_options is None
    assert ep.config.request_defaults == {"top_k": 40}
    assert ep.config.openai_compatible is True


def test_unknown_config_override_is_refused_not_moved_to_the_payload(
    catalog: ProviderCatalog,
) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        match_endpoint("acme", "chat", temperature=0.1)
    assert info.value.field == "temperature"
    assert "request_defaults" in str(info.value)


def test_unknown_request_default_names_the_key(catalog: ProviderCatalog) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        match_endpoint("acme", "chat", request_defaults={"temprature": 0.1})
    assert info.value.field == "request_defaults.temprature"


def test_non_json_request_default_is_refused(catalog: ProviderCatalog) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        match_endpoint("acme", "chat", request_defaults={"temperature": {1, 2}})
    assert info.value.field == "request_defaults.temperature"


def test_request_defaults_merge_and_every_instance_gets_fresh_dicts(
    catalog: ProviderCatalog,
) -> None:
    caller = {"temperature": 0.9}
    first = match_endpoint("acme", "chat", request_defaults=caller)
    second = match_endpoint("acme", "chat")
    assert first.config.request_defaults == {
        "temperature": 0.9,
        "stream_options": {"include_usage": True},
    }
    caller["temperature"] = 0.0
    first.config.request_defaults["stream_options"]["include_usage"] = False
    assert first.config.request_defaults["temperature"] == 0.9
    assert second.config.request_defaults["stream_options"] == {"include_usage": True}
    assert match_endpoint("acme", "chat").config.request_defaults["stream_options"] == {
        "include_usage": True
    }


def test_direct_construction_uses_the_bound_meta_with_fresh_dicts(
    catalog: ProviderCatalog,
) -> None:
    cls = type(match_endpoint("acme", "chat"))
    a, b = cls(), cls()
    a.config.request_defaults["stream_options"]["include_usage"] = False
    assert b.config.request_defaults["stream_options"] == {"include_usage": True}
    assert a.config.provider == "acme"


def test_declared_override_applies(catalog: ProviderCatalog) -> None:
    ep = match_endpoint("acme", "chat", timeout=5.0, api_key=SECRET)
    assert ep.config.timeout == 5.0
    assert ep.config.secret_value() == SECRET
    assert SECRET not in repr(ep.config)


def test_api_key_env_is_read_at_construction(
    catalog: ProviderCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACME_TEST_KEY", SECRET)
    assert match_endpoint("acme", "chat").config.secret_value() == SECRET


def test_spec_author_mutating_defaults_after_build_is_not_observed(
    dists: Dists, default_catalog: ProviderCatalog
) -> None:
    module = dists.provider(
        "acme",
        """
        DEFAULTS = {"temperature": 0.5}
        PROVIDER_SPECS = (api("acme", "chat", request_options=ChatRequest,
                              request_defaults=DEFAULTS),)
        """,
    )
    default_catalog.snapshot()
    sys.modules[module].DEFAULTS["temperature"] = 2.0
    assert match_endpoint("acme", "chat").config.request_defaults == {"temperature": 0.5}


@pytest.mark.parametrize(("provider", "field"), [("", "provider"), ("  ", "provider")])
def test_empty_provider_is_a_configuration_error(
    catalog: ProviderCatalog, provider: str, field: str
) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        match_endpoint(provider, "chat", openai_compatible=True, base_url="https://x.test")
    assert info.value.field == field
