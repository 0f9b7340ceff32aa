from __future__ import annotations

from lionagi.service import match_endpoint
from lionagi.service.http import ChatCompletionsProjector
from lionagi.service_testing.conformance import CatalogRow, HTTPChatConformance


class TestDeepSeekChat(CatalogRow, HTTPChatConformance):
    provider = "deepseek"
    dialect = "openai_chat"
    tool_calls = reasoning = True


def test_reasoning_content_deltas_are_thinking_then_text() -> None:
    projector = ChatCompletionsProjector()
    events = [
        {"model": "deepseek-reasoner", "choices": [{"index": 0, "delta": {"role": "assistant"}}]},
        {"choices": [{"index": 0, "delta": {"reasoning_content": "9.11 < 9.9"}}]},
        {"choices": [{"index": 0, "delta": {"content": "9.9", "reasoning_content": None}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    chunks = [c for event in events for c in projector.feed(event)]
    chunks += projector.end(eof=False)
    assert [(c.type, c.content) for c in chunks[:2]] == [
        ("thinking", "9.11 < 9.9"),
        ("text", "9.9"),
    ]
    assert chunks[-1].metadata["model"] == "deepseek-reasoner"


def test_thinking_switch_is_typed() -> None:
    ep = match_endpoint("deepseek", "chat", api_key="k")
    payload, _ = ep.create_payload({"model": "m", "messages": [], "thinking": {"type": "enabled"}})
    assert payload["thinking"] == {"type": "enabled"}
