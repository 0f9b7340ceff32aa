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


def test_every_documented_include_value_and_tool_choice_mode_is_sent_as_written() -> None:
    include = [
        "file_search_call.results",
        "web_search_call.results",
        "web_search_call.action.sources",
        "message.input_image.image_url",
        "computer_call_output.output.image_url",
        "code_interpreter_call.outputs",
        "reasoning.encrypted_content",
        "message.output_text.logprobs",
    ]
    tools = [{"type": "function", "name": "f", "parameters": {"type": "object"}}]
    for mode in ("none", "auto", "required"):
        request = {"model": "gpt-5", "include": include, "tools": tools, "tool_choice": mode}
        payload = _payload("responses", request)
        assert (payload["include"], payload["tool_choice"]) == (include, mode)


def test_an_undocumented_include_value_is_refused_at_its_index() -> None:
    # A misspelled value went out as written and came back a 400 after the round trip.
    request = {"model": "gpt-5", "include": ["reasoning.encrypted_content", "reasoning.encrypted"]}
    with pytest.raises(EndpointConfigurationError) as bad:
        _payload("responses", request)
    assert bad.value.field == "include.1"
    assert "'reasoning.encrypted_content'" in str(bad.value)


@pytest.mark.parametrize("mode", ["any", "Auto", "function", ""])
def test_an_undocumented_tool_choice_string_is_refused_naming_the_modes(mode: str) -> None:
    with pytest.raises(EndpointConfigurationError) as bad:
        _payload("responses", {"model": "gpt-5", "tool_choice": mode})
    assert bad.value.field == "tool_choice"
    assert "'none', 'auto', 'required'" in str(bad.value)
