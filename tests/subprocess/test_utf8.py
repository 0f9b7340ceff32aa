"""CLI stdout follows the same strict UTF-8 policy as HTTP bodies (docs/decisions.md, bytes)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from lionagi.service import ProviderProtocolError
from lionagi.service._transport.subprocess import json_events_from_process
from lionagi.service_testing.fake_clis import fake_cli_argv

HANG_GUARD = 30.0  # seconds; only a hang can exceed this


async def test_stdout_cut_inside_a_character_is_refused_not_repaired() -> None:
    """A repairable tail that ends inside a UTF-8 character must not become a U+FFFD event."""
    repaired: list[str] = []

    def repair(tail: str) -> dict[str, Any]:
        repaired.append(tail)
        return {"type": "result", "result": tail}

    argv = fake_cli_argv("emit", "--events", "1", "--raw", r'{"type":"result","result":"caf\xc3')
    seen: list[dict[str, Any]] = []
    with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderProtocolError, match="UTF-8"):
        async for event in json_events_from_process(argv, tail_repair=repair):
            seen.append(event)
    assert len(seen) == 1
    assert repaired == []


async def test_invalid_utf8_on_stdout_is_refused() -> None:
    argv = fake_cli_argv("emit", "--events", "1", "--raw", r'{"type":"x","t":"\xff"}\n')
    with anyio.fail_after(HANG_GUARD), pytest.raises(ProviderProtocolError, match="UTF-8"):
        async for _ in json_events_from_process(argv):
            pass
