"""Ollama's native embeddings row: ``POST /api/embed`` (``api/embed``, alias ``native_embed``).

Before, embeddings went through ``/v1/embeddings`` only, which takes no ``options`` (``num_ctx``),
no ``keep_alive`` and no ``truncate``: an input over the context was cut without a word. The
native row carries them, answers one object (``{model, embeddings: [[...]], total_duration,
load_duration, prompt_eval_count}``) and refuses ``stream()``, as the server streams no
embeddings. Real loopback servers: the fake provider server, and a scripted one for bodies and
errors no fake scenario renders.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from lionagi.providers.ollama import DEFAULT_ORIGIN
from lionagi.service import (
    EndpointConfigurationError,
    EventStatus,
    ProviderClientError,
    ProviderProtocolError,
    ProviderStatusContextError,
    iModel,
)
from lionagi.service_testing import FakeProviderServer, embed, scripted_stream_server

INPUTS = ["alpha", "beta gamma"]


def native(base_url: str, **settings: Any) -> iModel:
    return iModel(
        model="ollama/nomic-embed-text",
        endpoint="native_embed",
        base_url=base_url,
        allow_local_network=True,
        **settings,
    )


@pytest.fixture
async def server() -> AsyncIterator[FakeProviderServer]:
    async with FakeProviderServer() as fake:
        yield fake


async def _served(body: Any, status: int = 200) -> tuple[Any, int]:
    """One ``invoke()`` against a server answering ``body`` with ``status``: its event, requests."""
    raw = json.dumps(body).encode()
    served = scripted_stream_server([raw], path="", content_type="application/json", status=status)
    async with served as stub, native(stub.url) as model:
        call = await model.invoke(input=INPUTS)
    return call, stub.requests


# -- the row ---------------------------------------------------------------------------------


@pytest.mark.parametrize("endpoint", ["native_embed", "api/embed", " API/Embed "])
def test_the_row_is_named_by_its_path_or_alias(endpoint: str) -> None:
    from lionagi.providers.ollama import OllamaNativeEmbed, OllamaNativeEmbedRequest

    model = iModel(model="ollama/nomic-embed-text", endpoint=endpoint)
    config = model.endpoint.config
    assert type(model.endpoint) is OllamaNativeEmbed
    assert config.endpoint == "api/embed"
    assert config.full_url == f"{DEFAULT_ORIGIN}/api/embed"
    assert config.request_options is OllamaNativeEmbedRequest
    assert config.auth_type == "none"
    assert config.request_defaults["model"] == "nomic-embed-text"
    # The documented default origin needs no opt-in, as on the other rows.
    assert DEFAULT_ORIGIN in type(model.endpoint).local_origins


def test_the_other_rows_keep_their_names() -> None:
    assert iModel(model="ollama/m", endpoint="embed").endpoint.config.endpoint == "embeddings"
    assert iModel(model="ollama/m").endpoint.config.endpoint == "chat/completions"


# -- the request and the answer ----------------------------------------------------------------


async def test_the_native_members_go_out_as_written_and_the_vectors_come_back(
    server: FakeProviderServer,
) -> None:
    request = {
        "input": INPUTS,
        "truncate": False,
        "dimensions": 4,
        "keep_alive": "10m",
        "options": {"num_ctx": 512, "num_thread": 2},
    }
    async with native(server.base_url) as model:
        call = await model.invoke(**request)
        single = await model.invoke(input="alpha", keep_alive=-1)
    assert call.status is EventStatus.COMPLETED, call.execution.error
    assert [r.path for r in server.requests] == ["/api/embed", "/api/embed"]
    # Sent as written, with no stream flag: /api/embed has none (a one-shot answer only).
    assert server.requests[0].json == {"model": "nomic-embed-text", **request}
    assert server.requests[1].json == {
        "model": "nomic-embed-text",
        "input": "alpha",
        "keep_alive": -1,
    }
    body = call.execution.response
    assert body["embeddings"] == [embed(text, 4) for text in INPUTS]
    assert single.execution.response["embeddings"] == [embed("alpha")]


async def test_token_counts_are_the_bodys_prompt_eval_count(server: FakeProviderServer) -> None:
    async with native(server.base_url) as model:
        call = await model.invoke(input=INPUTS)
    body = call.execution.response
    assert body["prompt_eval_count"] == 3  # the fake server counts words
    assert model.endpoint.token_counts(body) == (3, None)


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({}, "input", "required"),
        ({"input": 5}, "input", "a string or a list of strings, not int"),
        ({"input": ["a", 2]}, "input", "item 1 is int"),
        ({"input": {"text": "a"}}, "input", "not dict"),
        ({"input": "a", "dimensions": 0}, "dimensions", "greater than or equal to 1"),
        ({"input": "a", "dimensions": -8}, "dimensions", "greater than or equal to 1"),
        ({"input": "a", "dimensions": "8"}, "dimensions", "integer"),
        ({"input": "a", "truncate": "no"}, "truncate", "boolean"),
        ({"input": "a", "keep_alive": "5 minutes"}, "keep_alive", "not a duration Ollama parses"),
        ({"input": "a", "options": {"num_ctxx": 8}}, "options.num_ctxx", "did you mean 'num_ctx'"),
        ({"input": "a", "options": {"mirostat": 1}}, "options.mirostat", "removed in v0.6.9"),
        ({"input": "a", "options": {"num_ctx": "8"}}, "options.num_ctx", "integer"),
        # /api/embed has none of these: the older /api/embeddings' prompt, chat's members.
        ({"prompt": "a"}, "prompt", "unknown request field"),
        ({"input": "a", "format": "json"}, "format", "unknown request field"),
        ({"input": "a", "stream": False}, "stream", "unknown request field"),
    ],
)
async def test_a_request_ollama_would_not_read_as_written_is_refused_before_sending(
    server: FakeProviderServer, fields: dict[str, Any], field: str, words: str
) -> None:
    async with native(server.base_url) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            await model.invoke(**fields)
    assert refused.value.field == field
    assert words in str(refused.value)
    assert server.requests == []


async def test_stream_is_refused_before_any_request(server: FakeProviderServer) -> None:
    async with native(server.base_url) as model:
        with pytest.raises(EndpointConfigurationError) as refused:
            async for _chunk in model.stream(input=INPUTS):
                pass
    assert refused.value.field == "stream"
    assert "declares no stream dialect" in str(refused.value)
    assert server.requests == []


# -- answers that carry no vectors -------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ([[0.1, 0.2]], "not a JSON object (got JSON array)"),
        ({"model": "m", "total_duration": 5}, "no 'embeddings'"),
        ({"model": "m", "embeddings": "0.1,0.2"}, "'embeddings' is not a list of vectors"),
        ({"model": "m", "embeddings": [0.1, 0.2]}, "'embeddings' is not a list of vectors"),
        ({"error": "llama runner process has terminated"}, "runner process has terminated"),
    ],
)
async def test_a_2xx_answer_without_vectors_is_a_protocol_error(body: Any, words: str) -> None:
    call, requests = await _served(body)
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderProtocolError
    assert words in str(call.exception)
    assert "ollama api/embed" in str(call.exception)
    assert requests == 1


async def test_fields_this_version_does_not_know_are_left_for_the_caller() -> None:
    body = {"model": "m", "embeddings": [[0.5], [0.25]], "remote_host": "x", "new_field": 1}
    call, _ = await _served(body)
    assert call.status is EventStatus.COMPLETED, call.execution.error
    assert call.execution.response == body


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "the input length exceeds the context length",  # truncate=false
        "input exceeds maximum context length and cannot be truncated further",
        "input after truncation exceeds maximum context length",  # num_ctx holds no input
    ],
)
async def test_an_input_over_the_context_is_a_context_error_sent_once(text: str) -> None:
    call, requests = await _served({"error": text}, status=400)
    assert type(call.exception) is ProviderStatusContextError
    assert text in call.exception.body_excerpt
    assert requests == 1


async def test_another_400_stays_a_plain_client_error() -> None:
    call, requests = await _served({"error": "invalid input type"}, status=400)
    assert type(call.exception) is ProviderClientError
    assert requests == 1
