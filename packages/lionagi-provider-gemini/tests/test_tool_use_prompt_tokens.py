"""A built-in tool's prompt tokens are input tokens, on the stream's result and a one-shot body.

Gemini reports what Google Search, URL context or code execution fed back to the model as
``toolUsePromptTokenCount``, beside (not inside) ``promptTokenCount``; ``totalTokenCount`` is
prompt + tool-use prompt + candidates + thoughts, and the tool-use tokens are billed as input.
The native endpoint read the prompt count alone, so a grounded call's recorded input was a
fraction of what was billed (here 26 of 12,530).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from gemini_loopback import native_model

from lionagi.service_testing import scripted_stream_server

CONTENTS = [{"role": "user", "parts": [{"text": "Summarise https://example.com"}]}]
USAGE = {
    "promptTokenCount": 26,
    "toolUsePromptTokenCount": 12504,
    "candidatesTokenCount": 40,
    "thoughtsTokenCount": 63,
    "cachedContentTokenCount": 10,
    "totalTokenCount": 12633,
}
BODY: dict[str, Any] = {
    "candidates": [
        {
            "content": {"role": "model", "parts": [{"text": "A summary."}]},
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "usageMetadata": USAGE,
    "modelVersion": "gemini-2.5-flash",
}


async def _usage(mode: str) -> tuple[Any, Any]:
    """The usage record the call handed over, and the endpoint's counts of it."""
    if mode == "stream":
        frames, options = [b"data: " + json.dumps(BODY).encode() + b"\r\n\r\n"], {}
    else:
        frames, options = [json.dumps(BODY).encode()], {"content_type": "application/json"}
    async with (
        scripted_stream_server(frames, path="/v1beta", **options) as server,
        native_model(server) as model,
    ):
        if mode == "stream":
            chunks = [chunk async for chunk in model.stream(contents=CONTENTS)]
            usage = chunks[-1].metadata["usage"]
        else:
            usage = (await model.invoke(contents=CONTENTS)).execution.response
        return usage, model.endpoint.token_counts(usage)


@pytest.mark.parametrize("mode", ["stream", "invoke"])
async def test_tool_use_prompt_tokens_count_as_input(mode: str) -> None:
    _, counts = await _usage(mode)
    assert counts == (26 + 12504, 40 + 63)
    assert counts[0] + counts[1] == USAGE["totalTokenCount"]
    assert (counts.cache_read, counts.reasoning) == (10, 63)


def test_a_record_without_tool_use_keeps_the_prompt_count() -> None:
    endpoint = native_model().endpoint
    assert endpoint.token_counts({"promptTokenCount": 7, "candidatesTokenCount": 3}) == (7, 3)
    assert endpoint.token_counts({"toolUsePromptTokenCount": 5}) == (5, None)
