"""``candidateCount > 1`` through ``iModel`` over loopback: every candidate's finish reason.

The stream's result kept only the last candidate's ``finishReason``, so a first candidate the
output limit cut (``MAX_TOKENS``) read as a clean ``STOP`` when the second one finished after
it; ``invoke()`` of the same answer shows both (``candidates[].finishReason``). The result now
carries the first candidate's reason as ``finish_reason`` and each candidate's under
``finish_reasons``.
"""

from __future__ import annotations

import json
from typing import Any

from lionagi.service import StreamChunk, iModel
from lionagi.service_testing import scripted_stream_server

KEY = "AIzaAuditKey0123456789abcdefghij"
CONTENTS = [{"role": "user", "parts": [{"text": "Name a colour."}]}]
CONFIG = {"candidateCount": 2, "maxOutputTokens": 4}
USAGE = {"promptTokenCount": 4, "candidatesTokenCount": 6, "totalTokenCount": 10}


def _candidate(index: int, text: str, finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"text": text}]},
        "index": index,
    }
    if finish:
        candidate["finishReason"] = finish
    return candidate


EVENTS = [
    {"candidates": [_candidate(0, "Red is"), _candidate(1, "Blue")], "modelVersion": "m-1"},
    {"candidates": [_candidate(0, " a", "MAX_TOKENS"), _candidate(1, ".")]},
    {"candidates": [_candidate(1, "", "STOP")], "usageMetadata": USAGE},
]


def _model(url: str) -> iModel:
    return iModel(
        model="gemini/gemini-2.5-flash",
        endpoint="generate",
        api_key=KEY,
        base_url=url,
        allow_local_network=True,
    )


async def test_stream_result_keeps_every_candidates_finish_reason() -> None:
    writes = [f"data: {json.dumps(event)}\r\n\r\n".encode() for event in EVENTS]
    seen: list[StreamChunk] = []
    async with scripted_stream_server(writes, path="/v1beta") as server, _model(server.url) as m:
        async for chunk in m.stream(contents=CONTENTS, generationConfig=CONFIG):
            seen.append(chunk)
    result = seen[-1]
    assert result.type == "result"
    assert result.metadata["finish_reason"] == "MAX_TOKENS"
    assert result.metadata["finish_reasons"] == {0: "MAX_TOKENS", 1: "STOP"}
    texts = [(c.content, c.metadata.get("candidate", 0)) for c in seen if c.type == "text"]
    assert "".join(t for t, i in texts if i == 0) == "Red is a"
    assert "".join(t for t, i in texts if i == 1) == "Blue."


async def test_invoke_of_the_same_answer_shows_both_reasons() -> None:
    body = {
        "candidates": [_candidate(0, "Red is a", "MAX_TOKENS"), _candidate(1, "Blue.", "STOP")],
        "usageMetadata": USAGE,
        "modelVersion": "m-1",
    }
    raw = json.dumps(body).encode()
    async with (
        scripted_stream_server([raw], path="/v1beta", content_type="application/json") as server,
        _model(server.url) as m,
    ):
        call = await m.invoke(contents=CONTENTS, generationConfig=CONFIG)
    response = call.execution.response
    assert [c["finishReason"] for c in response["candidates"]] == ["MAX_TOKENS", "STOP"]
