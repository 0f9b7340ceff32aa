"""Groq's flex-tier 498 is a temporary capacity refusal: typed as capacity and retried."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderCapacityError,
    ProviderClientError,
    iModel,
)

CAPACITY_BODY = {
    "error": {
        "message": "Flex tier capacity exceeded. This is a known issue and we are working on it.",
        "type": "invalid_request_error",
        "code": "capacity_exceeded",
    }
}
ANSWER = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "model": "openai/gpt-oss-20b",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ],
}


class FlexServer:
    """A loopback HTTP/1.1 server answering 498 to the first `refusals` requests, then 200."""

    def __init__(self, refusals: int) -> None:
        self.refusals = refusals
        self.requests = 0
        self.url = ""

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        await reader.readexactly(length)
        self.requests += 1
        refused = self.requests <= self.refusals
        status, body = ("498 Capacity Exceeded", CAPACITY_BODY) if refused else ("200 OK", ANSWER)
        data = json.dumps(body).encode()
        writer.write(
            f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(data)}\r\nconnection: close\r\n\r\n".encode()
            + data
        )
        await writer.drain()
        writer.close()


@pytest.fixture
async def flex() -> AsyncIterator[FlexServer]:
    state = FlexServer(refusals=1)
    server = await asyncio.start_server(state._handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    state.url = f"http://127.0.0.1:{port}/openai/v1"
    async with server:
        yield state


def model_for(flex: FlexServer, attempts: int) -> iModel:
    return iModel(
        model="groq/openai/gpt-oss-20b",
        base_url=flex.url,
        api_key="gsk-test-FAKEkey0123456789",
        allow_local_network=True,
        attempt_policy=AttemptPolicy(
            max_attempts=attempts, base_delay=0.001, max_delay=0.01, jitter_factor=0
        ),
    )


async def test_a_flex_capacity_refusal_is_retried_and_then_answers(flex: FlexServer) -> None:
    async with model_for(flex, attempts=3) as model:
        call = await model.invoke(messages=[{"role": "user", "content": "hi"}], service_tier="flex")
    assert call.status is EventStatus.COMPLETED, call.exception
    assert flex.requests == 2


async def test_a_flex_capacity_refusal_is_typed_as_capacity_not_the_callers_fault(
    flex: FlexServer,
) -> None:
    flex.refusals = 10
    async with model_for(flex, attempts=2) as model:
        call = await model.invoke(messages=[{"role": "user", "content": "hi"}], service_tier="flex")
    assert call.status is EventStatus.FAILED
    error = call.exception
    assert isinstance(error, ProviderCapacityError)
    assert not isinstance(error, ProviderClientError)
    assert error.retryable
    assert error.status == 498  # type: ignore[attr-defined]
    assert "capacity_exceeded" in str(error)
    assert "gsk-test" not in str(error)
    assert flex.requests == 2
