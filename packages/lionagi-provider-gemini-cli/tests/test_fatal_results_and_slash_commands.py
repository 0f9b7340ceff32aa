"""A failed result naming a ``Fatal*Error`` raises its family's twin; a slash command's text
line no longer ends the run.

Gemini CLI's ``handleError`` (``packages/cli/src/utils/errors.ts``) writes a failed ``result``
whose ``error.type`` is the ``Fatal*Error`` name and exits with its code. Every such name but
authentication and an untrusted folder raised a plain ``ProviderStreamError``.

``/memory show`` run headless prints "Memory is currently empty." between the events; core's
framer ended the run with ``ProviderProtocolError`` on that line. The run here is a small fake
``gemini`` writing what the real one does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from lionagi.providers.gemini_cli import GeminiCodeEndpoint, GeminiEventProjector
from lionagi.service import (
    EventStatus,
    ProviderConfigError,
    ProviderError,
    ProviderInvalidRequestError,
    ProviderPermissionError,
    ProviderStreamConfigError,
    ProviderStreamError,
    ProviderStreamInvalidRequestError,
    ProviderStreamPermissionError,
    ProviderStreamTurnLimitError,
    ProviderTurnLimitError,
    StreamChunk,
    iModel,
)

TS = "2026-12-06T06:00:00.000Z"
SID = "2b7d1f0e-5c3a-4e8b-9d6f-1a2b3c4d5e6f"
STATS = {"total_tokens": 0, "input_tokens": 0, "output_tokens": 0, "cached": 0}


def failed(error_type: str, message: str) -> StreamChunk:
    event = {
        "type": "result",
        "timestamp": TS,
        "status": "error",
        "error": {"type": error_type, "message": message},
        "stats": STATS,
    }
    (chunk,) = GeminiEventProjector().project(event)
    return chunk


@pytest.mark.parametrize(
    ("error_type", "message", "twin", "family"),
    [
        (
            "FatalInputError",
            "No previous sessions found for this project.",
            ProviderStreamInvalidRequestError,
            ProviderInvalidRequestError,
        ),
        (
            "FatalInputError",
            "Exiting due to command result that is not supported in non-interactive mode.",
            ProviderStreamInvalidRequestError,
            ProviderInvalidRequestError,
        ),
        (
            "FatalConfigError",
            "Invalid configuration in /home/dev/.gemini/settings.json",
            ProviderStreamConfigError,
            ProviderConfigError,
        ),
        (
            "FatalSandboxError",
            "Sandbox image is required",
            ProviderStreamConfigError,
            ProviderConfigError,
        ),
        (
            "FatalUntrustedWorkspaceError",
            "Gemini CLI is not running in a trusted directory.",
            ProviderStreamPermissionError,
            ProviderPermissionError,
        ),
        (
            "FatalTurnLimitedError",
            "Reached max session turns for this session. Increase the number of turns by "
            "specifying maxSessionTurns in settings.json.",
            ProviderStreamTurnLimitError,
            ProviderTurnLimitError,
        ),
    ],
)
def test_a_fatal_result_raises_its_familys_twin(
    error_type: str,
    message: str,
    twin: type[ProviderStreamError],
    family: type[ProviderError],
) -> None:
    raised = GeminiCodeEndpoint().stream_error(failed(error_type, message))
    assert type(raised) is twin
    assert isinstance(raised, family)
    assert raised.code == error_type
    assert not raised.retryable


SLASH_RUN_SCRIPT = """
import json, sys
sys.stdin.read()
ts, sid = {ts!r}, {sid!r}
def event(**fields):
    print(json.dumps(fields, separators=(",", ":")), flush=True)
event(type="init", timestamp=ts, session_id=sid, model="gemini-2.5-flash")
event(type="message", timestamp=ts, role="user", content="/memory show")
print("Memory is currently empty.", flush=True)
event(type="result", timestamp=ts, status="success", stats={stats!r})
"""


async def test_a_slash_command_printing_plain_text_completes(tmp_path: Path) -> None:
    script = tmp_path / "gemini.py"
    script.write_text(SLASH_RUN_SCRIPT.format(ts=TS, sid=SID, stats=STATS), encoding="utf-8")
    endpoint = GeminiCodeEndpoint(argv=(sys.executable, "-I", str(script)))
    async with iModel(endpoint=endpoint) as model:
        chunks = [c async for c in model.stream(prompt="/memory show")]
        call = await model.invoke(prompt="/memory show")
    notices = [c.metadata for c in chunks if c.type == "system" and "notice" in c.metadata]
    assert notices == [
        {"notice": "Memory is currently empty.", "severity": "info", "source": "stdout"}
    ]
    assert chunks[-1].type == "result"
    assert call.status is EventStatus.COMPLETED, call.execution.error


def test_the_endpoint_gives_core_its_plain_line_reader() -> None:
    reader = GeminiCodeEndpoint().plain_line_reader()
    assert reader is not None
    assert reader("Memory is currently empty.") is not None
    assert reader(json.dumps({"type": "result"})[:-3]) is None
