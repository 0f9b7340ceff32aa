"""The recorded Claude Code runs (``captures/``) and how the endpoint replays them.

Shared by the tests of each recorded version (``captures/*.jsonl`` for 2.1.197, ``captures/
2.1.332/``). The module name is the package's own: ``conftest.py`` puts this folder on
``sys.path`` (``--import-mode=importlib`` does not), where another package's helper of a generic
name could shadow it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lionagi.providers.claude_code import ClaudeCodeEndpoint, ClaudeEventMapper
from lionagi.service import StreamChunk

CAPTURES = Path(__file__).parent / "captures"


def capture(name: str, version: str = "") -> list[dict[str, Any]]:
    """The events of ``captures/[<version>/]<name>.jsonl``, one JSON object per line."""
    folder = CAPTURES / version if version else CAPTURES
    lines = (folder / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def replay(events: list[dict[str, Any]]) -> list[StreamChunk]:
    """What the endpoint yields for ``events``: chunks until the first error, then finish()."""
    mapper = ClaudeEventMapper()
    out: list[StreamChunk] = []
    for event in events:
        for chunk in mapper.feed(event):
            out.append(chunk)
            if chunk.type == "error":
                return out
    return out + mapper.finish()


# What the adapter's error chunk carries for a failed API request (the assistant message's
# ``error``, the result's subtype): 2.1.332 labels refused, dropped and timed-out requests alike.
SERVER_ERROR_META = {"code": "server_error", "type": "success"}


def error_for(text: str) -> Exception:
    """What the endpoint raises for an error chunk of ``text`` labelled as 2.1.332 labels it."""
    chunk = StreamChunk("error", text, is_error=True, metadata=SERVER_ERROR_META)
    return ClaudeCodeEndpoint().stream_error(chunk)
