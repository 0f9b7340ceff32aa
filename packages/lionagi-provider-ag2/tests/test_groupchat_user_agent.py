"""A pattern's ``user_agent`` is a chat participant: its turns are output, its opening is input."""

from __future__ import annotations

from ag2_fakes import speaker
from autogen.agentchat.group.patterns import RoundRobinPattern

from lionagi.providers.ag2 import AG2GroupChatEndpoint
from lionagi.service import iModel


async def test_user_agent_turns_are_output_and_end_with_its_result() -> None:
    alice, user = speaker("alice", "alice speaks"), speaker("user", "user replies")
    pattern = RoundRobinPattern(initial_agent=alice, agents=[alice], user_agent=user)
    model = iModel(endpoint=AG2GroupChatEndpoint())
    chunks = [c async for c in model.stream(prompt="go", pattern=pattern, max_round=3)]
    seen = [(c.type, c.content, c.metadata.get("speaker")) for c in chunks if c.type != "result"]
    assert seen == [
        ("system", None, "alice"),
        ("text", "alice speaks", "alice"),
        ("system", None, "user"),
        ("text", "user replies", "user"),  # was dropped: the user agent is not in .agents
    ]
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata == {
        "summary": "user replies",
        "last_speaker": "user",
        "termination_reason": "Maximum rounds (3) reached",
    }


async def test_user_agents_opening_message_is_input_not_output() -> None:
    """The user agent sends the prompt; with no turn taken nothing, not the prompt, comes out."""
    alice, user = speaker("alice", "a1"), speaker("user", "u1")
    pattern = RoundRobinPattern(initial_agent=alice, agents=[alice], user_agent=user)
    model = iModel(endpoint=AG2GroupChatEndpoint())
    chunks = [c async for c in model.stream(prompt="start", pattern=pattern, max_round=1)]
    assert all(c.content != "start" for c in chunks)
    assert [c for c in chunks if c.type == "result"] == []
    alice, user = speaker("alice", "a1"), speaker("user", "u1")
    pattern = RoundRobinPattern(initial_agent=alice, agents=[alice], user_agent=user)
    chunks = [c async for c in model.stream(prompt="start", pattern=pattern, max_round=2)]
    assert [c.content for c in chunks if c.type == "text"] == ["a1"]
    assert chunks[-1].metadata == {
        "summary": "a1",
        "last_speaker": "alice",
        "termination_reason": "Maximum rounds (2) reached",
    }
