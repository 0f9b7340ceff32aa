"""The fake server speaks OpenAI's wire as OpenAI's own SDK reads it (offline, loopback only).

Each case drives the official ``openai`` SDK (a test-only dependency) against the fake server
and validates every object against the SDK's typed models, so the fake server cannot drift into
a dialect only this distribution's projectors understand. The SDK's stream helpers also
accumulate the events (text, tool-call arguments, the final response) and raise on a sequence
they do not accept.
"""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import AsyncIterator

import pytest

openai = pytest.importorskip("openai")

from openai.types import CreateEmbeddingResponse  # noqa: E402
from openai.types.chat import ChatCompletion, ChatCompletionChunk  # noqa: E402
from openai.types.responses import Response  # noqa: E402

from lionagi.service_testing.fake_server import FakeProviderServer  # noqa: E402

TOOL = {
    "type": "function",
    "function": {
        "name": "shell",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
    },
}
RESPONSES_TOOL = {"type": "function", "name": "shell", "parameters": TOOL["function"]["parameters"]}


@pytest.fixture
async def client() -> AsyncIterator[openai.AsyncOpenAI]:
    async with FakeProviderServer() as server:
        sdk = openai.AsyncOpenAI(
            base_url=server.base_url + "/v1", api_key="sk-fidelity", max_retries=0
        )
        try:
            yield sdk
        finally:
            await sdk.close()


def behaviour(name: str) -> dict[str, dict[str, str]]:
    return {"extra_headers": {"x-fake-behaviour": name}}


@pytest.mark.parametrize("name", ["text", "usage", "thinking", "tool"])
async def test_chat_stream_chunks_validate_as_sdk_models(client, name):
    stream = await client.chat.completions.create(
        model="gpt-4.1",
        messages=[{"role": "user", "content": "hi"}],
        stream=True,
        stream_options={"include_usage": True},
        tools=[TOOL],
        **behaviour(name),
    )
    chunks = [chunk async for chunk in stream]
    assert chunks
    for chunk in chunks:
        ChatCompletionChunk.model_validate(chunk.to_dict())
    assert any(c.choices and c.choices[0].finish_reason for c in chunks)
    assert chunks[-1].usage is not None


async def test_chat_stream_helper_accumulates_text_and_tool_arguments(client):
    async with client.chat.completions.stream(
        model="gpt-4.1", messages=[{"role": "user", "content": "hi"}], **behaviour("text")
    ) as stream:
        final = await stream.get_final_completion()
    assert final.choices[0].message.content == "Hello from the fake server."
    async with client.chat.completions.stream(
        model="gpt-4.1",
        messages=[{"role": "user", "content": "hi"}],
        tools=[TOOL],
        **behaviour("tool"),
    ) as stream:
        final = await stream.get_final_completion()
    call = final.choices[0].message.tool_calls[0]
    assert call.id
    assert call.function.name == "shell"
    assert isinstance(json.loads(call.function.arguments), dict)


async def test_chat_one_shot_validates(client):
    raw = await client.chat.completions.with_raw_response.create(
        model="gpt-4.1", messages=[{"role": "user", "content": "hi"}], **behaviour("thinking")
    )
    completion = ChatCompletion.model_validate(json.loads(raw.content))
    assert completion.choices[0].message.content


@pytest.mark.parametrize("name", ["text", "thinking", "tool", "stream_error"])
async def test_responses_stream_events_validate_as_sdk_models(client, name):
    stream = await client.responses.create(
        model="gpt-4.1", input="hi", tools=[RESPONSES_TOOL], stream=True, **behaviour(name)
    )
    events = [event async for event in stream]
    numbers = [event.sequence_number for event in events]
    assert numbers == list(range(len(events)))
    for event in events:
        # The SDK picked the event's class from its type; the raw object must validate as it.
        type(event).model_validate(event.to_dict())
    assert events[0].type == "response.created"
    expected = "response.failed" if name == "stream_error" else "response.completed"
    assert events[-1].type == expected


async def test_responses_stream_helper_builds_the_final_response(client):
    async with client.responses.stream(
        model="gpt-4.1", input="hi", **behaviour("thinking")
    ) as stream:
        final = await stream.get_final_response()
    assert final.output_text == "Hello from the fake server."
    assert final.usage is not None
    assert final.usage.total_tokens > 0
    async with client.responses.stream(
        model="gpt-4.1", input="hi", tools=[RESPONSES_TOOL], **behaviour("tool")
    ) as stream:
        final = await stream.get_final_response()
    calls = [item for item in final.output if item.type == "function_call"]
    assert len(calls) == 1
    assert calls[0].call_id
    assert isinstance(json.loads(calls[0].arguments), dict)


async def test_responses_one_shot_validates(client):
    raw = await client.responses.with_raw_response.create(
        model="gpt-4.1", input="hi", **behaviour("text")
    )
    response = Response.model_validate(json.loads(raw.content))
    assert response.output_text == "Hello from the fake server."


async def test_embeddings_validate(client):
    raw = await client.embeddings.with_raw_response.create(
        model="text-embedding-3-small", input=["alpha", "beta"], encoding_format="float"
    )
    result = CreateEmbeddingResponse.model_validate(json.loads(raw.content))
    assert [item.index for item in result.data] == [0, 1]
    assert all(len(item.embedding) == 8 for item in result.data)
    assert result.usage.prompt_tokens > 0


async def test_embeddings_base64_is_little_endian_float32(client):
    result = await client.embeddings.create(
        model="text-embedding-3-small", input="alpha", encoding_format="base64"
    )
    packed = base64.b64decode(result.data[0].embedding)  # type: ignore[arg-type]
    assert len(struct.unpack(f"<{len(packed) // 4}f", packed)) == 8


async def test_embeddings_sdk_default_encoding_is_decoded(client):
    # The SDK asks for base64 unless told otherwise and decodes it to floats itself.
    result = await client.embeddings.create(model="text-embedding-3-small", input="alpha")
    assert all(isinstance(x, float) for x in result.data[0].embedding)


async def test_sdk_maps_the_fake_servers_error_bodies(client):
    with pytest.raises(openai.BadRequestError) as context:
        await client.chat.completions.create(
            model="gpt-4.1", messages=[], **behaviour("context_length")
        )
    assert context.value.code == "context_length_exceeded"
    with pytest.raises(openai.RateLimitError) as quota:
        await client.responses.create(model="gpt-4.1", input="hi", **behaviour("quota"))
    assert quota.value.code == "insufficient_quota"
