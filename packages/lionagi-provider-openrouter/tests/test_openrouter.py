from __future__ import annotations

import pytest

from lionagi.service import EndpointConfigurationError, match_endpoint
from lionagi.service.http import ChatCompletionsProjector
from lionagi.service_testing.conformance import CatalogRow, HTTPChatConformance


class TestOpenRouterChat(CatalogRow, HTTPChatConformance):
    provider = "open-router"
    dialect = "openai_chat"
    tool_calls = reasoning = True


def test_routing_and_reasoning_fields_are_typed() -> None:
    ep = match_endpoint("openrouter", "chat", api_key="k")
    payload, _ = ep.create_payload(
        {
            "model": "openai/gpt-4.1",
            "messages": [{"role": "user", "content": "hi"}],
            "models": ["anthropic/claude-sonnet-4"],
            "route": "fallback",
            "provider": {"order": ["openai"], "allow_fallbacks": False},
            "reasoning": {"effort": "high", "exclude": True},
            "usage": {"include": True},
        }
    )
    assert payload["provider"] == {"order": ["openai"], "allow_fallbacks": False}
    assert payload["reasoning"] == {"effort": "high", "exclude": True}
    with pytest.raises(EndpointConfigurationError, match="provider"):
        ep.create_payload({"model": "m", "messages": [], "provider": {"ordr": ["x"]}})


def test_reasoning_delta_is_thinking() -> None:
    projector = ChatCompletionsProjector()
    [chunk] = projector.feed({"choices": [{"index": 0, "delta": {"reasoning": "mull"}}]})
    assert (chunk.type, chunk.content) == ("thinking", "mull")


def test_a_stream_keeps_reasoning_details_as_the_one_shot_message_does() -> None:
    from lionagi.providers.openrouter import OpenRouterChat, OpenRouterProjector

    details = [{"type": "reasoning.encrypted", "data": "opaque", "format": "anthropic-claude-v1"}]
    projector = OpenRouterProjector()
    chunks = [
        *projector.feed({"model": "m", "choices": [{"index": 0, "delta": {"reasoning": "hmm"}}]}),
        *projector.feed(
            {"model": "m", "choices": [{"index": 0, "delta": {"reasoning_details": details}}]}
        ),
    ]
    assert [(c.type, c.content, c.metadata) for c in chunks] == [
        ("thinking", "hmm", {}),
        ("thinking", "", {"reasoning_details": details}),
    ]
    assert OpenRouterChat.projector is OpenRouterProjector


@pytest.mark.parametrize("effort", ["xhigh", "none"])
def test_every_reasoning_effort_openrouter_documents_is_sent(effort: str) -> None:
    """OpenRouter's ``reasoning.effort`` runs from ``xhigh`` to ``none``; both ends were refused."""
    ep = match_endpoint("openrouter", "chat", api_key="k")
    payload, _ = ep.create_payload(
        {
            "model": "openai/gpt-5",
            "messages": [{"role": "user", "content": "hi"}],
            "reasoning": {"effort": effort},
        }
    )
    assert payload["reasoning"] == {"effort": effort}
    with pytest.raises(EndpointConfigurationError) as info:
        ep.create_payload({"model": "m", "messages": [], "reasoning": {"effort": "max"}})
    assert info.value.field == "reasoning.effort"
