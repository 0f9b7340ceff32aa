"""Gemini's compatible chat: a thought signature is accepted, a typo in it refused.

A thinking model returns each function call with ``extra_content.google.thought_signature`` and
needs it back with the call, and returns its text with the same object on the message; the
shared dialect's model takes neither.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import (
    EndpointConfigurationError,
    EventStatus,
    OpenAIChatCompletionsRequest,
    iModel,
    match_endpoint,
)
from lionagi.service_testing import FakeProviderServer


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


# -- the assistant message's own extra_content -----------------------------------------------------
# The layer returns a thinking model's text with ``extra_content.google.thought_signature`` on the
# message (``choices[].message``; a stream keeps it on the text chunk). The request model took it
# only on a tool call, so that turn could not be sent back as it came.

TEXT_TURN = [
    {"role": "user", "content": "Think, then answer."},
    {"role": "assistant", "content": "Forty-two.", "extra_content": SIGNED},
    {"role": "user", "content": "Why?"},
]


async def test_an_assistant_messages_extra_content_is_sent_as_written() -> None:
    async with (
        FakeProviderServer() as server,
        iModel(
            model="gemini/gemini-3-flash-preview",
            endpoint="chat",
            base_url=f"{server.base_url}/v1beta/openai",
            allow_local_network=True,
            api_key="k-gemini-0123456789",
        ) as model,
    ):
        call = await model.invoke(messages=TEXT_TURN)
        assert call.execution.status is EventStatus.COMPLETED, call.execution.error
        [sent] = server.requests
    assert sent.path == "/v1beta/openai/chat/completions"
    assert sent.json["messages"] == TEXT_TURN


def test_an_unknown_key_beside_it_is_still_refused() -> None:
    turn = [*TEXT_TURN]
    turn[1] = {**turn[1], "thought_signature": "Cq8BAdHtim9..."}
    with pytest.raises(EndpointConfigurationError) as refused:
        _payload(turn)
    assert refused.value.field == "messages.1.thought_signature"
    assert "unknown field of GeminiChatAssistantMessage" in str(refused.value)


def test_a_misspelled_message_signature_is_refused() -> None:
    turn = [*TEXT_TURN]
    turn[1] = {**turn[1], "extra_content": {"google": {"thought_signatur": "x"}}}
    with pytest.raises(EndpointConfigurationError) as refused:
        _payload(turn)
    assert refused.value.field == "messages.1.extra_content.google.thought_signatur"


def test_only_an_assistant_message_takes_it() -> None:
    turn = [{"role": "user", "content": "hi", "extra_content": SIGNED}]
    with pytest.raises(EndpointConfigurationError) as refused:
        _payload(turn)
    assert refused.value.field == "messages.0.extra_content"
