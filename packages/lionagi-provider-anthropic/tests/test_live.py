"""Against the real Anthropic API: only with ``LIONAGI_LIVE=1`` and ``ANTHROPIC_API_KEY`` set.

Never in CI. Uses a small, cheap model unless ``LIONAGI_LIVE_ANTHROPIC_MODEL`` names another.
"""

from __future__ import annotations

import os

import pytest

from lionagi.service import EventStatus, iModel

pytestmark = pytest.mark.skipif(
    os.environ.get("LIONAGI_LIVE") != "1" or not os.environ.get("ANTHROPIC_API_KEY"),
    reason="live test: set LIONAGI_LIVE=1 and ANTHROPIC_API_KEY",
)
MODEL = os.environ.get("LIONAGI_LIVE_ANTHROPIC_MODEL", "claude-haiku-4-5")
MESSAGES = [{"role": "user", "content": "Reply with the single word: pong"}]


async def test_live_stream_and_invoke() -> None:
    async with iModel(model=f"anthropic/{MODEL}") as model:
        chunks = [c async for c in model.stream(messages=MESSAGES, max_tokens=16)]
        assert "".join(c.content or "" for c in chunks if c.type == "text").strip()
        assert chunks[-1].type == "result"
        assert chunks[-1].metadata["usage"]["output_tokens"] > 0
        event = await model.invoke(messages=MESSAGES, max_tokens=16)
        assert event.status is EventStatus.COMPLETED
