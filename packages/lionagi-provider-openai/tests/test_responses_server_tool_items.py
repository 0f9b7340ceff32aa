"""Server-side tool items reach stream() as they reach invoke(): one chunk per closed item.

A Responses stream that used web search, image generation or an MCP server ended "completed"
with those output items dropped (the generated image, the search query and sources, an MCP
approval request the caller must answer), while invoke() returned them in ``output``.
"""

from __future__ import annotations

import json
from typing import Any

from lionagi.service import iModel
from lionagi.service_testing import scripted_stream_server

KEY = "sk-audit-test-0123456789"
RESPONSE = {"id": "resp_1", "object": "response", "model": "gpt-5", "status": "in_progress"}
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


def _event(kind: str, sequence: int, **fields: Any) -> bytes:
    data = json.dumps({"type": kind, "sequence_number": sequence, **fields})
    return f"event: {kind}\ndata: {data}\n\n".encode()


async def test_server_tool_items_and_an_approval_request_are_streamed() -> None:
    usage = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}
    output = [SEARCH, IMAGE, APPROVAL]
    writes = [_event("response.created", 0, response=RESPONSE)]
    for index, item in enumerate(output):
        writes.append(_event("response.output_item.done", index + 1, output_index=index, item=item))
    done = {**RESPONSE, "status": "completed", "output": output, "usage": usage}
    writes.append(_event("response.completed", 9, response=done))
    async with (
        scripted_stream_server(writes) as server,
        iModel(
            model="openai/gpt-5",
            endpoint="responses",
            base_url=server.url,
            api_key=KEY,
            allow_local_network=True,
        ) as model,
    ):
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
