"""DeepSeek's message fields: accepted on its row, refused by the shared dialect's model.

An assistant message's ``prefix`` (chat prefix completion, beta) and ``reasoning_content`` are
DeepSeek's; a typo in them is still refused, and they go out as written.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, OpenAIChatCompletionsRequest, match_endpoint

PREFIX: list[dict[str, Any]] = [
    {"role": "user", "content": "Write quick sort in Python."},
    {"role": "assistant", "content": "```python\n", "prefix": True, "reasoning_content": "Plan."},
]


def _payload(messages: list[dict[str, Any]]) -> dict[str, Any]:
    ep = match_endpoint("deepseek", "chat", api_key="k-deepseek-0123456789")
    payload, _ = ep.create_payload({"model": "deepseek-chat", "messages": messages})
    return payload


def test_prefix_and_reasoning_content_are_accepted_and_sent_as_written() -> None:
    assert _payload(PREFIX)["messages"] == PREFIX


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ({"role": "assistant", "content": "x", "prefx": True}, "messages.0.prefx"),
        ({"role": "assistant", "content": "x", "prefix": "yes"}, "messages.0.prefix"),
        ({"role": "user", "content": "x", "prefix": True}, "messages.0.prefix"),
    ],
)
def test_a_bad_deepseek_field_is_still_refused(message: dict[str, Any], field: str) -> None:
    with pytest.raises(EndpointConfigurationError) as refused:
        _payload([message])
    assert refused.value.field == field


def test_the_shared_dialect_does_not_take_them() -> None:
    with pytest.raises(ValueError, match=r"messages\.1\.(prefix|reasoning_content)"):
        OpenAIChatCompletionsRequest.model_validate({"model": "m", "messages": PREFIX})
