"""What the codex error-text tests share: a refused turn's events and the error chunk they give.

The module name is the package's own (``conftest.py`` puts this folder on ``sys.path``, which
``--import-mode=importlib`` does not), so no other package's helper can shadow it.
"""

from __future__ import annotations

from typing import Any

from lionagi.providers.codex._events import CodexEventParser
from lionagi.service import StreamChunk


def failed_run(message: str) -> list[dict[str, Any]]:
    """The events ``codex exec --json`` prints for a turn the API refused with ``message``."""
    return [
        {"type": "thread.started", "thread_id": "019a0000-0000-7000-8000-0000000000b2"},
        {"type": "turn.started"},
        {"type": "error", "message": message},
        {"type": "turn.failed", "error": {"message": message}},
    ]


def error_chunk(events: list[dict[str, Any]]) -> StreamChunk:
    """The first error chunk the adapter's parser makes of ``events``."""
    parser = CodexEventParser(model="m")
    for event in events:
        for chunk in parser.feed(event):
            if chunk.type == "error":
                return chunk
    raise AssertionError("no error chunk")
