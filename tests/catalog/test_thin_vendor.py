"""A thin OpenAI-compatible vendor is a few dozen lines: ``openai_compatible_specs``.

The vendor module below is installed as a real distribution (a temporary ``.dist-info`` with a
``lionagi.providers`` entry point), discovered through ``importlib.metadata`` and used against
the fake provider server: chat streams, embeddings answer one-shot and refuse to stream.
"""

from __future__ import annotations

import importlib

import pytest

from lionagi.service import EndpointConfigurationError, OpenAIChatCompletionsRequest, iModel
from lionagi.service.http import OpenAIChatEndpoint, openai_compatible_specs
from lionagi.service_testing.fake_server import FakeProviderServer

# The whole vendor module (no support helpers): this is what a thin distribution ships.
THIN_VENDOR = '''
from lionagi.service import OpenAIChatCompletionsRequest, ProviderModelPolicy
from lionagi.service.http import (
    OpenAIChatEndpoint,
    OpenAIEmbeddingsEndpoint,
    openai_compatible_specs,
)


class AcmeChatRequest(OpenAIChatCompletionsRequest):
    safe_mode: bool | None = None  # the vendor's own parameter


class AcmeChat(OpenAIChatEndpoint):
    """Acme chat completions (its own class: one per catalog row)."""


class AcmeEmbeddings(OpenAIEmbeddingsEndpoint):
    """Acme embeddings."""


PROVIDER_SPECS = openai_compatible_specs(
    provider="acme",
    base_url="https://api.acme.example/v1",
    api_key_env="ACME_API_KEY",
    chat_class=AcmeChat,
    chat_request=AcmeChatRequest,
    embeddings_class=AcmeEmbeddings,
)
MODEL_POLICIES = (ProviderModelPolicy(provider="acme"),)
'''


def test_the_thin_vendor_module_stays_within_thirty_lines():
    assert len(THIN_VENDOR.strip().splitlines()) <= 30


@pytest.fixture
def acme(dists, monkeypatch):
    module = dists.module("acme", THIN_VENDOR)
    dists.dist("acme", {"acme": module})
    from lionagi.service import EndpointRegistry

    catalog = dists.catalog()
    monkeypatch.setattr(EndpointRegistry, "_catalog", catalog)
    return catalog


async def test_thin_vendor_chat_streams_and_embeddings_answer_from_the_fake_server(acme):
    async with FakeProviderServer() as server:
        options = {
            "base_url": server.base_url + "/v1",
            "allow_local_network": True,
            "api_key": "acme-key-123",
        }
        async with iModel(model="acme/acme-large", endpoint="chat", **options) as chat:
            chunks = [c async for c in chat.stream(messages=[{"role": "user", "content": "hi"}])]
            rebuilt = iModel.from_dict(chat.to_dict(), api_key="acme-key-123")
            assert type(rebuilt.endpoint) is type(chat.endpoint)
            await rebuilt.close()
        text = "".join(c.content for c in chunks if c.type == "text")
        assert text == "Hello from the fake server."
        assert chunks[-1].type == "result"
        assert type(chat.endpoint).__qualname__ == "AcmeChat"
        sent = server.requests[-1]
        assert sent.path == "/v1/chat/completions"
        assert sent.json["stream_options"] == {"include_usage": True}

        async with iModel(model="acme/acme-embed", endpoint="embeddings", **options) as embed:
            event = await embed.invoke(input=["one", "two"])
            assert event.exception is None, event.exception
            assert [len(item["embedding"]) for item in event.execution.response["data"]] == [8, 8]
            assert server.requests[-1].path == "/v1/embeddings"
            count = len(server.requests)
            with pytest.raises(EndpointConfigurationError) as refused:
                async for _ in embed.stream(input="one"):
                    pass
            assert refused.value.field == "stream"
            assert len(server.requests) == count  # refused before any request


async def test_vendor_request_model_additions_are_accepted_and_typos_refused(acme):
    async with iModel(model="acme/m", endpoint="chat", api_key="k") as model:
        payload, _ = model.endpoint.create_payload(
            {"model": "m", "messages": [], "safe_mode": True}
        )
        assert payload["safe_mode"] is True
        with pytest.raises(EndpointConfigurationError) as bad:
            model.endpoint.create_payload({"model": "m", "messages": [], "safe_mod": True})
        assert "safe_mod" in bad.value.field


def test_the_helper_refuses_a_class_of_another_dialect():
    from lionagi.service import Endpoint

    class NotChat(Endpoint):
        pass

    with pytest.raises(EndpointConfigurationError) as bad:
        openai_compatible_specs(
            provider="x", base_url="https://x.example/v1", api_key_env=None, chat_class=NotChat
        )  # type: ignore[arg-type]
    assert bad.value.field == "chat_class"


def test_the_helper_builds_one_row_per_endpoint_with_the_dialect_defaults():
    class XChat(OpenAIChatEndpoint):
        pass

    (chat,) = openai_compatible_specs(
        provider="x", base_url="https://x.example/v1", api_key_env="X_KEY", chat_class=XChat
    )
    assert chat.endpoint == "chat/completions" and chat.endpoint_aliases == ("chat",)
    assert chat.request_options is OpenAIChatCompletionsRequest
    assert chat.api_key_env == "X_KEY" and chat.auth_type == "bearer"
    # A row that names its class by reference gets the default request by reference too, so
    # catalog build builds no model for it; it resolves to the same class on first use.
    (lazy,) = openai_compatible_specs(
        provider="x", base_url="https://x.example/v1", api_key_env=None, chat_class="m:XChat"
    )
    assert isinstance(lazy.request_options, str)
    module, _, name = lazy.request_options.partition(":")
    assert getattr(importlib.import_module(module), name) is OpenAIChatCompletionsRequest
