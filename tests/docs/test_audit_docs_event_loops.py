"""docs/concepts.md says what an HTTP model does on a second event loop, as it really does.

The page said the call "raises `EventLoopMismatchError` before admission", as a call from a
loop still running does. Once the model's own loop has ended, the refusal comes from the
endpoint's client, when the call reaches it: `stream()` raises it, but `invoke()` records it
on the FAILED call (docs/decisions.md, "An `iModel` runs its calls on one asyncio loop at a
time": "a call the endpoint refuses on a closed loop is still recorded on its event").
"""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

import pytest

from lionagi.service import EventLoopMismatchError, EventStatus, iModel
from lionagi.service_testing import FakeProviderServer

PAGE = Path(__file__).resolve().parents[2] / "docs" / "concepts.md"
MESSAGES = [{"role": "user", "content": "hi"}]


def one_paragraph(text: str) -> str:
    return " ".join(text.split())


def test_an_http_model_on_a_new_loop_fails_as_the_concepts_page_says():
    with FakeProviderServer.running_in_thread() as server:
        model = iModel(
            model="openai/gpt-4.1-mini",
            api_key="docs-audit-key-0000",
            base_url=server.base_url + "/v1",
            allow_local_network=True,
        )

        async def first() -> EventStatus:
            return (await model.invoke(messages=MESSAGES)).status

        async def invoke_again() -> object:
            return await model.invoke(messages=MESSAGES)

        async def stream_again() -> None:
            async for _ in model.stream(messages=MESSAGES):
                pass

        assert asyncio.run(first()) == "completed"
        sent = len(server.requests)
        call = asyncio.run(invoke_again())  # returned, not raised
        assert call.status == "failed"  # type: ignore[attr-defined]
        refused = call.exception  # type: ignore[attr-defined]
        assert isinstance(refused, EventLoopMismatchError) and refused.loop_closed
        with pytest.raises(EventLoopMismatchError) as raised:
            asyncio.run(stream_again())
        assert raised.value.loop_closed
        assert len(server.requests) == sent, "a refused call reached the server"

        def close_and_collect() -> None:
            asyncio.run(model.close())
            gc.collect()

        # The first loop's kept-alive socket died with that loop and is freed when collected.
        with pytest.warns(ResourceWarning, match="unclosed"):
            close_and_collect()

    text = one_paragraph(PAGE.read_text(encoding="utf-8"))
    assert "and so does an HTTP model on a new loop" not in text
    assert (
        "`stream()` raises it, and `invoke()` returns the FAILED call with it as `call.exception`"
        in text
    )
