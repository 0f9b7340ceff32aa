"""pi that cannot reach the model API raises ``ProviderStreamConnectionError``.

0.73.1 ends the run with an assistant message whose ``errorMessage`` is "Connection error." for a
refused connection, a host name that does not resolve and an address with no route alike: the
OpenAI and Anthropic SDKs' ``APIConnectionError``, thrown when the request got no response at
all. It was a plain ``ProviderStreamError``; it is core's connection family now, retryable like
an HTTP connect failure, while pi's bare "terminated" (a stream cut mid-answer) stays the
disconnect family. The rule matches the whole message only.

pi retries it itself by default (its agent loop and the SDK's own retries); an isolated home
turns both off, so the run fails at once.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from lionagi.providers.pi import PiCliEndpoint
from lionagi.providers.pi._events import PiEventProjector
from lionagi.service import (
    EventStatus,
    ProviderConnectionError,
    ProviderStreamConnectionError,
    ProviderStreamDisconnectError,
    ProviderStreamError,
    StreamChunk,
)
from lionagi.service_testing.real_clis import require_real_cli
from lionagi.service_testing.real_tier import (
    FailedRun,
    closed_port,
    isolated_model,
    stream_then_invoke,
)

CAPTURES = Path(__file__).resolve().parent / "captures"


def _error_chunk_of(name: str) -> StreamChunk:
    """The one error chunk of the recorded run ``captures/<name>.jsonl``."""
    lines = (CAPTURES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    projector = PiEventProjector()
    chunks: list[StreamChunk] = []
    for line in lines:
        if line.strip():
            chunks += projector.feed(json.loads(line))
    chunks += projector.finish()
    (error,) = [c for c in chunks if c.type == "error"]
    return error


def _error(text: str) -> ProviderStreamError:
    return PiCliEndpoint().stream_error(StreamChunk("error", text, is_error=True))


def test_the_server_down_capture_is_the_connection_twin() -> None:
    chunk = _error_chunk_of("server-down")
    assert chunk.content == "Connection error."
    error = PiCliEndpoint().stream_error(chunk)
    assert type(error) is ProviderStreamConnectionError, type(error)
    assert error.kind == "connection"
    assert error.retryable


@pytest.mark.parametrize(
    "text",
    [
        # Other messages: the rule is the SDKs' whole message only.
        "Connection error. The tool's own server refused it, but the model answered",
        "database connection error in the tool",
    ],
)
def test_other_messages_are_not_the_connection_family(text: str) -> None:
    assert not isinstance(_error(text), ProviderConnectionError)


def test_a_cut_stream_stays_a_disconnect() -> None:
    assert type(_error("terminated")) is ProviderStreamDisconnectError


def test_on_stderr_the_same_message_is_the_family_itself() -> None:
    classifier = PiCliEndpoint().stderr_classifier()
    assert classifier is not None
    assert type(classifier("Connection error.\n", returncode=1)) is ProviderConnectionError


# -- the real binary ------------------------------------------------------------------------------

CALL_DEADLINE = 60.0
KEY = "sk-real-pi-0123456789abcdef"


async def _failed(gateway: str, marker: str) -> FailedRun:
    pi = require_real_cli("pi")
    async with isolated_model("pi/fake-model", pi, gateway, marker, api_key=KEY) as model:
        return await stream_then_invoke(model, deadline=CALL_DEADLINE, prompt="hello")


@pytest.mark.real_cli
@pytest.mark.timeout(240)
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
    assert str(error) == "Connection error."
    assert [c.type for c in chunks].count("error") == 1
    assert not any(c.type in ("text", "tool_use") for c in chunks)
    assert call.status is EventStatus.FAILED
    assert type(call.exception) is ProviderStreamConnectionError
    assert KEY not in str(error)
