"""Live check against api.exa.ai: skipped unless LIONAGI_LIVE=1 and EXA_API_KEY is set.

Never run in CI.
"""

from __future__ import annotations

import os

import pytest

from lionagi.service import iModel

pytestmark = pytest.mark.skipif(
    os.environ.get("LIONAGI_LIVE") != "1" or not os.environ.get("EXA_API_KEY"),
    reason="live test: set LIONAGI_LIVE=1 and EXA_API_KEY",
)


async def test_live_search_then_contents():
    async with iModel(provider="exa", endpoint="search") as exa:
        event = await exa.invoke(query="Python structured concurrency anyio", numResults=2)
        assert event.exception is None, event.exception
        results = event.execution.response["results"]
        assert results
    async with iModel(provider="exa", endpoint="contents") as exa:
        event = await exa.invoke(urls=[results[0]["url"]], text={"maxCharacters": 200})
        assert event.exception is None, event.exception
        assert event.execution.response["results"]


async def test_live_answer_one_shot_and_streamed():
    async with iModel(provider="exa", endpoint="answer") as exa:
        event = await exa.invoke(query="What is the capital of France?")
        assert event.exception is None, event.exception
        assert event.execution.response["answer"]
        chunks = [c async for c in exa.stream(query="What is the capital of France?")]
    assert "".join(c.content or "" for c in chunks if c.type == "text")
    assert chunks[-1].type == "result"
