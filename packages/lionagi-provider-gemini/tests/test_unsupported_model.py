"""A model Gemini does not serve is ``ProviderStatusUnsupportedModelError``, sent once.

The native API answers a wrong model name with HTTP 404 and the ``google.rpc.Status`` object
``{"code": 404, "status": "NOT_FOUND", "message": "models/<name> is not found for API version
v1beta, or is not supported for generateContent. ..."}``; the OpenAI-compatible layer answers
the same object, sometimes wrapped in a one-element list. It was a plain ``ProviderClientError``
on every row; the hook now reads the status word and the message naming the model, so ``except
ProviderUnsupportedModelError`` catches it. A 404 naming no model stays a plain client error.
Real loopback server.

The new class is imported inside the tests, so they still run (and fail on their assertions)
against a core that lacks it.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from lionagi.providers.gemini._errors import gemini_status_error
from lionagi.service import (
    CircuitPolicy,
    EventStatus,
    ProviderClientError,
    ProviderUnsupportedModelError,
    iModel,
)
from lionagi.service.http import HTTPErrorInfo
from lionagi.service_testing import scripted_stream_server

KEY = "AIzaFakeKeyForUnknownModel0123456789"
MESSAGES = [{"role": "user", "content": "hi"}]
CONTENTS = [{"role": "user", "parts": [{"text": "hi"}]}]
NOT_FOUND_TEXT = (
    "models/bogus is not found for API version v1beta, or is not supported for generateContent. "
    "Call ListModels to see the list of available models and their supported methods."
)
UNKNOWN_MODEL = {"error": {"code": 404, "message": NOT_FOUND_TEXT, "status": "NOT_FOUND"}}

# (row, base path, request, body): the native row and both shapes of the compatible layer.
ROWS = [
    pytest.param("generate", "/v1beta", {"contents": CONTENTS}, UNKNOWN_MODEL, id="native"),
    pytest.param("chat", "/v1beta/openai", {"messages": MESSAGES}, UNKNOWN_MODEL, id="compat"),
    pytest.param(
        "chat", "/v1beta/openai", {"messages": MESSAGES}, [UNKNOWN_MODEL], id="compat-list"
    ),
]


def _info(status: int, body: Any) -> HTTPErrorInfo:
    return HTTPErrorInfo(
        status=status,
        where="POST https://generativelanguage.googleapis.com/v1beta/models/bogus:generateContent",
        body=body,
        excerpt=json.dumps(body),
        retry_after=None,
        headers=httpx.Headers(),
    )


async def _calls(
    endpoint: str, path: str, request: dict[str, Any], status: int, body: Any, times: int = 1
) -> tuple[list[Any], int, str]:
    """``times`` invokes, then one stream, against a server answering ``status`` and ``body``."""
    raw = json.dumps(body).encode()
    served = scripted_stream_server(
        [raw], path=path, content_type="application/json", status=status
    )
    async with served as server:
        model = iModel(
            model="gemini/bogus",
            endpoint=endpoint,
            api_key=KEY,
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
            with pytest.raises(ProviderClientError) as streamed:
                async for _chunk in model.stream(**request):
                    pass
            errors.append(streamed.value)
            assert model.circuit_breaker is not None
            state = model.circuit_breaker.state.value
        return errors, server.requests, state


@pytest.mark.parametrize("body", [UNKNOWN_MODEL, [UNKNOWN_MODEL]], ids=["object", "list"])
def test_the_hook_reads_the_not_found_body(body: Any) -> None:
    from lionagi.service import ProviderStatusUnsupportedModelError

    mapped = gemini_status_error(_info(404, body))
    assert type(mapped) is ProviderStatusUnsupportedModelError
    assert mapped.status == 404
    assert "does not serve the requested model" in str(mapped)
    assert "models/bogus is not found" in str(mapped)


@pytest.mark.parametrize(("endpoint", "path", "request_", "body"), ROWS)
async def test_an_unknown_model_is_typed_not_retried_and_circuit_neutral(
    endpoint: str, path: str, request_: dict[str, Any], body: Any
) -> None:
    from lionagi.service import ProviderStatusUnsupportedModelError

    errors, requests, state = await _calls(endpoint, path, request_, 404, body, times=2)
    for error in errors:
        assert type(error) is ProviderStatusUnsupportedModelError
        assert isinstance(error, ProviderUnsupportedModelError)
        assert isinstance(error, ProviderClientError)
        assert error.status == 404
        assert error.retryable is False
        assert KEY not in str(error)
    assert requests == 3  # one per call: never retried, never refused by an open circuit
    assert state == "closed"


@pytest.mark.parametrize(
    "error",
    [
        # A wrong path, a missing file, a wrong status word: nothing names an unknown model.
        {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND"},
        {"code": 404, "message": "files/abc is not found.", "status": "NOT_FOUND"},
        {"code": 404, "message": NOT_FOUND_TEXT, "status": "INVALID_ARGUMENT"},
    ],
)
async def test_a_404_naming_no_model_stays_a_plain_client_error(error: dict[str, Any]) -> None:
    assert gemini_status_error(_info(404, {"error": error})) is None
    errors, requests, _ = await _calls(
        "generate", "/v1beta", {"contents": CONTENTS}, 404, {"error": error}
    )
    assert [type(e) for e in errors] == [ProviderClientError] * 2
    assert requests == 2


def test_the_model_message_at_another_status_is_not_an_unknown_model() -> None:
    body = {"error": {**UNKNOWN_MODEL["error"], "code": 400}}
    assert gemini_status_error(_info(400, body)) is None
