"""Responses request values OpenAI documents today are accepted.

``reasoning`` is a nested object and ``service_tier`` a declared field: ``extra_body`` can carry
neither (it is top-level only and may not repeat a declared field), so a documented value the
model refused could not be sent at all.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, match_endpoint


def _payload(endpoint: str, request: dict[str, Any]) -> dict[str, Any]:
    payload, _ = match_endpoint("openai", endpoint, api_key="sk-test").create_payload(request)
    return payload


@pytest.mark.parametrize(
    "reasoning",
    [
        {"effort": "max"},
        {"effort": "low", "context": "all_turns"},
        {"context": "current_turn", "mode": "pro"},
        {"generate_summary": "concise"},
    ],
)
def test_documented_responses_reasoning_keys_are_sent_as_written(
    reasoning: dict[str, Any],
) -> None:
    payload = _payload("responses", {"model": "gpt-5", "input": "hi", "reasoning": reasoning})
    assert payload["reasoning"] == reasoning


@pytest.mark.parametrize("tier", ["fast", "ultrafast"])
def test_documented_responses_service_tiers_are_accepted(tier: str) -> None:
    payload = _payload("responses", {"model": "gpt-5", "input": "hi", "service_tier": tier})
    assert payload["service_tier"] == tier


def test_unknown_values_and_keys_are_still_refused() -> None:
    with pytest.raises(EndpointConfigurationError) as level:
        _payload("responses", {"model": "gpt-5", "reasoning": {"effort": "maximum"}})
    assert level.value.field == "reasoning.effort"
    with pytest.raises(EndpointConfigurationError) as key:
        _payload("responses", {"model": "gpt-5", "reasoning": {"contxt": "auto"}})
    assert key.value.field == "reasoning.contxt"
    assert "did you mean 'context'" in str(key.value)


def test_chat_takes_the_max_reasoning_effort_too() -> None:
    messages = [{"role": "user", "content": "hi"}]
    request = {"model": "gpt-5", "messages": messages, "reasoning_effort": "max"}
    payload = _payload("chat/completions", request)
    assert payload["reasoning_effort"] == "max"


@pytest.mark.parametrize(
    ("endpoint", "prompt"),
    [
        ("chat", {"messages": [{"role": "user", "content": "hi"}]}),
        ("responses", {"input": "hi"}),
    ],
)
@pytest.mark.parametrize("retention", ["in_memory", "24h"])
def test_prompt_cache_retention_is_sent_as_written(
    endpoint: str, prompt: dict[str, Any], retention: str
) -> None:
    """Extended prompt caching (``prompt_cache_retention``) was refused as an unknown field."""
    body = {"model": "gpt-5.1", **prompt, "prompt_cache_retention": retention}
    assert _payload(endpoint, body)["prompt_cache_retention"] == retention
    with pytest.raises(EndpointConfigurationError) as info:
        _payload(endpoint, {**body, "prompt_cache_retention": "1h"})
    assert info.value.field == "prompt_cache_retention"


def test_responses_context_management_is_sent_as_written() -> None:
    """Server-side compaction (``context_management``) was refused as an unknown field."""
    entries = [{"type": "compaction", "compact_threshold": 200000}]
    body = {"model": "gpt-5.1", "input": "hi", "context_management": entries}
    assert _payload("responses", body)["context_management"] == entries
