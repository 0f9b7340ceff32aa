"""An `application/json-seq` stream (RFC 7464) is read, not refused on its first record.

The transport accepts `application/json-seq` as a JSON lines type, but RFC 7464 starts every
JSON text with RS (0x1E), which is not JSON whitespace: each conforming record used to fail as
"NDJSON line is not valid JSON", so such a stream could never deliver an event.
"""

from __future__ import annotations

import json

import pytest

from lionagi.service import ProviderProtocolError, iModel
from lionagi.service_testing import scripted_stream_server

KEY = "sk-test-0123456789jsonseq"
MESSAGES = [{"role": "user", "content": "hi"}]
RS = b"\x1e"


def _chunk(text: str, finish: str | None = None) -> bytes:
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-x",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}],
    }
    return json.dumps(chunk, ensure_ascii=False).encode()


async def _stream(writes: list[bytes]) -> tuple[str, list[str]]:
    text: list[str] = []
    types: list[str] = []
    async with (
        scripted_stream_server(writes, content_type="application/json-seq") as server,
        iModel(
            model="openai/gpt-x", endpoint="chat", api_key=KEY, base_url=server.url,
            allow_local_network=True,
        ) as model,
    ):  # fmt: skip
        async for chunk in model.stream(messages=MESSAGES):
            types.append(chunk.type)
            if chunk.type == "text":
                text.append(chunk.content or "")
    return "".join(text), types


async def test_rs_prefixed_records_are_events_even_split_across_reads() -> None:
    second = RS + _chunk("\u00e9t\u00e9") + b"\n"
    cut = second.index("\u00e9".encode()) + 1  # inside a two-byte character
    writes = [
        RS + _chunk("un ") + b"\n",
        second[:cut],
        second[cut:] + RS + RS + _chunk("", "stop") + b"\n",  # RFC 7464 allows 1*RS
    ]
    text, types = await _stream(writes)
    assert text == "un \u00e9t\u00e9"
    assert types[-1] == "result"


async def test_an_rs_prefixed_record_that_is_not_json_is_still_a_protocol_error() -> None:
    # The records ahead of it are delivered first; the broken one is not skipped as if blank.
    seen: list[str] = []
    async with (
        scripted_stream_server(
            [RS + _chunk("a") + b"\n", RS + b'{"broken\n'], content_type="application/json-seq"
        ) as server,
        iModel(
            model="openai/gpt-x", endpoint="chat", api_key=KEY, base_url=server.url,
            allow_local_network=True,
        ) as model,
    ):  # fmt: skip
        with pytest.raises(ProviderProtocolError, match="NDJSON line is not valid JSON"):
            async for chunk in model.stream(messages=MESSAGES):
                seen.append(chunk.content or "")
    assert seen == ["a"]
