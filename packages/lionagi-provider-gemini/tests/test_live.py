"""Live calls to the real Gemini API: skipped unless ``LIONAGI_LIVE=1`` and a key is set.

Never run in CI. The package conftest moves ``GEMINI_API_KEY`` aside so offline tests cannot
send it; these tests read it back from ``LIONAGI_TEST_GEMINI_API_KEY``.
"""

from __future__ import annotations

import os

import pytest

from lionagi.service import EventStatus, iModel

KEY = os.environ.get("LIONAGI_TEST_GEMINI_API_KEY")
MODEL = os.environ.get("LIONAGI_LIVE_GEMINI_MODEL", "gemini/gemini-2.5-flash")

pytestmark = pytest.mark.skipif(
    os.environ.get("LIONAGI_LIVE") != "1" or not KEY,
    reason="live test: set LIONAGI_LIVE=1 and GEMINI_API_KEY",
)


@pytest.mark.parametrize("endpoint", ["chat", "generate"])
async def test_live_stream_and_invoke(endpoint: str) -> None:
    if endpoint == "chat":
        request = {"messages": [{"role": "user", "content": "Say OK."}]}
    else:
        request = {"contents": [{"role": "user", "parts": [{"text": "Say OK."}]}]}
    async with iModel(model=MODEL, endpoint=endpoint, api_key=KEY) as model:
        chunks = [c async for c in model.stream(**request)]
        call = await model.invoke(**request)
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["usage"]
    assert any(c.type == "text" and c.content for c in chunks)
    assert call.execution.status is EventStatus.COMPLETED
