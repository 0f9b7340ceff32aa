"""A 2xx `application/problem+json` answer is read whole, as the one-shot call reads it.

The stream read a 2xx problem document with the error-body bound (64 KiB) while `call()` reads
it up to `max_response_bytes`: a problem whose `detail` or extension members (a gateway's list
of validation errors) ran past that bound was cut, failed to parse, and the stream raised "not a
JSON object" where `call()` raised the problem itself. A leading UTF-8 byte order mark, which
every other 2xx JSON body may carry, made the document unreadable on both paths.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from lionagi.service import ProviderStreamError

HANG_GUARD = 30.0  # seconds; only a hang can exceed this
MESSAGES: list[dict[str, Any]] = [{"role": "user", "content": "x"}]


async def _stream_and_call(ep: Any) -> tuple[list[Any], ProviderStreamError]:
    with anyio.fail_after(HANG_GUARD):
        chunks = [c async for c in ep.stream({"model": "m", "messages": MESSAGES})]
        with pytest.raises(ProviderStreamError) as raised:
            await ep.call({"model": "m", "messages": MESSAGES})
    return chunks, raised.value


async def test_a_2xx_problem_longer_than_the_error_bound_streams_as_its_error(
    serve: Any, make_endpoint: Any, wire: Any
) -> None:
    problem = {
        "title": "Bad Request",
        "detail": "One or more validation errors occurred.",
        "status": 400,
        "errors": {f"messages[{i}].content": ["is too long"] * 8 for i in range(1500)},
    }
    body = json.dumps(problem)
    assert len(body) > 64 * 1024
    server = await serve(lambda r: wire.full(200, body, content_type="application/problem+json"))
    chunks, called = await _stream_and_call(make_endpoint(server.base_url))
    assert [(c.type, c.is_error) for c in chunks] == [("error", True)]
    assert chunks[0].content == "Bad Request: One or more validation errors occurred."
    assert chunks[0].metadata["status"] == 400
    assert str(called) == chunks[0].content


async def test_a_2xx_problem_with_a_byte_order_mark_is_read(
    serve: Any, make_endpoint: Any, wire: Any
) -> None:
    problem = {"title": "Service Unavailable", "detail": "try later", "status": 503}
    body = "\ufeff" + json.dumps(problem)
    server = await serve(lambda r: wire.full(200, body, content_type="application/problem+json"))
    chunks, called = await _stream_and_call(make_endpoint(server.base_url))
    assert [c.content for c in chunks] == ["Service Unavailable: try later"]
    assert called.status == 503
    assert str(called) == "Service Unavailable: try later"
