"""A model the Ollama server has not pulled is ``ProviderStatusUnsupportedModelError``, sent once.

Ollama answers a model it does not have with HTTP 404 and error text naming it: ``model "x" not
found, try pulling it first`` (newer servers: ``model 'x' not found``), flat (``{"error":
"..."}``) on the native API and inside an OpenAI-shaped object with no code (``{"error":
{"message": "...", "type": "not_found_error"}}``) on ``/v1``. It was a plain
``ProviderClientError`` on every row; the hooks now read the text, so ``except
ProviderUnsupportedModelError`` catches it. A 404 with other text stays a plain client error.
Real loopback server.

The new class is imported inside the tests, so they still run (and fail on their assertions)
against a core that lacks it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    CircuitPolicy,
    EventStatus,
    ProviderClientError,
    ProviderUnsupportedModelError,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

NOT_PULLED = 'model "bogus" not found, try pulling it first'
NOT_PULLED_NEWER = "model 'bogus' not found"
MESSAGES = [{"role": "user", "content": "hi"}]


def _compat(text: str) -> dict[str, Any]:
    """The ``/v1`` layer's error object (Ollama's ``openai.NewError`` for a 404)."""
    return {"error": {"message": text, "type": "not_found_error", "param": None, "code": None}}


# (row, base path, request, body)
ROWS = [
    pytest.param("generate", "/api", {"prompt": "hi"}, {"error": NOT_PULLED}, id="generate"),
    pytest.param(
        "generate", "/api", {"prompt": "hi"}, {"error": NOT_PULLED_NEWER}, id="generate-newer"
    ),
    pytest.param("chat", "/v1", {"messages": MESSAGES}, _compat(NOT_PULLED), id="chat"),
    pytest.param("native_chat", "", {"messages": MESSAGES}, {"error": NOT_PULLED}, id="native"),
    pytest.param(
        "native_chat", "", {"messages": MESSAGES}, {"error": NOT_PULLED_NEWER}, id="native-newer"
    ),
    pytest.param("embed", "/v1", {"input": "hi"}, _compat(NOT_PULLED_NEWER), id="embeddings"),
    pytest.param(
        "native_embed", "", {"input": "hi"}, {"error": NOT_PULLED_NEWER}, id="native-embed"
    ),
]


async def _calls(
    endpoint: str, path: str, request: dict[str, Any], body: Any, times: int = 1
) -> tuple[list[Any], int, str]:
    """``times`` invokes (then one stream, where the row streams) against a 404 with ``body``."""
    raw = json.dumps(body).encode()
    served = scripted_stream_server([raw], path=path, content_type="application/json", status=404)
    async with served as server:
        model = iModel(
            model="ollama/bogus",
            endpoint=endpoint,
            base_url=server.url,
            allow_local_network=True,
            circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60),
        )
        async with model:
            errors: list[Any] = []
            for _ in range(times):
                call = await model.invoke(**request)
                assert call.status is EventStatus.FAILED
                errors.append(call.exception)
            if endpoint not in ("embed", "native_embed"):  # one-shot rows: no stream()
                with pytest.raises(ProviderClientError) as streamed:
                    async for _chunk in model.stream(**request):
                        pass
                errors.append(streamed.value)
            assert model.circuit_breaker is not None
            state = model.circuit_breaker.state.value
        return errors, server.requests, state


@pytest.mark.parametrize(("endpoint", "path", "request_", "body"), ROWS)
async def test_an_unpulled_model_is_typed_not_retried_and_circuit_neutral(
    endpoint: str, path: str, request_: dict[str, Any], body: Any
) -> None:
    from lionagi.service import ProviderStatusUnsupportedModelError

    errors, requests, state = await _calls(endpoint, path, request_, body, times=2)
    for error in errors:
        assert type(error) is ProviderStatusUnsupportedModelError
        assert isinstance(error, ProviderUnsupportedModelError)
        assert isinstance(error, ProviderClientError)
        assert error.status == 404
        assert error.retryable is False
        assert "does not serve the requested model" in str(error)
        assert "bogus" in error.body_excerpt
    assert requests == len(errors)  # one per call: never retried, never refused by the circuit
    assert state == "closed"


@pytest.mark.parametrize(
    ("endpoint", "path", "request_", "body"),
    [
        # A wrong path (gin's plain 404), other text, and the model text under another key.
        pytest.param("generate", "/api", {"prompt": "hi"}, {"error": "not found"}, id="generate"),
        # What a base_url ending in /api gets from the native chat row: /api/api/chat.
        pytest.param(
            "native_chat", "", {"messages": MESSAGES}, {"error": "404 page not found"}, id="native"
        ),
        pytest.param(
            "generate",
            "/api",
            {"prompt": "hi"},
            {"error": "file 'model' not found on disk"},
            id="other-text",
        ),
        pytest.param(
            "chat", "/v1", {"messages": MESSAGES}, _compat("404 page not found"), id="chat"
        ),
        pytest.param("chat", "/v1", {"messages": MESSAGES}, {"detail": NOT_PULLED}, id="other-key"),
    ],
)
async def test_a_404_naming_no_model_stays_a_plain_client_error(
    endpoint: str, path: str, request_: dict[str, Any], body: Any
) -> None:
    errors, requests, _ = await _calls(endpoint, path, request_, body)
    assert [type(e) for e in errors] == [ProviderClientError] * len(errors)
    assert requests == len(errors)


async def test_the_model_text_at_another_status_is_not_an_unpulled_model() -> None:
    raw = json.dumps({"error": NOT_PULLED}).encode()
    served = scripted_stream_server([raw], path="/api", content_type="application/json", status=400)
    async with (
        served as server,
        iModel(
            model="ollama/bogus", endpoint="generate", base_url=server.url, allow_local_network=True
        ) as model,
    ):
        call = await model.invoke(prompt="hi")
    assert type(call.exception) is ProviderClientError
