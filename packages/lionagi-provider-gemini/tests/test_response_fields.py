"""Documented ``GenerateContentResponse`` fields through ``iModel`` over loopback.

``modelStatus`` (the model's stage and retirement time), a candidate's ``continuationToken`` and
the server-side tool parts (``toolCall`` / ``toolResponse``, shown with
``toolConfig.includeServerSideToolInvocations``) are in the Gemini API's response reference. A
stream carrying any of them failed with "unrecognized field" while ``invoke()`` of the same
answer succeeded; the request model refused the tool config flag and the parts a caller must
send back in the next turn.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.providers.gemini import GeminiGenerateContentRequest
from lionagi.service import StreamChunk, iModel
from lionagi.service_testing import scripted_stream_server

KEY = "AIzaAuditKey0123456789abcdefghij"
CONTENTS = [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}]
STATUS = {"modelStage": "STABLE", "retirementTime": "2026-10-01T00:00:00Z", "message": "ok"}
USAGE = {"promptTokenCount": 5, "candidatesTokenCount": 4, "totalTokenCount": 9}
TOOL_CALL = {"id": "tc-1", "toolType": "GOOGLE_SEARCH_WEB", "args": {"queries": ["paris"]}}
TOOL_RESPONSE = {"id": "tc-1", "toolType": "GOOGLE_SEARCH_WEB", "response": {"hits": 3}}


def _event(parts: list[dict[str, Any]], **candidate: Any) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "index": 0, **candidate}],
        "usageMetadata": USAGE,
        "modelVersion": "gemini-3-flash-preview",
        "responseId": "r-1",
        "modelStatus": STATUS,
    }


EVENTS = [
    _event([{"toolCall": TOOL_CALL, "thoughtSignature": "c2ln"}]),
    _event([{"toolResponse": TOOL_RESPONSE}]),
    _event([{"text": "Sunny."}], finishReason="STOP", continuationToken="ct-1"),
]


def _model(url: str) -> iModel:
    return iModel(
        model="gemini/gemini-3-flash-preview",
        endpoint="generate",
        api_key=KEY,
        base_url=url,
        allow_local_network=True,
    )


async def _stream(events: list[dict[str, Any]]) -> list[StreamChunk]:
    writes = [f"data: {json.dumps(event)}\r\n\r\n".encode() for event in events]
    seen: list[StreamChunk] = []
    async with scripted_stream_server(writes, path="/v1beta") as server, _model(server.url) as m:
        async for chunk in m.stream(contents=CONTENTS):
            seen.append(chunk)
    return seen


async def test_stream_keeps_model_status_and_continuation_token_like_invoke() -> None:
    seen = await _stream(EVENTS)
    result = seen[-1]
    assert result.type == "result"
    assert result.metadata["model_status"] == STATUS
    assert result.metadata["continuation_token"] == "ct-1"
    assert result.metadata["finish_reason"] == "STOP"

    body = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "Sunny."}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": USAGE,
        "modelStatus": STATUS,
    }
    raw = json.dumps(body).encode()
    async with (
        scripted_stream_server([raw], path="/v1beta", content_type="application/json") as server,
        _model(server.url) as m,
    ):
        call = await m.invoke(contents=CONTENTS)
    assert call.execution.response["modelStatus"] == STATUS


async def test_server_side_tool_parts_are_tool_chunks_marked_server_tool() -> None:
    seen = await _stream(EVENTS)
    use, answer, text = seen[0], seen[1], seen[2]
    assert (use.type, use.tool_id, use.tool_name) == ("tool_use", "tc-1", "GOOGLE_SEARCH_WEB")
    assert use.tool_input == {"queries": ["paris"]}
    assert use.metadata["server_tool"] is True
    assert use.metadata["thought_signature"] == "c2ln"
    assert "synthetic_id" not in use.metadata
    assert (answer.type, answer.tool_id, answer.tool_output) == (
        "tool_result",
        "tc-1",
        {"hits": 3},
    )
    assert answer.metadata["server_tool"] is True
    assert (text.type, text.content) == ("text", "Sunny.")


def test_request_accepts_the_flag_and_the_parts_sent_back() -> None:
    request = GeminiGenerateContentRequest.model_validate(
        {
            "model": "gemini-3-flash-preview",
            "contents": [
                *CONTENTS,
                {
                    "role": "model",
                    "parts": [
                        {"toolCall": TOOL_CALL, "thoughtSignature": "c2ln"},
                        {"toolResponse": TOOL_RESPONSE},
                    ],
                },
            ],
            "tools": [{"googleSearch": {}}],
            "toolConfig": {"includeServerSideToolInvocations": True},
        }
    )
    dumped = request.model_dump(exclude_none=True)
    assert dumped["contents"][1]["parts"][0]["toolCall"] == TOOL_CALL
    assert dumped["toolConfig"] == {"includeServerSideToolInvocations": True}


def test_request_still_refuses_a_misspelled_tool_part_field() -> None:
    with pytest.raises(ValueError, match=r"toolCall\.tooltype"):
        GeminiGenerateContentRequest.model_validate(
            {
                "model": "gemini-3-flash-preview",
                "contents": [{"role": "model", "parts": [{"toolCall": {"tooltype": "X"}}]}],
            }
        )
