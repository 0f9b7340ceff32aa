"""An endpoint's HTTP client belongs to one asyncio loop; another loop gets a typed refusal.

The pitfall: one module-level ``iModel`` used by two ``asyncio.run`` calls (or by tests that
each get a new loop). The second loop used to fail inside asyncio with "Event loop is closed".
Plain synchronous tests, so each ``asyncio.run`` is a loop of its own; the server is a
threaded ``http.server`` that no event loop owns.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from lionagi.service import Endpoint, EventLoopMismatchError, iModel

MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture
def model(threaded_chat: Callable[[], str], chat_model: Callable[[str], iModel]) -> iModel:
    return chat_model(threaded_chat())


async def _invoke(model: iModel) -> Any:
    return await model.invoke(messages=MESSAGES)


def test_a_second_asyncio_run_gets_a_typed_error_and_close_still_works(model: iModel) -> None:
    first = asyncio.run(_invoke(model))
    assert first.status.value == "completed"

    second = asyncio.run(_invoke(model))
    assert second.status.value == "failed"
    assert isinstance(second.exception, EventLoopMismatchError)
    assert second.exception.loop_closed is True
    assert "one iModel (or endpoint) per event loop" in str(second.exception)

    async def streamed() -> None:
        async for _ in model.stream(messages=MESSAGES):
            pass

    with pytest.raises(EventLoopMismatchError):
        asyncio.run(streamed())

    # Nothing can run on the ended loop: close() on this one drops the client and finishes.
    # The kept-alive socket died with that loop; Python frees it when its transport is
    # collected, and says so (the same warning a client never closed before its loop ended
    # gets; before this check, close() itself failed with "Event loop is closed").
    def close_and_collect() -> None:
        asyncio.run(model.close())
        gc.collect()

    with pytest.warns(ResourceWarning, match="unclosed"):
        close_and_collect()
    assert model.endpoint.client_state.value == "closed"


def test_a_loop_that_is_still_open_keeps_its_client_until_closed_there(model: iModel) -> None:
    own = asyncio.new_event_loop()
    try:
        assert own.run_until_complete(_invoke(model)).status.value == "completed"
        # Refused by the model before admission (a waiter there would never be woken from
        # `own`), so raised like any admission refusal rather than recorded on an event.
        with pytest.raises(EventLoopMismatchError) as refused:
            asyncio.run(_invoke(model))
        assert refused.value.loop_closed is False
        # The endpoint itself still refuses a foreign loop when used directly.
        with pytest.raises(EventLoopMismatchError):
            asyncio.run(model.endpoint.call({"messages": MESSAGES, "model": "m"}))
        with pytest.raises(EventLoopMismatchError):
            asyncio.run(model.endpoint.aclose())  # its connections are still live on `own`
        assert model.endpoint.client_state.value == "opened"
        assert own.run_until_complete(_invoke(model)).status.value == "completed"
        own.run_until_complete(model.close())
        assert model.endpoint.client_state.value == "closed"
    finally:
        own.close()


def test_one_loop_reuses_its_client_across_calls(model: iModel) -> None:
    async def twice() -> list[str]:
        async with model:
            return [(await _invoke(model)).status.value for _ in range(2)]

    assert asyncio.run(twice()) == ["completed", "completed"]


def test_an_endpoint_given_its_own_transport_is_not_bound_to_a_loop() -> None:
    # A passed-in transport (here httpx's MockTransport, a common test double) has no pooled
    # connections to lose, so tests that reuse one endpoint on a new loop each keep working.
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"ok": True})

    config = {
        "name": "loops",
        "provider": "loops",
        "endpoint": "chat/completions",
        "base_url": "http://127.0.0.1:9",
        "auth_type": "none",
        "allow_local_network": True,
    }
    endpoint = Endpoint(config, transport=httpx.MockTransport(reply))
    assert asyncio.run(endpoint.call({})) == {"ok": True}
    assert asyncio.run(endpoint.call({})) == {"ok": True}
    asyncio.run(endpoint.aclose())
    assert endpoint.client_state.value == "closed"
