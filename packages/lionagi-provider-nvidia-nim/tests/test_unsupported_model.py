"""A model NIM does not serve is ``ProviderStatusUnsupportedModelError``, sent once.

The hosted API (``integrate.api.nvidia.com``) routes a model name to its cloud function and
answers with a problem-details body, not OpenAI's error object: a model whose function this
account cannot call (withdrawn from the free catalog, or not on the plan) is HTTP 404
``{"status": 404, "title": "Not Found", "detail": "Function '<id>': Not found for account
'<account>'"}``, a retired model HTTP 410 ``{"type": "about:blank", "title": "Gone", "status":
410, "detail": "The model '<name>' has reached its end of life on <date> and is no longer
available."}``. A self-hosted NIM (vLLM) answers an unknown name with HTTP 404 and the error
object ``{"message": "The model `<name>` does not exist.", "type": "NotFoundError", ...}``
(inside ``error``; older servers sent it flat).
All three were a plain ``ProviderClientError``. A 404 naming no model (a wrong path: the
gateway's plain ``404 page not found``) stays a plain client error. Real loopback server.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    CircuitPolicy,
    EventStatus,
    ProviderClientError,
    ProviderStatusUnsupportedModelError,
    ProviderUnsupportedModelError,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

KEY = "nvapi-unsupported-model-0123456789abcdef"
MESSAGES = [{"role": "user", "content": "hi"}]
NOT_FOR_ACCOUNT = {
    "status": 404,
    "title": "Not Found",
    "detail": "Function '23d4f03a-b8a6-4adb-a183-7daa083a09cc': Not found for account "
    "'Qawmu2vUw3rdcREnubcAVqe1c55nUTb1hCogKQx4BCA'",
}
END_OF_LIFE = {
    "type": "about:blank",
    "title": "Gone",
    "status": 410,
    "detail": "The model 'z-ai/glm4.7' has reached its end of life on 2026-05-14T00:00:00Z and "
    "is no longer available.",
}
SELF_HOSTED = {
    "error": {
        "message": "The model `bogus/model` does not exist.",
        "type": "NotFoundError",
        "param": "model",
        "code": 404,
    }
}
CHAT = ("chat", {"messages": MESSAGES})
EMBED = ("embed", {"input": "hi", "input_type": "query"})


async def _calls(
    endpoint: str, request: dict[str, Any], status: int, body: Any, times: int = 1
) -> tuple[list[Any], int, str]:
    """``times`` invokes (then one stream on chat) against ``status`` with ``body``."""
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    served = scripted_stream_server([raw], content_type="application/json", status=status)
    async with served as server:
        model = iModel(
            model="nvidia_nim/bogus/model",
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
            if endpoint == "chat":
                with pytest.raises(ProviderClientError) as streamed:
                    async for _chunk in model.stream(**request):
                        pass
                errors.append(streamed.value)
            assert model.circuit_breaker is not None
            state = model.circuit_breaker.state.value
        return errors, server.requests, state


@pytest.mark.parametrize("row", [CHAT, EMBED], ids=["chat", "embed"])
@pytest.mark.parametrize(
    ("status", "body", "named"),
    [
        pytest.param(404, NOT_FOR_ACCOUNT, "Not found for account", id="not-for-account"),
        pytest.param(410, END_OF_LIFE, "end of life", id="end-of-life"),
        pytest.param(404, SELF_HOSTED, "does not exist", id="self-hosted"),
        pytest.param(
            404,
            {"object": "error", **SELF_HOSTED["error"]},
            "does not exist",
            id="self-hosted-flat",
        ),
    ],
)
async def test_a_model_nim_does_not_serve_is_typed_not_retried_and_circuit_neutral(
    row: tuple[str, dict[str, Any]], status: int, body: Any, named: str
) -> None:
    endpoint, request = row
    errors, requests, state = await _calls(endpoint, request, status, body, times=2)
    for error in errors:
        assert type(error) is ProviderStatusUnsupportedModelError
        assert isinstance(error, ProviderUnsupportedModelError)
        assert error.status == status
        assert error.retryable is False
        assert "does not serve the requested model" in str(error)
        assert named in error.body_excerpt
        assert KEY not in str(error)
    assert requests == len(errors)  # one per call: never retried, never refused by the circuit
    assert state == "closed"


@pytest.mark.parametrize(
    ("status", "body"),
    [
        # The gateway's answer to a wrong path, and other problem details naming no model.
        pytest.param(404, b"404 page not found", id="wrong-path"),
        pytest.param(404, {"status": 404, "title": "Not Found"}, id="no-detail"),
        pytest.param(
            404, {"status": 404, "title": "Not Found", "detail": "Not found"}, id="other-detail"
        ),
        pytest.param(404, {"detail": 404}, id="detail-not-text"),
        # The model texts at a status that does not say "not served".
        pytest.param(400, NOT_FOR_ACCOUNT, id="account-text-at-400"),
        pytest.param(404, END_OF_LIFE, id="end-of-life-at-404"),
        pytest.param(
            404,
            {"error": {"message": "Not Found", "type": "NotFoundError", "code": 404}},
            id="vllm-other-text",
        ),
    ],
)
async def test_a_refusal_naming_no_model_stays_a_plain_client_error(status: int, body: Any) -> None:
    errors, requests, _ = await _calls("chat", {"messages": MESSAGES}, status, body)
    assert [type(e) for e in errors] == [ProviderClientError] * 2
    assert requests == 2
