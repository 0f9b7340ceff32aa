"""Under ``tool``, Claude Code's task-notification turn is answered with text, not another call.

From Claude Code 2.1.332 the ``Agent`` tool runs its subagent in the background; when it ends the
CLI starts one more turn whose user message carries a ``<task-notification>``. Answering that
turn with another tool call started another subagent, and so on: the run never ended. The
request shapes below are the CLI's own (recorded from 2.1.332 against this server), trimmed.
Turns 2.1.197 sends (no notification: the subagent runs in the foreground) answer as before.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from lionagi.service_testing import DEFAULT_TEXT, TOOL_DESCRIPTION, FakeProviderServer

TOOLS = [
    {
        "name": "Agent",
        "description": "Launch a subagent",
        "input_schema": {
            "type": "object",
            "properties": {"description": {"type": "string"}, "prompt": {"type": "string"}},
            "required": ["description", "prompt"],
        },
    }
]
LAUNCH_TEXT = "Async agent launched successfully."
PROMPT = {"role": "user", "content": [{"type": "text", "text": "delegate"}]}
CALL = {
    "role": "assistant",
    "content": [
        {
            "type": "tool_use",
            "id": "toolu_fake_1",
            "name": "Agent",
            "input": {"description": TOOL_DESCRIPTION, "prompt": "fake"},
        }
    ],
}
LAUNCHED = {
    "role": "user",
    "content": [
        {
            "tool_use_id": "toolu_fake_1",
            "type": "tool_result",
            "content": [{"type": "text", "text": LAUNCH_TEXT}],
        }
    ],
}
QUOTED = {
    "role": "assistant",
    "content": [{"type": "text", "text": f"Tool said: {LAUNCH_TEXT}. Done."}],
}
NOTICE = (
    "<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\n"
    "This is an automated background-task event, NOT a message from the user.\n\n"
    "<task-notification>\n<task-id>a07a9955162ac596f</task-id>\n"
    "<tool-use-id>toolu_fake_1</tool-use-id>\n<status>completed</status>\n"
    '<summary>Agent "Run the fake tool" finished</summary>\n'
    "<result>Tool said: &lt;task-notification&gt;. Done.</result>\n"
    "</task-notification>\n</system-reminder>"
)
NOTIFIED = {
    "role": "user",
    "content": [
        {"type": "text", "text": "<system-reminder>\nreminder\n</system-reminder>\n"},
        {"type": "text", "text": NOTICE, "cache_control": {"type": "ephemeral"}},
    ],
}


def messages(
    turns: list[dict[str, Any]], *, stream: bool = False, headers: dict[str, str] | None = None
) -> Any:
    """POST a Messages request under ``/scenario/tool``; the JSON body, or the SSE events."""
    body = {"model": "claude-x", "max_tokens": 64, "stream": stream, "tools": TOOLS}
    with FakeProviderServer.running_in_thread() as server:
        reply = httpx.post(
            f"{server.base_url}/scenario/tool/v1/messages",
            json={**body, "messages": turns},
            headers=headers or {},
            timeout=10,
        )
    assert reply.status_code == 200, reply.text
    if not stream:
        return reply.json()
    lines = reply.text.split("\n")
    return [json.loads(line[len("data: ") :]) for line in lines if line.startswith("data: ")]


def test_the_notification_turn_gets_the_text_and_ends_the_turn() -> None:
    answer = messages([PROMPT, CALL, LAUNCHED, QUOTED, NOTIFIED])
    assert answer["content"] == [{"type": "text", "text": DEFAULT_TEXT}]
    assert answer["stop_reason"] == "end_turn"


def test_the_streamed_notification_turn_gets_text_deltas_and_end_turn() -> None:
    events = messages([PROMPT, CALL, LAUNCHED, QUOTED, NOTIFIED], stream=True)
    starts = [e["content_block"]["type"] for e in events if e["type"] == "content_block_start"]
    assert starts == ["text"]
    text = "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta")
    assert text == DEFAULT_TEXT
    (delta,) = [e for e in events if e["type"] == "message_delta"]
    assert delta["delta"]["stop_reason"] == "end_turn"


def test_the_notification_as_a_string_content_and_the_scripted_text() -> None:
    notified = {"role": "user", "content": NOTICE}
    answer = messages([PROMPT, CALL, LAUNCHED, QUOTED, notified], headers={"x-fake-text": "Noted."})
    assert answer["content"] == [{"type": "text", "text": "Noted."}]


@pytest.mark.parametrize(
    "text",
    [
        "delegate",  # a first turn (2.1.197 and 2.1.332 alike)
        "<task-notification>no task id: not the CLI's framing</task-notification>",
        "&lt;task-notification&gt;\n&lt;task-id&gt;x&lt;/task-id&gt;",  # quoted, escaped
    ],
)
def test_other_user_turns_still_get_the_tool_call(text: str) -> None:
    turn = {"role": "user", "content": [{"type": "text", "text": text}]}
    answer = messages([turn])
    (call,) = answer["content"]
    assert call["type"] == "tool_use"
    assert call["name"] == "Agent"
    assert answer["stop_reason"] == "tool_use"


def test_a_tool_result_still_gets_the_quoting_text() -> None:
    # 2.1.197's foreground subagent: its result is the tool result, quoted as always.
    answer = messages([PROMPT, CALL, LAUNCHED])
    assert answer["content"] == [{"type": "text", "text": f"Tool said: {LAUNCH_TEXT}. Done."}]
    assert answer["stop_reason"] == "end_turn"
