"""An NLIP body its Content-Encoding does not describe is a typed protocol error, not retried.

httpx raises ``DecodingError`` while reading such a body; it is not a ``TransportError``, so it
escaped the endpoint as a raw httpx exception. A real server on 127.0.0.1 sends it.
"""

from __future__ import annotations

import asyncio

import pytest

from lionagi.service import ProviderProtocolError, iModel

pytestmark = pytest.mark.anyio

_BAD_GZIP = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
    b"Content-Length: 10\r\n\r\n0123456789"
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_undecodable_body_is_a_protocol_error_and_not_retried() -> None:
    hits = 0

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal hits
        await reader.readuntil(b"\r\n\r\n")
        hits += 1
        writer.write(_BAD_GZIP)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with iModel(
            provider="ag2",
            endpoint="nlip",
            base_url=f"http://127.0.0.1:{port}/agent",
            allow_local_network=True,
        ) as model:
            with pytest.raises(ProviderProtocolError, match="could not be decoded: DecodingError"):
                _ = [c async for c in model.stream(prompt="ping", timeout=10)]
            endpoint = model.endpoint
            assert endpoint.clients_opened == endpoint.clients_closed == 1  # type: ignore[attr-defined]
    finally:
        server.close()
        await server.wait_closed()
    assert hits == 1  # the attempt policy retries connection failures only
