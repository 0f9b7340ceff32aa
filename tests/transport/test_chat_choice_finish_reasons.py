"""With several choices (`n` > 1), a chat stream's result says how the first one ended.

The projector kept the finish reason of whichever choice finished last, so choice 0 cut at the
output limit (`length`) read as a complete `stop` when choice 1 finished after it. The result
now carries the first choice's reason and, when several finished, every one's by index under
`finish_reasons` (the shape Gemini's candidates are reported in). Real loopback server.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

pytestmark = pytest.mark.anyio


def _frame(choices: list[dict[str, Any]]) -> str:
    return "data: " + json.dumps({"model": "m", "choices": choices}) + "\n\n"


async def _result(serve: Any, wire: Any, make_endpoint: Any, frames: list[str]) -> Any:
    server = await serve(lambda req: wire.sse_stream(*frames, "data: [DONE]\n\n"))
    endpoint = make_endpoint(server.base_url)
    with anyio.fail_after(10):
        chunks = [chunk async for chunk in endpoint.stream({"model": "m", "n": 2})]
    (result,) = [chunk for chunk in chunks if chunk.type == "result"]
    return result.metadata


async def test_the_first_choice_cut_short_is_not_hidden_by_a_later_stop(
    serve: Any, wire: Any, make_endpoint: Any
) -> None:
    frames = [
        _frame([{"index": 0, "delta": {"content": "a"}}, {"index": 1, "delta": {"content": "b"}}]),
        _frame([{"index": 0, "delta": {}, "finish_reason": "length"}]),
        _frame([{"index": 1, "delta": {"content": "c"}}]),
        _frame([{"index": 1, "delta": {}, "finish_reason": "stop"}]),
    ]
    meta = await _result(serve, wire, make_endpoint, frames)
    assert meta["finish_reason"] == "length"
    assert meta["finish_reasons"] == {0: "length", 1: "stop"}


async def test_choices_finishing_out_of_order_are_reported_by_index(
    serve: Any, wire: Any, make_endpoint: Any
) -> None:
    frames = [
        _frame([{"index": 1, "delta": {"content": "b"}, "finish_reason": "stop"}]),
        _frame([{"index": 0, "delta": {"content": "a"}, "finish_reason": "length"}]),
    ]
    meta = await _result(serve, wire, make_endpoint, frames)
    assert meta["finish_reason"] == "length"
    assert list(meta["finish_reasons"].items()) == [(0, "length"), (1, "stop")]


async def test_one_choice_adds_no_per_choice_key(serve: Any, wire: Any, make_endpoint: Any) -> None:
    frames = [
        _frame([{"index": 0, "delta": {"content": "a"}}]),
        _frame([{"index": 0, "delta": {}, "finish_reason": "stop"}]),
    ]
    meta = await _result(serve, wire, make_endpoint, frames)
    assert meta["finish_reason"] == "stop"
    assert "finish_reasons" not in meta
