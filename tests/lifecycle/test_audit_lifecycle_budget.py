"""A timeout or deadline given as an int too large for a float is read, not an OverflowError.

``timeout=10**400`` reached ``math.isinf`` / ``float()`` and escaped ``invoke()`` and
``stream()`` as a bare ``OverflowError`` (no field, not an ``AdmissionConfigError``), and
``RequestBudget(10**400)`` did the same. Such a timeout is longer than any float, so it reads
as ``inf`` does: no deadline. A negative one, and such a deadline, are the typed refusals the
smaller values get, with a message that does not print (or fail to print) the digits.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from lionagi.service import (
    AdmissionConfig,
    AdmissionConfigError,
    AttemptPolicy,
    CircuitPolicy,
    EventStatus,
    ProviderRateLimitError,
    RequestBudget,
    iModel,
    request_budget_from_timeout,
)
from lionagi.service._transport.http.status import parse_retry_after
from lionagi.service_testing import FakeProviderServer

KEY = "sk-proj-" + "b3" * 20
MESSAGES = [{"role": "user", "content": "hi"}]
HUGE = 10**400  # beyond the float range: float(HUGE) raises OverflowError
ENORMOUS = 10**5000  # beyond 4,300 digits: even repr() raises ValueError


def _model(server: FakeProviderServer) -> iModel:
    return iModel(
        model="openai/gpt-4.1",
        base_url=server.base_url + "/v1",
        api_key=KEY,
        allow_local_network=True,
    )


@pytest.mark.anyio
async def test_a_timeout_beyond_the_float_range_is_no_deadline() -> None:
    async with FakeProviderServer() as server, _model(server) as model:
        call = await model.invoke(messages=MESSAGES, timeout=HUGE)
        assert call.status is EventStatus.COMPLETED
        chunks = [chunk async for chunk in model.stream(messages=MESSAGES, timeout=ENORMOUS)]
        assert chunks and chunks[-1].type == "result"
    assert request_budget_from_timeout(HUGE).deadline is None


@pytest.mark.anyio
@pytest.mark.parametrize("seconds", [-HUGE, -ENORMOUS], ids=["-1e400", "-1e5000"])
async def test_a_negative_timeout_beyond_the_float_range_is_refused_by_field(
    seconds: int,
) -> None:
    async with FakeProviderServer() as server, _model(server) as model:
        with pytest.raises(AdmissionConfigError) as info:
            await model.invoke(messages=MESSAGES, timeout=seconds)
        assert info.value.field == "timeout"
        assert "a negative int beyond the float range" in str(info.value)
        assert len(str(info.value)) < 300
        with pytest.raises(AdmissionConfigError) as streamed:
            async for _ in model.stream(messages=MESSAGES, timeout=seconds):
                pass
        assert streamed.value.field == "timeout"
    assert server.requests == []  # refused before any provider work


@pytest.mark.parametrize("deadline", [HUGE, -HUGE, ENORMOUS], ids=["1e400", "-1e400", "1e5000"])
def test_a_deadline_beyond_the_float_range_is_refused_by_field(deadline: int) -> None:
    with pytest.raises(AdmissionConfigError) as info:
        RequestBudget(deadline)
    assert info.value.field == "deadline"
    assert "int beyond the float range" in str(info.value)


# -- settings and server hints beyond the float range -------------------------------------------


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda v: AttemptPolicy(max_delay=v), "max_delay"),
        (lambda v: AttemptPolicy(backoff_factor=v), "backoff_factor"),
        (lambda v: AttemptPolicy(jitter_factor=v), "jitter_factor"),
        (lambda v: CircuitPolicy(recovery_time=v), "recovery_time"),
        (lambda v: AdmissionConfig(queue_capacity=10, interval=v), "interval"),
    ],
    ids=["max_delay", "backoff_factor", "jitter_factor", "recovery_time", "interval"],
)
@pytest.mark.parametrize("value", [HUGE, -ENORMOUS], ids=["1e400", "-1e5000"])
def test_a_policy_setting_beyond_the_float_range_is_refused_by_field(
    build: Any, field: str, value: int
) -> None:
    # Each raised a bare OverflowError (math.isfinite), or a ValueError from repr() of the digits.
    with pytest.raises(AdmissionConfigError) as info:
        build(value)
    assert info.value.field == field
    assert "int beyond the float range" in str(info.value)
    assert len(str(info.value)) < 300


async def _serve_429(header: str, requests: list[bytes]) -> asyncio.Server:
    """A loopback server answering every request 429 with ``header: 9...9`` (400 digits)."""
    body = b'{"error": {"message": "slow down", "type": "rate_limit_error"}}'

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        await reader.readexactly(length)
        requests.append(head)
        writer.write(
            b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n"
            + f"{header}: {'9' * 400}\r\ncontent-length: {len(body)}\r\n".encode()
            + b"connection: close\r\n\r\n"
            + body
        )
        await writer.drain()
        writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


@pytest.mark.anyio
@pytest.mark.parametrize("header", ["retry-after", "retry-after-ms"])
async def test_a_retry_after_beyond_the_float_range_fails_at_once(header: str) -> None:
    # float("9" * 400) is inf, which the attempt loop ignores as invalid: the call was retried
    # at once, the sooner the longer the server asked to wait. It is the longest wait instead,
    # beyond max_delay, so the server's error is raised without another request.
    requests: list[bytes] = []
    server = await _serve_429(header, requests)
    port = server.sockets[0].getsockname()[1]
    try:
        async with iModel(
            model="openai/gpt-4.1",
            base_url=f"http://127.0.0.1:{port}/v1",
            api_key=KEY,
            allow_local_network=True,
            attempt_policy=AttemptPolicy(max_attempts=3, base_delay=0.05, max_delay=30.0),
        ) as model:
            call = await model.invoke(messages=MESSAGES)
    finally:
        server.close()
        await server.wait_closed()
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderRateLimitError)
    assert call.exception.retry_after is not None and call.exception.retry_after > 30.0
    assert "inf" not in str(call.exception)
    assert len(requests) == 1


@pytest.mark.parametrize("name", ["retry-after", "retry-after-ms"])
def test_both_spellings_read_too_many_digits_as_the_longest_wait(name: str) -> None:
    assert parse_retry_after({name: "9" * 400}) == sys.float_info.max
