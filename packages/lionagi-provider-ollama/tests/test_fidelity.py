"""The fake server's Ollama output through the vendors' own parsers (offline, loopback)."""

from __future__ import annotations

import json

import httpx
import pytest

from lionagi.service_testing import FakeProviderServer


async def test_openai_sdk_parses_the_compatible_chat_stream() -> None:
    openai = pytest.importorskip("openai")
    async with FakeProviderServer() as server:
        client = openai.AsyncOpenAI(base_url=f"{server.base_url}/v1", api_key="k")
        stream = await client.chat.completions.create(
            model="llama3.2",
            messages=[{"role": "user", "content": "hi"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = [chunk async for chunk in stream]
        await client.close()
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text
    assert any(c.usage is not None for c in chunks)


async def test_ollama_models_accept_the_native_generate_stream() -> None:
    ollama = pytest.importorskip("ollama")
    async with FakeProviderServer() as server, httpx.AsyncClient() as client:
        response = await client.post(
            f"{server.base_url}/api/generate",
            json={"model": "llama3.2", "prompt": "hi"},
            headers={"x-fake-behaviour": "thinking"},
        )
        one = await client.post(
            f"{server.base_url}/api/generate",
            json={"model": "llama3.2", "prompt": "hi", "stream": False},
        )
    lines = [
        ollama.GenerateResponse.model_validate(json.loads(x)) for x in response.text.splitlines()
    ]
    assert lines[-1].done
    assert lines[-1].eval_count
    assert any(line.thinking for line in lines)
    assert ollama.GenerateResponse.model_validate(one.json()).response
