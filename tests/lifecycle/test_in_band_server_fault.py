"""A server fault reported in-band is the retryable server-fault family, not a bare stream error.

An HTTP 5xx (``ProviderServerError``) is retried by the attempt policy, but the same fault sent
inside a 200 (Anthropic's ``error`` event of type ``api_error``, OpenAI's ``server_error`` in
``response.failed`` or a chat error object, an error object reporting status 500) was classified
as the base ``ProviderStreamError``, which is never retried: ``invoke()`` gave up on the first
transient fault. It is now ``ProviderStreamServerError`` (also a ``ProviderServerFaultError``,
the family ``ProviderServerError`` belongs to as well): ``invoke()`` retries it like a 5xx,
``stream()`` still never does (its error chunk reached the caller), and the circuit counts it.
"""

from __future__ import annotations

import copy
import json
import pickle
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest

from lionagi.service import (
    AttemptPolicy,
    CircuitOpenError,
    CircuitPolicy,
    EventStatus,
    ProviderCapacityError,
    ProviderError,
    ProviderServerError,
    ProviderServerFaultError,
    ProviderStatusError,
    ProviderStreamCapacityError,
    ProviderStreamError,
    ProviderStreamQuotaError,
    ProviderStreamServerError,
    StreamChunk,
    classify_stream_error,
    iModel,
)
from lionagi.service._lifecycle.retry import counts_as_circuit_failure, retry_after_of
from lionagi.service.lifecycle import call_with_attempts, is_retryable
from lionagi.service_testing import (
    ScriptedStream,
    scripted_replies_server,
    scripted_stream_server,
)

KEY = "sk-in-band-server-fault-0123456789"
FAST = AttemptPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0.0)
HI = [{"role": "user", "content": "x"}]
# OpenAI's chat error object for its own failure (the shape compatible servers relay).
SERVER_FAULT = {
    "error": {
        "message": "The server had an error while processing your request. Sorry about that!",
        "type": "server_error",
    }
}
ANSWER = {
    "id": "c-1",
    "object": "chat.completion",
    "model": "m",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
    ],
}


# -- the classes ----------------------------------------------------------------------------------


def test_the_twin_is_a_stream_error_of_the_server_fault_family() -> None:
    assert ProviderStreamServerError.__mro__[1] is ProviderStreamError  # its constructor runs
    assert issubclass(ProviderStreamServerError, ProviderServerFaultError)
    assert ProviderStreamServerError.retryable is ProviderServerFaultError.retryable is True
    # Not the HTTP status error (no body_excerpt, status may be None), not the capacity family.
    assert not issubclass(ProviderStreamServerError, ProviderStatusError)
    assert not issubclass(ProviderServerFaultError, ProviderCapacityError)
    # The family takes the pattern constructor, so a vendor rule may name it.
    family = ProviderServerFaultError("cli: internal error", stderr_tail="t", raw="r")
    assert (family.stderr_tail, family.raw) == ("t", "r")


def test_a_5xx_is_the_http_form_of_the_same_family() -> None:
    # ``except ProviderServerFaultError`` catches a server fault however it was reported.
    assert issubclass(ProviderServerError, ProviderServerFaultError)
    assert isinstance(ProviderServerError("HTTP 500", status=500), ProviderServerFaultError)
    assert not issubclass(ProviderServerError, ProviderStreamError)


@pytest.mark.parametrize("clone", [lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy])
def test_the_twin_round_trips_with_its_fields_and_reprs_like_the_others(clone: Any) -> None:
    error = ProviderStreamServerError(
        "Internal server error",
        raw="Internal server error\napi_error",
        status=500,
        code="api_error",
        retry_after=2.5,
        provider="anthropic",
        kind="server",
    )
    assert repr(error) == "ProviderStreamServerError('Internal server error')"
    back = clone(error)
    assert type(back) is ProviderStreamServerError
    assert str(back) == str(error)
    assert back.args == error.args
    assert vars(back) == vars(error)


# -- classification -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "metadata"),
    [
        # Anthropic's in-stream 500 (its projector puts the error type in ``code``).
        ("Internal server error", {"code": "api_error"}),
        # OpenAI's Responses ``response.failed`` / a chat error object.
        ("The model failed to generate a response.", {"code": "server_error"}),
        ("upstream failed", {"code": "internal_error"}),
        # Anthropic's in-stream 504.
        ("Request timed out", {"code": "timeout_error"}),
        ("upstream failed", {"code": "Server_Error"}),  # a label matches in any case
        ("upstream failed", {"code": "E42", "type": "server_error"}),
        # A reported status of a transient fault, whatever the code.
        ("request failed", {"status": 500}),
        ("request failed", {"status": "502"}),
        ("request failed", {"status": 504, "code": "gateway_timeout"}),
    ],
)
def test_a_server_fault_chunk_is_the_server_twin(message: str, metadata: dict[str, Any]) -> None:
    error = classify_stream_error(message, metadata, provider="p")
    assert type(error) is ProviderStreamServerError
    assert error.kind == "server"
    assert error.provider == "p"
    assert error.retryable


@pytest.mark.parametrize(
    ("message", "metadata", "expected"),
    [
        # A narrower family named by the text or the status wins over the generic code.
        ("The model is overloaded", {"code": "server_error"}, ProviderStreamCapacityError),
        (
            "Service unavailable",
            {"status": 503, "code": "server_error"},
            ProviderStreamCapacityError,
        ),
        ("busy", {"status": 529, "code": "api_error"}, ProviderStreamCapacityError),
        ("slow down", {"status": 429, "code": "server_error"}, ProviderStreamQuotaError),
        # Only whole labels: the word inside a longer code, or in the message, names nothing.
        ("upstream failed", {"code": "my_server_error"}, ProviderStreamError),
        ("server_error", {}, ProviderStreamError),
        ("api_error occurred", {"code": "E1"}, ProviderStreamError),
        # Other 5xx statuses name no transient fault (501 Not Implemented repeats).
        ("request failed", {"status": 501}, ProviderStreamError),
    ],
)
def test_only_a_server_fault_is_the_server_twin(
    message: str, metadata: dict[str, Any], expected: type[ProviderStreamError]
) -> None:
    assert type(classify_stream_error(message, metadata)) is expected


# -- the lifecycle's verdicts ---------------------------------------------------------------------


def test_the_twin_is_retried_like_a_5xx_and_counts_for_the_circuit() -> None:
    error = classify_stream_error("Internal server error", {"code": "api_error"})
    assert is_retryable(error, AttemptPolicy())
    # The caller's switch for server faults covers the in-band form as it covers a 5xx.
    assert not is_retryable(error, AttemptPolicy(retry_server_errors=False))
    assert not is_retryable(
        ProviderServerError("5xx", status=500), AttemptPolicy(retry_server_errors=False)
    )
    assert counts_as_circuit_failure(error, AttemptPolicy())


async def test_the_retry_after_it_names_is_the_floor_of_the_wait(auto_clock: Any) -> None:
    outcomes: list[Any] = [ProviderStreamServerError("boom", code="server_error", retry_after=5.0)]

    async def attempt(limit: float | None) -> str:
        if outcomes:
            raise outcomes.pop()
        return "ok"

    policy = AttemptPolicy(jitter_factor=0.0)
    result = await call_with_attempts(
        attempt, call_id="c1", policy=policy, clock=auto_clock, sleep=auto_clock.sleep
    )
    assert result == "ok"
    assert auto_clock.sleeps == [5.0]
    assert retry_after_of(ProviderStreamServerError("x", retry_after=5.0)) == 5.0


# -- through iModel, against loopback servers -----------------------------------------------------


def answers(*bodies: dict[str, Any]) -> AbstractAsyncContextManager[ScriptedStream]:
    """Answers the n-th request with ``bodies[n]`` (the last one repeats) as a 200 JSON body."""
    return scripted_replies_server(
        [[json.dumps(body).encode()] for body in bodies], content_type="application/json"
    )


def gateway(url: str, **kw: Any) -> iModel:
    kw.setdefault("attempt_policy", FAST)
    return iModel(
        provider="somegateway",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url=url,
        api_key=KEY,
        allow_local_network=True,
        request_defaults={"model": "m"},
        **kw,
    )


@pytest.mark.parametrize(
    "fault",
    [SERVER_FAULT, {"error": {"message": "upstream failed", "code": 500}}],
    ids=["server_error", "status_500"],
)
async def test_invoke_retries_an_in_band_server_fault_and_then_answers(
    fault: dict[str, Any],
) -> None:
    async with answers(fault, ANSWER) as server, gateway(server.url) as model:
        call = await model.invoke(messages=HI)
    assert call.status is EventStatus.COMPLETED, call.exception
    assert call.execution.response["choices"][0]["message"]["content"] == "hi"
    assert server.requests == 2


async def test_invoke_gives_up_after_the_policys_attempts_with_the_typed_error() -> None:
    async with answers(SERVER_FAULT) as server, gateway(server.url) as model:
        call = await model.invoke(messages=HI)
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderStreamServerError)
    assert call.exception.code == "server_error"
    assert KEY not in str(call.exception)
    assert server.requests == 3


async def test_invoke_makes_one_attempt_when_server_errors_are_not_retried() -> None:
    policy = AttemptPolicy(
        max_attempts=3, base_delay=0.001, max_delay=0.01, jitter_factor=0.0,
        retry_server_errors=False,
    )  # fmt: skip
    server_cm = answers(SERVER_FAULT, ANSWER)
    async with server_cm as server, gateway(server.url, attempt_policy=policy) as model:
        call = await model.invoke(messages=HI)
    assert isinstance(call.exception, ProviderStreamServerError)
    assert server.requests == 1


def _sse(body: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(body)}\n\n".encode()


TEXT = _sse(
    {
        "id": "c",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Par"}}],
    }
)


@pytest.mark.parametrize("before", [[], [TEXT]], ids=["first_chunk", "after_text"])
async def test_stream_never_retries_an_in_band_server_fault(before: list[bytes]) -> None:
    """The error chunk is output, even a first one: the replay boundary has passed."""
    chunks: list[StreamChunk] = []
    raised: BaseException | None = None
    server_cm = scripted_stream_server([*before, _sse(SERVER_FAULT)], pause=0.01)
    async with server_cm as server, gateway(server.url) as model:
        try:
            async for chunk in model.stream(messages=HI):
                chunks.append(chunk)
        except ProviderError as exc:
            raised = exc
    assert [c.type for c in chunks] == ["text"] * len(before) + ["error"]
    assert type(raised) is ProviderStreamServerError
    assert server.requests == 1


async def test_the_circuit_counts_an_in_band_server_fault_on_both_paths() -> None:
    breaker = CircuitPolicy(failure_threshold=1, recovery_time=60)
    stream_cm = scripted_stream_server([_sse(SERVER_FAULT)])
    async with stream_cm as server, gateway(server.url, circuit_policy=breaker) as model:
        with pytest.raises(ProviderStreamServerError):
            async for _chunk in model.stream(messages=HI):
                pass
        with pytest.raises(CircuitOpenError):
            async for _chunk in model.stream(messages=HI):
                pass
    assert server.requests == 1
    one_shot_cm = answers(SERVER_FAULT)
    async with one_shot_cm as one_shot, gateway(one_shot.url, circuit_policy=breaker) as model:
        first = await model.invoke(messages=HI)
        second = await model.invoke(messages=HI)
    assert isinstance(first.exception, ProviderStreamServerError)
    assert isinstance(second.exception, CircuitOpenError)
    assert one_shot.requests == 3  # the first call's attempts; the second made none
