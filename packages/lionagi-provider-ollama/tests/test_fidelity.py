"""The fake server's native Ollama output through the ollama SDK's models (offline, loopback).

The OpenAI-compatible side goes through the openai SDK in test_vendor_checks.py.
"""

from __future__ import annotations

import json

import httpx
import pytest

from lionagi.service_testing import FakeProviderServer


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


async def test_ollama_models_accept_the_native_chat_stream() -> None:
    """The fake ``/api/chat`` lines the native chat tests read are what the SDK parses."""
    ollama = pytest.importorskip("ollama")
    tools = [{"type": "function", "function": {"name": "shell", "parameters": {}}}]
    request = {"model": "llama3.2", "messages": [{"role": "user", "content": "hi"}]}
    async with FakeProviderServer() as server, httpx.AsyncClient() as client:
        response = await client.post(
            f"{server.base_url}/api/chat",
            json={**request, "tools": tools},
            headers={"x-fake-behaviour": "thinking+tool"},
        )
        one = await client.post(f"{server.base_url}/api/chat", json={**request, "stream": False})
    lines = [ollama.ChatResponse.model_validate(json.loads(x)) for x in response.text.splitlines()]
    assert lines[-1].done
    assert lines[-1].eval_count
    assert any(line.message.thinking for line in lines)
    assert any(line.message.tool_calls for line in lines)
    assert ollama.ChatResponse.model_validate(one.json()).message.content


async def test_ollama_models_accept_the_native_embed_answer() -> None:
    """The fake ``/api/embed`` object the native embed tests read is what the SDK parses."""
    ollama = pytest.importorskip("ollama")
    from lionagi.service import iModel

    async with (
        FakeProviderServer() as server,
        iModel(
            model="ollama/nomic-embed-text",
            endpoint="native_embed",
            base_url=server.base_url,
            allow_local_network=True,
        ) as model,
    ):
        call = await model.invoke(input=["alpha", "beta gamma"], dimensions=4)
    answer = ollama.EmbedResponse.model_validate(call.execution.response)
    assert [len(vector) for vector in answer.embeddings] == [4, 4]
    assert answer.prompt_eval_count == 3
