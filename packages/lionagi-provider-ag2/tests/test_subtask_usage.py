"""A sub-agent's usage, rolled up by AG2, completed per call as the parent's own calls are.

AG2 runs a sub-agent (``Agent.as_tool``, the background and dynamic task tools) on a private
stream and puts one ``UsageEvent(kind="subtask")`` on the parent's: the sum of the sub-agent's
calls as each vendor counted them, naming no vendor. An Anthropic (or Bedrock) sub-agent's
``prompt_tokens`` leave out its cache reads and writes, so the parent's input was short by
them: 5 of a 125-token prompt. The sub-agent's own ``UsageEvent``s (each naming its client)
are in its stream's history, which AG2 keeps in the parent's storage and names in the
``TaskCompleted`` that follows the rollup: the projector completes those, as it completes the
parent's, and uses the rollup as sent only when that history is not there to read (a sub-agent
stream of the caller's own, in other storage) or does not add up to it.
"""

from __future__ import annotations

from typing import Any

import pytest
from ag2_fakes import ReplyConfig
from autogen.beta import Agent, Context, MemoryStream
from autogen.beta.events import (
    ModelMessage,
    ModelResponse,
    ToolCallEvent,
    ToolCallsEvent,
    Usage,
)

from lionagi.providers.ag2 import AG2BetaEndpoint
from lionagi.service import iModel

pytestmark = pytest.mark.anyio

# Anthropic's record as AG2 maps it: input 5, 100 read from the cache, 20 written (125 in all).
ANTHROPIC = Usage(
    prompt_tokens=5.0,
    completion_tokens=7.0,
    total_tokens=12.0,
    cache_read_input_tokens=100.0,
    cache_creation_input_tokens=20.0,
)
OPENAI = Usage(prompt_tokens=40, completion_tokens=3, total_tokens=43)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def answering(text: str, usage: Usage, provider: str) -> ReplyConfig:
    async def reply(messages: Any, context: Context) -> ModelResponse:
        message = ModelMessage(text)
        await context.send(message)
        return ModelResponse(message, usage=usage, provider=provider)

    return ReplyConfig(reply)


def delegating(tool: str, usage: Usage, provider: str) -> ReplyConfig:
    """A parent model that calls ``tool`` once, then answers."""
    turns = iter(range(2))

    async def reply(messages: Any, context: Context) -> ModelResponse:
        if next(turns) == 0:
            call = ToolCallEvent(name=tool, arguments='{"objective": "add 2 and 3"}')
            return ModelResponse(tool_calls=ToolCallsEvent([call]), usage=usage, provider=provider)
        message = ModelMessage("It is 5.")
        await context.send(message)
        return ModelResponse(message, usage=usage, provider=provider)

    return ReplyConfig(reply)


def parent_of(child: Agent, **tool_options: Any) -> Agent:
    tool = child.as_tool(description="Does arithmetic.", **tool_options)
    return Agent("lead", config=delegating(tool.name, OPENAI, "openai"), tools=[tool])


async def run(agent: Agent) -> tuple[dict[str, Any], AG2BetaEndpoint]:
    endpoint = AG2BetaEndpoint(agent=agent)
    model = iModel(endpoint=endpoint)
    try:
        chunks = [chunk async for chunk in model.stream(prompt="2+3?")]
    finally:
        await model.close()
    assert [c.content for c in chunks if c.type == "text"] == ["It is 5."]
    assert chunks[-1].type == "result"
    return chunks[-1].metadata["usage"], endpoint


async def test_an_anthropic_sub_agents_input_includes_its_cache() -> None:
    child = Agent("helper", config=answering("5", ANTHROPIC, "anthropic"))
    usage, endpoint = await run(parent_of(child))
    # Two parent calls (40 each) and the sub-agent's one call of 125 prompt tokens.
    assert usage["prompt_tokens"] == 40 + 40 + 125
    assert usage["cache_read_input_tokens"] == 100
    assert usage["cache_creation_input_tokens"] == 20
    assert usage["total_tokens"] == 43 + 43 + 132
    counts = endpoint.token_counts(usage)
    assert counts == (205, 13)
    assert (getattr(counts, "cache_read", None), getattr(counts, "cache_creation", None)) == (
        100,
        20,
    )


async def test_a_nested_sub_agent_is_completed_too() -> None:
    grandchild = Agent("adder", config=answering("5", ANTHROPIC, "anthropic"))
    child = parent_of(grandchild)
    usage, _ = await run(parent_of(child, name="task_lead2"))
    # Lead: 2 calls; its sub-agent: 2 calls; that one's sub-agent: 1 Anthropic call.
    assert usage["prompt_tokens"] == 4 * 40 + 125


async def test_an_openai_sub_agent_is_summed_as_it_came() -> None:
    child = Agent("helper", config=answering("5", OPENAI, "openai"))
    usage, _ = await run(parent_of(child))
    assert usage == {"prompt_tokens": 120, "completion_tokens": 9, "total_tokens": 129}


async def test_a_sub_agent_stream_in_other_storage_keeps_the_rollup() -> None:
    # The caller's own stream for the sub-agent, in storage of its own: the per-call records
    # are out of reach, and the rollup (AG2's sum, as the vendor counted) is kept as sent.
    child = Agent("helper", config=answering("5", ANTHROPIC, "anthropic"))
    usage, _ = await run(parent_of(child, stream=lambda agent, ctx: MemoryStream()))
    assert usage["prompt_tokens"] == 40 + 40 + 5
    assert usage["cache_read_input_tokens"] == 100
