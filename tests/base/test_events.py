"""Call events: one terminal transition, completion signal, errors recorded (not swallowed)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from lionagi.service import (
    APICalling,
    Event,
    EventStatus,
    HookedEvent,
    HookPhase,
    HookRegistry,
    StreamChunk,
)
from lionagi.service.scripted import ScriptedEndpoint

TERMINAL = ["completed", "failed", "cancelled", "skipped", "aborted"]


class _Once(Event):
    result: Any = None
    fail: bool = False

    async def _invoke(self) -> Any:
        if self.fail:
            raise RuntimeError("boom")
        return self.result


class _Chunks(Event):
    items: list[Any] = []  # noqa: RUF012 - pydantic copies field defaults
    fail_after: int | None = None

    async def _gen(self) -> AsyncIterator[Any]:
        for i, item in enumerate(self.items):
            if self.fail_after is not None and i == self.fail_after:
                raise ValueError("stream broke")
            yield item

    def _stream(self) -> AsyncIterator[Any]:
        return self._gen()


def test_status_set_and_terminality() -> None:
    assert [s.value for s in EventStatus if s.is_terminal] == TERMINAL
    assert not EventStatus.PENDING.is_terminal
    assert not EventStatus.PROCESSING.is_terminal


@pytest.mark.parametrize("status", [s for s in EventStatus if s.is_terminal])
def test_terminal_status_never_changes(status: EventStatus) -> None:
    event = _Once()
    assert event.terminate(status)
    for other in EventStatus:
        if other.is_terminal:
            assert not event.terminate(other, response="late")
    assert event.status is status
    assert event.execution.response is None
    with pytest.raises(RuntimeError, match="cannot rerun"):
        event.mark_processing()


def test_terminate_rejects_non_terminal_status() -> None:
    with pytest.raises(ValueError, match="status"):
        _Once().terminate(EventStatus.PROCESSING)


async def test_invoke_records_result_and_duration() -> None:
    event = _Once(result={"ok": 1})
    await event.invoke()
    assert event.status is EventStatus.COMPLETED
    assert event.execution.response == {"ok": 1}
    assert event.execution.duration is not None and event.execution.duration >= 0


async def test_invoke_records_ordinary_error_typed() -> None:
    event = _Once(fail=True)
    await event.invoke()
    assert event.status is EventStatus.FAILED
    assert isinstance(event.exception, RuntimeError)
    assert event.execution.error == "RuntimeError: boom"


async def test_stream_error_is_recorded_and_reraised() -> None:
    event = _Chunks(items=[1, 2, 3], fail_after=1)
    seen = []
    with pytest.raises(ValueError, match="stream broke"):
        async for item in event.stream():
            seen.append(item)
    assert seen == [1]
    assert event.status is EventStatus.FAILED


async def test_stream_completes_and_signals_waiters() -> None:
    event = _Chunks(items=["a", "b"])
    got: list[Any] = []

    async def waiter() -> None:
        await event.wait_terminal()
        got.append(event.status)

    async with anyio.create_task_group() as tg:
        tg.start_soon(waiter)
        await anyio.lowlevel.checkpoint()
        assert [i async for i in event.stream()] == ["a", "b"]
    assert got == [EventStatus.COMPLETED]


async def test_cancellation_marks_cancelled_and_propagates() -> None:
    class Slow(Event):
        async def _invoke(self) -> Any:
            await anyio.sleep(10)

    event = Slow()
    with anyio.move_on_after(0.05):
        await event.invoke()
    assert event.status is EventStatus.CANCELLED


def _scripted() -> ScriptedEndpoint:
    return ScriptedEndpoint({"name": "s", "provider": "scripted", "endpoint": "chat"})


async def test_hooked_event_runs_hooks_in_order_and_chunk_hook_rewrites() -> None:
    order: list[str] = []

    def pre(event: Event) -> None:
        order.append("pre")

    async def post(event: Event) -> None:
        order.append("post")

    def on_chunk(event: Event, chunk: StreamChunk) -> StreamChunk:
        order.append(chunk.type)
        chunk.metadata["seen"] = True
        return chunk

    ep = ScriptedEndpoint(
        {"name": "s", "provider": "scripted", "endpoint": "chat"},
        script=[StreamChunk(type="text", content="hi", is_delta=True)],
    )
    payload, _ = ep.create_payload({"prompt": "x"})
    call = APICalling(
        endpoint=ep,
        payload=dict(payload),
        hook_registry=HookRegistry(pre_invocation=pre, post_invocation=post, on_chunk=on_chunk),
    )
    chunks = [c async for c in call.stream()]
    assert order == ["pre", "text", "post"]
    assert chunks[0].metadata == {"seen": True}
    assert call.status is EventStatus.COMPLETED


async def test_failing_pre_hook_fails_the_call_with_its_exception() -> None:
    class Refused(Exception):
        pass

    def pre(event: Event) -> None:
        raise Refused("not today")

    ep = _scripted()
    payload, _ = ep.create_payload({"prompt": "x"})
    call = APICalling(
        endpoint=ep, payload=dict(payload), hook_registry=HookRegistry(pre_invocation=pre)
    )
    await call.invoke()
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, Refused)
    assert ep.calls == []  # provider work never started


def test_hook_registry_validates_names_and_callables() -> None:
    with pytest.raises(TypeError, match="pre_invocation"):
        HookRegistry(pre_invocation="nope")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="pre_invoke"):
        HookRegistry.from_mapping({"pre_invoke": lambda e: None})
    registry = HookRegistry(on_chunk=lambda e, c: c)
    assert registry.has(HookPhase.ON_CHUNK)
    assert not registry.has(HookPhase.PRE_INVOCATION)


async def test_chunk_hook_must_return_a_chunk() -> None:
    registry = HookRegistry(on_chunk=lambda e, c: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="on_chunk"):
        await registry.on_chunk(_Once(), StreamChunk(type="text", content="x"))


def test_api_calling_serializes_payload_only() -> None:
    ep = _scripted()
    payload, _ = ep.create_payload({"prompt": "hello"})
    call = APICalling(
        endpoint=ep,
        payload=dict(payload),
        headers={"Authorization": "Bearer sk-secret-value-123456"},
        call_kwargs={"on_event": print},
    )
    dumped = call.model_dump()
    assert "headers" not in dumped and "call_kwargs" not in dumped and "endpoint" not in dumped
    assert dumped["payload"]["request"]["prompt"] == "hello"
    assert "sk-secret" not in call.model_dump_json()


async def test_hooked_event_is_a_base_of_api_calling() -> None:
    assert issubclass(APICalling, HookedEvent)


def test_a_call_built_from_validated_parts_matches_a_validated_one() -> None:
    """iModel builds calls without re-validating them; nothing observable may differ."""
    ep = _scripted()
    payload, headers = ep.create_payload({"prompt": "hello"})
    registry = HookRegistry(pre_invocation=lambda e: None)
    parts: dict[str, Any] = {
        "endpoint": ep,
        "payload": dict(payload),
        "headers": dict(headers),
        "call_kwargs": {"on_event": print},
        "hook_registry": registry,
    }
    validated = APICalling(**parts)
    built = APICalling._from_validated(
        ep, dict(payload), dict(headers), {"on_event": print}, registry
    )
    # Every declared field is set, so a field added to APICalling must be added there too.
    assert list(built.__dict__) == list(APICalling.model_fields)
    assert built.model_fields_set == validated.model_fields_set
    assert built.status is EventStatus.PENDING and built.id != validated.id
    skip = {"id", "created_at"}
    assert built.model_dump(exclude=skip) == validated.model_dump(exclude=skip)
    assert built.model_dump_json(exclude=skip) == validated.model_dump_json(exclude=skip)
    assert built.hook_registry is registry and built.endpoint is ep
    assert repr(built).split("payload=")[1] == repr(validated).split("payload=")[1]

    class Sub(APICalling):
        pass

    with pytest.raises(TypeError, match="subclasses validate"):
        Sub._from_validated(ep, dict(payload), {}, {}, None)
