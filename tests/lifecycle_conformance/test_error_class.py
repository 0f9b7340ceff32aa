"""A provider-declared error keeps its class through iModel, the same on stream() and invoke().

The adapter yields an error chunk (text plus ``status``/``code``/``retry_after`` metadata); the
consumer of ``stream()`` gets the chunk, then an exception that is both a ProviderStreamError and
the classified family, and ``invoke()`` records the same class with the same fields on the event.
HTTP vendors' in-stream error events take the same path (each vendor distribution proves it over
the real loopback fake server).
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import (
    EventStatus,
    ProviderAuthError,
    ProviderCapacityError,
    ProviderContextError,
    ProviderError,
    ProviderQuotaError,
    ProviderStreamAuthError,
    ProviderStreamCapacityError,
    ProviderStreamContextError,
    ProviderStreamError,
    ProviderStreamQuotaError,
    StreamChunk,
)

LEAKED = "sk-proj-ABCDEFGHijklmnop1234"


def fields(exc: BaseException) -> tuple[Any, ...]:
    assert isinstance(exc, ProviderStreamError)
    return (type(exc), str(exc), exc.status, exc.code, exc.retry_after, exc.provider, exc.kind)


CASES = [
    pytest.param(
        StreamChunk(
            "error",
            f"401 Incorrect API key provided: {LEAKED}.",  # pi-fake-401 errorMessage, real key
            is_error=True,
            metadata={"status": 401, "code": "invalid_api_key"},
        ),
        ProviderStreamAuthError,
        ProviderAuthError,
        (401, "invalid_api_key", None),
        id="auth-401",
    ),
    pytest.param(
        StreamChunk(
            "error",
            "Rate limit reached for requests",
            is_error=True,
            metadata={"status": 429, "retry_after": 12},
        ),
        ProviderStreamQuotaError,
        ProviderQuotaError,
        (429, None, 12.0),
        id="quota-429",
    ),
    pytest.param(
        StreamChunk("error", "Prompt is too long", is_error=True),
        ProviderStreamContextError,
        ProviderContextError,
        (None, None, None),
        id="context",
    ),
    pytest.param(
        StreamChunk("error", "Overloaded", is_error=True, metadata={"code": "overloaded_error"}),
        ProviderStreamCapacityError,
        ProviderCapacityError,
        (None, "overloaded_error", None),
        id="capacity",
    ),
]


@pytest.mark.parametrize(("chunk", "twin", "family", "expected"), CASES)
async def test_stream_and_invoke_raise_the_same_dual_class(
    scripted: Any,
    probe: Any,
    chunk: StreamChunk,
    twin: type[ProviderStreamError],
    family: type[ProviderError],
    expected: tuple[Any, ...],
) -> None:
    model = scripted(script=[StreamChunk("text", "Working", is_delta=True), chunk])
    call = model.create_api_calling(prompt="hi")
    got: list[StreamChunk] = []

    with pytest.raises(family) as info:
        async for item in model.stream(call):
            got.append(item)

    streamed = info.value
    assert type(streamed) is twin
    assert isinstance(streamed, ProviderStreamError)
    assert (streamed.status, streamed.code, streamed.retry_after) == expected
    assert streamed.provider == "scripted"
    assert LEAKED not in str(streamed) and LEAKED not in streamed.raw
    # The chunk reached the consumer once, with provider text redacted on the error path.
    assert got[-1].type == "error" and LEAKED not in (got[-1].content or "")
    assert LEAKED not in repr(got[-1].metadata)
    assert [c.type for c in got].count("error") == 1
    probe.left(call, EventStatus.FAILED, twin)

    event = await model.invoke(prompt="hi")
    assert event.status is EventStatus.FAILED
    assert isinstance(event.exception, family)
    assert fields(event.exception) == fields(streamed)
    probe.left(event, EventStatus.FAILED, twin)
    await probe.finish()


async def test_an_unclassified_chunk_is_still_a_plain_stream_error(scripted, probe):
    model = scripted()
    event = await model.invoke(prompt="x SCRIPTED_FAIL")
    assert type(event.exception) is ProviderStreamError
    assert event.exception.kind is None
    assert event.exception.provider == "scripted"
    probe.left(event, EventStatus.FAILED, ProviderStreamError)
    await probe.finish()
