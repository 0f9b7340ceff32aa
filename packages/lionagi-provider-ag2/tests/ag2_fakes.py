"""Offline AG2 scripts shared by the tests: AG2's own scripted models and reply functions."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from autogen import ConversableAgent
from autogen.beta import Agent, Context
from autogen.beta.config import LLMClient, ModelConfig
from autogen.beta.events import (
    BaseEvent,
    ModelMessage,
    ModelMessageChunk,
    ModelReasoning,
    ModelResponse,
    ToolCallEvent,
    Usage,
)
from autogen.beta.testing import TestConfig

from lionagi.service import ProviderConnectionError


class ReplyClient(LLMClient):
    """A model driven by a reply function: ``reply(messages, context)`` does the talking."""

    def __init__(self, reply: Any) -> None:
        self.reply = reply

    async def __call__(
        self, messages: Sequence[BaseEvent], context: Context, **kwargs: Any
    ) -> ModelResponse:
        return await self.reply(messages, context)  # type: ignore[no-any-return]


class ReplyConfig(ModelConfig):
    def __init__(self, reply: Any) -> None:
        self.reply = reply

    def copy(self) -> ReplyConfig:
        return self

    def create(self) -> ReplyClient:
        return ReplyClient(self.reply)

    def create_files_client(self) -> None:
        raise RuntimeError("no files API offline")


async def streamed_answer(messages: Any, context: Context) -> ModelResponse:
    """Reasoning, then two message chunks, then the final message repeating them."""
    await context.send(ModelReasoning("thinking it over"))
    await context.send(ModelMessageChunk("The answer "))
    await context.send(ModelMessageChunk("is 5."))
    message = ModelMessage("The answer is 5.")
    await context.send(message)
    return ModelResponse(message, usage=Usage(prompt_tokens=11, completion_tokens=4))


async def counted(messages: Any, context: Context) -> ModelResponse:
    message = ModelMessage("counted")
    await context.send(message)
    return ModelResponse(message, usage=Usage(prompt_tokens=3, completion_tokens=1))


async def empty(messages: Any, context: Context) -> ModelResponse:
    return ModelResponse()


async def failing(messages: Any, context: Context) -> ModelResponse:
    await context.send(ModelMessage("working"))
    raise RuntimeError("model unreachable")


async def transport_down(messages: Any, context: Context) -> ModelResponse:
    raise ProviderConnectionError("connection refused by the fake model")


async def stalling(messages: Any, context: Context) -> ModelResponse:
    await context.send(ModelMessageChunk("Stalling"))
    await asyncio.sleep(3600)
    raise AssertionError("unreachable")


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def tool_agent() -> Agent:
    return Agent(
        "calc",
        config=TestConfig(ToolCallEvent(name="add", arguments='{"a": 2, "b": 3}'), "It is 5."),
        tools=[add],
    )


# -- classic group chat ----------------------------------------------------------------------


def speaker(
    name: str, *lines: Any, stall_at: int | None = None, functions: Sequence[Any] = ()
) -> Any:
    """A ConversableAgent with no LLM whose reply function says ``lines`` in turn."""
    agent = ConversableAgent(name, llm_config=False, human_input_mode="NEVER")
    if functions:
        agent.register_function({f.__name__: f for f in functions})
    turn = [0]

    async def reply(recipient: Any, messages: Any, sender: Any, config: Any) -> tuple[bool, Any]:
        index = turn[0]
        turn[0] += 1
        if stall_at is not None and index >= stall_at:
            await asyncio.sleep(3600)
        line = lines[min(index, len(lines) - 1)] if lines else ""
        if isinstance(line, BaseException):
            raise line
        return True, line

    agent.register_reply([ConversableAgent, None], reply)
    return agent
