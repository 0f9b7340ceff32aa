"""Invalid UTF-8 in a pipe read fails the run only after the valid events ahead of it.

The strict decoder refuses a whole block; the complete events that came before the bad bytes in
the same read were valid output and must be delivered before the typed error, as the events
before a malformed JSON value are (docs/decisions.md, bytes; framing's "output seen stays seen").
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

from lionagi.service import ProviderProtocolError
from lionagi.service._transport.subprocess import json_events_from_process
from lionagi.service._transport.subprocess.framing import JsonFramer

HANG_GUARD = 30.0  # seconds; only a hang can exceed this


def _one_write(payload: bytes) -> list[str]:
    """A CLI that prints ``payload`` in a single write, so it reaches us as one pipe read."""
    code = f"import os; os.write(1, {payload!r})"
    return [sys.executable, "-c", code]


async def test_events_before_invalid_bytes_in_the_same_read_are_delivered() -> None:
    seen: list[dict[str, Any]] = []
    argv = _one_write(b'{"a":1}\n{"b":2}\n\xff\n')
    with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderProtocolError, match="bytes ff"):
        async for event in json_events_from_process(argv):
            seen.append(event)
    assert seen == [{"a": 1}, {"b": 2}]


async def test_blocks_hand_over_the_valid_events_before_the_error() -> None:
    blocks: list[list[dict[str, Any]]] = []
    argv = _one_write(b'{"a":1}\n{"b":"caf\xc3\xa9"}{"c":"\xff"}\n')
    with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderProtocolError, match="UTF-8"):
        async with json_events_from_process(argv) as events:
            async for block in events.blocks():
                blocks.append(block)
    assert blocks == [[{"a": 1}, {"b": "café"}]]


def test_a_character_cut_by_the_previous_read_still_counts_as_valid_text() -> None:
    framer = JsonFramer()
    first = list(framer.feed(b'\xef\xbb\xbf{"a":1}\n{"b":"caf\xc3'))  # BOM, then a cut character
    assert first == [{"a": 1}]
    out: list[dict[str, Any]] = []
    with pytest.raises(ProviderProtocolError, match="bytes ff"):
        framer.feed_into(b'\xa9"}\n{"c":3}\n\xff', out)
    assert out == [{"b": "café"}, {"c": 3}]


def test_invalid_bytes_first_in_a_read_deliver_nothing_and_raise() -> None:
    framer = JsonFramer()
    assert list(framer.feed(b'{"a":1}\n')) == [{"a": 1}]
    with pytest.raises(ProviderProtocolError, match="bytes ff"):
        list(framer.feed(b"\xff"))
