"""``scripted_stream_server``: the bytes as scripted, one network write per piece."""

from __future__ import annotations

import httpx
import pytest

from lionagi.service_testing import scripted_stream_server

pytestmark = pytest.mark.anyio


async def test_each_piece_arrives_as_its_own_read_and_requests_are_counted() -> None:
    writes = [b"data: one\n\n", b"data: two\n\n", b"data: [DONE]\n\n"]
    async with scripted_stream_server(writes, path="/api/v1", pause=0.02) as server:
        assert server.url.endswith("/api/v1")
        async with httpx.AsyncClient() as client:
            for expected_requests in (1, 2):
                async with client.stream("POST", server.url + "/x", json={"a": 1}) as response:
                    assert response.headers["content-type"] == "text/event-stream"
                    reads = [piece async for piece in response.aiter_raw()]
                # One chunk of the chunked body per piece: the client sees the script's
                # event boundaries, not one coalesced body.
                assert reads == writes
                assert server.requests == expected_requests
