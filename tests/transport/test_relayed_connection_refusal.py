"""An HTTP provider's in-band error quoting "connection refused" is not the connection family.

An OpenAI-compatible server (Ollama, a model router) that cannot reach what is behind it says so
in its stream: the provider answered, so the failure is its own (a server fault), never a
connection the caller failed to make (``ProviderConnectionError``, always retried before output).
Only a client's own report (an agentic CLI's, an in-process agent's) is that family.
"""

from __future__ import annotations

import json

import pytest

from lionagi.service import ProviderConnectionError, ProviderStreamError, iModel
from lionagi.service_testing import scripted_stream_server


async def test_a_relayed_refusal_in_an_http_stream_is_not_the_connection_family() -> None:
    """An OpenAI-compatible server (Ollama, a router) relaying its upstream's refusal in-band."""
    error = {"error": {"message": "upstream: dial tcp 10.0.0.7:8000: connect: connection refused"}}
    frames = [f"data: {json.dumps(error)}\n\n".encode()]
    async with scripted_stream_server(frames) as server:
        model = iModel(
            provider="relay",
            endpoint="chat/completions",
            openai_compatible=True,
            base_url=f"{server.url}/v1",
            api_key="sk-relay-test-0123456789",
            allow_local_network=True,
            request_defaults={"model": "m"},
        )
        async with model:
            with pytest.raises(ProviderStreamError) as info:
                async for _ in model.stream(messages=[{"role": "user", "content": "hi"}]):
                    pass
    assert not isinstance(info.value, ProviderConnectionError), type(info.value)
