"""OpenAI streams as a real server writes them, through ``iModel`` over loopback.

Each scripted event is its own network write (``TCP_NODELAY``, a pause between writes), so the
client sees the event boundaries a real provider produces.
"""

from __future__ import annotations

from typing import Any

import pytest
from openai_loopback import chat_sse, event, served

from lionagi.service import ProviderStreamError

KEY = "sk-wire-test-0123456789"


async def test_keepalive_events_in_a_long_responses_stream_are_skipped() -> None:
    """The API's ``keepalive`` events (sent while a model reasons silently) carry nothing.

    Before they were listed as ignorable, the first one ended the stream with
    ``ProviderProtocolError: unrecognized event type 'keepalive'``.
    """
    response = {"id": "resp_1", "object": "response", "model": "gpt-5", "status": "in_progress"}
    usage = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}
    writes = [
        event("response.created", 0, response=response),
        event("keepalive", 1),
        event("keepalive", 2),
        event("response.output_text.delta", 3, item_id="m", output_index=0, delta="Hi"),
        event("keepalive", 4),
        event("response.output_text.delta", 5, item_id="m", output_index=0, delta=" there"),
        event(
            "response.completed",
            6,
            response={**response, "status": "completed", "usage": usage},
        ),
    ]
    async with served(writes, api_key=KEY, endpoint="responses") as (_, model):
        chunks = [c async for c in model.stream(input="hi")]
    assert [(c.type, c.content) for c in chunks[:-1]] == [("text", "Hi"), ("text", " there")]
    result = chunks[-1]
    assert result.type == "result"
    assert result.metadata["usage"] == usage
    assert result.metadata["finish_reason"] == "completed"


async def test_a_function_call_cut_by_max_output_tokens_raises_once_naming_the_tool() -> None:
    """Argument deltas, then ``response.incomplete`` (``max_output_tokens``), the call still open.

    The stream ended as a success with the call silently dropped; it now raises
    ``ProviderStreamError`` naming the tool and the limit, and the request is not sent again
    (the same request stops at the same place).
    """
    response = {"id": "resp_2", "object": "response", "model": "gpt-5", "status": "in_progress"}
    usage = {"input_tokens": 30, "output_tokens": 16, "total_tokens": 46}
    item = {
        "id": "fc_1",
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
        "call_id": "call_1",
        "name": "get_weather",
    }
    ref = {"item_id": "fc_1", "output_index": 0}
    writes = [
        event("response.created", 0, response=response),
        event("response.output_item.added", 1, output_index=0, item=item),
        event("response.function_call_arguments.delta", 2, **ref, delta='{"city": '),
        event("response.function_call_arguments.delta", 3, **ref, delta='"Os'),
        event(
            "response.incomplete",
            4,
            response={
                **response,
                "status": "incomplete",
                "incomplete_details": {"reason": "max_output_tokens"},
                "usage": usage,
            },
        ),
    ]
    async with served(writes, api_key=KEY, endpoint="responses") as (server, model):
        with pytest.raises(ProviderStreamError) as info:
            async for _ in model.stream(input="weather?", max_output_tokens=16):
                pass
    assert type(info.value) is ProviderStreamError
    assert not info.value.retryable
    assert "get_weather" in str(info.value)
    assert "max_output_tokens" in str(info.value)
    assert "not valid JSON" not in str(info.value)
    assert server.requests == 1


async def test_chat_stream_asked_for_logprobs_delivers_them_with_the_text() -> None:
    """``logprobs=True`` on a chat stream: each text chunk carries its tokens' scores."""

    def chunk(delta: dict[str, Any], logprobs: Any = None, finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": logprobs, "finish_reason": finish}
        return chat_sse(
            {"id": "c1", "object": "chat.completion.chunk", "model": "gpt-4o", "choices": [choice]}
        )

    scores = [
        {
            "content": [
                {"token": "Hi", "logprob": -0.5, "top_logprobs": [{"token": "Hi", "logprob": -0.5}]}
            ]
        },
        {
            "content": [
                {"token": "!", "logprob": -0.1, "top_logprobs": [{"token": "!", "logprob": -0.1}]}
            ]
        },
    ]
    writes = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Hi"}, scores[0]),
        chunk({"content": "!"}, scores[1]),
        chunk({}, finish="stop"),
        b"data: [DONE]\n\n",
    ]
    async with served(writes, api_key=KEY, model="gpt-4o") as (_, model):
        chunks = [
            c
            async for c in model.stream(
                messages=[{"role": "user", "content": "hi"}], logprobs=True, top_logprobs=1
            )
        ]
    texts = [c for c in chunks if c.type == "text"]
    assert [(c.content, c.metadata.get("logprobs")) for c in texts] == [
        ("Hi", scores[0]),
        ("!", scores[1]),
    ]
    assert chunks[-1].type == "result"


SERVER_TOOL_RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "model": "gpt-5",
    "status": "in_progress",
}
SEARCH = {
    "id": "ws_1",
    "type": "web_search_call",
    "status": "completed",
    "action": {"type": "search", "query": "weather paris"},
}
IMAGE = {"id": "ig_1", "type": "image_generation_call", "status": "completed", "result": "iVBO"}
APPROVAL = {
    "id": "mcpr_1",
    "type": "mcp_approval_request",
    "server_label": "deepwiki",
    "name": "ask_question",
    "arguments": '{"q": "x"}',
}


async def test_server_tool_items_and_an_approval_request_are_streamed() -> None:
    """Tools OpenAI ran itself reach stream() as they reach invoke(): one chunk per closed item.

    The stream used to end "completed" with them dropped (the search's sources, the generated
    image, an MCP approval request the caller must answer) while invoke() listed them.
    """
    usage = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}
    output = [SEARCH, IMAGE, APPROVAL]
    writes = [event("response.created", 0, response=SERVER_TOOL_RESPONSE)]
    for index, item in enumerate(output):
        writes.append(event("response.output_item.done", index + 1, output_index=index, item=item))
    done = {**SERVER_TOOL_RESPONSE, "status": "completed", "output": output, "usage": usage}
    writes.append(event("response.completed", 9, response=done))
    async with served(writes, api_key=KEY, endpoint="responses") as (_, model):
        chunks = [c async for c in model.stream(input="hi")]
    search, image, approval, result = chunks
    assert (search.type, search.tool_id, search.tool_output) == ("tool_result", "ws_1", SEARCH)
    assert search.metadata == {"server_tool": True, "item_type": "web_search_call"}
    assert (image.type, image.tool_output, image.is_error) == ("tool_result", IMAGE, False)
    assert (approval.type, approval.tool_id, approval.tool_name) == (
        "tool_use",
        "mcpr_1",
        "mcp_approval_request",
    )
    assert approval.tool_input == {
        "server_label": "deepwiki",
        "name": "ask_question",
        "arguments": '{"q": "x"}',
    }
    assert result.type == "result"


async def _responses_stream(writes: list[bytes]) -> list[Any]:
    """The chunks of one Responses stream of ``writes``, as a caller reads them."""
    async with served(writes, api_key=KEY, endpoint="responses") as (_, model):
        return [chunk async for chunk in model.stream(input="hi")]


async def test_a_compaction_item_is_kept_for_the_next_turn() -> None:
    """A ``compaction`` output item (``context_management``) reaches the streaming caller.

    ``invoke()`` lists it in ``output``; the stream dropped it without a word, so a stateless
    caller (``store=false``) could not send the compacted context back in the next ``input``.
    """
    item = {"id": "cmp_1", "type": "compaction", "encrypted_content": "gAAAA-opaque"}
    response = {"id": "resp_1", "object": "response", "model": "gpt-5", "status": "in_progress"}
    usage = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}
    writes = [
        event("response.created", 0, response=response),
        event("response.output_item.done", 1, output_index=0, item=item),
        event("response.output_text.delta", 2, item_id="m", output_index=1, delta="Hi"),
        event(
            "response.completed",
            3,
            response={**response, "status": "completed", "output": [item], "usage": usage},
        ),
    ]
    chunks = await _responses_stream(writes)
    assert [chunk.type for chunk in chunks] == ["system", "text", "result"]
    assert chunks[0].metadata == {"compaction_item": item}
    assert chunks[0].content is None


async def test_an_output_item_of_an_unknown_type_is_kept_not_dropped() -> None:
    """An output item type the projector does not know reaches the caller whole.

    The API keeps adding item types (``program``, ``additional_tools``...); the one-shot body
    lists them in ``output``, and the stream used to drop them without a word. The known
    ``message`` item stays silent: its text already arrived as deltas.
    """
    new = {"id": "prg_1", "type": "program", "status": "completed", "code": "x = 1"}
    message = {"id": "m", "type": "message", "role": "assistant", "content": []}
    response = {"id": "resp_1", "object": "response", "model": "gpt-5", "status": "in_progress"}
    usage = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}
    writes = [
        event("response.created", 0, response=response),
        event("response.output_item.done", 1, output_index=0, item=new),
        event("response.output_text.delta", 2, item_id="m", output_index=1, delta="Hi"),
        event("response.output_item.done", 3, output_index=1, item=message),
        event(
            "response.completed",
            4,
            response={**response, "status": "completed", "output": [new, message], "usage": usage},
        ),
    ]
    chunks = await _responses_stream(writes)
    assert [chunk.type for chunk in chunks] == ["system", "text", "result"]
    assert chunks[0].metadata == {"output_item": new, "item_type": "program"}
