"""The scripted provider: deterministic steps, recorded calls, keyword outcomes."""

from __future__ import annotations

import anyio
import pytest

from lionagi.service import (
    AgenticRequestValidationError,
    ProviderConnectionError,
    StreamChunk,
)
from lionagi.service.scripted import Delay, Raise, ScriptedEndpoint

CONFIG = {"name": "s", "provider": "scripted", "endpoint": "chat"}


async def test_plays_chunks_delays_and_raises_in_order() -> None:
    ep = ScriptedEndpoint(
        CONFIG,
        script=[
            StreamChunk(type="text", content="a", is_delta=True),
            Delay(0.01),
            StreamChunk(type="text", content="b", is_delta=True),
            Raise(ProviderConnectionError("scripted drop")),
        ],
    )
    seen: list[str | None] = []
    with pytest.raises(ProviderConnectionError, match="scripted drop"):
        async for chunk in ep.stream({"prompt": "go"}):
            seen.append(chunk.content)
    assert seen == ["a", "b"]
    assert [c.prompt for c in ep.calls] == ["go"]


async def test_default_script_shape_and_keywords() -> None:
    ep = ScriptedEndpoint(CONFIG)
    types = [c.type async for c in ep.stream({"prompt": "hello"})]
    assert types[0] == "system" and types[-1] == "result"
    assert {"thinking", "tool_use", "tool_result", "text"} <= set(types)
    failing = [c async for c in ep.stream({"prompt": "please SCRIPTED_FAIL"})]
    assert failing[-1].type == "error" and failing[-1].is_error
    with pytest.raises(ProviderConnectionError):
        async for _ in ep.stream({"prompt": "SCRIPTED_RAISE"}):
            pass
    with anyio.move_on_after(0.1) as scope:
        async for _ in ep.stream({"prompt": "SCRIPTED_STALL"}):
            pass
    assert scope.cancelled_caught


async def test_one_shot_call_folds_the_stream() -> None:
    ep = ScriptedEndpoint(CONFIG)
    result = await ep.call({"prompt": "hi there"})
    assert "You said: hi there" in result["result"]
    assert result["usage"]["output_tokens"] > 0


async def test_request_is_validated_before_work() -> None:
    ep = ScriptedEndpoint(CONFIG)
    with pytest.raises(AgenticRequestValidationError) as info:
        async for _ in ep.stream({"prompt": "x", "temprature": 1}):
            pass
    assert info.value.field == "temprature"
    assert ep.calls == []


def test_copy_keeps_script_but_not_history() -> None:
    script = [StreamChunk(type="text", content="z")]
    ep = ScriptedEndpoint(CONFIG, script=script)
    ep.calls.append(ep.request_type.model_validate({"prompt": "p"}))  # type: ignore[union-attr]
    twin = ep.copy()
    assert isinstance(twin, ScriptedEndpoint) and twin.calls == []
    assert twin._script is script
