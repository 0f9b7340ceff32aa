"""An embeddings ``input`` OpenAI's API refuses is refused before any request (loopback).

openai-python's ``EmbeddingCreateParams.input``: an input "cannot be an empty string, and any
array must be 2048 dimensions or less" (its OpenAPI schema: every array ``minItems: 1``,
``maxItems: 2048``; a token array inside a list of them ``minItems: 1``). The row sent ``""``,
``[]``, ``[[]]``, ``["a", ""]`` or 2049 inputs and got a 400 back; each is now an
``EndpointConfigurationError`` naming the path (``input``, ``input.2``). A flat token array is
one input, so its length (a token count) is left to the model's token budget, as are strings.
"""

from __future__ import annotations

from typing import Any

import pytest
from openai_loopback import openai_model

from lionagi.service import EndpointConfigurationError, iModel
from lionagi.service_testing.fake_server import FakeProviderServer

KEY = "sk-embeddings-input-0123456789"


def _model(server: FakeProviderServer) -> iModel:
    return openai_model(
        f"{server.base_url}/v1", api_key=KEY, model="text-embedding-3-small", endpoint="embeddings"
    )


@pytest.mark.parametrize(
    ("value", "field", "words"),
    [
        pytest.param("", "input", "empty string", id="empty-string"),
        pytest.param([], "input", "empty list", id="empty-list"),
        pytest.param([[]], "input.0", "empty token array", id="empty-token-array"),
        pytest.param([[9906], [1917], []], "input.2", "empty token array", id="third-tokens"),
        pytest.param(["alpha", "beta", ""], "input.2", "empty string", id="third-string"),
        pytest.param([""], "input.0", "empty string", id="only-string"),
        pytest.param(["x"] * 2049, "input", "at most 2048", id="2049-strings"),
        pytest.param([[1]] * 2049, "input", "at most 2048", id="2049-token-arrays"),
    ],
)
async def test_an_input_the_api_refuses_is_refused_before_any_request(
    server: FakeProviderServer, value: Any, field: str, words: str
) -> None:
    async with _model(server) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(input=value)
    assert refused.value.field == field
    assert words in str(refused.value)
    assert server.requests == []


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(" ", id="one-space"),
        pytest.param(["x"] * 2048, id="2048-strings"),
        pytest.param([[1]] * 2048, id="2048-token-arrays"),
        pytest.param([15339] * 3000, id="one-token-array-of-3000"),
    ],
)
async def test_inputs_within_the_limits_reach_the_server_as_written(
    server: FakeProviderServer, value: Any
) -> None:
    async with _model(server) as model:
        event = await model.invoke(input=value)
    assert event.exception is None, event.exception
    (sent,) = server.requests
    assert sent.json["input"] == value
