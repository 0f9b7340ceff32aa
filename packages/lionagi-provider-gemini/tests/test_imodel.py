"""``iModel`` end to end against the fake server, through the catalog rows this package declares."""

from __future__ import annotations

from typing import Any

import pytest
from gemini_loopback import API_KEY, chat_model, native_model

from lionagi.service import EndpointConfigurationError, EventStatus, iModel
from lionagi.service_testing.fake_server import FakeProviderServer

MESSAGES = [{"role": "user", "content": "hello"}]
CONTENTS = [{"role": "user", "parts": [{"text": "hello"}]}]


def _text(chunks: list[Any], kind: str = "text") -> str:
    return "".join(c.content or "" for c in chunks if c.type == kind)


async def test_default_endpoint_is_compat_chat_streams_and_invokes() -> None:
    async with FakeProviderServer() as server:
        async with chat_model(server) as model:
            assert model.endpoint.config.endpoint == "chat/completions"
            chunks = [c async for c in model.stream(messages=MESSAGES)]
            call = await model.invoke(messages=MESSAGES)
        sent = server.requests
    assert _text(chunks)
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["usage"]
    assert call.execution.status is EventStatus.COMPLETED
    assert call.execution.response["choices"][0]["message"]["content"] == _text(chunks)
    assert sent[0].path == "/v1beta/openai/chat/completions"
    assert sent[0].headers["authorization"] != f"Bearer {API_KEY}"  # recorded redacted
    assert sent[0].json["model"] == "gemini-2.5-flash"
    assert sent[0].json["stream_options"] == {"include_usage": True}


async def test_native_generate_streams_and_invokes_with_model_in_the_path() -> None:
    async with FakeProviderServer() as server:
        async with iModel(
            model="gemini-api/gemini-2.5-flash",
            endpoint="generate",
            # The fake server's path-prefix scenario: thought parts, then the answer.
            base_url=f"{server.base_url}/scenario/thinking/v1beta",
            api_key=API_KEY,
            allow_local_network=True,
        ) as model:
            chunks = [c async for c in model.stream(contents=CONTENTS)]
            call = await model.invoke(contents=CONTENTS)
        sent = server.requests
    assert _text(chunks, "thinking")
    assert _text(chunks)
    result = chunks[-1]
    assert result.type == "result"
    assert result.metadata["model"] == "gemini-2.5-flash"
    assert result.metadata["finish_reason"] == "STOP"
    assert result.metadata["usage"]["promptTokenCount"]
    assert call.execution.status is EventStatus.COMPLETED
    parts = call.execution.response["candidates"][0]["content"]["parts"]
    assert [p.get("thought", False) for p in parts] == [True, False]
    stream_req, one_shot = sent
    assert stream_req.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    assert stream_req.query == {"alt": "sse"}
    assert one_shot.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert "model" not in stream_req.json
    assert "model" not in one_shot.json
    assert "stream" not in stream_req.json
    assert "x-goog-api-key" in stream_req.headers
    assert "key" not in stream_req.query
    assert "authorization" not in stream_req.headers


async def test_compat_google_options_are_nested_under_extra_body() -> None:
    google = {
        "thinking_config": {"thinking_budget": 800, "include_thoughts": True},
        "cached_content": "cachedContents/abc",
    }
    async with FakeProviderServer() as server:
        async with chat_model(server) as model:
            # A budget, so no reasoning_effort: the layer refuses the two together.
            call = await model.invoke(messages=MESSAGES, google=google)
        sent = server.requests[0].json
    assert call.execution.status is EventStatus.COMPLETED
    assert sent["extra_body"] == {"google": google}
    assert "google" not in sent


def test_effort_suffix_is_refused() -> None:
    with pytest.raises(EndpointConfigurationError, match="does not support effort levels"):
        iModel(model="gemini/gemini-2.5-flash-high", api_key=API_KEY)


def test_unknown_native_field_is_refused_with_a_suggestion() -> None:
    model = native_model()
    with pytest.raises(EndpointConfigurationError, match="did you mean 'generationConfig'"):
        model.endpoint.create_payload({"contents": CONTENTS, "generation_config": {}})


@pytest.mark.parametrize("bad", ["../secrets", "gemini?key=x", "a/b", "has space"])
def test_model_that_is_not_one_path_segment_is_refused(bad: str) -> None:
    model = native_model()
    with pytest.raises(EndpointConfigurationError) as info:
        model.endpoint.create_payload({"model": bad, "contents": CONTENTS})
    assert info.value.field == "model"


def test_native_request_model_validates_parts_and_generation_config() -> None:
    model = native_model()
    ep = model.endpoint
    with pytest.raises(EndpointConfigurationError, match="exactly one of"):
        ep.create_payload(
            {
                "contents": [
                    {
                        "parts": [
                            {"text": "a", "inlineData": {"mimeType": "image/png", "data": "AA=="}}
                        ]
                    }
                ]
            }
        )
    with pytest.raises(EndpointConfigurationError, match="not both"):
        ep.create_payload(
            {
                "contents": CONTENTS,
                "generationConfig": {"responseSchema": {}, "responseJsonSchema": {}},
            }
        )
    payload, headers = ep.create_payload(
        {
            "model": "models/gemini-2.5-pro",
            "contents": CONTENTS,
            "systemInstruction": {"parts": [{"text": "be brief"}]},
            "generationConfig": {
                "temperature": 0.2,
                "thinkingConfig": {"thinkingBudget": 1024, "includeThoughts": True},
            },
            "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
            "safetySettings": [
                {"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_ONLY_HIGH"}
            ],
        }
    )
    assert payload["model"] == "gemini-2.5-pro"
    assert payload["generationConfig"]["thinkingConfig"] == {
        "thinkingBudget": 1024,
        "includeThoughts": True,
    }
    assert headers["x-goog-api-key"] == API_KEY
    path, body = ep.request_target(payload, stream=False)
    assert path == "models/gemini-2.5-pro:generateContent"
    assert "model" not in body
