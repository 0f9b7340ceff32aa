"""pi whose model request timed out raises the disconnect twin, not a connection error.

pi 0.73.1 ends the run with an assistant message whose ``errorMessage`` is "Request timed out.":
the OpenAI and Anthropic SDKs' ``APIConnectionTimeoutError``. It was a plain
``ProviderStreamError``. The SDKs stop that timer once the response headers arrive, so it fires
before any of the answer, but after the request was sent: the provider may have been reached and
may still be working on it, which is not "could not connect" (``ProviderStreamConnectionError``,
retryable). It is core's family for a client's own timeout, the disconnect twin.

``captures/request-timeout.jsonl`` was recorded from the real ``pi`` 0.73.1 (npm
``@mariozechner/pi-coding-agent``): ``pi --mode json --no-session --provider gw --model
fake-model`` with stdin "hello pi", a ``models.json`` naming an ``openai-completions`` provider
``gw`` on a loopback server that reads the request and never answers, and ``settings.json``
``{"retry": {"enabled": false, "provider": {"maxRetries": 0, "timeoutMs": 2000}}}``. The same
server sending its headers first makes pi wait past the 2 s instead (the timer had stopped).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lionagi.providers.pi import PiCliEndpoint
from lionagi.providers.pi._events import PiEventProjector
from lionagi.service import (
    ProviderDisconnectError,
    ProviderStreamConnectionError,
    ProviderStreamDisconnectError,
    ProviderStreamError,
    StreamChunk,
)

CAPTURE = Path(__file__).resolve().parent / "captures" / "request-timeout.jsonl"


def _chunks() -> list[StreamChunk]:
    projector = PiEventProjector()
    chunks: list[StreamChunk] = []
    for line in CAPTURE.read_text(encoding="utf-8").splitlines():
        if line.strip():
            chunks += projector.feed(json.loads(line))
    return chunks + projector.finish()


def _error(text: str) -> ProviderStreamError:
    return PiCliEndpoint().stream_error(StreamChunk("error", text, is_error=True))


def test_the_recorded_timeout_is_the_disconnect_twin() -> None:
    chunks = _chunks()
    (chunk,) = [c for c in chunks if c.type == "error"]
    assert not any(c.type in ("text", "tool_use") for c in chunks)
    assert chunk.content == "Request timed out."
    error = PiCliEndpoint().stream_error(chunk)
    assert type(error) is ProviderStreamDisconnectError, type(error)
    assert not isinstance(error, ProviderStreamConnectionError)
    assert error.kind == "stream_disconnect"


@pytest.mark.parametrize(
    "text",
    [
        # Longer texts that quote the words are not the SDKs' message.
        "Request timed out. The tool's own HTTP call, not the model",
        "bash: request timed out while fetching the page",
    ],
)
def test_only_the_whole_message_is_the_timeout(text: str) -> None:
    assert type(_error(text)) is not ProviderStreamDisconnectError


def test_on_stderr_the_same_message_is_the_family_itself() -> None:
    classifier = PiCliEndpoint().stderr_classifier()
    assert classifier is not None
    error = classifier("Request timed out.\n", returncode=1)
    assert type(error) is ProviderDisconnectError
