"""Gemini CLI that cannot reach the model API raises ``ProviderStreamConnectionError``.

0.61.0 ends the run with a failed ``result`` whose message is "[API Error: exception TypeError:
fetch failed sending request]" for a refused connection, a host name that does not resolve and
an address with no route alike: undici's fetch rejected before any response arrived. That was
the disconnect twin (one rule held the refused connection, the reset and the cut stream); it is
core's connection family now, retryable like an HTTP connect failure, while a stream cut after
it started ("[API Error: terminated]", a reset) stays the disconnect family.

The CLI retries "fetch failed" itself (``general.retryFetchErrors``, up to ``general.maxAttempts``
= 10 by default); an isolated home sets them to false and 1, so the run fails at once.
"""

from __future__ import annotations

import time

import pytest

from lionagi.providers.gemini_cli import GeminiCodeEndpoint, GeminiEventProjector
from lionagi.providers.gemini_cli._errors import classify_exit
from lionagi.service import (
    EventStatus,
    ProviderConnectionError,
    ProviderDisconnectError,
    ProviderStreamConnectionError,
    ProviderStreamDisconnectError,
    StreamChunk,
)
from lionagi.service_testing.real_clis import require_real_cli
from lionagi.service_testing.real_tier import (
    FailedRun,
    closed_port,
    isolated_model,
    stream_then_invoke,
)

FETCH_FAILED = "[API Error: exception TypeError: fetch failed sending request]"


def _error_chunk(message: str) -> StreamChunk:
    """The chunk of the failed ``result`` event the CLI printed (``error.type`` "unknown")."""
    event = {"type": "result", "status": "error", "error": {"type": "unknown", "message": message}}
    (chunk,) = GeminiEventProjector().project(event)
    assert chunk.type == "error"
    return chunk


def test_fetch_failed_is_the_connection_twin() -> None:
    error = GeminiCodeEndpoint().stream_error(_error_chunk(FETCH_FAILED))
    assert type(error) is ProviderStreamConnectionError, type(error)
    assert error.kind == "connection"
    assert error.retryable
    assert not isinstance(error, ProviderDisconnectError)


@pytest.mark.parametrize(
    "text",
    ["[API Error: terminated]", "[API Error: read ECONNRESET]", "[API Error: socket hang up]"],
)
def test_a_cut_stream_or_a_reset_stays_a_disconnect(text: str) -> None:
    error = GeminiCodeEndpoint().stream_error(_error_chunk(text))
    assert type(error) is ProviderStreamDisconnectError


@pytest.mark.parametrize(
    "stderr",
    [
        f"Error when talking to Gemini API {FETCH_FAILED}",
        # The OAuth (Code Assist) path's request library words a refused connection in Node's.
        "request to http://127.0.0.1:9/v1internal failed, reason: connect ECONNREFUSED 127.0.0.1:9",
        "getaddrinfo ENOTFOUND nohost.invalid",
    ],
)
def test_on_stderr_an_unreachable_api_is_the_family_itself(stderr: str) -> None:
    error = classify_exit(stderr, returncode=1)
    assert type(error) is ProviderConnectionError, type(error)


# -- the real binary ------------------------------------------------------------------------------

CALL_DEADLINE = 60.0
KEY = "fake-gemini-key"


async def _failed(gateway: str, marker: str) -> FailedRun:
    gemini = require_real_cli("gemini")
    async with isolated_model("gemini-cli", gemini, gateway, marker, api_key=KEY) as model:
        return await stream_then_invoke(model, deadline=CALL_DEADLINE, prompt="hi")


@pytest.mark.real_cli
@pytest.mark.timeout(180)
@pytest.mark.parametrize(
    "host", ["127.0.0.1:{port}", "nohost.invalid:8080"], ids=["refused", "unresolvable"]
)
async def test_an_unreachable_api_is_the_connection_twin(host: str, real_cli_marker: str) -> None:
    """The ``.invalid`` case assumes the resolver answers it negatively (RFC 6761)."""
    gateway = "http://" + host.format(port=closed_port())
    started = time.monotonic()
    run = await _failed(gateway, real_cli_marker)
    chunks, error, call = run.chunks, run.error, run.call
    assert time.monotonic() - started < 2 * CALL_DEADLINE
    assert type(error) is ProviderStreamConnectionError, repr(error)
    assert "fetch failed" in str(error)
    assert [c.type for c in chunks].count("error") == 1
    assert not any(c.type in ("text", "tool_use") for c in chunks)
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderStreamConnectionError
    assert KEY not in str(error)
