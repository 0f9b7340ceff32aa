"""Response bytes over a real loopback socket: the UTF-8 policy and the one-shot body cap.

Policy under test (docs/decisions.md, "Hardening (bytes)"): bodies are strict UTF-8 whatever
charset the response declares, on the stream and the one-shot path alike; invalid UTF-8 is a
ProviderProtocolError; a one-shot body over ``max_response_bytes`` is refused while it arrives.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from lionagi.service import (
    EndpointConfigurationError,
    ProviderProtocolError,
    StreamChunk,
)
from lionagi.service._transport.config import EndpointConfig

from ._chunks import delta

HANG_GUARD = 20.0  # seconds; only a hang can exceed this
TEXT = "héllo → wörld ✓ 😀"


def sse(obj: Any) -> bytes:
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n".encode()


def completion(text: str) -> dict[str, Any]:
    return {"object": "chat.completion", "choices": [{"message": {"content": text}}]}


async def collect(ep: Any) -> list[StreamChunk]:
    with anyio.fail_after(HANG_GUARD):
        return [c async for c in ep.stream({"model": "m", "messages": []})]


def texts(chunks: list[StreamChunk]) -> str:
    return "".join(c.content or "" for c in chunks if c.type == "text")


# --- item 1: a declared charset never reaches the codec registry ---------------------------------

HOSTILE_CHARSETS = ["base64", "hex", "rot13", "utf-16", "idna", "latin-1", "zlib", "no-such-set"]


@pytest.mark.parametrize("charset", HOSTILE_CHARSETS)
async def test_stream_is_utf8_whatever_charset_is_declared(serve, make_endpoint, wire, charset):
    body = sse(delta(TEXT)) + sse(delta("", "stop")) + b"data: [DONE]\n\n"
    server = await serve(
        lambda r: wire.sse_stream(body, content_type=f"text/event-stream; charset={charset}")
    )
    chunks = await collect(make_endpoint(server.base_url))
    assert texts(chunks) == TEXT


@pytest.mark.parametrize("charset", HOSTILE_CHARSETS)
async def test_call_is_utf8_whatever_charset_is_declared(serve, make_endpoint, wire, charset):
    raw = json.dumps(completion(TEXT), ensure_ascii=False).encode()
    server = await serve(
        lambda r: wire.full(200, raw, content_type=f"application/json; charset={charset}")
    )
    with anyio.fail_after(HANG_GUARD):
        body = await make_endpoint(server.base_url).call({"model": "m", "messages": []})
    assert body == completion(TEXT)


def _split_inside_characters(data: bytes) -> list[bytes]:
    """One piece per byte around every multi-byte character, so each is cut across writes."""
    pieces: list[bytes] = []
    start = 0
    for index, byte in enumerate(data):
        if byte >= 0x80:
            if index > start:
                pieces.append(data[start:index])
            pieces.append(data[index : index + 1])
            start = index + 1
    pieces.append(data[start:])
    return [p for p in pieces if p]


def test_decoder_is_split_invariant() -> None:
    from lionagi.service._transport.utf8 import Utf8Decoder

    data = "\ufeff".encode() + TEXT.encode()
    for cut in range(len(data) + 1):
        for second in range(cut, len(data) + 1):
            decoder = Utf8Decoder("test")
            parts = (data[:cut], data[cut:second], data[second:])
            text = "".join(decoder.decode(p) for p in parts)
            decoder.finish()
            assert text == TEXT, (cut, second)


async def test_characters_split_across_network_reads_are_reassembled(serve, make_endpoint, wire):
    body = b"\xef\xbb\xbf" + sse(delta(TEXT)) + sse(delta("", "stop")) + b"data: [DONE]\n\n"

    def script(_: Any) -> Iterator[Any]:
        yield wire.head()
        for piece in _split_inside_characters(body):
            yield 0.001  # a pause, so each piece is its own read
            yield wire.chunk(piece)
        yield wire.LAST_CHUNK

    server = await serve(script)
    chunks = await collect(make_endpoint(server.base_url))
    assert texts(chunks) == TEXT  # the leading BOM was skipped, not taken as part of a field


async def test_invalid_utf8_in_a_stream_is_a_protocol_error(serve, make_endpoint, wire, secret):
    bad = b'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":'
    bad += b'{"content":"ok \xff\xfe ' + secret.encode() + b'"}}]}\n\n'
    server = await serve(
        lambda r: wire.sse_stream(
            sse(delta("first ")), bad, content_type="text/event-stream; charset=latin-1"
        )
    )
    ep = make_endpoint(server.base_url)
    got: list[StreamChunk] = []
    with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderProtocolError) as info:
        async for chunk in ep.stream({"model": "m", "messages": []}):
            got.append(chunk)
    message = str(info.value)
    assert "not valid UTF-8" in message
    assert "latin-1" in message  # the ignored declaration is named, for diagnosis
    assert secret not in message
    assert len(message) < 400
    assert texts(got) == "first "  # what arrived before the bad bytes was delivered
    assert all("\ufffd" not in (c.content or "") for c in got)


async def test_stream_cut_inside_a_character_is_a_protocol_error(serve, make_endpoint, wire):
    cut = sse(delta("a")) + 'data: {"choices":[{"delta":{"content":"✓'.encode()[:-1]
    server = await serve(lambda r: wire.sse_stream(cut))
    with pytest.raises(ProviderProtocolError, match="UTF-8"):
        await collect(make_endpoint(server.base_url))


async def test_invalid_utf8_in_a_call_body_is_a_protocol_error(serve, make_endpoint, wire):
    server = await serve(lambda r: wire.full(200, b'{"text": "\xc3\x28"}'))
    with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderProtocolError, match="UTF-8"):
        await make_endpoint(server.base_url).call({"model": "m", "messages": []})


async def test_utf16_call_body_is_refused_even_when_declared(serve, make_endpoint, wire):
    raw = json.dumps(completion(TEXT)).encode("utf-16-le")
    server = await serve(
        lambda r: wire.full(200, raw, content_type="application/json; charset=utf-16le")
    )
    # ASCII text in UTF-16 is valid UTF-8 full of NULs, so it fails as JSON instead; json's own
    # byte-level encoding detection (which accepted it before) is no longer consulted.
    with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderProtocolError):
        await make_endpoint(server.base_url).call({"model": "m", "messages": []})


# --- item 5: the one-shot body cap ---------------------------------------------------------------


def test_max_response_bytes_default_and_validation() -> None:
    base = {"name": "t", "provider": "t", "endpoint": "e"}
    assert EndpointConfig(**base).max_response_bytes == 64 * 1024 * 1024  # the documented default
    assert EndpointConfig(**base, max_response_bytes=1).max_response_bytes == 1
    for bad in (0, -5, True, "1024", 1.5):
        with pytest.raises(EndpointConfigurationError, match="max_response_bytes") as info:
            EndpointConfig(**base, max_response_bytes=bad)
        assert info.value.field == "max_response_bytes"
        assert "unknown" not in str(info.value)


async def test_body_over_the_cap_is_refused_while_it_arrives(serve, make_endpoint, wire):
    block = b" " * 65536
    sent = 0

    def script(_: Any) -> Iterator[Any]:
        nonlocal sent
        yield wire.head(content_type="application/json")  # chunked: no length to check up front
        yield wire.chunk(b'{"pad": "')
        for _ in range(1024):  # 64 MiB if nobody stops reading
            sent += len(block)
            yield wire.chunk(block)
        yield wire.chunk(b'"}')
        yield wire.LAST_CHUNK

    server = await serve(script)
    ep = make_endpoint(server.base_url, max_response_bytes=256 * 1024)
    with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderProtocolError) as info:
        await ep.call({"model": "m", "messages": []})
    assert "max_response_bytes=262144" in str(info.value)
    await server.wait_connection_closed()
    assert server.outcomes == ["client_gone"]  # the client hung up instead of reading on
    assert sent < 1024 * len(block)


async def test_content_length_over_the_cap_is_refused_up_front(serve, make_endpoint, wire):
    def script(_: Any) -> Iterator[Any]:
        head = wire.head(content_type="application/json", chunked=False, length=10**9)
        yield head + b'{"pad": "'
        yield 30.0  # never sends the rest: only an up-front refusal ends this quickly

    server = await serve(script)
    ep = make_endpoint(server.base_url, max_response_bytes=1024, timeout=15.0)
    with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderProtocolError) as info:
        await ep.call({"model": "m", "messages": []})
    assert "Content-Length 1000000000" in str(info.value)


async def test_bodies_up_to_the_cap_pass(serve, make_endpoint, wire):
    raw = json.dumps(completion("x" * 900)).encode()
    server = await serve(lambda r: wire.full(200, raw))
    ep = make_endpoint(server.base_url, max_response_bytes=len(raw))
    with anyio.fail_after(HANG_GUARD):
        assert await ep.call({"model": "m", "messages": []}) == completion("x" * 900)
