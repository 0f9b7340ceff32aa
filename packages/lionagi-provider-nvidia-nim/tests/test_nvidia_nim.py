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


async def test_nvext_guided_json_reaches_the_server_as_given() -> None:
    """``nvext`` (NIM's structured generation: ``guided_json`` and co.) was an unknown field."""
    import json

    from lionagi.service import iModel
    from lionagi.service_testing import scripted_stream_server

    answer = {
        "id": "c1",
        "object": "chat.completion",
        "model": "meta/llama-3.1-8b-instruct",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "{}"}, "finish_reason": "stop"}
        ],
    }
    nvext = {"guided_json": {"type": "object", "properties": {"title": {"type": "string"}}}}
    body = [json.dumps(answer).encode()]
    server_cm = scripted_stream_server(body, content_type="application/json")
    async with server_cm as server:
        model = iModel(
            model="nvidia_nim/meta/llama-3.1-8b-instruct",
            api_key="nvapi-test-0123456789abcdef",
            base_url=server.url,
            allow_local_network=True,
        )
        async with model:
            call = await model.invoke(messages=[{"role": "user", "content": "q"}], nvext=nvext)
    assert call.exception is None
    assert server.requests == 1
    assert call.payload["nvext"] == nvext
    with pytest.raises(EndpointConfigurationError, match="nvext"):
        match_endpoint("nvidia_nim", "chat", api_key="k").create_payload(
            {"model": "m", "messages": [], "nvext": "guided_json"}
        )
