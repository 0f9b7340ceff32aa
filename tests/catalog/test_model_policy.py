"""Provider model policy (ADR-0028 D5): parsing against the snapshot, and policy validation."""

from __future__ import annotations

import pytest

from lionagi.service import (
    CatalogValidationError,
    EndpointConfigurationError,
    ModelSpec,
    ProviderCatalog,
    parse_model_spec,
)

from .conftest import Dists

CLAUDE = """
PROVIDER_SPECS = (
    agentic("claude_code", "query_cli", provider_aliases=("claude-code", "claude"),
            endpoint_aliases=("cli", "code")),
)
MODEL_POLICIES = (
    ProviderModelPolicy(
        provider="claude_code",
        provider_aliases=("claude",),
        model_aliases={"claude": "claude_code/sonnet", "Claude-Code": "claude_code/sonnet"},
        effort_mode="kwarg",
        effort_kwarg="effort",
        yolo_kwargs={"permission_mode": "bypassPermissions"},
        bypass_kwargs={"permission_mode": "bypassPermissions"},
    ),
)
"""
CODEX = """
PROVIDER_SPECS = (agentic("codex", "query_cli", provider_aliases=("openai-codex",)),)
MODEL_POLICIES = (
    ProviderModelPolicy(
        provider="codex",
        model_aliases={"codex": "codex/gpt-5.3-codex-spark"},
        effort_mode="kwarg",
        effort_kwarg="reasoning_effort",
        yolo_kwargs={"full_auto": True},
        bypass_kwargs={"bypass_approvals": True},
        fast_kwargs={"fast_mode": True},
    ),
)
"""
GEMINI_CODE = """
PROVIDER_SPECS = (agentic("gemini_code", "query_cli", provider_aliases=("gemini-cli",)),)
MODEL_POLICIES = (
    ProviderModelPolicy(
        provider="gemini_code",
        model_aliases={"gemini-cli": "gemini_code/gemini-3.5-flash"},
        effort_mode="model_name",
        effort_levels=("low", "medium", "high"),
    ),
)
"""
GEMINI = """
PROVIDER_SPECS = (api("gemini", "chat/completions", provider_aliases=("gemini-api",)),)
MODEL_POLICIES = (ProviderModelPolicy(provider="gemini", effort_mode="none"),)
"""
OPENROUTER = "PROVIDER_SPECS = (api('openrouter', 'chat/completions'),)\n"


@pytest.fixture
def catalog(dists: Dists, default_catalog: ProviderCatalog) -> ProviderCatalog:
    dists.provider("claude_code", CLAUDE)
    dists.provider("codex", CODEX)
    dists.provider("gemini_code", GEMINI_CODE)
    dists.provider("gemini", GEMINI)
    dists.provider("openrouter", OPENROUTER)
    return default_catalog


@pytest.mark.parametrize(
    ("spec", "model", "effort", "provider", "kwargs"),
    [
        ("claude", "claude_code/sonnet", None, "claude_code", {}),
        (" CLAUDE ", "claude_code/sonnet", None, "claude_code", {}),
        ("claude-code", "claude_code/sonnet", None, "claude_code", {}),
        ("claude-HIGH", "claude_code/sonnet", "high", "claude_code", {"effort": "high"}),
        ("claude/opus-high", "claude/opus", "high", "claude_code", {"effort": "high"}),
        (
            "claude_code/opus-4-7-xhigh",
            "claude_code/opus-4-7",
            "xhigh",
            "claude_code",
            {"effort": "xhigh"},
        ),
        ("codex", "codex/gpt-5.3-codex-spark", None, "codex", {}),
        ("codex-max", "codex/gpt-5.3-codex-spark", "max", "codex", {"reasoning_effort": "max"}),
        (
            "openai-codex/gpt-5-minimal",
            "openai-codex/gpt-5",
            "minimal",
            "codex",
            {"reasoning_effort": "minimal"},
        ),
        (
            "gemini_code/gemini-3-pro-High",
            "gemini_code/gemini-3-pro-High",
            "high",
            "gemini_code",
            {},
        ),
        ("gemini-cli", "gemini_code/gemini-3.5-flash", None, "gemini_code", {}),
        ("gemini-cli-low", "gemini_code/gemini-3.5-flash-low", "low", "gemini_code", {}),
        ("gemini/gemini-2.0-flash", "gemini/gemini-2.0-flash", None, "gemini", {}),
        (
            "openrouter/meta-llama/llama-3-max",
            "openrouter/meta-llama/llama-3-max",
            None,
            "openrouter",
            {},
        ),
        ("openrouter/qwen-max", "openrouter/qwen-max", None, "openrouter", {}),
        ("myvllm/llama-high", "myvllm/llama-high", None, "myvllm", {}),
    ],
)
def test_parse_model_spec(
    catalog: ProviderCatalog,
    spec: str,
    model: str,
    effort: str | None,
    provider: str,
    kwargs: dict[str, str],
) -> None:
    parsed = parse_model_spec(spec)
    assert (parsed.model, parsed.effort, parsed.provider, dict(parsed.kwargs)) == (
        model,
        effort,
        provider,
        kwargs,
    )


def test_model_spec_keeps_the_public_two_field_shape() -> None:
    spec = ModelSpec(model="claude_code/sonnet", effort="high")
    assert (spec.model, spec.effort, spec.provider, dict(spec.kwargs)) == (
        "claude_code/sonnet",
        "high",
        None,
        {},
    )
    assert str(spec) == "claude_code/sonnet-high"
    assert spec.model_name == "sonnet"
    assert str(ModelSpec(model="g/x-high", effort="high")) == "g/x-high"


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("gemini/gemini-2.0-flash-high", "remove '-high'"),
        ("gemini-api/flash-LOW", "remove '-LOW'"),
        ("gemini_code/gemini-3-pro-max", "does not accept effort 'max'"),
        ("gpt-4o", "names no provider"),
        ("gpt-4o-high", "names no provider"),
        ("/gpt-4o", "empty provider prefix"),
        ("codex/", "no model"),
        ("openai//gpt-4o", "empty segment"),
        ("openrouter/meta-llama/", "empty segment"),
        ("openrouter/meta-llama/ /x", "empty segment"),
        ("", "non-empty"),
    ],
)
def test_parse_errors_name_model(catalog: ProviderCatalog, spec: str, fragment: str) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        parse_model_spec(spec)
    assert info.value.field == "model"
    assert fragment in str(info.value)


def test_missing_provider_error_says_how_to_fix(catalog: ProviderCatalog) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        parse_model_spec("sonnet")
    text = str(info.value)
    assert "'<provider>/sonnet'" in text
    assert "claude_code" in text
    assert "codex" in text
    assert "claude-code" in text  # model aliases


def test_mode_kwargs(catalog: ProviderCatalog) -> None:
    assert dict(parse_model_spec("codex-high", yolo=True, fast=True).kwargs) == {
        "reasoning_effort": "high",
        "full_auto": True,
        "fast_mode": True,
    }
    assert dict(parse_model_spec("codex", bypass=True).kwargs) == {"bypass_approvals": True}
    assert dict(parse_model_spec("claude", yolo=True, bypass=True).kwargs) == {
        "permission_mode": "bypassPermissions"
    }


@pytest.mark.parametrize(
    ("spec", "flag"),
    [("claude", "fast"), ("gemini/flash", "yolo"), ("openrouter/x", "bypass"), ("a/b", "yolo")],
)
def test_missing_mode_is_an_error_not_a_downgrade(
    catalog: ProviderCatalog, spec: str, flag: str
) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        parse_model_spec(spec, **{flag: True})
    assert info.value.field == flag


def test_policy_tables_are_frozen_copies(catalog: ProviderCatalog) -> None:
    policy = catalog.snapshot().providers["codex"].policy
    assert policy is not None
    with pytest.raises(TypeError):
        policy.yolo_kwargs["x"] = 1  # type: ignore[index]
    parsed = parse_model_spec("codex", yolo=True)
    with pytest.raises(TypeError):
        parsed.kwargs["x"] = 1  # type: ignore[index]


# -- policy validation ----------------------------------------------------------------------------

AGENT = "PROVIDER_SPECS = (agentic('acme', 'cli', provider_aliases=('acme-ai',)),)\n"


def policy_failure(dists: Dists, policy: str, *, extra: str = "") -> set[tuple[str, str | None]]:
    dists.provider("acme", AGENT + f"MODEL_POLICIES = (ProviderModelPolicy({policy}),)\n")
    if extra:
        dists.provider("beta", extra)
    with pytest.raises(CatalogValidationError) as info:
        dists.catalog().snapshot()
    return {(d.code, d.key) for d in info.value.diagnostics}


@pytest.mark.parametrize(
    ("policy", "key"),
    [
        ("provider='acme', effort_mode='kwarg'", "effort_kwarg"),
        ("provider='acme', effort_mode='model_name', effort_kwarg='effort'", "effort_kwarg"),
        ("provider='acme', effort_mode='none', effort_kwarg='effort'", "effort_kwarg"),
        ("provider='acme', effort_mode='passthrough', effort_kwarg='effort'", "effort_kwarg"),
        ("provider='acme', effort_mode='passthrough', effort_levels=('high',)", "effort_levels"),
        ("provider='acme', effort_levels=('high',)", "effort_levels"),
        ("provider='acme', effort_mode='sometimes'", "effort_mode"),
        ("provider='acme', effort_mode='model_name', effort_levels=('turbo',)", "effort_levels"),
        (
            "provider='acme', effort_mode='model_name', effort_levels=('low', 'LOW')",
            "effort_levels",
        ),
        ("provider='acme', yolo_kwargs={'full_auto': True}", "bypass_kwargs"),
        ("provider='acme', bypass_kwargs={'bypass_approvals': True}", "yolo_kwargs"),
        ("provider='acme', effort_mode='kwarg', effort_kwarg='thinking'", "thinking"),
        ("provider='acme', fast_kwargs={'turbo': True}", "turbo"),
        ("provider='acme', fast_kwargs={'fast_mode': object()}", "fast_mode"),
        (
            "provider='acme', effort_mode='kwarg', effort_kwarg='effort', "
            "fast_kwargs={'effort': 'low'}",
            "effort",
        ),
        ("provider='acme', provider_aliases=('acme-cli',)", "acme-cli"),
        ("provider='acme', model_aliases={'x/y': 'acme/m'}", "x/y"),
        ("provider='acme', model_aliases={'m': 'm'}", "m"),
        ("provider='acme', model_aliases={'m': 'acme/'}", "m"),
        ("provider='acme', model_aliases={'m': 'beta/m'}", "m"),
        ("provider='acme', model_aliases={'m': 'acme/x-high'}", "m"),
        ("provider='acme', model_aliases={'m': 'acme/x', 'M ': 'acme/y'}", "m"),
        ("provider='acme', model_aliases=['m']", "model_aliases"),
        (
            "provider='acme', effort_mode='kwarg', effort_kwarg='effort', "
            "effort_levels=('low', 'max'), model_name_words=('max',)",
            "model_name_words",
        ),
        (
            "provider='acme', effort_mode='kwarg', effort_kwarg='effort', "
            "model_name_words=('max',)",
            "model_name_words",
        ),
        ("provider='acme', model_name_words=('mini',)", "model_name_words"),
        ("provider='acme', model_name_words=('max', 'MAX')", "model_name_words"),
        ("provider='acme', model_name_words='max'", "model_name_words"),
        ("provider=''", "provider"),
    ],
)
def test_invalid_model_policy(dists: Dists, policy: str, key: str) -> None:
    found = policy_failure(dists, policy, extra="PROVIDER_SPECS = (api('beta', 'chat'),)\n")
    assert ("invalid_model_policy", key) in found


def test_policy_alias_resolving_through_catalog_is_valid(
    dists: Dists, default_catalog: ProviderCatalog
) -> None:
    dists.provider(
        "acme",
        AGENT
        + "MODEL_POLICIES = (ProviderModelPolicy(provider='ACME', provider_aliases=('Acme-AI',),"
        " model_aliases={'Acme': 'Acme-AI/Big'}),)\n",
    )
    parsed = parse_model_spec("acme")
    assert (parsed.model, parsed.provider) == ("Acme-AI/Big", "acme")


def test_policy_for_another_provider_is_a_mismatch(dists: Dists) -> None:
    dists.provider("beta", "PROVIDER_SPECS = (api('beta', 'chat'),)\n")
    found = policy_failure(dists, "provider='beta'")
    assert ("provider_mismatch", "beta") in found


def test_two_policies_for_one_provider(dists: Dists) -> None:
    dists.provider(
        "acme",
        AGENT + "MODEL_POLICIES = (ProviderModelPolicy(provider='acme'),"
        " ProviderModelPolicy(provider='acme'))\n",
    )
    with pytest.raises(CatalogValidationError) as info:
        dists.catalog().snapshot()
    assert [(d.code, d.key) for d in info.value.diagnostics] == [
        ("invalid_model_policy", "provider")
    ]


def test_model_alias_claimed_by_two_providers(dists: Dists) -> None:
    dists.provider(
        "acme",
        AGENT
        + "MODEL_POLICIES = (ProviderModelPolicy('acme', model_aliases={'big': 'acme/b'}),)\n",
    )
    dists.provider(
        "beta",
        "PROVIDER_SPECS = (api('beta', 'chat'),)\n"
        "MODEL_POLICIES = (ProviderModelPolicy('beta', model_aliases={'BIG': 'beta/b'}),)\n",
    )
    with pytest.raises(CatalogValidationError) as info:
        dists.catalog().snapshot()
    (diag,) = info.value.diagnostics  # one collision, reported once
    assert (diag.code, diag.provider, diag.key) == ("invalid_model_policy", "acme", "big")
    assert diag.distributions == (f"{dists.prefix}-acme", f"{dists.prefix}-beta")


# -- default endpoint ----------------------------------------------------------------------------

DUO = """
PROVIDER_SPECS = (
    api("duo", "chat/completions", provider_aliases=("duo-api",), endpoint_aliases=("chat",)),
    api("duo", "generate_content", provider_aliases=("duo-api",), endpoint_aliases=("generate",)),
)
MODEL_POLICIES = (ProviderModelPolicy(provider="duo", default_endpoint="CHAT"),)
"""


def test_default_endpoint_serves_a_lookup_that_names_none(
    dists: Dists, default_catalog: ProviderCatalog
) -> None:
    from lionagi.service import iModel, match_endpoint

    dists.provider("duo", DUO)
    assert match_endpoint("duo-api", "").config.endpoint == "chat/completions"
    assert match_endpoint("duo", "generate").config.endpoint == "generate_content"
    model = iModel(model="duo/m1", api_key="k")
    assert model.endpoint.config.endpoint == "chat/completions"
    policy = default_catalog.snapshot().providers["duo"].policy
    assert policy is not None and policy.default_endpoint == "chat/completions"


@pytest.mark.parametrize("value", ["'embed'", "''", "3"])
def test_default_endpoint_must_name_one_of_the_providers_endpoints(
    dists: Dists, value: str
) -> None:
    found = policy_failure(dists, f"provider='acme', default_endpoint={value}")
    assert ("invalid_model_policy", "default_endpoint") in found


# -- passthrough: a policy that leaves model names alone -----------------------------------------

OPAQUE = """
PROVIDER_SPECS = (
    api("opaque", "chat/completions", endpoint_aliases=("chat",)),
    api("opaque", "embeddings", endpoint_aliases=("embed",)),
)
MODEL_POLICIES = (
    ProviderModelPolicy(
        provider="opaque",
        effort_mode="passthrough",
        default_endpoint="chat",
        model_aliases={"big": "opaque/big-model-max"},
    ),
)
"""


def test_passthrough_keeps_effort_like_endings_and_still_selects_the_default_endpoint(
    dists: Dists, default_catalog: ProviderCatalog
) -> None:
    from lionagi.service import iModel
    from lionagi.service.cli._models import models_report

    dists.provider("opaque", OPAQUE)
    for written in ("opaque/model-max", "opaque/model-HIGH", "big"):
        spec = parse_model_spec(written)
        assert spec.effort is None and spec.kwargs == {}, written
    assert parse_model_spec("opaque/model-max").model == "opaque/model-max"
    assert parse_model_spec("big").model == "opaque/big-model-max"  # an alias target as written
    model = iModel(model="opaque/model-max", api_key="k")
    assert model.endpoint.config.endpoint == "chat/completions"
    assert model.endpoint.config.request_defaults["model"] == "model-max"
    # An effort written after an alias is an effort, and this provider has none.
    with pytest.raises(EndpointConfigurationError, match="does not support effort levels"):
        parse_model_spec("big-high")
    report = models_report(default_catalog.snapshot(), "opaque")
    assert (report["effort_mode"], report["default_endpoint"]) == (
        "passthrough",
        "chat/completions",
    )


def test_a_provider_without_a_policy_is_reported_as_passthrough(
    dists: Dists, default_catalog: ProviderCatalog
) -> None:
    # What `models` says must be what parsing does: with no policy a suffix is sent as written.
    from lionagi.service.cli._models import models_report

    dists.provider("bare", "PROVIDER_SPECS = (api('bare', 'chat'),)\n")
    assert parse_model_spec("bare/m-high").model == "bare/m-high"
    assert models_report(default_catalog.snapshot(), "bare")["effort_mode"] == "passthrough"


# -- model-name words: an effort spelling that ends model names, not an effort -------------------

WORDS = """
PROVIDER_SPECS = (agentic("worded", "query_cli"),)
MODEL_POLICIES = (
    ProviderModelPolicy(
        provider="worded",
        model_aliases={"worded": "worded/base"},
        effort_mode="kwarg",
        effort_kwarg="effort",
        effort_levels=("low", "high"),
        model_name_words=("MAX",),
    ),
)
"""


def test_a_model_name_word_stays_in_the_name_and_other_levels_still_split(
    dists: Dists, default_catalog: ProviderCatalog
) -> None:
    dists.provider("worded", WORDS)
    kept = parse_model_spec("worded/big-codex-Max")
    assert (kept.model, kept.effort, dict(kept.kwargs)) == ("worded/big-codex-Max", None, {})
    split = parse_model_spec("worded/big-codex-max-high")
    assert (split.model, split.effort, dict(split.kwargs)) == (
        "worded/big-codex-max",
        "high",
        {"effort": "high"},
    )
    # A word after an alias is an effort request, and this provider does not accept it.
    with pytest.raises(EndpointConfigurationError, match="does not accept effort 'max'"):
        parse_model_spec("worded-max")
    # Effort words the policy neither accepts nor declares are still refused, never guessed.
    with pytest.raises(EndpointConfigurationError, match="does not accept effort 'xhigh'"):
        parse_model_spec("worded/big-xhigh")
