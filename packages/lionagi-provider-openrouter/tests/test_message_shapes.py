"""OpenRouter's message fields: accepted on its row, refused by the shared dialect's model.

A text part's ``cache_control`` breakpoint and an assistant turn's ``reasoning`` and
``reasoning_details`` are OpenRouter's; a typo in them is still refused, and they go out as
written.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, OpenAIChatCompletionsRequest, match_endpoint

MESSAGES: list[dict[str, Any]] = [
    {
        "role": "system",
        "content": [
            {"type": "text", "text": "A long document.", "cache_control": {"type": "ephemeral"}}
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": "Summarize.",
                "cache_control": {"type": "ephemeral", "ttl": "1h"},
            }
        ],
    },
    {
        "role": "assistant",
        "content": "Thinking done.",
        "reasoning": "First, ...",
        "reasoning_details": [{"type": "reasoning.text", "text": "First, ...", "format": "x"}],
    },
]


def _payload(messages: list[dict[str, Any]]) -> dict[str, Any]:
    ep = match_endpoint("openrouter", "chat", api_key="k-openrouter-0123456789")
    payload, _ = ep.create_payload({"model": "openai/gpt-4.1", "messages": messages})
    return payload


def test_cache_control_and_reasoning_are_accepted_and_sent_as_written() -> None:
    assert _payload(MESSAGES)["messages"] == MESSAGES


@pytest.mark.parametrize(
    ("message", "field", "says"),
    [
        (
            {"role": "user", "content": [{"type": "text", "text": "x", "cache_contrl": {}}]},
            "messages.0.content.0.cache_contrl",
            "did you mean 'cache_control'?",
        ),
        (
            {
                "role": "user",
                "content": [{"type": "text", "text": "x", "cache_control": {"type": "ephemral"}}],
            },
            "messages.0.content.0.cache_control.type",
            "",
        ),
        (
            {"role": "assistant", "content": "x", "reasonng": "y"},
            "messages.0.reasonng",
            "did you mean 'reasoning'?",
        ),
    ],
)
def test_a_bad_openrouter_field_is_still_refused(
    message: dict[str, Any], field: str, says: str
) -> None:
    with pytest.raises(EndpointConfigurationError) as refused:
        _payload([message])
    assert refused.value.field == field
    assert says in str(refused.value)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_the_shared_dialect_does_not_take_them(index: int) -> None:
    with pytest.raises(ValueError, match=r"messages\.0\."):
        OpenAIChatCompletionsRequest.model_validate({"model": "m", "messages": [MESSAGES[index]]})
