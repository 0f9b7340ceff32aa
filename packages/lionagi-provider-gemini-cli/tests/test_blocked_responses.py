"""A response the model's safety or recitation filter blocked is the content-filter family.

Gemini CLI 0.61 turns an empty answer whose ``finishReason`` is ``SAFETY`` or ``RECITATION``
into an ``InvalidStreamError`` and reports it in its own words, an ``error`` event (severity
``error``) followed by a failed ``result`` with no ``error`` object, and exits 0
(``packages/core/src/core/geminiChat.ts``, ``packages/cli/src/nonInteractiveCli.ts``; the
messages are ``SAFETY_BLOCKED_MESSAGE`` and ``RECITATION_BLOCKED_MESSAGE``). No generic phrase
matched that wording, so a blocked answer raised a plain ``ProviderStreamError``: a caller could
not tell "the content was refused, sending it again gets the same answer" from an unknown
failure. The captures are the real CLI's output against a server answering with each finish
reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lionagi.providers.gemini_cli import GeminiCodeEndpoint, GeminiEventProjector
from lionagi.service import (
    EventStatus,
    ProviderContentFilterError,
    ProviderStreamContentFilterError,
    ProviderStreamError,
    iModel,
)
from lionagi.service_testing.conformance import replay_argv

pytestmark = pytest.mark.anyio

CAPTURES = Path(__file__).parent / "captures"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize(
    ("capture", "wording"),
    [
        ("gemini-safety-blocked.stdout", "blocked due to safety settings"),
        ("gemini-recitation-blocked.stdout", "blocked due to recitation/copyright filters"),
    ],
)
async def test_a_blocked_response_is_the_content_filter_twin(
    tmp_path: Path, capture: str, wording: str
) -> None:
    events = [json.loads(line) for line in (CAPTURES / capture).read_text("utf-8").splitlines()]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"events": events}), encoding="utf-8")
    endpoint = GeminiCodeEndpoint(argv=replay_argv(plan))
    try:
        call = await iModel(endpoint=endpoint).invoke(prompt="say hi")
    finally:
        await endpoint.aclose()
    assert call.status is EventStatus.FAILED
    error = call.exception
    assert type(error) is ProviderStreamContentFilterError, repr(error)
    assert isinstance(error, ProviderContentFilterError)
    assert wording in str(error)
    assert not error.retryable


def test_other_invalid_streams_stay_unclassified() -> None:
    # The CLI's other empty-answer reports name no refusal: they stay plain stream errors.
    endpoint = GeminiCodeEndpoint()
    for text in (
        "The model returned an empty response with no text or thoughts. This may be a "
        "transient API issue; please try again.",
    ):
        projector = GeminiEventProjector()
        projector.project({"type": "error", "severity": "error", "message": text})
        (failed,) = projector.project({"type": "result", "status": "error", "stats": {}})
        raised = endpoint.stream_error(failed)
        assert type(raised) is ProviderStreamError, text
