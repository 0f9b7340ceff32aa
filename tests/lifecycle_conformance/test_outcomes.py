"""ADR-0029 D3/D5 terminal outcomes through iModel: error chunks, empty EOF, typed failures.

``invoke()`` always returns a terminal event and keeps provider/hook failures typed on it;
``stream()`` raises the typed error and never turns a failure into a silent end of output.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from lionagi.service import (
    EventStatus,
    ProviderConnectionError,
    ProviderProtocolError,
    ProviderStreamError,
    StreamChunk,
)
from lionagi.service.scripted import Raise

ERROR = StreamChunk(
    type="error", content="provider says no", is_error=True, metadata={"provider_error": "x"}
)

# -- the provider error chunk ---------------------------------------------------------------------


async def test_error_chunk_is_yielded_once_then_provider_stream_error(scripted, probe):
    model = scripted()
    call = model.create_api_calling(prompt="x SCRIPTED_FAIL")
    got: list[StreamChunk] = []

    with pytest.raises(ProviderStreamError) as info:
        async for chunk in model.stream(call):
            got.append(chunk)

    assert [c.type for c in got] == ["text", "error"]
    assert got[-1].is_error
    assert "scripted provider failure" in str(info.value)
    probe.left(call, EventStatus.FAILED, ProviderStreamError)
    await probe.finish()


async def test_nothing_is_read_or_yielded_after_the_error_chunk(scripted, probe):
    after = StreamChunk(type="text", content="must never be seen")
    model = scripted(script=[ERROR, after, Raise(AssertionError("read past the error"))])
    call = model.create_api_calling(prompt="hi")
    got: list[StreamChunk] = []

    with pytest.raises(ProviderStreamError):
        async for chunk in model.stream(call):
            got.append(chunk)

    assert got == [ERROR]
    probe.left(call, EventStatus.FAILED, ProviderStreamError)
    await probe.finish()


async def test_http_error_event_is_one_chunk_then_provider_stream_error(server, http, chat, probe):
    model = http(server, then="stream_error", attempts=3)
    call = model.create_api_calling(**chat)
    got: list[StreamChunk] = []

    with pytest.raises(ProviderStreamError):
        async for chunk in model.stream(call):
            got.append(chunk)

    assert [c.type for c in got].count("error") == 1
    assert got[-1].type == "error"
    probe.left(call, EventStatus.FAILED, ProviderStreamError)
    assert len(server.requests) == 1  # output was seen: never replayed
    await probe.finish()


async def test_invoke_of_an_error_chunk_returns_a_failed_event(scripted, probe):
    model = scripted()
    event = await model.invoke(prompt="x SCRIPTED_FAIL")

    assert event.status is EventStatus.FAILED
    assert type(event.exception) is ProviderStreamError
    probe.left(event, EventStatus.FAILED, ProviderStreamError)
    await probe.finish()


# -- empty EOF ------------------------------------------------------------------------------------


async def test_empty_stream_completes_and_runs_the_post_hook(scripted, probe):
    post: list[EventStatus] = []
    model = scripted(script=[], hook_registry={"post_invocation": lambda e: post.append(e.status)})
    call = model.create_api_calling(prompt="hi")

    assert [c async for c in model.stream(call)] == []

    assert post == [EventStatus.PROCESSING]  # post-hook ran before the terminal status
    probe.left(call, EventStatus.COMPLETED)
    await probe.finish()


async def test_empty_http_stream_completes(server, http, chat, probe):
    model = http(server, then={"x-fake-behaviour": "text", "x-fake-text": ""})
    call = model.create_api_calling(**chat)

    chunks = [c async for c in model.stream(call)]

    assert all(c.type != "error" for c in chunks)
    assert not "".join(c.content or "" for c in chunks if c.type == "text")
    probe.left(call, EventStatus.COMPLETED)
    await probe.finish()


# -- invoke: always terminal, failures typed on the event -----------------------------------------


def _hook_failure(event: Any) -> None:
    raise LookupError("hook refused")


INVOKE_CASES = [
    pytest.param({}, "plain", EventStatus.COMPLETED, None, id="success"),
    pytest.param({}, "x SCRIPTED_FAIL", EventStatus.FAILED, ProviderStreamError, id="error-chunk"),
    pytest.param(
        {}, "x SCRIPTED_RAISE", EventStatus.FAILED, ProviderConnectionError, id="transport"
    ),
    pytest.param(
        {"hook_registry": {"pre_invocation": _hook_failure}},
        "plain",
        EventStatus.FAILED,
        LookupError,
        id="pre-hook-failure",
    ),
    pytest.param(
        {"hook_registry": {"post_invocation": _hook_failure}},
        "plain",
        EventStatus.FAILED,
        LookupError,
        id="post-hook-failure",
    ),
]


@pytest.mark.parametrize(("options", "prompt", "status", "error"), INVOKE_CASES)
async def test_invoke_returns_a_terminal_event_with_the_typed_error(
    scripted, probe, options, prompt, status, error
):
    model = scripted(**options)
    event = await model.invoke(prompt=prompt)

    assert event.status is status
    assert event.status not in (EventStatus.PENDING, EventStatus.PROCESSING)
    if error is None:
        assert event.exception is None
        assert event.execution.response["result"].startswith("You said: plain")
    else:
        assert type(event.exception) is error  # not wrapped in a generic ValueError
        assert event.execution.error.startswith(error.__name__)
    probe.left(event, status, error)
    await probe.finish()


async def test_invoke_on_http_provider_failure_returns_a_failed_event(server, http, chat, probe):
    model = http(server, then="malformed")
    event = await model.invoke(**chat)

    assert event.status is EventStatus.FAILED
    assert type(event.exception) is ProviderProtocolError
    probe.left(event, EventStatus.FAILED, ProviderProtocolError)
    await probe.finish()


# -- stream: a failure is never a silent EOF ------------------------------------------------------


async def test_scripted_transport_failure_raises_from_the_stream(scripted, probe):
    model = scripted()
    call = model.create_api_calling(prompt="x SCRIPTED_RAISE")

    with pytest.raises(ProviderConnectionError):
        async for _ in model.stream(call):
            pass

    probe.left(call, EventStatus.FAILED, ProviderConnectionError)
    await probe.finish()


@pytest.mark.parametrize(
    ("behaviour", "error"),
    [("malformed", ProviderProtocolError), ("disconnect_after", ProviderConnectionError)],
)
async def test_http_stream_failure_raises_typed(server, http, chat, probe, behaviour, error):
    model = http(server, then=behaviour)
    call = model.create_api_calling(**chat)

    with pytest.raises(error):
        async for _ in model.stream(call):
            pass

    probe.left(call, EventStatus.FAILED, error)
    await probe.finish()


async def test_post_hook_failure_after_stream_output_is_logged_not_raised(scripted, probe, caplog):
    model = scripted(hook_registry={"post_invocation": _hook_failure})
    call = model.create_api_calling(prompt="hi")

    with caplog.at_level(logging.WARNING, logger="lionagi.service"):
        chunks = [c async for c in model.stream(call)]

    assert chunks[-1].type == "result"
    assert any("post_invocation hook failed" in r.getMessage() for r in caplog.records)
    probe.left(call, EventStatus.COMPLETED)
    await probe.finish()


async def test_hook_failure_before_stream_output_raises_and_fails(scripted, probe):
    model = scripted(hook_registry={"pre_invocation": _hook_failure})
    call = model.create_api_calling(prompt="hi")

    with pytest.raises(LookupError, match="hook refused"):
        async for _ in model.stream(call):
            pass

    probe.left(call, EventStatus.FAILED, LookupError)
    assert model.endpoint.calls == []
    await probe.finish()
