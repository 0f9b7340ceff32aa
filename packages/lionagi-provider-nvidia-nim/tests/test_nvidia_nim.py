from __future__ import annotations

import pytest

from lionagi.service import EndpointConfigurationError, match_endpoint
from lionagi.service_testing.conformance import (
    CatalogRow,
    HTTPChatConformance,
    HTTPEmbeddingsConformance,
)


class TestNimChat(CatalogRow, HTTPChatConformance):
    provider = "nvidia"
    dialect = "openai_chat"
    tool_calls = reasoning = True


class TestNimEmbeddings(CatalogRow, HTTPEmbeddingsConformance):
    provider = "nim"
    endpoint = "embed"


def test_retrieval_fields_are_typed() -> None:
    ep = match_endpoint("nvidia_nim", "embed", api_key="k")
    payload, _ = ep.create_payload(
        {"model": "nvidia/nv-embedqa-e5-v5", "input": "q", "input_type": "query", "truncate": "END"}
    )
    assert (payload["input_type"], payload["truncate"]) == ("query", "END")
    with pytest.raises(EndpointConfigurationError, match="truncate"):
        ep.create_payload({"model": "m", "input": "q", "truncate": "MIDDLE"})


def test_a_model_string_without_an_endpoint_is_chat() -> None:
    from lionagi.service import iModel

    model = iModel(model="nim/meta/llama-3.1-8b-instruct", api_key="nvapi-test")
    assert (model.endpoint.config.provider, model.endpoint.config.endpoint) == (
        "nvidia_nim",
        "chat/completions",
    )
    assert model.endpoint.config.request_defaults["model"] == "meta/llama-3.1-8b-instruct"
