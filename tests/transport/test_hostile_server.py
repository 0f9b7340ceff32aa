"""A hostile server over a real loopback socket: every failure is typed, memory stays bounded.

Found by an outside-in audit of the HTTP transport (issue 9's transport items, ADR-0029, and
docs/decisions.md "Hardening (bytes)"):

- JSON nested deeper than the interpreter recurses (``[[[[...``, one byte per level) in an SSE
  event, an NDJSON line, a 2xx body or an error body escaped as a bare ``RecursionError``;
- a ``Retry-After`` HTTP-date with a huge zone offset escaped as a bare ``OverflowError``, and
  non-ASCII digits were read as delta-seconds;
- a compressed body was inflated whole per network read before any cap looked at it: 590 bytes
  of ``Content-Encoding: gzip, gzip`` became 256 MiB in one call despite
  ``max_response_bytes=1 MiB`` (and the 64 KiB error-body and 16 MiB event bounds);
- a compressed body that stops before its end marker streamed as an empty success, and a
  coding the client never asked for was passed on undecoded.
"""

from __future__ import annotations

import gzip
import json
import tracemalloc
import zlib
from collections.abc import Iterator
from functools import cache
from typing import Any

import anyio
import httpx
import pytest

from lionagi.service import (
    ProviderClientError,
    ProviderProtocolError,
    ProviderRateLimitError,
    ProviderServerError,
    StreamChunk,
)
from lionagi.service._transport.http.content_coding import DECODE_STEP
from lionagi.service._transport.http.status import parse_retry_after

from ._chunks import delta

HANG_GUARD = 30.0  # seconds; only a hang can exceed this
DEEP = b"[" * 100_000 + b"]" * 100_000
MiB = 1024 * 1024


def sse(obj: Any) -> bytes:
    return f"data: {json.dumps(obj)}\n\n".encode()


GOOD_STREAM = sse(delta("hel")) + sse(delta("lo")) + sse(delta("", "stop")) + b"data: [DONE]\n\n"
ANSWER = {"object": "chat.completion", "choices": [{"message": {"content": "hi"}}]}


async def collect(ep: Any) -> list[StreamChunk]:
    with anyio.fail_after(HANG_GUARD):
        return [c async for c in ep.stream({"model": "m", "messages": []})]


async def call(ep: Any) -> Any:
    with anyio.fail_after(HANG_GUARD):
        return await ep.call({"model": "m", "messages": []})


def texts(chunks: list[StreamChunk]) -> str:
    return "".join(c.content or "" for c in chunks if c.type == "text")


# --- JSON nested too deeply to decode ------------------------------------------------------------


async def test_deeply_nested_sse_event_is_a_protocol_error(serve, make_endpoint, wire):
    server = await serve(lambda r: wire.sse_stream(sse(delta("a")), b"data: " + DEEP + b"\n\n"))
    with pytest.raises(ProviderProtocolError, match="SSE data is not valid JSON"):
        await collect(make_endpoint(server.base_url))


async def test_deeply_nested_ndjson_line_is_a_protocol_error(serve, make_endpoint, wire):
    server = await serve(
        lambda r: wire.sse_stream(DEEP + b"\n", content_type="application/x-ndjson")
    )
    with pytest.raises(ProviderProtocolError, match="NDJSON line is not valid JSON"):
        await collect(make_endpoint(server.base_url))


async def test_deeply_nested_call_body_is_a_protocol_error(serve, make_endpoint, wire):
    server = await serve(lambda r: wire.full(200, DEEP))
    with pytest.raises(ProviderProtocolError, match="not JSON"):
        await call(make_endpoint(server.base_url))


@pytest.mark.parametrize("body", [DEEP[:60_000], b'{"error":' + b"[" * 60_000])
async def test_deeply_nested_error_body_keeps_its_status_error(serve, make_endpoint, wire, body):
    server = await serve(lambda r: wire.full(400, body))
    with pytest.raises(ProviderClientError) as caught:
        await call(make_endpoint(server.base_url))
    assert caught.value.status == 400


# --- Retry-After ---------------------------------------------------------------------------------

OVERFLOWING_DATE = "Wed, 21 Oct 2015 07:28:00 +99999999999999999999"


def test_retry_after_date_with_an_overflowing_zone_is_ignored() -> None:
    assert parse_retry_after({"retry-after": OVERFLOWING_DATE}) is None


@pytest.mark.parametrize("value", ["\u0663", "\uff11", "\u0661.\u0665"])  # Arabic-Indic, fullwidth
def test_retry_after_takes_only_ascii_digits(value: str) -> None:
    assert parse_retry_after({"retry-after": value}) is None
    assert parse_retry_after({"retry-after-ms": value}) is None


@pytest.mark.parametrize(
    ("status", "error"), [(429, ProviderRateLimitError), (503, ProviderServerError)]
)
async def test_overflowing_retry_after_keeps_the_status_error(
    serve, make_endpoint, wire, status, error
):
    server = await serve(
        lambda r: wire.full(status, b'{"error":{}}', extra={"Retry-After": OVERFLOWING_DATE})
    )
    with pytest.raises(error) as caught:
        await call(make_endpoint(server.base_url))
    assert caught.value.status == status
    assert caught.value.retry_after is None


# --- content codings -----------------------------------------------------------------------------


@cache
def double_gzip_zeros(size: int = 256 * MiB) -> bytes:
    """``size`` zero bytes, gzip-compressed twice: a few hundred bytes on the wire."""
    z = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = b"\0" * MiB
    inner = b"".join([*(z.compress(block) for _ in range(size // MiB)), z.flush()])
    return gzip.compress(inner, 9)


def compressed(status: int, body: bytes, coding: str, content_type: str) -> Iterator[bytes]:
    yield (
        f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Encoding: {coding}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body


class PeakMemory:
    """Peak Python allocation (bytes objects included) while the block runs."""

    def __enter__(self) -> PeakMemory:
        tracemalloc.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


async def test_compression_bomb_call_is_refused_within_the_cap(serve, make_endpoint):
    bomb = double_gzip_zeros()
    assert len(bomb) < 4096
    server = await serve(lambda r: compressed(200, bomb, "gzip, gzip", "application/json"))
    ep = make_endpoint(server.base_url, max_response_bytes=MiB)
    with PeakMemory() as memory, pytest.raises(ProviderProtocolError, match="max_response_bytes"):
        await call(ep)
    assert memory.peak < 16 * MiB  # was > 256 MiB: the whole bomb, inflated in one step


async def test_compression_bomb_stream_is_refused_within_the_event_limit(serve, make_endpoint):
    server = await serve(
        lambda r: compressed(200, double_gzip_zeros(), "gzip, gzip", "text/event-stream")
    )
    with PeakMemory() as memory, pytest.raises(ProviderProtocolError, match="16 MiB"):
        await collect(make_endpoint(server.base_url))
    assert memory.peak < 64 * MiB  # the 16 MiB event bound, not the 256 MiB bomb


async def test_compression_bomb_error_body_is_read_within_its_limit(serve, make_endpoint):
    server = await serve(
        lambda r: compressed(500, double_gzip_zeros(), "gzip, gzip", "application/json")
    )
    with PeakMemory() as memory, pytest.raises(ProviderServerError):
        await call(make_endpoint(server.base_url))
    assert memory.peak < 16 * MiB  # the 64 KiB error-body read, not the 256 MiB bomb


def _codings() -> list[tuple[str, bytes]]:
    raw_deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return [
        ("gzip", gzip.compress(GOOD_STREAM)),
        ("x-gzip", gzip.compress(GOOD_STREAM)),
        ("deflate", zlib.compress(GOOD_STREAM)),
        ("deflate", raw_deflate.compress(GOOD_STREAM) + raw_deflate.flush()),
        ("gzip, deflate", zlib.compress(gzip.compress(GOOD_STREAM))),
        ("identity, gzip", gzip.compress(GOOD_STREAM)),
    ]


@pytest.mark.parametrize(("coding", "body"), _codings())
async def test_compressed_streams_still_decode(serve, make_endpoint, coding, body):
    server = await serve(lambda r: compressed(200, body, coding, "text/event-stream"))
    assert texts(await collect(make_endpoint(server.base_url))) == "hello"


async def test_large_compressed_call_body_decodes_in_bounded_steps(serve, make_endpoint):
    answer = {**ANSWER, "pad": "x" * (5 * MiB)}  # many DECODE_STEP blocks, one zlib stream
    body = gzip.compress(json.dumps(answer).encode())
    assert len(body) < DECODE_STEP
    server = await serve(lambda r: compressed(200, body, "gzip", "application/json"))
    assert await call(make_endpoint(server.base_url)) == answer


async def test_the_client_asks_only_for_the_codings_it_decodes(
    serve, make_endpoint, wire, monkeypatch
):
    # What httpx advertises when the optional brotli and zstandard packages are installed.
    monkeypatch.setattr(httpx._client, "ACCEPT_ENCODING", "gzip, deflate, br, zstd")
    server = await serve(lambda r: wire.full(200, json.dumps(ANSWER)))
    await call(make_endpoint(server.base_url))
    assert server.requests[0].headers["accept-encoding"] == "gzip, deflate"


@pytest.mark.parametrize("coding", ["br", "zstd", "x-weird", "gzip, gzip, gzip, gzip, gzip"])
async def test_a_coding_not_decoded_is_a_protocol_error(serve, make_endpoint, coding):
    body = b"\x1b\x00\x00\x00not a body"
    server = await serve(lambda r: compressed(200, body, coding, "text/event-stream"))
    with pytest.raises(ProviderProtocolError, match=r"coding|Content-Encoding"):
        await collect(make_endpoint(server.base_url))


@pytest.mark.parametrize("cut", [4, 12])  # in the gzip header, in the compressed data
async def test_a_cut_compressed_stream_is_a_protocol_error(serve, make_endpoint, cut):
    body = gzip.compress(GOOD_STREAM)[:cut]
    server = await serve(lambda r: compressed(200, body, "gzip", "text/event-stream"))
    with pytest.raises(ProviderProtocolError):
        await collect(make_endpoint(server.base_url))


@pytest.mark.parametrize("cut", [4, 12, -4])  # ... and in the trailer, after the whole JSON
async def test_a_cut_compressed_call_body_is_a_protocol_error(serve, make_endpoint, cut):
    body = gzip.compress(json.dumps(ANSWER).encode())[:cut]
    server = await serve(lambda r: compressed(200, body, "gzip", "application/json"))
    with pytest.raises(ProviderProtocolError):
        await call(make_endpoint(server.base_url))


async def test_an_empty_body_labelled_gzip_is_still_empty(serve, make_endpoint):
    server = await serve(lambda r: compressed(200, b"", "gzip", "text/event-stream"))
    assert await collect(make_endpoint(server.base_url)) == []


async def test_an_error_event_frame_is_the_providers_classified_failure() -> None:
    """``event: error`` whose data is the error object itself (no ``error`` key, no choices)."""
    from lionagi.service import ProviderStreamCapacityError, iModel
    from lionagi.service_testing import scripted_stream_server

    frames = [
        b"data: " + json.dumps(delta("par")).encode() + b"\n\n",
        b'event: error\ndata: {"message": "the model is overloaded", "code": "overloaded"}\n\n',
    ]
    async with scripted_stream_server(frames) as server:
        model = iModel(
            provider="acme",
            model="m1",
            openai_compatible=True,
            base_url=server.url,
            api_key="sk-test-0123456789abcdefghij",
            allow_local_network=True,
        )
        async with model:
            seen = []
            with pytest.raises(ProviderStreamCapacityError):
                async for chunk in model.stream(messages=[{"role": "user", "content": "hi"}]):
                    seen.append(chunk)
    assert [c.type for c in seen] == ["text", "error"]
    assert "overloaded" in (seen[-1].content or "")
