"""``/v1/embeddings`` takes what Ollama's compatible layer reads: strings, no token arrays.

Core's shared embeddings body allows token arrays (OpenAI embeds them) and ``user``. Ollama's
layer (``middleware/openai.go``) hands ``input`` to ``/api/embed``, which answers a token array
400 "invalid input type" and an empty list 400 "invalid input"; its request struct has no
``user``, so a ``user`` was dropped with a 200. Each is now refused naming its field, before
any request. Real loopback server (the fake provider server).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service_testing import FakeProviderServer


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as fake:
        yield fake


def _model(server: FakeProviderServer) -> iModel:
    return iModel(
        model="ollama/nomic-embed-text",
        endpoint="embeddings",
        base_url=f"{server.base_url}/v1",
        allow_local_network=True,
    )


@pytest.mark.parametrize(
    ("request_", "field", "words"),
    [
        pytest.param({"input": [9906, 1917]}, "input", "item 0 is int", id="token-array"),
        pytest.param({"input": [[9906], [1917]]}, "input", "item 0 is list", id="token-arrays"),
        pytest.param({"input": ["a", 7]}, "input", "item 1 is int", id="mixed"),
        pytest.param({"input": []}, "input", "'invalid input'", id="empty-list"),
        pytest.param({"input": "a", "user": "u-1"}, "user", "no end-user id", id="user"),
    ],
)
async def test_what_the_layer_refuses_or_drops_is_refused_before_sending(
    server: FakeProviderServer, request_: dict[str, Any], field: str, words: str
) -> None:
    async with _model(server) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(**request_)
    assert refused.value.field == field
    assert words in str(refused.value)
    assert server.requests == []


@pytest.mark.parametrize(
    "request_",
    [
        pytest.param({"input": "alpha"}, id="string"),
        pytest.param({"input": ["alpha", "beta"]}, id="strings"),
        pytest.param({"input": ""}, id="empty-string"),  # the layer embeds it as [""]
        pytest.param({"input": "a", "dimensions": 8, "encoding_format": "base64"}, id="options"),
    ],
)
async def test_what_the_layer_reads_is_sent_as_written(
    server: FakeProviderServer, request_: dict[str, Any]
) -> None:
    async with _model(server) as model:
        event = await model.invoke(**request_)
    assert event.exception is None, event.exception
    (sent,) = server.requests
    assert {key: sent.json[key] for key in request_} == request_
