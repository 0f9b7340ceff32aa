"""What a cancelled (or finished) AG2 call leaves running, starts later, or hands to a later call.

Real cancellations: an anyio cancel scope cancelled from the consumer, or the call's deadline.
A thread cannot be stopped, so a synchronous tool already running finishes in its thread; what
is asserted is that the call ends promptly, that nothing new starts after it ended (no tool, no
model turn, no background subagent), and that nothing of it reaches a later call.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from ag2_fakes import ReplyConfig, speaker
from autogen.beta import Agent, Context, MemoryStream
from autogen.beta.events import ModelMessage, ModelResponse, ToolCallEvent
from autogen.beta.testing import TestConfig
from autogen.beta.tools.subagents import background_agent_tool

from lionagi.providers.ag2 import AG2BetaEndpoint, AG2GroupChatEndpoint
from lionagi.service import RequestDeadlineExceeded, StreamChunk, iModel

pytestmark = pytest.mark.anyio

PROMPT = 2.0
"""Seconds a cancelled call may take to return: generous for a shared machine, far below the
time the blocked tools below would hold it (10 s)."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _call(n: int, name: str = "work") -> ToolCallEvent:
    return ToolCallEvent(name=name, arguments=f'{{"n": {n}}}')


async def _cancel_when(
    stream: AsyncIterator[StreamChunk], ready: Any, seen: list[StreamChunk]
) -> float:
    """Consume ``stream`` and cancel it (a real cancel scope) once ``ready()`` holds.

    Returns the seconds from the cancel to the end of the scope.
    """
    cancelled_at = 0.0
    with anyio.fail_after(30), anyio.CancelScope() as scope:
        async for chunk in stream:
            seen.append(chunk)
            if ready(chunk):
                cancelled_at = time.monotonic()
                scope.cancel()
    assert cancelled_at, "the stream ended before the cancellation point"
    return time.monotonic() - cancelled_at


def _live_tasks(before: set[asyncio.Task[Any]]) -> set[asyncio.Task[Any]]:
    me = asyncio.current_task()
    return {t for t in asyncio.all_tasks() - before if t is not me and not t.done()}


# -- background subagents (AG2's spawn_background) ---------------------------------------------


class Work:
    """A synchronous tool of the background subagent that records each start."""

    def __init__(self) -> None:
        self.started: list[int] = []
        self.two = threading.Event()  # set once two steps have started

    def __call__(self, n: int) -> str:
        """Do one step of slow work."""
        self.started.append(n)
        if len(self.started) >= 2:
            self.two.set()
        time.sleep(0.05)
        return f"step {n}"


def _parent(work: Work, *then: Any) -> tuple[Agent, Any]:
    """A parent agent whose first tool starts a background subagent running 20 ``work`` steps."""
    tool = _named_tool(work, "work")
    helper = Agent(
        "helper", config=TestConfig(*[_call(n) for n in range(20)], "done"), tools=[tool]
    )
    background = background_agent_tool(helper, description="slow background work")
    start = ToolCallEvent(name=background.name, arguments='{"objective": "work"}')
    return Agent("parent", config=TestConfig(start, *then), tools=[background, hold]), background


def _named_tool(function: Any, name: str) -> Any:
    """``function`` as an AG2 beta tool called ``name`` (described by its docstring)."""
    from autogen.beta.tools import tool

    return tool(function, name=name)


async def hold() -> str:
    """Wait for ever (until the run is cancelled)."""
    await asyncio.sleep(3600)
    raise AssertionError("unreachable")


async def test_background_subagent_stops_with_the_cancelled_call() -> None:
    """Regression: the background subagent kept calling tools after the call was cancelled.

    AG2 runs it as a task of the stream that ``ask`` never awaits or cancels; it went on
    starting ``work`` steps for a second after the cancel (and after admission was released).
    """
    work = Work()
    agent, _ = _parent(work, ToolCallEvent(name="hold", arguments="{}"), "never")
    model = iModel(endpoint=AG2BetaEndpoint(agent=agent))
    before = set(asyncio.all_tasks())

    seen: list[StreamChunk] = []
    stream = _waiting_for(model.stream(prompt="go"), work.two)
    took = await _cancel_when(stream, lambda c: c.tool_name == "hold", seen)
    assert took < PROMPT
    steps = len(work.started)
    assert 2 <= steps < 20
    await anyio.sleep(0.5)  # ten steps' time: none may start
    assert len(work.started) == steps, work.started
    assert not _live_tasks(before)
    snap = model.admission_snapshot()
    assert (snap.active, snap.queued) == (0, 0)
    await model.close()


async def _waiting_for(
    stream: AsyncIterator[StreamChunk], event: threading.Event, tool: str = "hold"
) -> AsyncIterator[StreamChunk]:
    """Pass chunks through; before ``tool``'s ``tool_use`` chunk, wait until ``event`` is set.

    The wait runs in a worker thread: the agent's own task must run for the event to be set.
    """
    async for chunk in stream:
        if chunk.type == "tool_use" and chunk.tool_name == tool:
            assert await anyio.to_thread.run_sync(event.wait, 10)
        yield chunk


async def test_background_subagent_ends_with_a_successful_call() -> None:
    """Regression: after ``ask`` returned, the background subagent ran on for a second.

    The call had ended (admission released, the caller told the answer was complete) while
    AG2 work it started kept calling tools; now it is cancelled before the call ends.
    """
    work = Work()
    agent, background = _parent(work, "parent done")
    model = iModel(endpoint=AG2BetaEndpoint(agent=agent))
    before = set(asyncio.all_tasks())
    with anyio.fail_after(30):
        chunks = [c async for c in model.stream(prompt="go")]
    assert [(c.type, c.tool_name) for c in chunks if c.type != "result"] == [
        ("tool_use", background.name),
        ("tool_result", background.name),
        ("text", None),
    ]
    steps = len(work.started)
    await anyio.sleep(0.5)
    assert len(work.started) == steps < 20, work.started
    assert not _live_tasks(before)
    await model.close()


# -- what a call queued for the next ask on a shared stream ------------------------------------


_QUEUED = threading.Event()


async def _enqueue_then_wait(ctx: Context) -> str:
    """Queue a note for the model's next request, then wait (until cancelled)."""
    ctx.enqueue("NOTE-FROM-THE-CANCELLED-CALL")
    _QUEUED.set()
    await asyncio.sleep(3600)
    raise AssertionError("unreachable")


def _recorder() -> tuple[ReplyConfig, list[str]]:
    requests: list[str] = []

    async def reply(messages: Any, context: Any) -> ModelResponse:
        requests.append(repr(messages))
        message = ModelMessage("ok")
        await context.send(message)
        return ModelResponse(message)

    return ReplyConfig(reply), requests


async def test_a_cancelled_calls_queued_message_never_reaches_a_later_call() -> None:
    """Regression: on a shared stream the next call's first request carried the note.

    AG2 keeps ``ctx.enqueue`` messages on the stream for "the next ask"; the cancelled call
    queued one and the following call (another agent, same ``stream_factory`` stream) sent it
    to its model as if the user had written it.
    """
    shared = MemoryStream()
    tool = _named_tool(_enqueue_then_wait, "note")
    first = Agent(
        "first", config=TestConfig(ToolCallEvent(name="note", arguments="{}")), tools=[tool]
    )
    model = iModel(endpoint=AG2BetaEndpoint(stream_factory=lambda: shared))
    seen: list[StreamChunk] = []
    _QUEUED.clear()
    stream = _waiting_for(model.stream(prompt="one", agent=first), _QUEUED, "note")
    took = await _cancel_when(stream, lambda c: c.type == "tool_use", seen)
    assert took < PROMPT
    left = list(shared.pending_messages)  # what AG2 would merge into the next ask
    llm, requests = _recorder()
    second = Agent("second", config=llm)
    with anyio.fail_after(30):
        chunks = [c async for c in model.stream(prompt="two", agent=second)]
    assert [c.content for c in chunks if c.type == "text"] == ["ok"]
    assert len(requests) == 1
    assert "NOTE-FROM-THE-CANCELLED-CALL" not in requests[0]
    assert "two" in requests[0]
    assert left == []
    await model.close()


async def test_messages_queued_before_the_call_are_left_alone() -> None:
    shared = MemoryStream()
    shared.enqueue("QUEUED-BY-THE-CALLER")
    llm, requests = _recorder()
    model = iModel(endpoint=AG2BetaEndpoint(stream_factory=lambda: shared))
    with anyio.fail_after(30):
        [c async for c in model.stream(prompt="go", agent=Agent("a", config=llm))]
    assert "QUEUED-BY-THE-CALLER" in requests[0]  # AG2 merged it into the run's request
    await model.close()


# -- a synchronous tool running in its thread ---------------------------------------------------


class Blocking:
    """A synchronous tool that blocks its worker thread until released (at most 10 s)."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.finished = threading.Event()
        self.calls: list[str] = []

    def block(self, n: int) -> str:
        """Block until released."""
        self.calls.append(f"block {n}")
        self.started.set()
        self.release.wait(10)
        self.finished.set()
        return f"LATE-RESULT-{n}"

    def after(self, n: int) -> str:
        """Run after the blocking tool."""
        self.calls.append(f"after {n}")
        return "after"


def _releasing_recorder(tools: Blocking) -> tuple[ReplyConfig, list[str]]:
    """A later call's model: it lets the old tool's thread return, then answers "ok".

    While it waits, the later call is subscribed to the shared stream: a late tool result
    delivered there would reach it as a ``tool_result`` chunk.
    """
    requests: list[str] = []

    async def reply(messages: Any, context: Any) -> ModelResponse:
        requests.append(repr(messages))
        tools.release.set()
        assert await anyio.to_thread.run_sync(tools.finished.wait, 10)
        await anyio.sleep(0.2)  # time for the late result to be delivered, were it delivered
        message = ModelMessage("ok")
        await context.send(message)
        return ModelResponse(message)

    return ReplyConfig(reply), requests


@pytest.mark.parametrize("ending", ["cancel", "deadline"])
async def test_sync_tool_call_returns_promptly_and_nothing_new_starts(ending: str) -> None:
    """The blocked thread cannot be stopped; the call still ends at once, and stays ended.

    The turn's next tool and the model's next turn never start, and the tool's return value,
    when its thread finally returns (during the next call on the same endpoint and shared
    stream), is delivered nowhere: not to the cancelled call, not to the next one.
    """
    tools = Blocking()
    shared = MemoryStream()
    script = TestConfig(_call(1, "block"), _call(2, "after"), "model's final answer")
    agent = Agent("a", config=script, tools=[tools.block, tools.after])
    model = iModel(endpoint=AG2BetaEndpoint(agent=agent, stream_factory=lambda: shared))
    before = set(asyncio.all_tasks())
    seen: list[StreamChunk] = []
    try:
        if ending == "cancel":
            stream = _waiting_for(model.stream(prompt="go"), tools.started, "block")
            took = await _cancel_when(stream, lambda c: c.tool_name == "block", seen)
        else:

            async def consume() -> None:
                stream = model.stream(prompt="go", timeout=1.0)
                async for chunk in _waiting_for(stream, tools.started, "block"):
                    seen.append(chunk)

            start = time.monotonic()
            with pytest.raises(RequestDeadlineExceeded):
                await consume()
            took = time.monotonic() - start - 1.0
        assert took < PROMPT
        assert tools.started.is_set()
        assert not tools.finished.is_set()  # the thread is still blocked
        assert [(c.type, c.tool_name) for c in seen] == [("tool_use", "block")]
        assert not _live_tasks(before)
        snap = model.admission_snapshot()
        assert (snap.active, snap.queued) == (0, 0)
        llm, requests = _releasing_recorder(tools)
        with anyio.fail_after(30):
            later = [c async for c in model.stream(prompt="next", agent=Agent("b", config=llm))]
        assert tools.finished.is_set()
        assert [(c.type, c.content) for c in later] == [("text", "ok")]
        assert len(requests) == 1
        assert tools.calls == ["block 1"]  # "after" never started
        events = await shared.history.get_events()
        assert not any("LATE-RESULT" in repr(event) for event in events)
    finally:
        tools.release.set()
        await model.close()


# -- group chat: AG2 runs a sync tool on the event loop's thread --------------------------------


def _tool_calls(*ns: int) -> dict[str, Any]:
    calls = [
        {"id": f"c{n}", "type": "function", "function": {"name": "slow", "arguments": "{}"}}
        for n in ns
    ]
    return {"role": "assistant", "content": None, "tool_calls": calls}


async def test_group_chat_sync_tool_blocks_until_it_returns_then_nothing_starts() -> None:
    """The documented limit: the call ends when the running sync tool returns, not before.

    AG2's classic executor calls a sync tool on the loop's thread, so the cancel (here the
    deadline) cannot land while it runs; once it returns the chat is cancelled and neither
    the turn's other calls nor a later round start.
    """
    started: list[float] = []

    def slow() -> str:
        """Block the loop's thread for 0.6 s."""
        started.append(time.monotonic())
        time.sleep(0.6)
        return "slow done"

    agents = [
        speaker("alice", _tool_calls(1, 2, 3), "more", functions=[slow]),
        speaker("bob", "ok"),
    ]
    model = iModel(endpoint=AG2GroupChatEndpoint(agents=agents))
    begin = time.monotonic()
    with pytest.raises(RequestDeadlineExceeded):
        [c async for c in model.stream(prompt="go", max_round=8, timeout=0.3)]
    ended = time.monotonic()
    assert len(started) == 1
    assert ended - begin >= 0.6  # the blocked loop held the deadline back
    assert ended - (started[0] + 0.6) < PROMPT  # and it landed as soon as the tool returned
    await anyio.sleep(0.8)
    assert len(started) == 1
    snap = model.admission_snapshot()
    assert (snap.active, snap.queued) == (0, 0)
    await model.close()
