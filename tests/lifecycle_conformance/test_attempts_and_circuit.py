"""ADR-0029 D5 attempt and circuit cases through iModel over real loopback HTTP.

The fake provider server is stateless, so the ``http`` factory's transport wrapper sets each
request's behaviour from a plan: ``plan=["503", "503"]`` makes the first two attempts fail with a
real 503 over a real connection and later ones succeed. Retry waits go through an injected sleep
that records each requested delay, so policy arithmetic is asserted without real waiting.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from lionagi.service import (
    AttemptPolicy,
    CircuitOpenError,
    CircuitPolicy,
    EndpointConfigurationError,
    EventStatus,
    ProviderConnectionError,
    ProviderError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderUnauthorizedError,
    RequestDeadlineExceeded,
    StreamChunk,
)
from lionagi.service.lifecycle import CircuitState


class RecordingSleep:
    """Records each requested delay; ``real=True`` also waits it out on the event loop."""

    def __init__(self, *, real: bool = False) -> None:
        self.delays: list[float] = []
        self.real = real

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await anyio.sleep(seconds if self.real else 0)


def policy(
    attempts: int, base: float = 0.01, max_delay: float | None = None, **kw: Any
) -> AttemptPolicy:
    return AttemptPolicy(
        max_attempts=attempts,
        base_delay=base,
        max_delay=max(base, 1.0) if max_delay is None else max_delay,
        jitter_factor=0,
        **kw,
    )


def behaviours(server: Any) -> list[str]:
    return [r.headers.get("x-fake-behaviour", "") for r in server.requests]


# -- retries before the first chunk ---------------------------------------------------------------


async def test_failures_before_output_are_retried_by_policy(
    server, http, chat, probe, helpers, mode
):
    sleep = RecordingSleep()
    model = http(server, plan=["503", "disconnect_before"], attempt_policy=policy(3), sleep=sleep)
    call = model.create_api_calling(**chat)

    chunks = await helpers.run(model, mode, call)

    probe.left(call, EventStatus.COMPLETED)
    assert behaviours(server) == ["503", "disconnect_before", "text"]
    assert sleep.delays == pytest.approx([0.01, 0.02])  # base_delay * backoff_factor ** n
    if mode == "stream":
        assert "".join(c.content or "" for c in chunks if c.type == "text")
        assert [c.type for c in chunks].count("result") == 1  # nothing replayed
    assert model.circuit_breaker.consecutive_failures == 0
    await probe.finish()


async def test_exhausted_attempts_fail_once_and_count_one_circuit_failure(
    server, http, chat, probe, helpers, mode
):
    model = http(server, then="503", attempt_policy=policy(2), sleep=RecordingSleep())
    call = model.create_api_calling(**chat)

    with pytest.raises(ProviderServerError) as info:
        await helpers.run(model, mode, call)

    assert info.value.status == 503
    probe.left(call, EventStatus.FAILED, ProviderServerError)
    assert len(server.requests) == 2
    assert model.circuit_breaker.consecutive_failures == 1  # one logical request
    await probe.finish()


async def test_retry_after_is_a_floor_for_the_next_attempt(
    server, http, chat, probe, helpers, mode
):
    sleep = RecordingSleep()
    plan = [{"x-fake-behaviour": "429", "x-fake-retry-after": "7"}]
    model = http(server, plan=plan, attempt_policy=policy(2, max_delay=10.0), sleep=sleep)
    call = model.create_api_calling(**chat)

    await helpers.run(model, mode, call)

    probe.left(call, EventStatus.COMPLETED)
    assert sleep.delays == [7.0]  # the server's 7 s, not the 0.01 s backoff
    assert len(server.requests) == 2
    await probe.finish()


async def test_retry_after_longer_than_max_delay_ends_the_call_without_sleeping(
    server, http, chat, probe, helpers, mode
):
    # No deadline: before, the call slept the server's day on its concurrency permit.
    sleep = RecordingSleep()
    plan = [{"x-fake-behaviour": "429", "x-fake-retry-after": "86400"}]
    model = http(server, plan=plan, attempt_policy=policy(3, max_delay=60.0), sleep=sleep)
    call = model.create_api_calling(**chat)

    with pytest.raises(ProviderRateLimitError) as info:
        await helpers.run(model, mode, call)

    assert info.value.retry_after == 86400.0
    probe.left(call, EventStatus.FAILED, ProviderRateLimitError)
    assert sleep.delays == []
    assert len(server.requests) == 1
    assert model.admission_snapshot().active == 0  # the permit is back at once
    await probe.finish()


async def test_retry_after_that_cannot_fit_the_deadline_fails_without_sleeping(
    server, http, chat, probe, helpers, mode
):
    sleep = RecordingSleep()
    plan = [{"x-fake-behaviour": "429", "x-fake-retry-after": "30"}]
    model = http(server, plan=plan, attempt_policy=policy(3), sleep=sleep)
    call = model.create_api_calling(**chat)

    with pytest.raises(ProviderRateLimitError) as info:
        await helpers.run(model, mode, call, timeout=5.0)

    assert info.value.retry_after == 30.0
    probe.left(call, EventStatus.FAILED, ProviderRateLimitError)
    assert sleep.delays == []
    assert len(server.requests) == 1
    await probe.finish()


async def test_backoff_is_clipped_to_the_deadline(server, http, chat, probe, helpers, mode):
    sleep = RecordingSleep(real=True)
    model = http(server, then="503", attempt_policy=policy(3, base=30.0), sleep=sleep)
    call = model.create_api_calling(**chat)

    with pytest.raises(RequestDeadlineExceeded) as info:
        await helpers.run(model, mode, call, timeout=0.3)

    assert info.value.phase == "retry_delay"
    assert isinstance(info.value.__cause__, ProviderServerError)  # the last provider error
    probe.left(call, EventStatus.ABORTED, RequestDeadlineExceeded)
    assert len(sleep.delays) == 1 and sleep.delays[0] <= 0.3  # never the full 30 s backoff
    assert len(server.requests) == 1
    await probe.finish()


# -- permanent failures: exactly one attempt ------------------------------------------------------


async def test_permanent_4xx_is_exactly_one_attempt(server, http, chat, probe, helpers, mode):
    model = http(server, then="401", attempt_policy=policy(5), sleep=RecordingSleep())
    call = model.create_api_calling(**chat)

    with pytest.raises(ProviderUnauthorizedError) as info:
        await helpers.run(model, mode, call)

    probe.left(call, EventStatus.FAILED, ProviderUnauthorizedError)
    assert len(server.requests) == 1
    assert "ZZconformance" not in str(info.value)  # the echoed key is redacted
    assert model.circuit_breaker.consecutive_failures == 0  # the caller's fault, not the host's
    await probe.finish()


# -- after the first chunk: no replay -------------------------------------------------------------


async def test_mid_stream_http_failure_is_not_replayed(server, http, chat, probe):
    model = http(server, then="disconnect_after", attempt_policy=policy(5), sleep=RecordingSleep())
    call = model.create_api_calling(**chat)
    got: list[StreamChunk] = []

    with pytest.raises(ProviderConnectionError):
        async for chunk in model.stream(call):
            got.append(chunk)

    assert [c.type for c in got] == ["text"]  # output reached the consumer, then the cut
    probe.left(call, EventStatus.FAILED, ProviderConnectionError)
    assert len(server.requests) == 1
    assert model.circuit_breaker.consecutive_failures == 1
    await probe.finish()


async def test_mid_stream_scripted_failure_is_not_replayed(scripted, probe):
    from lionagi.service.scripted import Raise

    script = [StreamChunk(type="text", content="partial"), Raise(ProviderConnectionError("cut"))]
    model = scripted(script=script)
    call = model.create_api_calling(prompt="hi")
    got: list[StreamChunk] = []

    with pytest.raises(ProviderConnectionError, match="cut"):
        async for chunk in model.stream(call):
            got.append(chunk)

    assert [c.content for c in got] == ["partial"]
    probe.left(call, EventStatus.FAILED, ProviderConnectionError)
    assert len(model.endpoint.calls) == 1
    await probe.finish()


# -- open circuit ---------------------------------------------------------------------------------


async def test_open_circuit_makes_no_attempt(server, http, chat, probe, helpers, mode):
    model = http(
        server,
        then="500",
        attempt_policy=policy(1),
        circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60.0),
    )
    first = await model.invoke(**chat)
    assert isinstance(first.exception, ProviderServerError)
    assert model.circuit_breaker.state is CircuitState.OPEN
    sent = len(server.requests)

    call = model.create_api_calling(**chat)
    with pytest.raises(CircuitOpenError):
        await helpers.run(model, mode, call)

    probe.left(call, EventStatus.FAILED, CircuitOpenError)
    assert len(server.requests) == sent
    await probe.finish()


async def test_a_copy_shares_the_open_circuit(server, http, chat, probe, helpers, mode):
    """A copy calls the same provider: the circuit its original opened refuses it too."""
    model = http(
        server,
        then="500",
        attempt_policy=policy(1),
        circuit_policy=CircuitPolicy(failure_threshold=1, recovery_time=60.0),
    )
    twin = probe.watch(model.copy())
    assert twin.circuit_breaker is model.circuit_breaker
    first = await model.invoke(**chat)
    assert isinstance(first.exception, ProviderServerError)
    sent = len(server.requests)

    call = twin.create_api_calling(**chat)
    with pytest.raises(CircuitOpenError):
        await helpers.run(twin, mode, call)

    probe.left(call, EventStatus.FAILED, CircuitOpenError)
    assert len(server.requests) == sent  # the copy sent nothing to the failing provider
    await probe.finish()


async def test_every_http_failure_is_typed(server, http, chat, probe, helpers, mode):
    """No generic wrapping: each wire failure surfaces as its ProviderError subclass."""
    cases = {
        "401": ProviderUnauthorizedError,
        "429": ProviderRateLimitError,
        "500": ProviderServerError,
        "disconnect_before": ProviderConnectionError,
    }
    for behaviour, error in cases.items():
        model = http(server, then=behaviour)
        call = model.create_api_calling(**chat)
        with pytest.raises(ProviderError) as info:
            await helpers.run(model, mode, call)
        assert type(info.value) is error, (behaviour, info.value)
        probe.left(call, EventStatus.FAILED, error)
    await probe.finish()


# -- caller mistakes never reach the circuit ------------------------------------------------------


def _deep_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


# The encoder's and the token estimate's own refusals are under test here, so the endpoint takes
# no request model: a typed chat model refuses such content earlier, by its shape.
_SCHEMALESS = {"request_options": None}


def _unencodable_messages() -> list[list[dict[str, Any]]]:
    return [
        [{"role": "user", "content": object()}],  # no JSON form at all
        [{"role": "user", "content": _deep_list(100_000)}],  # deeper than any encoder recurses
    ]


async def test_payloads_that_cannot_be_encoded_never_touch_the_circuit(
    server, http, chat, probe, helpers, mode
):
    # Five such calls used to open the circuit although the provider saw no request.
    model = http(
        server,
        attempts=3,
        circuit_policy=CircuitPolicy(failure_threshold=5),
        endpoint_config=_SCHEMALESS,
    )
    bad_calls = 0
    for _ in range(3):
        for messages in _unencodable_messages():
            call = model.create_api_calling(**{**chat, "messages": messages})
            with pytest.raises(EndpointConfigurationError) as info:
                await helpers.run(model, mode, call)
            assert info.value.field == "messages"
            probe.left(call, EventStatus.FAILED, EndpointConfigurationError)
            bad_calls += 1
    assert bad_calls == 6
    assert server.requests == []  # refused before any attempt
    breaker = model.circuit_breaker
    assert breaker.state is CircuitState.CLOSED
    assert breaker.consecutive_failures == 0

    good = model.create_api_calling(**chat)
    await helpers.run(model, mode, good)
    probe.left(good, EventStatus.COMPLETED)
    assert len(server.requests) == 1
    await probe.finish()


async def test_a_payload_too_deep_to_estimate_is_a_typed_error_at_admission(
    server, http, chat, probe, helpers, mode
):
    # admission measures the messages
    model = http(server, limit_tokens=1_000_000, endpoint_config=_SCHEMALESS)
    call = model.create_api_calling(**{**chat, "messages": _unencodable_messages()[1]})
    with pytest.raises(EndpointConfigurationError) as info:
        await helpers.run(model, mode, call)
    assert info.value.field == "messages"
    assert server.requests == []
    assert model.circuit_breaker.consecutive_failures == 0
    await probe.finish()


async def test_an_unencodable_payload_is_refused_even_while_the_circuit_is_open(
    server, http, chat, probe, helpers, mode
):
    model = http(
        server,
        plan=["503"],
        circuit_policy=CircuitPolicy(failure_threshold=1),
        endpoint_config=_SCHEMALESS,
    )
    with pytest.raises(ProviderServerError):
        await helpers.run(model, mode, model.create_api_calling(**chat))
    assert model.circuit_breaker.state is CircuitState.OPEN

    call = model.create_api_calling(**{**chat, "messages": _unencodable_messages()[0]})
    with pytest.raises(EndpointConfigurationError) as info:  # the caller's error, not "open"
        await helpers.run(model, mode, call)
    assert info.value.field == "messages"
    assert len(server.requests) == 1
    await probe.finish()
