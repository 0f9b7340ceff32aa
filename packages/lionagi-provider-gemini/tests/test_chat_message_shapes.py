"""Gemini's compatible chat: a tool call's thought signature is accepted, a typo in it refused.

A thinking model returns each function call with ``extra_content.google.thought_signature`` and
needs it back with the call; the shared dialect's model does not take it.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, OpenAIChatCompletionsRequest, match_endpoint


def _messages(extra: dict[str, Any]) -> list[dict[str, Any]]:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "lookup", "arguments": "{}"},
        "extra_content": extra,
    }
    return [
        {"role": "user", "content": "Look it up."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "42"},
    ]


def _payload(messages: list[dict[str, Any]]) -> dict[str, Any]:
    ep = match_endpoint("gemini", "chat", api_key="k-gemini-0123456789")
    payload, _ = ep.create_payload({"model": "gemini-2.5-flash", "messages": messages})
    return payload


SIGNED = {"google": {"thought_signature": "Cq8BAdHtim9..."}}


def test_a_thought_signature_is_accepted_and_sent_as_written() -> None:
    messages = _messages(SIGNED)
    assert _payload(messages)["messages"] == messages


def test_a_misspelled_signature_is_refused() -> None:
    with pytest.raises(EndpointConfigurationError) as refused:
        _payload(_messages({"google": {"thought_signatur": "x"}}))
    assert refused.value.field == "messages.1.tool_calls.0.extra_content.google.thought_signatur"
    assert "did you mean 'thought_signature'?" in str(refused.value)


def test_the_shared_dialect_does_not_take_it() -> None:
    with pytest.raises(ValueError, match=r"messages\.1\.tool_calls\.0\.extra_content"):
        OpenAIChatCompletionsRequest.model_validate({"model": "m", "messages": _messages(SIGNED)})
