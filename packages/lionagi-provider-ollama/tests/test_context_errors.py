"""An input over the model's context is ``ProviderStatusContextError`` on every row, sent once.

Ollama answers it with HTTP 400 and the same text on every route: ``the input length exceeds
the context length`` (truncation off), ``the prompt is longer than the context length currently
available to the model; ...`` (a prompt to cut where the context cannot shift: ``shift=False``,
or a model that cannot shift, which ``/v1`` has no way to turn on), and, on embeddings, ``input
exceeds maximum context length and cannot be truncated further``; and the MLX runner's ``input
length (N tokens) exceeds the model's maximum context length (M tokens)`` (chat, generate; it was
a plain ``ProviderClientError`` on every row). Flat (``{"error": "..."}``) on the native API;
inside the OpenAI-shaped object on ``/v1`` (``openai.NewError``: ``type``
``invalid_request_error``, no code), so the dialect's codes never typed it there: the ``/v1`` chat
and embeddings rows left "is longer than the context length" a plain ``ProviderClientError``
while the native rows typed it. Real loopback server.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    EventStatus,
    ProviderClientError,
    ProviderStatusContextError,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

MESSAGES = [{"role": "user", "content": "hi"}]
EXCEEDS = "the input length exceeds the context length"
LONGER = (
    "the prompt is longer than the context length currently available to the model; shorten "
    "the prompt, adjust the context length in settings, or use a model with a longer context "
    "length"
)
CANNOT_CUT = "input exceeds maximum context length and cannot be truncated further"
# The MLX runner's own text (``x/mlxrunner/pipeline.go``, ``Runner.Prepare``): a 400 from the
# runner, which the server passes on with its status (``api.StatusError``) on every text route.
MLX = "input length (5000 tokens) exceeds the model's maximum context length (4096 tokens)"


def _compat(text: str) -> dict[str, Any]:
    """The ``/v1`` layer's error object for a 400 (``openai.NewError``)."""
    return {
        "error": {"message": text, "type": "invalid_request_error", "param": None, "code": None}
    }


# (row, base path, request, whether it streams)
ROWS = [
    pytest.param("chat", "/v1", {"messages": MESSAGES}, True, id="v1-chat"),
    pytest.param("embed", "/v1", {"input": "hi"}, False, id="v1-embeddings"),
    pytest.param("generate", "/api", {"prompt": "hi"}, True, id="generate"),
    pytest.param("native_chat", "", {"messages": MESSAGES}, True, id="native-chat"),
    pytest.param("native_embed", "", {"input": "hi"}, False, id="native-embed"),
]


async def _failures(
    endpoint: str, path: str, request: dict[str, Any], streams: bool, body: Any, status: int = 400
) -> tuple[list[BaseException | None], int]:
    """The error of one ``invoke()`` (and one ``stream()`` where the row streams), requests made."""
    raw = json.dumps(body).encode()
    served = scripted_stream_server(
        [raw], path=path, content_type="application/json", status=status
    )
    async with served as server:
        model = iModel(
            model="ollama/llama3.2",
            endpoint=endpoint,
            base_url=server.url,
            allow_local_network=True,
        )
        async with model:
            call = await model.invoke(**request)
            assert call.status is EventStatus.FAILED
            errors: list[BaseException | None] = [call.exception]
            if streams:
                with pytest.raises(ProviderClientError) as streamed:
                    async for _chunk in model.stream(**request):
                        pass
                errors.append(streamed.value)
        return errors, server.requests


@pytest.mark.parametrize("text", [EXCEEDS, LONGER, CANNOT_CUT])
@pytest.mark.parametrize(("endpoint", "path", "request_", "streams"), ROWS)
async def test_an_input_over_the_context_is_a_context_error_on_every_row(
    endpoint: str, path: str, request_: dict[str, Any], streams: bool, text: str
) -> None:
    body = _compat(text) if path == "/v1" else {"error": text}
    errors, requests = await _failures(endpoint, path, request_, streams, body)
    for error in errors:
        assert type(error) is ProviderStatusContextError, error
        assert error.status == 400
        assert error.retryable is False
        assert "does not fit the model's context window" in str(error)
        assert text[:40] in error.body_excerpt
    assert requests == len(errors)  # never retried


@pytest.mark.parametrize(
    ("endpoint", "path", "request_", "streams"),
    [row for row in ROWS if row.id in ("v1-chat", "generate", "native-chat")],
)
async def test_the_mlx_runners_context_text_is_a_context_error(
    endpoint: str, path: str, request_: dict[str, Any], streams: bool
) -> None:
    """The MLX runner generates text only (its ``Embedding`` is "not supported"): text rows."""
    body = _compat(MLX) if path == "/v1" else {"error": MLX}
    errors, requests = await _failures(endpoint, path, request_, streams, body)
    for error in errors:
        assert type(error) is ProviderStatusContextError, error
        assert error.status == 400
        assert error.retryable is False
        assert "maximum context length (4096 tokens)" in error.body_excerpt
    assert requests == len(errors)  # never retried


# The llama-server runner's own refusal of a prompt over its slot (Ollama v0.30 on, every GGML
# model): a prompt the server does not cut reaches it whole (``truncate=False``, or a request
# with images), and it answers 400 with its error object. Ollama passes that body on as the error
# text, verbatim (``llm/llama_server.go``, ``statusErrorMessage``), with the runner's status.
# llama.cpp's wording moves between builds; its type ``exceed_context_size_error`` does not.
LLAMA_SERVER = json.dumps(
    {
        "error": {
            "code": 400,
            "message": "request (5000 tokens) exceeds the available context size (4096 tokens), "
            "try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 5000,
            "n_ctx": 4096,
        }
    }
)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(LLAMA_SERVER, id="verbatim"),
        pytest.param("the request exceeds the available context size, try increasing it", id="old"),
        pytest.param("request (5000 tokens) exceeds context size (4096 tokens)", id="newer"),
    ],
)
@pytest.mark.parametrize(
    ("endpoint", "path", "request_", "streams"),
    [row for row in ROWS if row.id in ("v1-chat", "generate", "native-chat")],
)
async def test_the_llama_server_runners_context_refusal_is_a_context_error(
    endpoint: str, path: str, request_: dict[str, Any], streams: bool, text: str
) -> None:
    """Text rows only: Ollama rewrites the runner's embedding refusals into its own text."""
    body = _compat(text) if path == "/v1" else {"error": text}
    errors, requests = await _failures(endpoint, path, request_, streams, body)
    for error in errors:
        assert type(error) is ProviderStatusContextError, error
        assert error.status == 400
        assert error.retryable is False
    assert requests == len(errors)  # never retried


@pytest.mark.parametrize(("endpoint", "path", "request_", "streams"), ROWS)
async def test_another_400_stays_a_plain_client_error(
    endpoint: str, path: str, request_: dict[str, Any], streams: bool
) -> None:
    text = "invalid input type"
    body = _compat(text) if path == "/v1" else {"error": text}
    errors, requests = await _failures(endpoint, path, request_, streams, body)
    assert [type(error) for error in errors] == [ProviderClientError] * len(errors)
    assert requests == len(errors)
