"""Telemetry's token counts of OpenAI usage records carry the cached part of the input.

OpenAI's input count already includes the cached tokens (as the GenAI conventions' does); the
cached part is in ``prompt_tokens_details`` (chat) or ``input_tokens_details`` (Responses).
"""

from __future__ import annotations

from lionagi.providers.openai import OpenAIChatCompletionsEndpoint, OpenAIResponsesEndpoint
from lionagi.service import Endpoint, match_endpoint


def _endpoint(row: str, cls: type[Endpoint]) -> Endpoint:
    endpoint = match_endpoint("openai", row, api_key="sk-test-0123456789")
    assert type(endpoint) is cls
    return endpoint


def _cache(counts: object) -> tuple[object, object]:
    return getattr(counts, "cache_read", 0), getattr(counts, "cache_creation", 0)


def test_chat_reads_prompt_tokens_details() -> None:
    usage = {
        "prompt_tokens": 125,
        "completion_tokens": 7,
        "total_tokens": 132,
        "prompt_tokens_details": {"cached_tokens": 100, "audio_tokens": 0},
    }
    counts = _endpoint("chat", OpenAIChatCompletionsEndpoint).token_counts(usage)
    assert counts == (125, 7)  # not 225: the cached tokens are already in prompt_tokens
    assert _cache(counts) == (100, None)


def test_responses_reads_input_tokens_details() -> None:
    usage = {
        "input_tokens": 125,
        "input_tokens_details": {"cached_tokens": 100, "cache_write_tokens": 25},
        "output_tokens": 7,
        "total_tokens": 132,
    }
    counts = _endpoint("responses", OpenAIResponsesEndpoint).token_counts(usage)
    assert counts == (125, 7)
    assert _cache(counts) == (100, 25)


def test_missing_or_null_details_report_no_cache_count() -> None:
    chat = _endpoint("chat", OpenAIChatCompletionsEndpoint)
    for usage in (
        {"prompt_tokens": 9, "completion_tokens": 2},
        {"prompt_tokens": 9, "completion_tokens": 2, "prompt_tokens_details": None},
    ):
        counts = chat.token_counts(usage)
        assert counts == (9, 2)
        assert _cache(counts) == (None, None)
