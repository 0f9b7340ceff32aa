"""A model stream that ended without a finish reason is core's protocol family.

Gemini CLI 0.61 judges a Gemini stream complete only once a candidate carries a
``finishReason``; a stream that ends before one (and made no tool call) is its
``InvalidStreamError`` ``NO_FINISH_REASON`` (``packages/core/src/core/geminiChat.ts``), which
it retries mid-stream and then reports as an ``error`` event, "Model stream ended without a
finish reason.", followed by a failed ``result`` with no ``error`` object, exit 0
(``captures/gemini-no-finish-reason.stdout``: the real CLI against a server that sent one
chunk of text and ended the stream). It is the fault core's own Gemini HTTP adapter raises
as ``ProviderProtocolError`` for the same cut stream, so the CLI's report is that family's
stream twin, not retried (the CLI has already retried it), instead of an unclassified error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lionagi.providers.gemini_cli import GeminiCodeEndpoint
from lionagi.service import (
    EventStatus,
    ProviderProtocolError,
    ProviderStreamProtocolError,
    iModel,
)
from lionagi.service_testing.conformance import replay_argv

pytestmark = pytest.mark.anyio

CAPTURE = Path(__file__).parent / "captures" / "gemini-no-finish-reason.stdout"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_stream_cut_before_its_finish_reason_is_the_protocol_twin(
    tmp_path: Path,
) -> None:
    events = [json.loads(line) for line in CAPTURE.read_text("utf-8").splitlines()]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": events}), encoding="utf-8")
    endpoint = GeminiCodeEndpoint(argv=replay_argv(plan))
    try:
        call = await iModel(endpoint=endpoint).invoke(prompt="say hi")
    finally:
        await endpoint.aclose()
    assert call.status is EventStatus.FAILED
    error = call.exception
    assert type(error) is ProviderStreamProtocolError, repr(error)
    assert isinstance(error, ProviderProtocolError)
    assert "without a finish reason" in str(error)
    assert not error.retryable
