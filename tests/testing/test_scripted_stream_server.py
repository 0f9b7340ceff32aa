"""``scripted_stream_server``: the bytes as scripted, one network write per piece."""

from __future__ import annotations

import asyncio

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


async def test_leaving_the_server_ends_a_handler_still_writing() -> None:
    # A client that stopped reading leaves the handler between writes. It used to outlive the
    # server, to be cancelled only when the event loop ended, which Python 3.11 reports as
    # "Exception in callback" noise in the user's test output.
    pieces = [b"data: %d\n\n" % i for i in range(50)]
    async with scripted_stream_server(pieces, pause=0.05) as server:
        host, port = server.url.split("//")[1].split("/")[0].split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(b"POST /v1/x HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        await reader.readuntil(b"\r\n\r\n")  # the head: the handler is now writing pieces
    try:
        left = [
            task
            for task in asyncio.all_tasks()
            if task is not asyncio.current_task() and not task.done()
            and "scripted_stream_server" in getattr(task.get_coro(), "__qualname__", "")
        ]  # fmt: skip
        assert left == []
    finally:
        writer.close()
