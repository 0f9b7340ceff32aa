"""Fidelity: the vendors' own SDKs accept what the fake server sends for both Gemini dialects.

``google-genai`` parses every native reply (each SSE ``data:`` line of ``streamGenerateContent``
and the one-shot ``generateContent`` body) with its strict response model, and drives the real
client against the fake server; ``openai`` streams the compatibility layer's chat SSE. So the
fake server cannot drift into a dialect only this package's projector understands. Offline: the
server is on loopback and the SDKs are test-only dependencies.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from lionagi.service_testing.fake_server import FakeProviderServer

genai = pytest.importorskip("google.genai")
genai_types = pytest.importorskip("google.genai.types")
genai_errors = pytest.importorskip("google.genai.errors")
openai = pytest.importorskip("openai")

KEY = "AIzaFidelityKey0123456789"
BODY = {"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}
TOOLS = {
    "tools": [
        {
            "functionDeclarations": [
                {
                    "name": "shell",
                    "description": "Run a shell command",
                    "parameters": {
                        "type": "object",
                        "properties": {"command": {"type": "string"}},
                        "required": ["command"],
                    },
                }
            ]
        }
    ]
}
SCENARIOS = ["text", "thinking", "tool", "usage", "thinking+tool"]


def _sse_payloads(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        if line.startswith("data:"):
            out.append(json.loads(line[5:].strip()))
    return out


@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_genai_models_accept_native_stream_and_one_shot(scenario: str) -> None:
    headers = {"x-goog-api-key": KEY, "x-fake-behaviour": scenario}
    body = {**BODY, **TOOLS} if "tool" in scenario else BODY
    async with FakeProviderServer() as server:
        base = f"{server.base_url}/v1beta/models/gemini-2.5-flash"
        async with httpx.AsyncClient() as client:
            streamed = await client.post(
                f"{base}:streamGenerateContent?alt=sse", json=body, headers=headers
            )
            one_shot = await client.post(f"{base}:generateContent", json=body, headers=headers)
    assert streamed.status_code == 200
    assert one_shot.status_code == 200
    events = _sse_payloads(streamed.text)
    assert events
    parsed = [genai_types.GenerateContentResponse.model_validate(e) for e in events]
    whole = genai_types.GenerateContentResponse.model_validate(one_shot.json())
    assert parsed[-1].candidates[0].finish_reason == genai_types.FinishReason.STOP
    assert parsed[-1].usage_metadata.prompt_token_count
    if "tool" in scenario:
        assert whole.function_calls
        assert whole.function_calls[0].name == "shell"
    else:
        assert whole.text
    if "thinking" in scenario:
        assert any(p.thought for p in whole.candidates[0].content.parts)


async def test_genai_client_streams_from_the_fake_server() -> None:
    async with FakeProviderServer() as server:
        client = genai.Client(
            api_key=KEY,
            http_options=genai_types.HttpOptions(base_url=server.base_url, api_version="v1beta"),
        )
        texts = []
        stream = await client.aio.models.generate_content_stream(
            model="gemini-2.5-flash", contents="hello"
        )
        async for response in stream:
            texts.append(response.text or "")
        whole = await client.aio.models.generate_content(model="gemini-2.5-flash", contents="hi")
        await client.aio.aclose()
        client.close()
        sent = server.requests
    assert "".join(texts) == whole.text
    assert sent[0].path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent"


async def test_genai_client_reads_the_error_body() -> None:
    async with FakeProviderServer() as server:
        client = genai.Client(
            api_key=KEY,
            http_options=genai_types.HttpOptions(
                base_url=server.base_url,
                api_version="v1beta",
                headers={"x-fake-behaviour": "429", "x-fake-retry-after": "13"},
            ),
        )
        with pytest.raises(genai_errors.ClientError) as info:
            await client.aio.models.generate_content(model="gemini-2.5-flash", contents="hi")
        await client.aio.aclose()
        client.close()
    assert info.value.code == 429
    assert info.value.status == "RESOURCE_EXHAUSTED"


@pytest.mark.parametrize("scenario", ["text", "thinking", "tool", "usage"])
async def test_openai_sdk_streams_the_compat_chat(scenario: str) -> None:
    async with FakeProviderServer() as server:
        client = openai.AsyncOpenAI(
            base_url=f"{server.base_url}/v1beta/openai",
            api_key=KEY,
            default_headers={"x-fake-behaviour": scenario},
        )
        kwargs: dict[str, Any] = {}
        if scenario == "tool":
            schema = TOOLS["tools"][0]["functionDeclarations"][0]
            kwargs["tools"] = [{"type": "function", "function": schema}]
        stream = await client.chat.completions.create(
            model="gemini-2.5-flash",
            messages=[{"role": "user", "content": "hello"}],
            stream=True,
            stream_options={"include_usage": True},
            **kwargs,
        )
        chunks = [c async for c in stream]
        await client.close()
    assert chunks
    assert any(c.usage is not None for c in chunks)
    finishes = [ch.finish_reason for c in chunks for ch in c.choices if ch.finish_reason]
    assert finishes
