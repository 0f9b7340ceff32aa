"""Custom tool options Anthropic documents (``strict``, ``input_examples``, ...) are accepted.

They live inside ``tools``, where ``extra_body`` (top-level only) cannot carry them, so a tool
using one was refused as an unknown field with no way to send it.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, match_endpoint

TOOL: dict[str, Any] = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def _payload(tool: dict[str, Any]) -> dict[str, Any]:
    endpoint = match_endpoint("anthropic", "messages", api_key="sk-ant-test")
    payload, _ = endpoint.create_payload(
        {
            "model": "claude-sonnet-4-5",
            "messages": [{"role": "user", "content": "Weather in Paris?"}],
            "tools": [tool],
        }
    )
    return payload


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("strict", True),
        ("input_examples", [{"city": "Paris"}]),
        ("defer_loading", True),
        ("allowed_callers", ["code_execution_20250825"]),
        ("eager_input_streaming", True),
    ],
)
def test_a_documented_custom_tool_option_is_sent_as_written(key: str, value: Any) -> None:
    tool = {**TOOL, key: value}
    assert _payload(tool)["tools"] == [tool]


def test_the_options_stay_strict_and_misspellings_are_still_refused() -> None:
    with pytest.raises(EndpointConfigurationError) as coerced:
        _payload({**TOOL, "strict": 1})
    assert coerced.value.field == "tools.0.custom.strict"
    with pytest.raises(EndpointConfigurationError) as misspelled:
        _payload({**TOOL, "strikt": True})
    assert misspelled.value.field == "tools.0.custom.strikt"
