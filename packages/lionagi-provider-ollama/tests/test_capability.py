"""A model that cannot do what the request asks is ``ProviderStatusCapabilityError``, sent once.

Ollama checks a request's capabilities against the model before it loads it and answers a
missing one with HTTP 400 (server/routes.go): ``"llama3" does not support tools`` (or, from the
scheduler, the full name: ``registry.ollama.ai/library/llama3:latest does not support tools``),
``"llama3" does not support thinking``, ``... does not support insert`` for a ``suffix``. Flat
(``{"error": "..."}``) on the native API, inside an OpenAI-shaped error object on ``/v1``
(``invalid_request_error``; servers before the ``openai.NewError`` types, ``api_error``). It was
a plain ``ProviderClientError`` on every row; core's generic status mapping now reads it, and the
adapter's own hooks (an unpulled model, a spent plan, an over-long input) leave it to core, so
``except ProviderCapabilityError`` catches it with ``capability`` naming what was refused.
Never retried, circuit-neutral. Real loopback server.

The new classes are imported inside the tests, so they still run (and fail on their assertions)
against a core that lacks them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    ProviderClientError,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

MESSAGES = [{"role": "user", "content": "hi"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather",
            "parameters": {"type": "object", "properties": {}},
        },
    }
]


def _compat(text: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    """The ``/v1`` layer's error object for a 400 (``openai.NewError``)."""
    return {"error": {"message": text, "type": kind, "param": None, "code": None}}


# (row, base path, request, body, capability)
ROWS = [
    pytest.param(
        "native_chat",
        "",
        {"messages": MESSAGES, "tools": TOOLS},
        {"error": "registry.ollama.ai/library/llama3:latest does not support tools"},
        "tools",
        id="native-tools",
    ),
    pytest.param(
        "native_chat",
        "",
        {"messages": MESSAGES, "think": True},
        {"error": '"llama3" does not support thinking'},
        "thinking",
        id="native-thinking",
    ),
    pytest.param(
        "generate",
        "/api",
        {"prompt": "hi", "think": True},
        {"error": '"llama3" does not support thinking'},
        "thinking",
        id="generate-thinking",
    ),
    pytest.param(
        "generate",
        "/api",
        {"prompt": "def f(", "suffix": "return 1"},
        {"error": "registry.ollama.ai/library/llama3:latest does not support insert"},
        "insert",
        id="generate-insert",
    ),
    pytest.param(
        "chat",
        "/v1",
        {"messages": MESSAGES, "tools": TOOLS},
        _compat("registry.ollama.ai/library/llama3:latest does not support tools"),
        "tools",
        id="v1-tools",
    ),
    pytest.param(
        "chat",
        "/v1",
        {"messages": MESSAGES, "tools": TOOLS},
        _compat("llama3 does not support tools", "api_error"),
        "tools",
        id="v1-tools-older",
    ),
    pytest.param(
        "chat",
        "/v1",
        {"messages": MESSAGES, "reasoning_effort": "high"},
        _compat('"llama3" does not support thinking'),
        "thinking",
        id="v1-thinking",
    ),
]


async def _calls(
    endpoint: str,
    path: str,
    request: dict[str, Any],
    body: Any,
    retried: frozenset[int] = frozenset({400, 429}),
) -> tuple[list[Any], int, str]:
    """Two invokes and one stream against a 400 with ``body``, retrying ``retried`` statuses.

    By default the caller retries 400 for reasons of its own: a missing capability is still
    never resent.
    """
    raw = json.dumps(body).encode()
    served = scripted_stream_server([raw], path=path, content_type="application/json", status=400)
    async with served as server:
        model = iModel(
            model="ollama/llama3",
            endpoint=endpoint,
            base_url=server.url,
            allow_local_network=True,
            attempt_policy=AttemptPolicy(
                max_attempts=3,
                base_delay=0.001,
                max_delay=0.01,
                jitter_factor=0,
                retry_statuses=retried,
            ),
            circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60),
        )
        async with model:
            errors: list[Any] = []
            for _ in range(2):
                call = await model.invoke(**request)
                assert call.status is EventStatus.FAILED
                errors.append(call.exception)
            with pytest.raises(ProviderClientError) as streamed:
                async for _chunk in model.stream(**request):
                    pass
            errors.append(streamed.value)
            assert model.circuit_breaker is not None
            state = model.circuit_breaker.state.value
        return errors, server.requests, state


@pytest.mark.parametrize(("endpoint", "path", "request_", "body", "capability"), ROWS)
async def test_a_missing_capability_is_typed_not_retried_and_circuit_neutral(
    endpoint: str, path: str, request_: dict[str, Any], body: Any, capability: str
) -> None:
    from lionagi.service import ProviderCapabilityError, ProviderStatusCapabilityError

    errors, requests, state = await _calls(endpoint, path, request_, body)
    for error in errors:
        assert type(error) is ProviderStatusCapabilityError
        assert isinstance(error, ProviderCapabilityError)
        assert isinstance(error, ProviderClientError)
        assert error.status == 400
        assert error.capability == capability
        assert error.retryable is False
        assert "does not support" in error.body_excerpt
    assert requests == len(errors)  # one per call: never retried, never refused by the circuit
    assert state == "closed"


@pytest.mark.parametrize(
    ("endpoint", "path", "request_", "body"),
    [
        # An option mix the server refuses: the request's to fix, not the model's.
        pytest.param(
            "generate",
            "/api",
            {"prompt": "hi", "raw": True, "system": "be brief"},
            {"error": "raw mode does not support template, system, or context"},
            id="raw-mode",
        ),
        pytest.param(
            "chat",
            "/v1",
            {"messages": MESSAGES},
            _compat("invalid message format"),
            id="v1-other",
        ),
    ],
)
async def test_other_400s_stay_plain_client_errors(
    endpoint: str, path: str, request_: dict[str, Any], body: Any
) -> None:
    errors, requests, _ = await _calls(endpoint, path, request_, body, retried=frozenset({429}))
    assert [type(e) for e in errors] == [ProviderClientError] * len(errors)
    assert requests == len(errors)


async def test_the_adapter_hooks_keep_their_own_families_first() -> None:
    # The context hook reads the flat body before core's mapping: a body naming both stays a
    # context error (trim the prompt), as core's own precedence has it.
    from lionagi.service import ProviderCapabilityError, ProviderStatusContextError

    body = {"error": "the input length exceeds the context length; llama3 does not support tools"}
    errors, _, _ = await _calls("native_chat", "", {"messages": MESSAGES}, body)
    for error in errors:
        assert type(error) is ProviderStatusContextError
        assert not isinstance(error, ProviderCapabilityError)
