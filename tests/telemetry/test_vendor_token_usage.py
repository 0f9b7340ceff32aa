"""Token usage reaches `gen_ai.usage.*` for vendors that name their counts their own way.

Telemetry read only `input_tokens`/`prompt_tokens` and `output_tokens`/`completion_tokens`, so
Gemini's native `usageMetadata`, Ollama's `prompt_eval_count`/`eval_count` and pi's
`input`/`output` recorded no token usage at all. Each endpoint now reads its own record
(`Endpoint.token_counts`), on the stream's result and on a one-shot body alike.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import EventStatus, iModel
from lionagi.service_testing import scripted_stream_server

from .conftest import Otel

GEMINI_KEY = "k-gemini-0123456789abcdef"
GEMINI_USAGE = {"promptTokenCount": 7, "candidatesTokenCount": 3, "thoughtsTokenCount": 4}
GEMINI_BODY = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}
    ],
    "usageMetadata": GEMINI_USAGE,
    "modelVersion": "gemini-2.5-flash",
}
OLLAMA_BODY = {
    "model": "m",
    "created_at": "t",
    "response": "ok",
    "done": True,
    "done_reason": "stop",
    "prompt_eval_count": 11,
    "eval_count": 5,
}


def _usage(otel: Otel) -> tuple[Any, Any]:
    attrs = dict(otel.root().attributes or {})
    return attrs.get("gen_ai.usage.input_tokens"), attrs.get("gen_ai.usage.output_tokens")


def _gemini(url: str) -> iModel:
    return iModel(
        model="gemini/gemini-2.5-flash",
        endpoint="generate",
        api_key=GEMINI_KEY,
        base_url=url,
        allow_local_network=True,
    )


CONTENTS = [{"role": "user", "parts": [{"text": "hi"}]}]


async def _run(model: iModel, mode: str, **request: Any) -> None:
    if mode == "stream":
        [c async for c in model.stream(**request)]
    else:
        call = await model.invoke(**request)
        assert call.status is EventStatus.COMPLETED


@pytest.mark.parametrize("mode", ["stream", "invoke"])
async def test_gemini_native_usage_is_recorded(otel: Otel, mode: str) -> None:
    otel.on()
    if mode == "stream":
        frames, kind = [b"data: " + json.dumps(GEMINI_BODY).encode() + b"\r\n\r\n"], None
    else:
        frames, kind = [json.dumps(GEMINI_BODY).encode()], "application/json"
    options = {"content_type": kind} if kind else {}
    async with (
        scripted_stream_server(frames, path="/v1beta", **options) as server,
        _gemini(server.url) as model,
    ):
        await _run(model, mode, contents=CONTENTS)
    # Output counts the thoughts too: Gemini bills them as output tokens.
    assert _usage(otel) == (7, 7)


@pytest.mark.parametrize("mode", ["stream", "invoke"])
async def test_ollama_generate_usage_is_recorded(otel: Otel, mode: str) -> None:
    otel.on()
    line = json.dumps(OLLAMA_BODY).encode() + b"\n"
    kind = "application/x-ndjson" if mode == "stream" else "application/json"
    async with (
        scripted_stream_server([line], path="/api", content_type=kind) as server,
        iModel(
            model="ollama/m", endpoint="generate", base_url=server.url, allow_local_network=True
        ) as model,
    ):
        await _run(model, mode, prompt="hi")
    assert _usage(otel) == (11, 5)


def test_pi_reads_its_own_count_names() -> None:
    from lionagi.providers.pi import PiCliEndpoint

    usage = {"input": 120, "output": 30, "cacheRead": 8, "totalTokens": 158, "cost": 0.01}
    assert PiCliEndpoint().token_counts(usage) == (128, 30)
