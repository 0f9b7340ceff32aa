"""Telemetry's token counts of an Anthropic usage record include the prompt cache.

Anthropic's ``input_tokens`` are only the tokens after the last cache breakpoint; the cache
reads and writes are reported apart. The GenAI conventions' input count includes them, so the
endpoint adds them back and reports each on its own (``TokenCounts``).
"""

from __future__ import annotations

from typing import Any

from lionagi.service import match_endpoint


def _counts(usage: dict[str, Any]) -> Any:
    return match_endpoint("anthropic", "messages", api_key="sk-ant-test-0123456789").token_counts(
        usage
    )


def test_input_includes_cache_reads_and_writes() -> None:
    usage = {
        "input_tokens": 5,
        "cache_read_input_tokens": 100,
        "cache_creation_input_tokens": 20,
        "output_tokens": 7,
    }
    counts = _counts(usage)
    assert counts == (125, 7)
    assert (getattr(counts, "cache_read", None), getattr(counts, "cache_creation", None)) == (
        100,
        20,
    )


def test_a_record_without_cache_fields_reports_none_of_them() -> None:
    counts = _counts({"input_tokens": 5, "output_tokens": 7})
    assert counts == (5, 7)
    assert (getattr(counts, "cache_read", 0), getattr(counts, "cache_creation", 0)) == (
        None,
        None,
    )


def test_a_null_cache_count_is_no_count() -> None:
    # The API sends null cache fields on some paths (the projector drops them, a body keeps them).
    usage = {"input_tokens": 5, "cache_read_input_tokens": None, "output_tokens": 7}
    counts = _counts(usage)
    assert counts == (5, 7)
    assert getattr(counts, "cache_read", 0) is None
