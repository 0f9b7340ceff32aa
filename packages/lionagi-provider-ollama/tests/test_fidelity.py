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
