"""What the codex error-text tests share: a refused turn's events and the error chunk they give.

The module name is the package's own (``conftest.py`` puts this folder on ``sys.path``, which
``--import-mode=importlib`` does not), so no other package's helper can shadow it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.providers.codex._events import CodexEventParser
from lionagi.service import EventStatus, ProviderStreamError, StreamChunk, iModel
from lionagi.service_testing.conformance import replay_argv

CAPTURES = Path(__file__).parent / "captures"


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


def captured(name: str) -> list[dict[str, Any]]:
    """The events of the recorded run ``captures/<name>`` (JSON lines)."""
    lines = (CAPTURES / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def captured_error(name: str, text: str) -> ProviderStreamError:
    """The error the adapter makes of the recorded run ``captures/<name>``.

    Its error chunk must start with ``text``, the words codex printed, so a capture that no
    longer shows them fails here rather than passing for the wrong reason.
    """
    chunk = error_chunk(captured(name))
    assert chunk.content is not None
    assert chunk.content.startswith(text)
    return CodexCliEndpoint().stream_error(chunk)


async def stderr_only_failure(stderr: str, tmp_path: Path) -> BaseException:
    """The error of a run that prints ``ERROR: <stderr>`` on stderr alone and exits 1.

    Replayed through ``iModel`` (the real process path), so what is checked is what a caller
    gets; the run must fail with exit code 1 kept on the error.
    """
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": [], "stderr": f"ERROR: {stderr}\n", "exit_code": 1}))
    async with iModel(endpoint=CodexCliEndpoint(argv=replay_argv(plan))) as model:
        call = await model.invoke(prompt="hi")
    assert call.status is EventStatus.FAILED
    error = call.exception
    assert error is not None
    assert getattr(error, "returncode", None) == 1
    return error
