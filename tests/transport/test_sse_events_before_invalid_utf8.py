"""An HTTP stream delivers the events ahead of invalid UTF-8 in the same read, then fails.

Strict UTF-8 refuses a whole network read; the complete events before the bad bytes were valid
output, and a stream hands out what it received before an error (as it does before a malformed
event). They used to be dropped with the rest of the read.
"""

from __future__ import annotations

import json

import pytest

from lionagi.service import ProviderProtocolError, iModel
from lionagi.service_testing import scripted_stream_server

KEY = "sk-test-0123456789utf8stream"
MESSAGES = [{"role": "user", "content": "hi"}]


def _delta(text: str) -> bytes:
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-x",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
    }
    return b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\n\n"


CUT = _delta("\u00e9")
SPLIT = CUT.index(b"\xc3\xa9") + 1  # inside the two bytes of the character


@pytest.mark.parametrize(
    ("writes", "expected"),
    [
        ([_delta("a") + _delta("b") + b"data: \xff\n\n"], ["a", "b"]),
        # a character cut by the previous read, completed ahead of the bad bytes
        ([_delta("a"), CUT[:SPLIT], CUT[SPLIT:] + b"\xff"], ["a", "\u00e9"]),
        ([_delta("a"), b"\xfe" + _delta("b")], ["a"]),
    ],
    ids=["same-read", "cut-character", "bad-bytes-first"],
)
async def test_events_before_invalid_utf8_are_delivered_then_the_error(
    writes: list[bytes], expected: list[str]
) -> None:
    seen: list[str] = []
    async with (
        scripted_stream_server(writes) as server,
        iModel(
            model="openai/gpt-x", endpoint="chat", api_key=KEY, base_url=server.url,
            allow_local_network=True,
        ) as model,
    ):  # fmt: skip
        with pytest.raises(ProviderProtocolError, match="not valid UTF-8") as caught:
            async for chunk in model.stream(messages=MESSAGES):
                if chunk.type == "text":
                    seen.append(chunk.content)
    assert seen == expected
    assert "bytes ff" in str(caught.value) or "bytes fe" in str(caught.value)
    assert server.requests == 1
