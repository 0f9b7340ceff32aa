"""A real local Ollama: only with LIONAGI_LIVE=1 and OLLAMA_LIVE_MODEL set; never in CI."""

from __future__ import annotations

import os

import pytest

from lionagi.service import iModel

MODEL = os.environ.get("OLLAMA_LIVE_MODEL")
pytestmark = pytest.mark.skipif(
    os.environ.get("LIONAGI_LIVE") != "1" or not MODEL,
    reason="live test: set LIONAGI_LIVE=1 and OLLAMA_LIVE_MODEL (a pulled model)",
)


async def test_generate_streams_from_the_default_server() -> None:
    async with iModel(model=f"ollama/{MODEL}", endpoint="generate") as model:
        chunks = [c async for c in model.stream(prompt="Say hi.")]
    assert chunks[-1].type == "result"
