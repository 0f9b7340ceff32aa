"""A stream request answered with one pretty-printed `application/json` document is read.

Some servers ignore `"stream": true` and answer the whole completion as `application/json`;
gateways send an error object that way. The transport reads `application/json` as JSON lines,
so a compact one-line document was one event (the completion's text, or the provider's error),
but the same document pretty-printed (`json.dumps(indent=2)`, as many frameworks send it) was
refused line by line: `NDJSON line is not valid JSON: '{'`. Now a body whose first line is not
a JSON text is read as one document, with the same 16 MiB bound as one line, and gives the
events the compact document gives; JSON lines labelled `application/json` still stream line by
line, and a line that breaks after an event is still refused.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from lionagi.service import ProviderProtocolError, StreamChunk
from lionagi.service._transport.http.framing import MAX_EVENT_BYTES, framer_for_content_type

from ._chunks import delta

HANG_GUARD = 30.0  # seconds; only a hang can exceed this
ANSWER = {
    "id": "c-1",
    "object": "chat.completion",
    "model": "m1",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "h\u00e9llo"},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
}
ERROR = {"error": {"message": "model overloaded", "type": "server_error", "code": 503}}


def shape(chunks: list[StreamChunk]) -> list[tuple[str, str | None, dict[str, Any]]]:
    return [(c.type, c.content, c.metadata) for c in chunks]


async def stream(serve: Any, make_endpoint: Any, wire: Any, body: bytes) -> list[StreamChunk]:
    server = await serve(lambda r: wire.full(200, body))  # Content-Type: application/json
    ep = make_endpoint(server.base_url)
    with anyio.fail_after(HANG_GUARD):
        return [c async for c in ep.stream({"model": "m", "messages": []})]


def pieces(text: str, size: int) -> list[bytes]:
    """`text` in UTF-8 as separate chunked writes of `size` bytes (characters may be cut)."""
    raw = text.encode()
    return [raw[i : i + size] for i in range(0, len(raw), size)]


@pytest.mark.parametrize("document", [ANSWER, ERROR], ids=["completion", "error-object"])
@pytest.mark.parametrize("indent", [2, "\t"], ids=["spaces", "tabs"])
async def test_a_pretty_printed_document_streams_as_the_compact_one(
    serve, make_endpoint, wire, document, indent
):
    compact = await stream(serve, make_endpoint, wire, json.dumps(document).encode())
    assert compact  # the reference: the completion's chunks, or the provider's error chunk
    pretty = json.dumps(document, indent=indent, ensure_ascii=False).encode() + b"\n"
    assert shape(await stream(serve, make_endpoint, wire, pretty)) == shape(compact)


async def test_a_document_split_across_reads_is_one_event(serve, make_endpoint, wire):
    text = "\n\n" + json.dumps(ANSWER, indent=2, ensure_ascii=False)
    compact = await stream(serve, make_endpoint, wire, json.dumps(ANSWER).encode())
    server = await serve(
        lambda r: [
            wire.head(content_type="application/json; charset=utf-8"),
            *(p for piece in pieces(text, 7) for p in (wire.chunk(piece), 0.001)),
            wire.LAST_CHUNK,
        ]
    )
    ep = make_endpoint(server.base_url)
    with anyio.fail_after(HANG_GUARD):
        got = [c async for c in ep.stream({"model": "m", "messages": []})]
    assert shape(got) == shape(compact)


async def test_a_broken_document_is_refused_naming_the_url(serve, make_endpoint, wire, secret):
    body = json.dumps(ANSWER, indent=2).encode()[:-3] + f" {secret}".encode()
    server = await serve(lambda r: wire.full(200, body))
    ep = make_endpoint(server.base_url)
    with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderProtocolError) as caught:
        async for _ in ep.stream({"model": "m", "messages": []}):
            pass
    message = str(caught.value)
    assert message.startswith(f"{server.base_url}/chat/completions: JSON document is not valid")
    assert secret not in message


def test_a_document_keeps_the_one_event_bound() -> None:
    framer = framer_for_content_type("application/json")
    assert framer.feed('{\n  "pad": "') == []
    filler = "\u00e9" * 1024  # 2 bytes each in UTF-8: the bound counts bytes, not characters
    fed = 12
    with pytest.raises(ProviderProtocolError, match="a JSON document exceeded 16 MiB"):
        for _ in range(MAX_EVENT_BYTES // (2 * len(filler)) + 1):
            fed += 2 * len(filler)
            framer.feed(filler)
    assert fed > MAX_EVENT_BYTES  # refused on the block that crossed the bound, not before


def test_the_first_line_decides_json_lines_or_one_document() -> None:
    document = framer_for_content_type("application/json")
    assert document.feed(json.dumps(delta("a"), indent=1) + "\n") == []  # held until EOF
    assert document.flush() == [delta("a")]
    framer = framer_for_content_type("application/json")
    first = json.dumps(delta("a"))
    assert framer.feed(first + "\n" + json.dumps(delta("b"))[:5]) == [delta("a")]
    # After an event the body is JSON lines for good: a broken line is refused, not buffered.
    with pytest.raises(ProviderProtocolError, match="NDJSON line is not valid JSON"):
        framer.feed('{\n"x": 1}\n')


def test_an_overlong_first_line_is_named_for_what_it_may_be() -> None:
    # Before its first line ends the body may be JSON lines or one document: the size refusal
    # names neither as NDJSON (the body is labelled application/json).
    framer = framer_for_content_type("application/json", ())
    with pytest.raises(ProviderProtocolError, match="a JSON line or document exceeded 16 MiB"):
        for _ in range(17):
            framer.feed("x" * (1024 * 1024))
