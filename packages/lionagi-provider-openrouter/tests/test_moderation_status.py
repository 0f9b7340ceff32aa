"""OpenRouter's moderation refusal (HTTP 403 with the flagged input in ``error.metadata``).

Served over loopback as OpenRouter documents it; a 403 without that metadata stays an auth error.
"""

from __future__ import annotations

import json
from typing import Any

from lionagi.service import (
    CircuitPolicy,
    EventStatus,
    ProviderContentFilterError,
    ProviderStatusContentFilterError,
    ProviderUnauthorizedError,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

MODERATION: dict[str, Any] = {
    "error": {
        "code": 403,
        "message": "gpt-4o requires moderation on OpenAI. Your input was flagged for "
        '"violence/graphic". No credits were charged.',
        "metadata": {
            "reasons": ["violence/graphic"],
            "flagged_input": "a prompt the moderation flagged",
            "provider_name": "OpenAI",
            "model_slug": "openai/gpt-4o",
        },
    }
}
BAD_KEY: dict[str, Any] = {"error": {"code": 403, "message": "Key is disabled"}}


async def _invoke_twice(base_url: str) -> tuple[list[BaseException | None], str]:
    async with iModel(
        provider="openrouter",
        endpoint="chat",
        model="openai/gpt-4o",
        base_url=base_url,
        api_key="sk-or-moderation-0123456789",
        allow_local_network=True,
        circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60),
    ) as model:
        calls = [await model.invoke(messages=[{"role": "user", "content": "x"}]) for _ in range(2)]
        assert all(call.status is EventStatus.FAILED for call in calls)
        assert model.circuit_breaker is not None
        return [call.exception for call in calls], model.circuit_breaker.state.value


async def test_a_moderation_403_is_a_content_filter_refusal_not_a_bad_key() -> None:
    served = scripted_stream_server(
        [json.dumps(MODERATION).encode()], path="/api/v1", content_type="application/json",
        status=403,
    )  # fmt: skip
    async with served as server:
        errors, state = await _invoke_twice(server.url)
    assert all(type(error) is ProviderStatusContentFilterError for error in errors)
    error = errors[0]
    assert isinstance(error, ProviderContentFilterError)
    assert error.status == 403
    assert "moderation flagged the input" in str(error)
    assert "sk-or-moderation" not in str(error)
    # Never retried, and the circuit (threshold 1) stayed closed for the second caller.
    assert server.requests == 2
    assert state == "closed"


async def test_a_403_without_moderation_metadata_is_still_a_rejected_key() -> None:
    served = scripted_stream_server(
        [json.dumps(BAD_KEY).encode()], path="/api/v1", content_type="application/json",
        status=403,
    )  # fmt: skip
    async with served as server:
        errors, _state = await _invoke_twice(server.url)
    assert type(errors[0]) is ProviderUnauthorizedError
