"""vLLM's 404 for a model it does not serve is the unsupported-model family, on every server.

vLLM (and what is built on it: a self-hosted NVIDIA NIM, many OpenAI-compatible gateways)
answers a model name it does not serve with HTTP 404, type ``NotFoundError`` and no code:
``The model `x` does not exist.``. OpenAI's dialect read only ``code: "model_not_found"``, so a
generic compatible endpoint gave a plain client error there. Newer vLLM wraps the object in
``error``, older versions sent it flat; both are read. A 404 with other words, or these words
under another status or type, keeps the status mapping. Real loopback server (``serve``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderClientError,
    ProviderStatusUnsupportedModelError,
    iModel,
)
from lionagi.service.http import OpenAIChatEndpoint

VLLM: dict[str, Any] = {
    "object": "error",
    "message": "The model `nope-7b` does not exist.",
    "type": "NotFoundError",
    "param": None,
    "code": 404,
}


def _model(base_url: str) -> iModel:
    config = {
        "name": "chat",
        "provider": "vllmtest",
        "endpoint": "chat/completions",
        "base_url": base_url + "/v1",
        "api_key": "sk-vllm-test-0000",
        "allow_local_network": True,
        "timeout": 10.0,
    }
    policy = AttemptPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0)
    return iModel(endpoint=OpenAIChatEndpoint(config), attempt_policy=policy)


@pytest.mark.parametrize("body", [{"error": VLLM}, VLLM], ids=["wrapped", "flat"])
async def test_vllm_unknown_model_is_typed_and_not_retried(serve, wire, body) -> None:
    server = await serve(lambda req: wire.full(404, json.dumps(body)))
    async with _model(server.base_url) as model:
        event = await model.invoke(messages=[{"role": "user", "content": "hi"}])
        assert event.status == EventStatus.FAILED
        assert type(event.exception) is ProviderStatusUnsupportedModelError
        with pytest.raises(ProviderStatusUnsupportedModelError):
            async for _ in model.stream(messages=[{"role": "user", "content": "hi"}]):
                pass
    assert len(server.requests) == 2  # one attempt per call


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (404, {"error": {**VLLM, "message": "Not Found"}}),  # a wrong path on the same server
        (404, {"error": {**VLLM, "type": "BadRequestError"}}),
        (400, {"error": VLLM}),
    ],
    ids=["other-words", "other-type", "other-status"],
)
async def test_other_bodies_keep_the_status_mapping(serve, wire, status, body) -> None:
    server = await serve(lambda req: wire.full(status, json.dumps(body)))
    async with _model(server.base_url) as model:
        event = await model.invoke(messages=[{"role": "user", "content": "hi"}])
    assert isinstance(event.exception, ProviderClientError)
    assert not isinstance(event.exception, ProviderStatusUnsupportedModelError)
