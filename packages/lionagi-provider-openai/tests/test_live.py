"""Live checks against api.openai.com: skipped unless LIONAGI_LIVE=1 and OPENAI_API_KEY is set.

Never run in CI. The model names can be overridden with LIONAGI_LIVE_OPENAI_MODEL and
LIONAGI_LIVE_OPENAI_EMBEDDING_MODEL.
"""

from __future__ import annotations

import os

import pytest

from lionagi.service import iModel

pytestmark = pytest.mark.skipif(
    os.environ.get("LIONAGI_LIVE") != "1" or not os.environ.get("OPENAI_API_KEY"),
    reason="live test: set LIONAGI_LIVE=1 and OPENAI_API_KEY",
)
MODEL = os.environ.get("LIONAGI_LIVE_OPENAI_MODEL", "gpt-4.1-mini")
EMBEDDING = os.environ.get("LIONAGI_LIVE_OPENAI_EMBEDDING_MODEL", "text-embedding-3-small")


async def test_live_chat_stream_ends_with_usage():
    async with iModel(model=f"openai/{MODEL}", endpoint="chat") as model:
        chunks = [
            c
            async for c in model.stream(
                messages=[{"role": "user", "content": "Reply with the word pong."}],
                max_completion_tokens=16,
            )
        ]
    assert "".join(c.content or "" for c in chunks if c.type == "text").strip()
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["usage"]


async def test_live_responses_stream_ends_with_one_result():
    async with iModel(model=f"openai/{MODEL}", endpoint="responses") as model:
        chunks = [
            c async for c in model.stream(input="Reply with the word pong.", max_output_tokens=16)
        ]
    assert [c.type for c in chunks].count("result") == 1
    assert chunks[-1].metadata["usage"]


async def test_live_embeddings():
    async with iModel(model=f"openai/{EMBEDDING}", endpoint="embeddings") as model:
        event = await model.invoke(input="hello")
    assert event.exception is None, event.exception
    assert event.execution.response["data"][0]["embedding"]
