"""RecordedRequest reads the conversation text of every wire format the fake server speaks."""

from __future__ import annotations

import httpx

from lionagi.service_testing import FakeProviderServer, RecordedRequest

TURN_ONE = '-first prompt with "quotes"\nand a newline'
ANSWER = "the first answer"
TURN_TWO = "second prompt"


def recorded(body: object) -> RecordedRequest:
    return RecordedRequest("POST", "/", {}, {}, body)


def test_chat_and_messages_conversations() -> None:
    chat = recorded(
        {
            "model": "m",
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": TURN_ONE},
                {"role": "assistant", "content": [{"type": "text", "text": ANSWER}]},
                {"role": "user", "content": TURN_TWO},
            ],
        }
    )
    assert chat.conversation_text() == "\n".join(["be brief", TURN_ONE, ANSWER, TURN_TWO])
    assert chat.prompt_text() == TURN_TWO
    messages = recorded(
        {
            "system": [{"type": "text", "text": "sys"}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": TURN_ONE}]},
                {"role": "assistant", "content": [{"type": "tool_use", "input": {"cmd": "ls"}}]},
                {"role": "user", "content": [{"type": "tool_result", "content": "README"}]},
            ],
        }
    )
    assert messages.conversation_text() == "\n".join(["sys", TURN_ONE, "README"])


def test_responses_and_gemini_conversations() -> None:
    responses = recorded(
        {
            "instructions": "agent rules",
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": TURN_ONE}]},
                {"type": "function_call_output", "call_id": "c1", "output": "done"},
            ],
        }
    )
    assert responses.conversation_text() == "\n".join(["agent rules", TURN_ONE, "done"])
    assert recorded({"input": TURN_TWO}).prompt_text() == TURN_TWO
    gemini = recorded(
        {
            "systemInstruction": {"parts": [{"text": "sys"}]},
            "contents": [
                {"role": "user", "parts": [{"text": TURN_ONE}]},
                {"role": "model", "parts": [{"text": ANSWER}]},
            ],
        }
    )
    assert gemini.conversation_text() == "\n".join(["sys", TURN_ONE, ANSWER])
    assert recorded(None).conversation_text() == ""
    assert recorded({"model": "m"}).prompt_text() == ""


async def test_the_server_records_the_prompt_it_received() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": TURN_ONE}]}
    async with FakeProviderServer() as server:
        async with httpx.AsyncClient(base_url=server.base_url) as client:
            response = await client.post("/v1/chat/completions", json=body)
        assert response.status_code == 200
        assert server.requests[-1].prompt_text() == TURN_ONE
