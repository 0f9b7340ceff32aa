"""Whole-catalog validation: every diagnostic code through real installed entry points."""

from __future__ import annotations

import sys

import pytest

from lionagi.service import CatalogValidationError, ProviderDiagnostic

from .conftest import Dists


def failing(dists: Dists) -> tuple[ProviderDiagnostic, ...]:
    catalog = dists.catalog()
    with pytest.raises(CatalogValidationError) as info:
        catalog.snapshot()
    assert catalog.published is None
    return info.value.diagnostics


def codes(diags: tuple[ProviderDiagnostic, ...]) -> set[tuple[str, str | None]]:
    return {(d.code, d.key) for d in diags}


def test_empty_keys(dists: Dists) -> None:
    dists.provider(
        "acme",
        """
        PROVIDER_SPECS = (
            api("acme", "  ", api_class("E1")),
            api("acme", "chat", provider_aliases=("",)),
            api("acme", "embed", endpoint_aliases=("",), provider_aliases=("",)),
        )
        """,
    )
    diags = failing(dists)
    assert {d.code for d in diags} == {"empty_key"}
    assert ("empty_key", "endpoint") in codes(diags)
    assert ("empty_key", "provider_aliases") in codes(diags)
    assert ("empty_key", "endpoint_aliases") in codes(diags)


def test_empty_entry_point_name(dists: Dists) -> None:
    module = dists.module("anon", "PROVIDER_SPECS = (api('anon', 'chat'),)\n")
    dists.dist("anon", {" ": module})
    (diag,) = failing(dists)
    assert (diag.code, diag.provider, diag.key, diag.module) == ("empty_key", "", "", module)


def test_self_alias(dists: Dists) -> None:
    dists.provider(
        "acme",
        """
        PROVIDER_SPECS = (
            api("acme", "chat/completions", endpoint_aliases=("Chat/Completions ",)),
        )
        """,
    )
    dists.provider("beta", "PROVIDER_SPECS = (api('beta', 'chat', provider_aliases=('BETA',)),)\n")
    diags = failing(dists)
    assert codes(diags) == {("self_alias", "chat/completions"), ("self_alias", "beta")}


def test_duplicate_provider_key_across_distributions(dists: Dists) -> None:
    dists.provider("acme", "PROVIDER_SPECS = (api('acme', 'chat', provider_aliases=('ac',)),)\n")
    dists.provider("other", "PROVIDER_SPECS = (api('other', 'chat', provider_aliases=('AC',)),)\n")
    diags = failing(dists)
    (dup,) = [d for d in diags if d.code == "duplicate_provider_key"]  # once, not per owner
    assert (dup.provider, dup.key) == ("acme", "ac")
    assert dup.distributions == (f"{dists.prefix}-acme", f"{dists.prefix}-other")


def test_alias_may_not_take_an_unavailable_providers_key(dists: Dists) -> None:
    dists.provider("broken", "raise ImportError('missing sdk')\n")
    dists.provider(
        "acme", "PROVIDER_SPECS = (api('acme', 'chat', provider_aliases=('broken',)),)\n"
    )
    diags = failing(dists)
    assert ("duplicate_provider_key", "broken") in codes(diags)
    assert ("import_error", None) in codes(diags)


def test_two_modules_for_one_provider(dists: Dists) -> None:
    dists.provider("acme", "PROVIDER_SPECS = (api('acme', 'chat'),)\n")
    dists.provider("acme", "PROVIDER_SPECS = (api('acme', 'embed'),)\n", name="acme_fork")
    assert ("duplicate_provider_key", "acme") in codes(failing(dists))


def test_duplicate_endpoint_key(dists: Dists) -> None:
    dists.provider(
        "acme",
        """
        PROVIDER_SPECS = (
            api("acme", "chat/completions", endpoint_aliases=("chat",)),
            api("acme", "responses", api_class("R"), endpoint_aliases=("CHAT",)),
            api("acme", "embeddings", endpoint_aliases=("embed", "Embed")),
        )
        """,
    )
    dups = {(d.endpoint, d.key) for d in failing(dists) if d.code == "duplicate_endpoint_key"}
    assert dups == {("chat", "chat"), ("embeddings", "embed")}


def test_same_endpoint_key_in_different_providers_is_fine(dists: Dists) -> None:
    dists.provider("acme", "PROVIDER_SPECS = (api('acme', 'chat'),)\n")
    dists.provider("beta", "PROVIDER_SPECS = (api('beta', 'chat'),)\n")
    assert dists.catalog().snapshot().provider_keys == ("acme", "beta")


def test_inconsistent_provider_aliases(dists: Dists) -> None:
    dists.provider(
        "acme",
        """
        PROVIDER_SPECS = (
            api("acme", "chat", provider_aliases=("acme-ai",)),
            api("acme", "embed", provider_aliases=("acme-ai", "acmeai")),
        )
        """,
    )
    (diag,) = failing(dists)
    assert (diag.code, diag.provider) == ("inconsistent_provider_aliases", "acme")
    assert "acmeai" in diag.message


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("PROVIDER_SPECS = (api('acme', 'chat', int),)\n", "not an Endpoint subclass"),
        ("PROVIDER_SPECS = (api('acme', 'chat', agentic_class('A')),)\n", "declare it AGENTIC"),
        (
            "PROVIDER_SPECS = (agentic('acme', 'cli', api_class('P')),)\n",
            "not an AgenticEndpoint subclass",
        ),
        (
            "PROVIDER_SPECS = (agentic('acme', 'cli', agentic_class('A', caps=None)),)\n",
            "no AgenticCapabilities",
        ),
        (
            "PROVIDER_SPECS = (agentic('acme', 'cli', agentic_class('A', caps={'x': 1})),)\n",
            "no AgenticCapabilities",
        ),
        (
            "PROVIDER_SPECS = (agentic('acme', 'cli', agentic_class('A', caps=RESUMABLE)),)\n",
            "declares no resume_field",
        ),
        (
            "PROVIDER_SPECS = (agentic('acme', 'cli', agentic_class('A', caps=RESUMABLE, "
            "resume_field='session')),)\n",
            "not a field of CliRequest",
        ),
        (
            "PROVIDER_SPECS = (agentic('acme', 'cli', agentic_class('A', caps=RESUMABLE, "
            "resume_field='resume', request_type=None)),)\n",
            "no request_type",
        ),
        (
            "E = api_class('E')\n"
            "PROVIDER_SPECS = (api('acme', 'chat', E), api('acme', 'embed', E))\n",
            "registered more than once",
        ),
    ],
)
def test_invalid_endpoint_class(dists: Dists, body: str, fragment: str) -> None:
    dists.provider("acme", body)
    diags = failing(dists)
    assert {d.code for d in diags} == {"invalid_endpoint_class"}
    assert all(fragment in d.message for d in diags)


def test_resumable_agentic_with_its_field_is_valid(dists: Dists) -> None:
    dists.provider(
        "acme",
        "PROVIDER_SPECS = (agentic('acme', 'cli', agentic_class('A', caps=RESUMABLE, "
        "resume_field='resume')),)\n",
    )
    assert dists.catalog().match("acme", "cli").is_agentic


def test_same_class_in_two_providers(dists: Dists) -> None:
    shared = dists.module("shared", "E = api_class('E')\n")
    dists.provider("acme", f"from {shared} import E\nPROVIDER_SPECS = (api('acme', 'chat', E),)\n")
    dists.provider("beta", f"from {shared} import E\nPROVIDER_SPECS = (api('beta', 'chat', E),)\n")
    (diag,) = failing(dists)  # one reused class, one diagnostic naming both uses
    assert (diag.code, diag.provider) == ("invalid_endpoint_class", "acme")
    assert "acme/chat" in diag.message and "beta/chat" in diag.message
    assert diag.distributions == (f"{dists.prefix}-acme", f"{dists.prefix}-beta")


@pytest.mark.parametrize(
    ("options", "fragment", "cause"),
    [
        ("int", "not a pydantic BaseModel subclass", None),
        ("'ChatRequest'", "must be a BaseModel subclass or a factory", None),
        ("lambda: 1 / 0", "ZeroDivisionError", "ZeroDivisionError"),
        ("lambda: dict", "not a BaseModel subclass", "TypeError"),
        ("lambda: ChatRequest()", "not a BaseModel subclass", "TypeError"),
    ],
)
def test_invalid_request_options(
    dists: Dists, options: str, fragment: str, cause: str | None
) -> None:
    dists.provider("acme", f"PROVIDER_SPECS = (api('acme', 'chat', request_options={options}),)\n")
    (diag,) = failing(dists)
    assert (diag.code, diag.key, diag.cause_type) == (
        "invalid_request_options",
        "request_options",
        cause,
    )
    assert fragment in diag.message


def test_request_options_factory_runs_once_per_build_and_never_on_lookup(dists: Dists) -> None:
    module = dists.provider(
        "acme",
        """
        CALLS = []
        def factory():
            CALLS.append(1)
            return ChatRequest
        PROVIDER_SPECS = (
            api("acme", "chat", request_options=factory),
            api("acme", "embed", request_options=factory),
        )
        """,
    )
    catalog = dists.catalog()
    catalog.snapshot()
    assert sys.modules[module].CALLS == [1]
    endpoint = catalog.match("acme", "chat")
    catalog.match("acme", "embed")
    assert endpoint.request_options is sys.modules[module].ChatRequest
    assert sys.modules[module].CALLS == [1]
    catalog.refresh()
    assert sys.modules[module].CALLS == [1, 1]


@pytest.mark.parametrize(
    ("defaults", "key", "fragment"),
    [
        ("{'temprature': 0.2}", "temprature", "not a field of ChatRequest; did you mean"),
        # The value is checked against the field's type too, not only the key.
        ("{'temperature': 'ZZhotQQ'}", "temperature", "valid number"),
        ("{'messages': ['ZZhiQQ']}", "messages.0", "valid dictionary"),
        ("{'temperature': object()}", "temperature", "not JSON-serializable"),
        ("{'temperature': float('nan')}", "temperature", "not JSON-serializable"),
        ("{1: 2}", "1", "non-empty strings"),
        ("[('temperature', 1)]", None, "must be a mapping"),
    ],
)
def test_invalid_request_default(
    dists: Dists, defaults: str, key: str | None, fragment: str
) -> None:
    dists.provider(
        "acme",
        f"PROVIDER_SPECS = (api('acme', 'chat', request_options=ChatRequest, "
        f"request_defaults={defaults}),)\n",
    )
    (diag,) = failing(dists)
    assert (diag.code, diag.key) == ("invalid_request_default", key)
    assert fragment in diag.message
    assert "ZZ" not in diag.message  # a default's value is never echoed


def test_request_default_value_is_never_echoed(dists: Dists) -> None:
    dists.provider(
        "acme",
        "PROVIDER_SPECS = (api('acme', 'chat', request_options=ChatRequest, "
        "request_defaults={'api_token': 'ZZtopsecretQQ'}),)\n",
    )
    (diag,) = failing(dists)
    assert "ZZtopsecretQQ" not in diag.message


def test_schema_less_endpoint_accepts_any_json_default(dists: Dists) -> None:
    dists.provider(
        "acme", "PROVIDER_SPECS = (api('acme', 'chat', request_defaults={'anything': [1]}),)\n"
    )
    endpoint = dists.catalog().match("acme", "chat")
    assert endpoint.config.request_defaults == {"anything": [1]}


def test_agentic_request_type_is_the_request_model(dists: Dists) -> None:
    dists.provider(
        "acme", "PROVIDER_SPECS = (agentic('acme', 'cli', request_defaults={'promt': 'x'}),)\n"
    )
    (diag,) = failing(dists)
    assert (diag.code, diag.key) == ("invalid_request_default", "promt")


def test_provider_mismatch(dists: Dists) -> None:
    dists.provider("acme", "PROVIDER_SPECS = (api('acme', 'chat'), api('other', 'chat'))\n")
    (diag,) = failing(dists)
    assert (diag.code, diag.provider, diag.key) == ("provider_mismatch", "other", "other")


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        ("auth_type='basic'", "auth_type"),
        ("endpoint_aliases='chat'", "endpoint_aliases"),
        ("provider_aliases='acme-ai'", "provider_aliases"),
    ],
)
def test_invalid_endpoint_config(dists: Dists, extra: str, key: str) -> None:
    dists.provider("acme", f"PROVIDER_SPECS = (api('acme', 'chat/completions', {extra}),)\n")
    diags = failing(dists)
    assert ("invalid_endpoint_config", key) in codes(diags)


def test_endpoint_type_must_be_an_endpoint_type(dists: Dists) -> None:
    dists.provider(
        "acme",
        "PROVIDER_SPECS = (ProviderEndpointSpec(provider='acme', endpoint='chat', "
        "endpoint_type='api', endpoint_class=api_class('E')),)\n",
    )
    assert codes(failing(dists)) == {("invalid_endpoint_config", "endpoint_type")}


def test_first_build_failure_lists_every_diagnostic_sorted(dists: Dists) -> None:
    dists.provider("zeta", "PROVIDER_SPECS = (api('zeta', 'chat', provider_aliases=('ZETA',)),)\n")
    dists.provider("alpha", "PROVIDER_SPECS = (api('alpha', 'chat', request_options=int),)\n")
    dists.provider("broken", "raise RuntimeError('nope')\n")
    catalog = dists.catalog()
    with pytest.raises(CatalogValidationError) as info:
        catalog.snapshot()
    diags = info.value.diagnostics
    assert [d.provider for d in diags] == ["alpha", "broken", "zeta"]
    assert list(diags) == sorted(diags, key=lambda d: d.sort_key())
    assert all(f"[{d.code}]" in str(info.value) for d in diags)
    # The failure is remembered: later lookups fail the same way without another build.
    with pytest.raises(CatalogValidationError) as again:
        catalog.match("alpha", "chat")
    assert again.value.diagnostics == diags
