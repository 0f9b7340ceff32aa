"""A real local Ollama: only with LIONAGI_LIVE=1 and OLLAMA_LIVE_MODEL set; never in CI.

The OpenAI-compatible chat and embeddings live cases are in test_vendor_checks.py; these are the
native generate and chat endpoints.
"""

from __future__ import annotations

import os

from lionagi.service_testing.vendor_checks import live_model


async def test_generate_streams_from_the_default_server() -> None:
    model_name = os.environ.get("OLLAMA_LIVE_MODEL")
    async with live_model("ollama", model_name, None, endpoint="generate") as model:
        chunks = [c async for c in model.stream(prompt="Say hi.")]
    assert chunks[-1].type == "result"


async def test_native_chat_streams_from_the_default_server() -> None:
    model_name = os.environ.get("OLLAMA_LIVE_MODEL")
    async with live_model("ollama", model_name, None, endpoint="native_chat") as model:
        messages = [{"role": "user", "content": "Say hi."}]
        chunks = [c async for c in model.stream(messages=messages, options={"num_ctx": 4096})]
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["usage"]["eval_count"]
