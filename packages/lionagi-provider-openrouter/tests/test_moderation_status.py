"""OpenRouter's moderation refusal (HTTP 403 with the flagged input in ``error.metadata``).

Served over loopback as OpenRouter documents it; a 403 without that metadata stays an auth error.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from lionagi.service import (
    CircuitPolicy,
    EventStatus,
    ProviderContentFilterError,
    ProviderStatusContentFilterError,
    ProviderUnauthorizedError,
    iModel,
)

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


@asynccontextmanager
async def answering(status: int, body: dict[str, Any]) -> AsyncIterator[tuple[str, list[int]]]:
    """A loopback server answering every POST with ``status`` and ``body``; counts requests."""
    payload = json.dumps(body).encode()
    seen: list[int] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        await reader.readexactly(length)
        seen.append(status)
        writer.write(
            b"HTTP/1.1 %d Forbidden\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n" % (status, len(payload)) + payload
        )
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/api/v1", seen
    finally:
        server.close()
        await server.wait_closed()


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
    async with answering(403, MODERATION) as (url, seen):
        errors, state = await _invoke_twice(url)
    assert all(type(error) is ProviderStatusContentFilterError for error in errors)
    error = errors[0]
    assert isinstance(error, ProviderContentFilterError)
    assert error.status == 403
    assert "moderation flagged the input" in str(error)
    assert "sk-or-moderation" not in str(error)
    # Never retried, and the circuit (threshold 1) stayed closed for the second caller.
    assert seen == [403, 403]
    assert state == "closed"


async def test_a_403_without_moderation_metadata_is_still_a_rejected_key() -> None:
    async with answering(403, BAD_KEY) as (url, _seen):
        errors, _state = await _invoke_twice(url)
    assert type(errors[0]) is ProviderUnauthorizedError
