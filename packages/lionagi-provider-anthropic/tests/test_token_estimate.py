"""A token-limited Anthropic model counts the top-level ``system`` and ``tools`` too.

Core's estimate reads ``messages`` only; the Messages API keeps the instructions and the tool
definitions apart, so a long system prompt or a large tool set was left out of the
``limit_tokens`` reservation (Anthropic counts both as input tokens).
"""

from __future__ import annotations

from lionagi.service import iModel

MESSAGES = [{"role": "user", "content": "x" * 400}]


def test_the_system_prompt_counts_toward_the_estimate() -> None:
    model = iModel(
        model="anthropic/claude-x",
        api_key="sk-ant-token-estimate-test-000",
        requires_tokens=True,
        limit_tokens=100_000,
    )
    alone = model.create_api_calling(messages=MESSAGES, max_tokens=64)
    with_system = model.create_api_calling(messages=MESSAGES, max_tokens=64, system="s" * 800)
    assert alone.required_tokens is not None
    assert alone.required_tokens >= 100
    assert with_system.required_tokens is not None
    assert with_system.required_tokens >= alone.required_tokens + 200


def test_the_tool_definitions_count_toward_the_estimate() -> None:
    model = iModel(
        model="anthropic/claude-x",
        api_key="sk-ant-token-estimate-test-000",
        requires_tokens=True,
        limit_tokens=100_000,
    )
    tool = {
        "name": "lookup",
        "description": "d" * 800,
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
    }
    alone = model.create_api_calling(messages=MESSAGES, max_tokens=64)
    with_tools = model.create_api_calling(messages=MESSAGES, max_tokens=64, tools=[tool])
    assert alone.required_tokens is not None
    assert with_tools.required_tokens is not None
    assert with_tools.required_tokens >= alone.required_tokens + 200
