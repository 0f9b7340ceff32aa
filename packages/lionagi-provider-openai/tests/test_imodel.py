"""``iModel(model="openai/...")`` end to end against the fake server: streams and invokes."""

from __future__ import annotations

import pytest

from lionagi.providers.openai import OpenAIResponsesEndpoint
from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service_testing.fake_server import FakeProviderServer

KEY = "sk-imodel-test-0123456789"


def options(server: FakeProviderServer, scenario: str = "") -> dict[str, object]:
    prefix = f"/scenario/{scenario}" if scenario else ""  # the fake server's path selector
    base_url = f"{server.base_url}{prefix}/v1"
    return {"base_url": base_url, "allow_local_network": True, "api_key": KEY}


async def test_chat_streams_with_usage_and_invokes(server):
    async with iModel(model="openai/gpt-4.1", endpoint="chat", **options(server)) as model:
        chunks = [c async for c in model.stream(messages=[{"role": "user", "content": "hi"}])]
        assert "".join(c.content or "" for c in chunks if c.type == "text") == (
            "Hello from the fake server."
        )
        assert chunks[-1].type == "result"
        assert chunks[-1].metadata["usage"]["total_tokens"] > 0
        sent = server.requests[-1]
        assert sent.path == "/v1/chat/completions"
        assert sent.json["model"] == "gpt-4.1"
        assert sent.json["stream_options"] == {"include_usage": True}
        event = await model.invoke(messages=[{"role": "user", "content": "hi"}])
        assert event.exception is None, event.exception
        assert event.execution.response["choices"][0]["message"]["content"]


async def test_responses_streams_reasoning_and_invokes(server):
    opts = options(server, "thinking")
    async with iModel(model="openai/gpt-5", endpoint="response", **opts) as model:
        assert type(model.endpoint) is OpenAIResponsesEndpoint
        chunks = [
            c
            async for c in model.stream(
                input="hi",
                reasoning={"effort": "low", "summary": "auto"},
            )
        ]
        assert any(c.type == "thinking" and c.content for c in chunks)
        assert chunks[-1].type == "result"
        assert chunks[-1].metadata["finish_reason"] == "completed"
        sent = server.requests[-1]
        assert sent.path == "/v1/responses"
        assert sent.json["reasoning"] == {"effort": "low", "summary": "auto"}
        assert sent.json["stream"] is True
        event = await model.invoke(input="hi")
        assert event.exception is None, event.exception
        assert event.execution.response["object"] == "response"


async def test_embeddings_invoke_and_refuse_to_stream(server):
    async with iModel(
        model="openai/text-embedding-3-small", endpoint="embed", **options(server)
    ) as model:
        event = await model.invoke(input=["a", "b"])
        assert event.exception is None, event.exception
        assert len(event.execution.response["data"]) == 2
        count = len(server.requests)
        with pytest.raises(EndpointConfigurationError) as refused:
            async for _ in model.stream(input="a"):
                pass
        assert refused.value.field == "stream"
        assert len(server.requests) == count


async def test_responses_request_model_refuses_typos_and_keeps_extra_body():
    async with iModel(model="openai/gpt-5", endpoint="responses", api_key=KEY) as model:
        endpoint = model.endpoint
        with pytest.raises(EndpointConfigurationError) as bad:
            endpoint.create_payload({"model": "m", "input": "x", "max_output_token": 5})
        assert bad.value.field == "max_output_token"
        assert "max_output_tokens" in str(bad.value)
        with pytest.raises(EndpointConfigurationError) as nested:
            endpoint.create_payload({"model": "m", "input": "x", "reasoning": {"efort": "low"}})
        assert nested.value.field == "reasoning.efort"
        with pytest.raises(EndpointConfigurationError) as level:
            endpoint.create_payload(
                {"model": "m", "input": "x", "reasoning": {"effort": "extreme"}}
            )
        assert level.value.field == "reasoning.effort"
        payload, _ = endpoint.create_payload(
            {
                "model": "m",
                "input": [{"role": "user", "content": "x"}],
                "text": {"format": {"type": "json_object"}, "verbosity": "low"},
                "previous_response_id": "resp_1",
                "include": ["reasoning.encrypted_content"],
                "extra_body": {"brand_new_field": 1},
            }
        )
        assert payload["text"] == {"format": {"type": "json_object"}, "verbosity": "low"}
        assert payload["brand_new_field"] == 1
        assert "reasoning" not in payload  # None fields are dropped, never sent as null


async def test_chat_reasoning_effort_is_a_request_field():
    async with iModel(model="openai/o4-mini", endpoint="chat", api_key=KEY) as model:
        payload, _ = model.endpoint.create_payload(
            {"model": "o4-mini", "messages": [], "reasoning_effort": "high"}
        )
        assert payload["reasoning_effort"] == "high"


def test_a_model_name_ending_like_an_effort_level_passes_through():
    # A passthrough policy: "-max" is part of OpenAI's model name, never split off as an effort.
    from lionagi.service import parse_model_spec

    spec = parse_model_spec("openai/gpt-5.1-codex-max")
    assert spec.model == "openai/gpt-5.1-codex-max"
    assert spec.effort is None


async def test_a_model_string_without_an_endpoint_is_chat(server):
    # The legacy spelling keeps working: iModel(provider="openai", model=...) and the model
    # string form both select chat/completions; the other endpoints are named.
    async with iModel(provider="openai", model="gpt-4.1-mini", **options(server)) as model:
        assert model.endpoint.config.endpoint == "chat/completions"
        event = await model.invoke(messages=[{"role": "user", "content": "hi"}])
        assert event.exception is None, event.exception
    assert server.requests[-1].path == "/v1/chat/completions"
    assert server.requests[-1].json["model"] == "gpt-4.1-mini"
    kept = iModel(model="openai/gpt-5.1-codex-max", api_key=KEY)
    assert kept.endpoint.config.request_defaults["model"] == "gpt-5.1-codex-max"
    embed = iModel(model="openai/text-embedding-3-small", endpoint="embed", api_key=KEY)
    assert embed.endpoint.config.endpoint == "embeddings"
