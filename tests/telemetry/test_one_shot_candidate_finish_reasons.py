"""A one-shot body's model and finish reasons reach telemetry whatever the vendor's shape.

Telemetry read a one-shot body's finish reasons from ``choices[].finish_reason`` and a top-level
``stop_reason`` only. Gemini's native ``generateContent`` answers with ``candidates``, each
with its ``finishReason``, and names the model ``modelVersion``; Ollama's native rows end with
``done_reason``: their ``invoke()`` spans recorded no finish reason (and Gemini's no model),
while the same answer streamed recorded them (the projector puts them on the result chunk).
Each endpoint now says where its vendor writes them (``Endpoint.response_facts``), so an
``invoke()`` span says what the same answer's ``stream()`` span says.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lionagi.service import EventStatus, iModel
from lionagi.service_testing import scripted_stream_server

from .conftest import Otel

KEY = "k-gemini-0123456789abcdef"
CONTENTS = [{"role": "user", "parts": [{"text": "hi"}]}]


def _candidate(index: int, text: str, reason: str) -> dict[str, Any]:
    return {
        "index": index,
        "content": {"role": "model", "parts": [{"text": text}]},
        "finishReason": reason,
    }


def _body(*candidates: dict[str, Any]) -> dict[str, Any]:
    return {
        "candidates": list(candidates),
        "usageMetadata": {"promptTokenCount": 2, "candidatesTokenCount": 2},
        "modelVersion": "gemini-2.5-flash",
    }


async def _finish_reasons(otel: Otel, body: dict[str, Any], mode: str) -> Any:
    """Run ``body`` as ``mode`` (one-shot, or one SSE event); the root span's finish reasons."""
    otel.on()
    if mode == "stream":
        frames, options = [b"data: " + json.dumps(body).encode() + b"\r\n\r\n"], {}
    else:
        frames, options = [json.dumps(body).encode()], {"content_type": "application/json"}
    async with (
        scripted_stream_server(frames, path="/v1beta", **options) as server,
        iModel(
            model="gemini/gemini-2.5-flash",
            endpoint="generate",
            api_key=KEY,
            base_url=server.url,
            allow_local_network=True,
        ) as model,
    ):
        if mode == "stream":
            [c async for c in model.stream(contents=CONTENTS)]
        else:
            call = await model.invoke(contents=CONTENTS)
            assert call.status is EventStatus.COMPLETED
    attrs = dict(otel.root().attributes or {})
    assert attrs.get("gen_ai.response.model") == "gemini-2.5-flash"
    return attrs.get("gen_ai.response.finish_reasons")


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_a_candidates_finish_reason_is_recorded_one_shot_as_streamed(
    otel: Otel, mode: str
) -> None:
    body = _body(_candidate(0, "ok", "STOP"))

    assert await _finish_reasons(otel, body, mode) == ("STOP",)


@pytest.mark.parametrize("mode", ["invoke", "stream"])
async def test_every_candidates_finish_reason_is_recorded_in_order(otel: Otel, mode: str) -> None:
    # A cut candidate (MAX_TOKENS) is not hidden behind the other's STOP, as with choices.
    body = _body(_candidate(0, "ok", "STOP"), _candidate(1, "cut", "MAX_TOKENS"))

    assert await _finish_reasons(otel, body, mode) == ("STOP", "MAX_TOKENS")


@pytest.mark.parametrize("reason", ["stop", "length"])
async def test_an_ollama_one_shot_done_reason_is_recorded(otel: Otel, reason: str) -> None:
    otel.on()
    body = {
        "model": "llama3.2",
        "response": "hi",
        "done": True,
        "done_reason": reason,
        "prompt_eval_count": 3,
        "eval_count": 1,
    }
    frames = [json.dumps(body).encode()]
    async with (
        scripted_stream_server(frames, path="/api", content_type="application/json") as server,
        iModel(
            model="ollama/llama3.2",
            endpoint="generate",
            base_url=server.url,
            allow_local_network=True,
        ) as model,
    ):
        call = await model.invoke(prompt="hi")
        assert call.status is EventStatus.COMPLETED, call.exception
    attrs = dict(otel.root().attributes or {})
    assert attrs.get("gen_ai.response.finish_reasons") == (reason,)
    assert attrs.get("gen_ai.response.model") == "llama3.2"
