"""Call hooks driven as an application writes them: sync hooks, chunk hooks on error chunks.

Found by using hooks on the scripted provider, a fake OpenAI-compatible server and a CLI:

- the chunk hook was handed a provider error chunk before its text was redacted, so a hook that
  logs chunks wrote the endpoint's key (echoed by the provider) where the consumer never sees it;
- a chunk hook that rewrote a provider error chunk as text ended the stream quietly and the
  call COMPLETED, although the provider had failed (and the circuit had counted it);
- a sync hook (the common ``def`` audit hook) cannot be cancelled, and one that ran past its
  local cap or the request deadline was never noticed: the call went on and could COMPLETE
  after its deadline, instead of ``HookTimeout`` / ``RequestDeadlineExceeded("hook")``;
- a hook mapping with keys of mixed types failed with Python's sort error instead of naming the
  unknown key.

Time is the lifecycle's injected fake clock; a "blocking" sync hook moves it forward.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

import pytest

from lionagi.service import (
    EndpointConfigurationError,
    EventStatus,
    HookTimeout,
    ProviderStreamError,
    RequestDeadlineExceeded,
    StreamChunk,
    iModel,
)
from lionagi.service_testing import scripted_stream_server

SECRET = "sk-test-ZZhooksQQ42distinctSecret"
HI = [{"role": "user", "content": "hi"}]


def _sse(body: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(body)}\n\n".encode()


# A text delta, then the provider's error event echoing the endpoint's key (an in-process agent
# holds no key, so an OpenAI-compatible endpoint on a loopback server plays the provider).
FAILING = [
    _sse({"id": "c", "choices": [{"index": 0, "delta": {"content": "partial"}}]}),
    _sse({"error": {"message": f"bad key {SECRET}", "type": "invalid_request_error"}}),
]


@asynccontextmanager
async def _failing_model(**kw: Any) -> AsyncIterator[iModel]:
    async with scripted_stream_server(FAILING) as server:
        model = iModel(
            provider="hooktest",
            endpoint="chat/completions",
            openai_compatible=True,
            base_url=server.url,
            api_key=SECRET,
            allow_local_network=True,
            request_defaults={"model": "m"},
            **kw,
        )
        async with model:
            yield model


async def test_the_chunk_hook_sees_a_provider_error_chunk_redacted() -> None:
    logged: list[str] = []

    def log(event: Any, chunk: StreamChunk) -> StreamChunk:
        logged.append(repr(chunk))
        return chunk

    async with _failing_model(hook_registry={"on_chunk": log}) as model:
        with pytest.raises(ProviderStreamError) as info:
            async for _ in model.stream(messages=HI):
                pass
    assert SECRET not in str(info.value)
    assert len(logged) == 2 and "[REDACTED]" in logged[1]
    assert not any(SECRET in line for line in logged)


async def test_a_chunk_hook_cannot_turn_a_provider_failure_into_success() -> None:
    def mask(event: Any, chunk: StreamChunk) -> StreamChunk:
        return StreamChunk(type="text", content="(hidden)") if chunk.type == "error" else chunk

    async with _failing_model(hook_registry={"on_chunk": mask}) as model:
        call = model.create_api_calling(messages=HI)
        seen: list[StreamChunk] = []
        with pytest.raises(ProviderStreamError) as info:
            async for chunk in model.stream(call):
                seen.append(chunk)
    # The hook decides what the consumer is shown; the provider's failure still ends the call.
    assert [c.content for c in seen] == ["partial", "(hidden)"]
    assert call.status is EventStatus.FAILED
    assert call.exception is info.value
    assert "[REDACTED]" in str(info.value) and SECRET not in str(info.value)


def _blocking(clock: Any, seconds: float) -> Any:
    """A sync hook that holds the event loop for ``seconds`` (fake time)."""

    def hook(*args: Any) -> None:
        clock.now += seconds

    return hook


@pytest.mark.parametrize("phase", ["pre_invocation", "post_invocation"])
async def test_a_sync_hook_past_the_deadline_aborts_the_call(clock: Any, phase: str) -> None:
    hooks = {phase: _blocking(clock, 5.0)}
    async with iModel(
        model="scripted/demo", hook_registry=hooks, clock=clock, sleep=clock.sleep
    ) as model:
        call = model.create_api_calling(prompt="hi")
        with pytest.raises(RequestDeadlineExceeded) as info:
            await model.invoke(call, timeout=2.0)
    assert info.value.phase == "hook"
    assert call.status is EventStatus.ABORTED


async def test_a_sync_hook_past_its_cap_is_a_hook_timeout(clock: Any) -> None:
    hooks = {"pre_invocation": _blocking(clock, 31.0)}
    async with iModel(
        model="scripted/demo", hook_registry=hooks, clock=clock, sleep=clock.sleep
    ) as model:
        call = await model.invoke(prompt="hi", timeout=300.0)
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, HookTimeout)
    assert call.exception.phase == "pre_invocation"


async def test_a_sync_pre_create_hook_past_its_cap_is_a_hook_timeout(clock: Any) -> None:
    def slow(event_type: type, kwargs: MutableMapping[str, Any]) -> None:
        clock.now += 11.0

    async with iModel(
        model="scripted/demo",
        hook_registry={"pre_event_create": slow},
        clock=clock,
        sleep=clock.sleep,
    ) as model:
        with pytest.raises(HookTimeout) as info:
            await model.invoke(prompt="hi")
        assert info.value.phase == "pre_event_create"
        with pytest.raises(RequestDeadlineExceeded) as deadline:
            await model.invoke(prompt="hi", timeout=5.0)
        assert deadline.value.phase == "hook"


async def test_a_sync_chunk_hook_past_the_deadline_ends_the_stream(clock: Any) -> None:
    def slow(event: Any, chunk: StreamChunk) -> StreamChunk:
        clock.now += 1.0
        return chunk

    async with iModel(
        model="scripted/demo", hook_registry={"on_chunk": slow}, clock=clock, sleep=clock.sleep
    ) as model:
        call = model.create_api_calling(prompt="hi")
        seen = 0
        with pytest.raises(RequestDeadlineExceeded) as info:
            async for _ in model.stream(call, timeout=3.5):
                seen += 1
    assert info.value.phase == "hook"
    assert seen == 3  # the fourth chunk's hook returned past the deadline
    assert call.status is EventStatus.ABORTED


async def test_a_pre_create_hook_that_returns_new_kwargs_is_refused() -> None:
    # The hook edits kwargs in place; one written to return a new mapping had its change
    # dropped and the call ran with the caller's original kwargs.
    def returns_copy(event_type: type, kwargs: MutableMapping[str, Any]) -> dict[str, Any]:
        return {**kwargs, "prompt": "rewritten"}

    def edits_and_returns(event_type: type, kwargs: MutableMapping[str, Any]) -> Any:
        kwargs["prompt"] = "edited"
        return kwargs  # the same mapping: harmless

    async with iModel(model="scripted/demo", hook_registry={"pre_event_create": returns_copy}) as m:
        with pytest.raises(TypeError, match="pre_event_create: the hook returned dict"):
            await m.invoke(prompt="hi")
        assert m.admission_snapshot().active == 0
    async with iModel(
        model="scripted/demo", hook_registry={"pre_event_create": edits_and_returns}
    ) as model:
        call = await model.invoke(prompt="hi")
    assert call.status is EventStatus.COMPLETED
    assert call.payload["request"].prompt == "edited"


def test_a_hook_mapping_with_mixed_key_types_names_the_unknown_key() -> None:
    with pytest.raises(EndpointConfigurationError, match="unknown hook point"):
        iModel(model="scripted/demo", hook_registry={1: print, "pre": print})
