"""The group chat's result says why AG2 ended the chat, read from its ``termination`` event.

A chat that ran out of rounds and one an agent ended with a termination message both end with
a summary and a last speaker; only AG2's ``termination_reason`` tells them apart, so the result
chunk carries it (it was dropped).
"""

from __future__ import annotations

from typing import Any

from ag2_fakes import speaker
from autogen.agentchat.group.patterns import RoundRobinPattern

from lionagi.providers.ag2 import AG2GroupChatEndpoint
from lionagi.service import StreamChunk, iModel


async def _result(pattern: Any, max_round: int) -> StreamChunk:
    model = iModel(endpoint=AG2GroupChatEndpoint())
    chunks = [c async for c in model.stream(prompt="go", pattern=pattern, max_round=max_round)]
    assert chunks[-1].type == "result"
    return chunks[-1]


async def test_a_chat_out_of_rounds_says_so() -> None:
    alice, bob = speaker("alice", "a1", "a2"), speaker("bob", "b1")
    pattern = RoundRobinPattern(initial_agent=alice, agents=[alice, bob])
    result = await _result(pattern, max_round=3)
    assert result.metadata["termination_reason"] == "Maximum rounds (3) reached"
    assert result.metadata["last_speaker"] == "bob"


async def test_a_chat_an_agent_ended_says_that_instead() -> None:
    alice, bob = speaker("alice", "a1"), speaker("bob", "DONE")
    pattern = RoundRobinPattern(
        initial_agent=alice,
        agents=[alice, bob],
        group_manager_args={"is_termination_msg": lambda m: "DONE" in (m.get("content") or "")},
    )
    result = await _result(pattern, max_round=10)
    reason = result.metadata["termination_reason"]
    assert reason.startswith("Termination message condition on the GroupChatManager"), reason
