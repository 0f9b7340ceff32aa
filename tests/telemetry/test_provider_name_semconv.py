"""`gen_ai.provider.name` carries the GenAI semantic conventions' well-known value.

Spans and metrics recorded the catalog key, so Gemini's calls said `gemini`, a value no backend
grouping by the conventions recognises (theirs is `gcp.gemini`). A vendor whose key differs
declares the value on its endpoint classes (`Endpoint.otel_provider_name`); core records that,
else the key, and keeps no table of vendor names. Every call runs over real loopback HTTP to
the fake provider server.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointRegistry, EventStatus, iModel
from lionagi.service_testing import FakeProviderServer

from .conftest import Otel

pytestmark = pytest.mark.anyio

KEY = "k-semconv-0123456789abcdef"
MESSAGES = [{"role": "user", "content": "hi"}]
CONTENTS = [{"role": "user", "parts": [{"text": "hi"}]}]

# gen_ai.provider.name's well-known values (OpenTelemetry GenAI semantic conventions; the same
# list as opentelemetry-semantic-conventions' GenAiProviderNameValues).
WELL_KNOWN = frozenset(
    {
        "openai",
        "gcp.gen_ai",
        "gcp.vertex_ai",
        "gcp.gemini",
        "anthropic",
        "cohere",
        "azure.ai.inference",
        "azure.ai.openai",
        "ibm.watsonx.ai",
        "aws.bedrock",
        "perplexity",
        "x_ai",
        "deepseek",
        "groq",
        "mistral_ai",
    }
)
# Installed providers the conventions name no value for: their key is recorded as is.
NO_WELL_KNOWN_VALUE = frozenset(
    {
        "ag2",
        "claude_code",
        "codex",
        "exa",
        "gemini_code",
        "nvidia_nim",
        "ollama",
        "openrouter",
        "pi",
        "scripted",
    }
)


def _provider_names(otel: Otel) -> set[Any]:
    """Every `gen_ai.provider.name` recorded: the call span's and each metric point's."""
    root = dict(otel.root().attributes or {})
    names = {root["gen_ai.provider.name"], root["gen_ai.system"]}
    for points in otel.metrics().values():
        names.update(p.attributes["gen_ai.provider.name"] for p in points)
    return names


async def _run(model: iModel, stream: bool, **request: Any) -> None:
    if stream:
        chunks = [c async for c in model.stream(**request)]
        assert chunks[-1].type == "result"
    else:
        call = await model.invoke(**request)
        assert call.status is EventStatus.COMPLETED, call.execution.error


@pytest.mark.parametrize(
    ("endpoint", "prefix", "stream", "request_"),
    [
        ("chat", "/v1beta/openai", False, {"messages": MESSAGES}),
        ("chat", "/v1beta/openai", True, {"messages": MESSAGES}),
        ("embeddings", "/v1beta/openai", False, {"input": "hi"}),
        ("generate", "/v1beta", False, {"contents": CONTENTS}),
        ("generate", "/v1beta", True, {"contents": CONTENTS}),
    ],
)
async def test_gemini_records_gcp_gemini(
    otel: Otel, endpoint: str, prefix: str, stream: bool, request_: dict[str, Any]
) -> None:
    otel.on()
    async with FakeProviderServer() as server:
        model = iModel(
            model="gemini/gemini-2.5-flash",
            endpoint=endpoint,
            api_key=KEY,
            base_url=server.base_url + prefix,
            allow_local_network=True,
        )
        async with model:
            await _run(model, stream, **request_)
        assert model.endpoint.config.provider == "gemini"  # the key itself is unchanged
    assert _provider_names(otel) == {"gcp.gemini"}


@pytest.mark.parametrize("provider", ["openai", "groq", "deepseek", "perplexity"])
async def test_a_key_that_is_the_semconv_value_is_recorded_as_is(otel: Otel, provider: str) -> None:
    otel.on()
    async with FakeProviderServer() as server:
        model = iModel(
            model=f"{provider}/fake-model",
            endpoint="chat",
            api_key=KEY,
            base_url=server.base_url + "/v1",
            allow_local_network=True,
        )
        async with model:
            await _run(model, False, messages=MESSAGES)
    assert _provider_names(otel) == {provider}


async def test_a_custom_openai_compatible_provider_records_the_name_its_user_gave(
    otel: Otel,
) -> None:
    otel.on()
    async with FakeProviderServer() as server:
        model = iModel(
            model="mycorp/fake-model",
            endpoint="chat/completions",
            api_key=KEY,
            base_url=server.base_url + "/v1",
            allow_local_network=True,
            openai_compatible=True,
        )
        async with model:
            await _run(model, True, messages=MESSAGES)
    assert _provider_names(otel) == {"mycorp"}


def test_every_installed_provider_declares_a_well_known_value_or_has_none() -> None:
    """A vendor whose key is not a well-known value declares one, unless the list has none."""
    snapshot = EndpointRegistry.snapshot()
    recorded: dict[str, set[str]] = {}
    for key in snapshot.provider_keys:
        for entry in snapshot.provider(key).endpoints.values():
            recorded.setdefault(key, set()).add(entry.resolved_class.otel_provider_name or key)
    assert recorded.get("gemini") == {"gcp.gemini"}
    odd = {
        key: names
        for key, names in recorded.items()
        if not (names <= WELL_KNOWN or (key in NO_WELL_KNOWN_VALUE and names == {key}))
    }
    assert odd == {}
