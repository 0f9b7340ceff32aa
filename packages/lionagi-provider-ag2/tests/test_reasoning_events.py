"""AG2's Responses client announces a reasoning item with no summary as an empty reasoning event.

``OpenAIResponsesClient`` sends one ``OpenAIReasoningEvent`` per summary text of a reasoning
item, and one with the text ``""`` for an item without a summary (the usual case: a reasoning
model asked for no summary still returns its reasoning item, id and encrypted content). The
projector made that a ``thinking`` chunk of no text, which a consumer cannot tell from a
reasoning step that said nothing. The item's data is AG2's to keep, and it does: the event
stays in the run's history and AG2 sends the item back in the next request of the run (checked
below), so no chunk is needed for it.

The model is AG2's own Responses client, its HTTP answered in-process (the OpenAI SDK is an AG2
extra, absent where only this package's dependencies are).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag2_fakes import add
from autogen.beta import Agent

from lionagi.providers.ag2 import AG2BetaEndpoint
from lionagi.service import StreamChunk, iModel

pytestmark = pytest.mark.anyio

ENCRYPTED = "gAAAAB-opaque-reasoning-state"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def reasoning(summary: list[str]) -> dict[str, Any]:
    return {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": text} for text in summary],
        "encrypted_content": ENCRYPTED,
    }


def response(*output: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1759441590,
        "model": "o4-mini",
        "status": "completed",
        "output": list(output),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 20,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 9,
            "output_tokens_details": {"reasoning_tokens": 6},
            "total_tokens": 29,
        },
    }


CALL = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "add",
    "arguments": '{"a": 2, "b": 3}',
    "status": "completed",
}
MESSAGE = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "It is 5.", "annotations": []}],
}


async def run(summary: list[str]) -> tuple[list[StreamChunk], list[dict[str, Any]]]:
    """A tool turn led by a reasoning item with ``summary``, then the answer; the requests."""
    pytest.importorskip("openai")
    httpx = pytest.importorskip("httpx2")  # the transport the installed openai SDK uses
    from autogen.beta.config.openai.config import OpenAIResponsesConfig

    answers = iter([response(reasoning(summary), CALL), response(MESSAGE)])
    requests: list[dict[str, Any]] = []

    def reply(request: Any) -> Any:
        requests.append(json.loads(request.content))
        return httpx.Response(200, json=next(answers))

    client = httpx.AsyncClient(transport=httpx.MockTransport(reply))
    llm = OpenAIResponsesConfig(model="o4-mini", api_key="k", http_client=client)
    model = iModel(endpoint=AG2BetaEndpoint(agent=Agent("calc", config=llm, tools=[add])))
    try:
        chunks = [chunk async for chunk in model.stream(prompt="2+3?")]
    finally:
        await model.close()
    return chunks, requests


async def test_a_reasoning_item_without_summary_yields_no_thinking_chunk() -> None:
    chunks, requests = await run([])
    assert [c.type for c in chunks] == ["tool_use", "tool_result", "text", "result"]
    # AG2 keeps the item: the next request of the run sends it back, encrypted state included.
    replayed = [item for item in requests[1]["input"] if item.get("type") == "reasoning"]
    assert [(item["id"], item.get("encrypted_content")) for item in replayed] == [
        ("rs_1", ENCRYPTED)
    ]


async def test_each_summary_text_is_one_thinking_chunk() -> None:
    chunks, _ = await run(["Adding two numbers.", "Calling add."])
    thinking = [c.content for c in chunks if c.type == "thinking"]
    assert thinking == ["Adding two numbers.", "Calling add."]
