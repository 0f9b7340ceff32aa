"""The server's ``x-should-retry`` verdict decides the retry of its status error.

OpenAI's and Anthropic's official SDKs obey ``x-should-retry`` over their own status rules: a
``false`` says the same request fails the same way (a 5xx or 429 is then not retried), a
``true`` that a retry may succeed (a 409 is then retried). We ignored the header: a provider
telling clients to stop still had every attempt spent on it, and one asking for a retry of a
409 got none. The verdict is ``ProviderStatusError.server_retry``; the families never retried
(a refused key, a context overflow) and the caller's ``retry_server_errors=False`` still win.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import pickle
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

from lionagi.service import (
    AttemptPolicy,
    EventStatus,
    ProviderClientError,
    ProviderServerError,
    ProviderStatusError,
    ProviderUnauthorizedError,
    iModel,
)
from lionagi.service.lifecycle import is_retryable

pytestmark = pytest.mark.anyio

ANSWER = {
    "id": "c-1",
    "object": "chat.completion",
    "model": "m",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
    ],
}
Reply = tuple[int, dict[str, str], dict[str, Any]]
FAULT: dict[str, Any] = {"error": {"message": "try again", "type": "x"}}


class Replies:
    """A loopback HTTP server answering the n-th request with ``replies[n]`` (the last repeats)."""

    def __init__(self, replies: Sequence[Reply]) -> None:
        self.replies = list(replies)
        self.requests = 0
        self.url = ""

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            length = next(
                int(line.partition(":")[2])
                for line in head[1:]
                if line.lower().startswith("content-length:")
            )
            await reader.readexactly(length)
            status, headers, body = self.replies[min(self.requests, len(self.replies) - 1)]
            self.requests += 1
            data = json.dumps(body).encode()
            extra = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
            writer.write(
                f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{extra}"
                f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode()
                + data
            )
            await writer.drain()
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Replies]:
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"
        try:
            yield self
        finally:
            server.close()
            await server.wait_closed()


def model(url: str, **policy: Any) -> iModel:
    return iModel(
        provider="gateway",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url=url,
        api_key="sk-should-retry-0123456789",
        allow_local_network=True,
        request_defaults={"model": "m"},
        attempt_policy=AttemptPolicy(
            max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0.0, **policy
        ),
    )


async def invoke(replies: Sequence[Reply], **policy: Any) -> tuple[Any, int]:
    async with Replies(replies).running() as server, model(server.url, **policy) as m:
        call = await m.invoke(messages=[{"role": "user", "content": "x"}])
    return call, server.requests


@pytest.mark.parametrize("status", [500, 503, 429])
async def test_false_stops_the_retry_of_a_status_retried_by_default(status: int) -> None:
    call, requests = await invoke([(status, {"x-should-retry": "false"}, FAULT), (200, {}, ANSWER)])
    assert requests == 1
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderStatusError)
    assert call.exception.server_retry is False


async def test_the_same_statuses_without_the_header_are_retried() -> None:
    """The control: the attempt policy retries these statuses when the server says nothing."""
    for status in (500, 503, 429):
        call, requests = await invoke([(status, {}, FAULT), (200, {}, ANSWER)])
        assert (requests, call.status) == (2, EventStatus.COMPLETED), status


async def test_true_retries_a_conflict_the_policy_would_not() -> None:
    call, requests = await invoke([(409, {"x-should-retry": "true"}, FAULT), (200, {}, ANSWER)])
    assert (requests, call.status) == (2, EventStatus.COMPLETED), call.exception
    plain, plain_requests = await invoke([(409, {}, FAULT), (200, {}, ANSWER)])
    assert plain_requests == 1
    assert isinstance(plain.exception, ProviderClientError)
    assert plain.exception.server_retry is None


async def test_true_does_not_retry_a_refused_key_or_override_the_callers_switch() -> None:
    call, requests = await invoke([(401, {"x-should-retry": "true"}, FAULT), (200, {}, ANSWER)])
    assert requests == 1
    assert isinstance(call.exception, ProviderUnauthorizedError)
    call, requests = await invoke(
        [(500, {"x-should-retry": "true"}, FAULT), (200, {}, ANSWER)], retry_server_errors=False
    )
    assert requests == 1
    assert isinstance(call.exception, ProviderServerError)


@pytest.mark.parametrize(
    ("value", "verdict"),
    [("false", False), (" FALSE ", False), ("True", True), ("0", None), ("no", None), ("", None)],
)
async def test_only_true_or_false_is_a_verdict(value: str, verdict: bool | None) -> None:
    call, requests = await invoke([(500, {"x-should-retry": value}, FAULT)])
    assert call.exception.server_retry is verdict
    assert requests == (1 if verdict is False else 3)


def test_the_verdict_survives_pickling_and_is_read_by_the_policy() -> None:
    error = ProviderServerError("HTTP 500", status=500)
    error.server_retry = False
    back = pickle.loads(pickle.dumps(error))
    assert back.server_retry is False
    assert not is_retryable(back, AttemptPolicy())
    assert is_retryable(ProviderServerError("HTTP 500", status=500), AttemptPolicy())
