"""A Responses answer the content filter ended (``response.incomplete``) is that family.

Codex 0.171.0 fails the turn when the stream ends with ``response.incomplete`` whose reason is
``content_filter``, and prints "stream disconnected before completion: Incomplete response
returned, reason: content_filter" (``captures/codex-incomplete-content-filter.jsonl``: the
real binary with the fail-fast provider table against a server answering only that event; with
codex's default retries it prints five "Reconnecting... n/5 (...)" notices first and then the
same text). The words "stream disconnected before completion" made it core's disconnect
family, flagged retryable, although the same prompt is refused the same way; it is the content
filter's refusal, never retried, as the OpenAI adapter reads the same ``incomplete_details``.
Older builds print the text without the disconnect prefix; both forms are the family.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codex_runs import error_chunk, failed_run

from lionagi.providers.codex import CodexCliEndpoint
from lionagi.service import ProviderContentFilterError, ProviderStreamContentFilterError

CAPTURE = Path(__file__).parent / "captures" / "codex-incomplete-content-filter.jsonl"
CUT = "Incomplete response returned, reason: content_filter"


def test_the_captured_content_filter_cut_is_the_content_filter_twin() -> None:
    lines = CAPTURE.read_text(encoding="utf-8").splitlines()
    chunk = error_chunk([json.loads(line) for line in lines if line.strip()])
    assert chunk.content == f"stream disconnected before completion: {CUT}"
    error = CodexCliEndpoint().stream_error(chunk)
    assert type(error) is ProviderStreamContentFilterError, repr(error)
    assert isinstance(error, ProviderContentFilterError)
    assert error.retryable is False


@pytest.mark.parametrize(
    "message", [CUT, f"stream error: {CUT}", f"stream disconnected before completion: {CUT}"]
)
def test_every_form_of_the_content_filter_cut_is_the_family(message: str) -> None:
    error = CodexCliEndpoint().stream_error(error_chunk(failed_run(message)))
    assert type(error) is ProviderStreamContentFilterError, repr(error)
