"""Codex that cannot reach its gateway raises ``ProviderStreamConnectionError``.

0.171.0 reports a refused connection and a gateway host that does not resolve in the same words,
"Connection failed: error sending request" (codex-rs ``ConnectionFailed``: reqwest could not send
the request, so nothing answered). That was the disconnect twin, whose family means a stream
cut after it started and is never retried; it is core's connection family now, retryable like
an HTTP connect failure. Codex's own report of a dropped stream ("stream disconnected before
completion", even when it quotes a refused connection) stays the disconnect family.

Codex retries both itself (``request_max_retries`` / ``stream_max_retries``, and with
``unbounded_connection_retries`` it waits for the network forever); an isolated home turns that
off, so the run fails at once.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.providers.codex._events import CodexEventParser
from lionagi.service import (
    EventStatus,
    ProviderConnectionError,
    ProviderDisconnectError,
    ProviderStreamConnectionError,
    ProviderStreamDisconnectError,
    StreamChunk,
    iModel,
)
from lionagi.service_testing.real_clis import require_real_cli
from lionagi.service_testing.real_tier import (
    FailedRun,
    closed_port,
    isolated_settings,
    stream_then_invoke,
)

CAPTURES = Path(__file__).parent / "captures"
TEXT = "Connection failed: error sending request"


def _replay(name: str) -> list[StreamChunk]:
    parser = CodexEventParser(model="m")
    chunks: list[StreamChunk] = []
    lines = (CAPTURES / name).read_text(encoding="utf-8").splitlines()
    for line in lines:
        if line.strip():
            chunks += parser.feed(json.loads(line))
            if chunks and chunks[-1].type == "error":
                return chunks
    return chunks + parser.finish()


def test_the_server_down_capture_is_the_connection_twin() -> None:
    (error_chunk,) = [c for c in _replay("codex-server-down.jsonl") if c.type == "error"]
    assert error_chunk.content == TEXT
    error = CodexCliEndpoint().stream_error(error_chunk)
    assert type(error) is ProviderStreamConnectionError, type(error)
    assert error.kind == "connection"
    assert error.retryable
    assert not isinstance(error, ProviderDisconnectError)


def test_on_stderr_the_same_text_is_the_family_itself() -> None:
    classifier = CodexCliEndpoint().stderr_classifier()
    assert classifier is not None
    error = classifier(f"ERROR: {TEXT}", returncode=1)
    assert type(error) is ProviderConnectionError


@pytest.mark.parametrize(
    "text",
    [
        "stream disconnected before completion: error sending request for url "
        "(http://127.0.0.1:9/v1/responses)",
        "Reconnecting... 5/5 (stream disconnected before completion: failed to lookup address "
        "information: Name does not resolve)",
    ],
)
def test_a_dropped_stream_stays_a_disconnect(text: str) -> None:
    error = CodexCliEndpoint().stream_error(StreamChunk("error", text, is_error=True))
    assert type(error) is ProviderStreamDisconnectError


# -- the real binary ------------------------------------------------------------------------------

CALL_DEADLINE = 60.0
KEY = "sk-fake-codex-key"


def _model(gateway: str, marker: str, cwd: Path) -> iModel:
    binary = require_real_cli("codex")
    settings = isolated_settings(binary, gateway, marker, api_key=KEY, cwd=cwd)
    return iModel(
        model="codex", request_defaults={"skip_git_repo_check": True}, agentic_settings=settings
    )


async def _failed(gateway: str, marker: str, cwd: Path) -> FailedRun:
    async with _model(gateway, marker, cwd) as model:
        return await stream_then_invoke(model, deadline=CALL_DEADLINE, prompt="hi")


@pytest.mark.real_cli
@pytest.mark.timeout(180)
@pytest.mark.parametrize(
    "host",
    ["127.0.0.1:{port}", "nohost.invalid:8080"],
    ids=["refused", "unresolvable"],
)
async def test_an_unreachable_gateway_is_the_connection_twin(
    host: str, real_cli_marker: str, tmp_path: Path
) -> None:
    """The ``.invalid`` case assumes the resolver answers it negatively (RFC 6761)."""
    gateway = "http://" + host.format(port=closed_port())
    started = time.monotonic()
    run = await _failed(gateway, real_cli_marker, tmp_path)
    chunks, error, call = run.chunks, run.error, run.call
    assert time.monotonic() - started < 2 * CALL_DEADLINE
    assert type(error) is ProviderStreamConnectionError, repr(error)
    assert TEXT in str(error)
    assert [c.type for c in chunks].count("error") == 1
    assert not any(c.type in ("text", "tool_use") for c in chunks)
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderStreamConnectionError
    assert KEY not in str(error)
