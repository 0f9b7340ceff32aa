"""The official ``anthropic`` SDK accepts the fake server's Messages wire, and agrees with us.

If the fake server drifted into a dialect only our projector understands, these fail: the SDK's
own SSE parser and response models read the same bytes our endpoint reads. Offline (loopback).
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import StreamChunk, match_endpoint
from lionagi.service_testing import FakeProviderServer

anthropic = pytest.importorskip("anthropic")

KEY = "sk-ant-test-FAKEkey0123456789abcdef"
MESSAGES: list[Any] = [{"role": "user", "content": "hi"}]
TOOL = {
    "name": "shell",
    "description": "Run a shell command",
    "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}},
}


def sdk(server: FakeProviderServer) -> Any:
    return anthropic.AsyncAnthropic(base_url=server.base_url, api_key=KEY, max_retries=0)


async def ours(server: FakeProviderServer, scenario: str, **extra: Any) -> list[StreamChunk]:
    ep = match_endpoint(
        "anthropic",
        "messages",
        base_url=server.base_url + "/v1",
        api_key=KEY,
        allow_local_network=True,
    )
    request = {"model": "claude-fake", "messages": MESSAGES, "max_tokens": 256, **extra}
    try:
        return [c async for c in ep.stream(request, extra_headers={"x-fake-behaviour": scenario})]
    finally:
        await ep.aclose()


def joined(chunks: list[StreamChunk], kind: str) -> str:
    return "".join(c.content or "" for c in chunks if c.type == kind)


@pytest.mark.parametrize(
    ("scenario", "extra"), [("usage", {}), ("thinking", {}), ("tool", {"tools": [TOOL]})]
)
async def test_sdk_stream_parser_accepts_the_fake_stream_and_agrees(
    fake: FakeProviderServer, scenario: str, extra: dict[str, Any]
) -> None:
    client = sdk(fake)
    try:
        async with client.messages.stream(
            model="claude-fake",
            max_tokens=256,
            messages=MESSAGES,
            extra_headers={"x-fake-behaviour": scenario},
            **extra,
        ) as stream:
            events = [event.type async for event in stream]
            final = await stream.get_final_message()
    finally:
        await client.close()
    assert events[0] == "message_start"
    assert "message_stop" in events
    assert fake.requests[0].headers["anthropic-version"]  # the SDK names its own version

    chunks = await ours(fake, scenario, **extra)
    text = "".join(b.text for b in final.content if b.type == "text")
    thinking = "".join(b.thinking for b in final.content if b.type == "thinking")
    assert joined(chunks, "text") == text
    assert joined(chunks, "thinking") == thinking
    # Block ids count requests on the fake server, so the second request's id differs.
    sdk_tools = [(b.name, b.input) for b in final.content if b.type == "tool_use"]
    our_tools = [(c.tool_name, c.tool_input) for c in chunks if c.type == "tool_use"]
    assert our_tools == sdk_tools
    if scenario == "tool":
        assert sdk_tools
        assert isinstance(sdk_tools[0][1], dict)
        assert sdk_tools[0][1]
        [sdk_id] = [b.id for b in final.content if b.type == "tool_use"]
        [our_id] = [c.tool_id for c in chunks if c.type == "tool_use"]
        assert sdk_id.startswith("toolu_")
        assert our_id
        assert our_id.startswith("toolu_")
    result = chunks[-1]
    assert result.type == "result"
    assert result.metadata["finish_reason"] == final.stop_reason
    assert result.metadata["model"] == final.model
    usage = result.metadata["usage"]
    assert usage["input_tokens"] == final.usage.input_tokens
    assert usage["output_tokens"] == final.usage.output_tokens
    assert usage["cache_read_input_tokens"] == final.usage.cache_read_input_tokens


async def test_sdk_accepts_the_one_shot_message(fake: FakeProviderServer) -> None:
    client = sdk(fake)
    try:
        message = await client.messages.create(
            model="claude-fake",
            max_tokens=64,
            messages=MESSAGES,
            tools=[TOOL],
            extra_headers={"x-fake-behaviour": "tool"},
        )
    finally:
        await client.close()
    assert message.type == "message"
    assert message.role == "assistant"
    assert message.stop_reason == "tool_use"
    [block] = [b for b in message.content if b.type == "tool_use"]
    assert block.name
    assert block.id
    assert isinstance(block.input, dict)
    assert message.usage.input_tokens > 0


async def test_sdk_sees_the_in_stream_error_event(fake: FakeProviderServer) -> None:
    client = sdk(fake)
    try:

        async def consume() -> None:
            async with client.messages.stream(
                model="claude-fake",
                max_tokens=64,
                messages=MESSAGES,
                extra_headers={"x-fake-behaviour": "stream_error"},
            ) as stream:
                async for _ in stream:
                    pass

        with pytest.raises(anthropic.APIError, match="Overloaded"):
            await consume()
    finally:
        await client.close()


@pytest.mark.parametrize(
    ("behaviour", "sdk_error"),
    [
        ("overloaded", "OverloadedError"),
        ("429", "RateLimitError"),
        ("401", "AuthenticationError"),
        ("403", "PermissionDeniedError"),
        ("context_length", "BadRequestError"),
        ("quota", "BadRequestError"),
    ],
)
async def test_sdk_reads_the_fake_error_bodies(
    fake: FakeProviderServer, behaviour: str, sdk_error: str
) -> None:
    client = sdk(fake)
    try:
        with pytest.raises(getattr(anthropic, sdk_error)) as info:
            await client.messages.create(
                model="claude-fake",
                max_tokens=64,
                messages=MESSAGES,
                extra_headers={"x-fake-behaviour": behaviour},
            )
    finally:
        await client.close()
    assert isinstance(info.value.body, dict)
    assert info.value.body["type"] == "error"
    assert info.value.body["error"]["type"]
