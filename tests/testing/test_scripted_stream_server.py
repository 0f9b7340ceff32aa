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


async def test_an_error_status_and_its_body_are_served_and_request_lines_kept() -> None:
    # A vendor's error body, as it sends it, for an error no fake-server scenario renders.
    body = b'{"error": {"code": 403, "message": "flagged"}}'
    served = scripted_stream_server([body], content_type="application/json", status=403)
    async with served as server, httpx.AsyncClient() as client:
        response = await client.post(server.url + "/chat/completions", json={"a": 1})
    assert response.status_code == 403
    assert response.reason_phrase == "Forbidden"
    assert response.headers["content-type"] == "application/json"
    assert response.content == body
    assert server.request_lines == ["POST /v1/chat/completions HTTP/1.1"]
