"""AG2 classic group chat, run in-process as one task on the caller's event loop.

Why not AG2's own ``a_run_group_chat_iter``: that iterator runs the chat on a daemon thread and
reads it through ``run_in_executor(queue.get)``; closing it early only stops stepping, the chat
thread runs on and the executor thread stays blocked until the next event. Driving
``a_initiate_group_chat`` as an asyncio task with an IOStream of our own gives the same events
with nothing to leak: cancellation reaches the running reply function, and the task is cancelled
and awaited before the generator returns (so before admission is released). No thread is used.

Mapping: a speaker change (``GroupChatRunChatEvent``) is a system chunk, an agent's message a
text chunk (the caller's own opening message is input, not output; text sent with tool calls is
kept), tool calls and responses are tool chunks paired by id (AG2's legacy ``function_call`` /
``function_response`` by name), a failed tool's result is ``is_error`` with its text redacted,
and the summary rides on the result chunk. A raising agent is the
provider's failure: one error chunk, then core raises the typed stream error.

Synchronous tools: AG2's classic tool executor calls a sync function directly on the event
loop's thread (``ConversableAgent.a_execute_function``), not in a worker thread. While one runs
the loop runs nothing else, so a cancellation or the deadline takes effect only when it returns;
the run is then cancelled at its next ``await`` and no further tool or round starts (the
calls still waiting in the same turn included). Write group-chat tools as ``async`` functions
when a call must end promptly (blocking work inside one goes to a thread). Running the caller's
sync tools in a thread instead would change AG2's own semantics for them, so it is not done.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator

from lionagi.service import (
    AgenticCapabilities,
    AgenticRequestValidationError,
    EndpointConfig,
    EndpointConfigurationError,
    StreamChunk,
)
from lionagi.service.http import excerpt

from ._agent import _cancel_and_await, _checked_defaults, _is_instance, _task_failure
from ._deps import require_modules
from ._in_process import InProcessEndpoint
from ._validation import TypedModel

__all__ = ["DEFAULT_MAX_ROUND", "GROUPCHAT_CONFIG", "AG2GroupChatEndpoint", "AG2GroupChatRequest"]

GROUPCHAT_CONFIG: Mapping[str, Any] = {
    "name": "ag2-group-chat",
    "provider": "ag2",
    "endpoint": "group_chat",
}
DEFAULT_MAX_ROUND = 15
"""Inherited AG2 adapter default (ADR-0030 D5, no recorded rationale); a request limit, > 0."""


class AG2GroupChatRequest(TypedModel):
    """One group-chat run.

    Built directly, an invalid field raises ``AgenticRequestValidationError`` naming it, as
    core does for a request mapping.

    Attributes:
        prompt: The opening message.
        pattern: A pre-built AG2 ``Pattern`` (``autogen.agentchat.group.patterns``); wins over
            ``agents``.
        agents: ``ConversableAgent`` participants, spoken in round-robin from the first.
        max_round: Upper bound on rounds (AG2's ``max_rounds``), > 0.

    Types are strict, so a wrong-typed value is refused naming the field instead of being
    coerced: in pydantic's lax mode ``max_round=True`` ran one round, ``max_round="5"`` or
    ``5.0`` five, and a ``b"..."`` prompt was decoded as text. ``max_round`` is an ``int``.
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, defer_build=True)
    typed_error: ClassVar[Callable[[str, str], Exception]] = AgenticRequestValidationError

    prompt: StrictStr = Field(min_length=1)
    pattern: Any | None = None
    agents: tuple[Any, ...] | None = None
    max_round: int = Field(default=DEFAULT_MAX_ROUND, gt=0, strict=True)

    @field_validator("pattern")
    @classmethod
    def _pattern_type(cls, value: Any) -> Any:
        if value is not None and not _is_instance(
            value, "autogen.agentchat.group.patterns.pattern", "Pattern"
        ):
            raise ValueError(f"must be an AG2 group-chat Pattern, got {type(value).__name__}")
        return value

    @field_validator("agents")
    @classmethod
    def _agent_types(cls, value: tuple[Any, ...] | None) -> tuple[Any, ...] | None:
        if value is None:
            return value
        if not value:
            raise ValueError("needs at least one agent")
        for agent in value:
            if not _is_instance(agent, "autogen", "ConversableAgent"):
                raise ValueError(f"must hold AG2 ConversableAgents, got {type(agent).__name__}")
        return value


class _ChatStream:
    """AG2's IOStream protocol, feeding the consumer's queue (same thread, same loop)."""

    def __init__(self, queue: asyncio.Queue[Any]) -> None:
        self._queue = queue

    def send(self, message: Any) -> None:
        self._queue.put_nowait(message)

    def print(self, *objects: Any, sep: str = " ", end: str = "\n", flush: bool = False) -> None:
        """Console output of AG2 internals; the event stream carries everything mapped."""

    def input(self, prompt: str = "", *, password: bool = False) -> str:
        raise RuntimeError(
            "an agent asked for human input; the group-chat endpoint has no console: "
            "build agents with human_input_mode='NEVER'"
        )


_DONE = object()


class AG2GroupChatEndpoint(InProcessEndpoint):
    """In-process AG2 group chat; serial (queue 3, concurrency 1).

    Args:
        config: Endpoint config; defaults to :data:`GROUPCHAT_CONFIG`.
        agents: Deployment default participants (a request's ``pattern``/``agents`` win).
    """

    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="in_process", resumable=False, emits_tool_events=True, reports_usage=False
    )
    request_type: ClassVar[type[BaseModel] | None] = AG2GroupChatRequest

    def __init__(
        self,
        config: EndpointConfig | Mapping[str, Any] | None = None,
        *,
        agents: tuple[Any, ...] | list[Any] | None = None,
        **overrides: Any,
    ) -> None:
        require_modules("group_chat", self.required_modules)
        super().__init__(GROUPCHAT_CONFIG if config is None else config, **overrides)
        if agents is not None and not isinstance(agents, list | tuple):
            raise EndpointConfigurationError(
                "ag2.agents",
                f"must be a list of AG2 ConversableAgents, got {type(agents).__name__}",
            )
        # An empty list is refused as in a request ("needs at least one agent"), not taken
        # for "no default agents".
        checked = _checked_defaults(
            AG2GroupChatRequest,
            {"prompt": "-", "agents": None if agents is None else tuple(agents)},
        )
        self.default_agents = checked.agents

    def copy(self) -> AG2GroupChatEndpoint:
        """Same config and default participants; handlers copied."""
        other = type(self)(self.config, agents=self.default_agents, settings=self.settings)
        self.copy_runtime_state_to(other)
        return other

    def build_pattern(self, request: AG2GroupChatRequest) -> Any:
        """The request's pattern, or a round-robin pattern over its (or the default) agents.

        Raises:
            AgenticRequestValidationError: no pattern and no agents anywhere.
        """
        if request.pattern is not None:
            return request.pattern
        agents = request.agents or self.default_agents
        if not agents:
            raise AgenticRequestValidationError(
                "agents", "required without a pattern: the chat's ConversableAgents"
            )
        from autogen.agentchat.group.patterns import RoundRobinPattern

        return RoundRobinPattern(initial_agent=agents[0], agents=list(agents))

    async def _stream_agentic(
        self,
        request: BaseModel,
        *,
        runtime_args: dict[str, Any],
        local_timeout: float | None,
    ) -> AsyncIterator[StreamChunk]:
        assert isinstance(request, AG2GroupChatRequest)
        pattern = self.build_pattern(request)  # validated before the task exists
        from autogen.agentchat.group.multi_agent_chat import a_initiate_group_chat
        from autogen.io.base import IOStream

        queue: asyncio.Queue[Any] = asyncio.Queue()
        # A pattern's ``user_agent`` takes turns like the others (AG2 adds it to the chat), so
        # its messages are output too; it also sends the opening message, which is input.
        participants = [*pattern.agents, getattr(pattern, "user_agent", None)]
        speakers = frozenset(agent.name for agent in participants if agent is not None)

        async def run() -> None:
            try:
                result, _, last = await a_initiate_group_chat(
                    pattern=pattern, messages=request.prompt, max_rounds=request.max_round
                )
            finally:
                queue.put_nowait(_DONE)
            if last.name in speakers:
                queue.put_nowait({"summary": result.summary, "last_speaker": last.name})
            # else the last message is not a participant's (a tool executor's).

        projector = GroupChatProjector(speakers)
        # The task copies the context here, so AG2 inside it sees our stream as the default.
        with IOStream.set_default(_ChatStream(queue)):
            task = asyncio.create_task(run())
        try:
            while True:
                item = await queue.get()
                if item is _DONE:
                    break
                for chunk in projector.feed(item):
                    yield chunk
            await asyncio.wait({task})
            failure = _task_failure(task, "AG2 group chat")
            if failure is not None:
                yield failure
                return
            while not queue.empty():
                item = queue.get_nowait()
                if isinstance(item, dict):
                    if not projector.started:
                        # No agent spoke (``max_round=1``: AG2 counts the opening message as a
                        # round): the "summary" would be the caller's own prompt.
                        continue
                    # No result is made up for a chat that ended on an empty message (ADR-0030,
                    # "normal empty EOF": no synthetic result to make the stream non-empty).
                    if item.get("summary"):
                        reason = projector.termination_reason
                        yield from_summary(
                            item if reason is None else {**item, "termination_reason": reason}
                        )
                else:
                    for chunk in projector.feed(item):
                        yield chunk
        finally:
            await _cancel_and_await(task)


def from_summary(outcome: dict[str, Any]) -> StreamChunk:
    """The result chunk: the chat's outcome as metadata (its text was already sent).

    That is the summary, the last speaker and, when AG2 gave one, why it ended
    (``termination_reason``).
    """
    return StreamChunk(type="result", metadata=dict(outcome))


class GroupChatProjector:
    """Maps AG2 classic events to chunks; only events from the chat's agents are output.

    Tool output is not filtered by speaker: AG2's own group tool executor sends it. Whether a
    tool ran is read from AG2's ``executed_function`` event (``is_exec_success``), which
    precedes the response carrying its text; a failed call's text is redacted like an error
    chunk's. A tool result carries the tool's name, from that event or from its call.
    """

    def __init__(self, speakers: frozenset[str]) -> None:
        self._speakers = speakers
        self.started = False
        """True once a speaker was selected: messages before that are the opening input (sent
        by the pattern's ``user_agent``, a participant, when it has one)."""
        self._names: dict[str, str] = {}  # tool call id -> tool name
        self._outcomes: dict[str | None, tuple[str, bool]] = {}  # call id -> (name, failed)
        self._function_failed: dict[str, bool] = {}  # legacy function_call: name -> failed
        self.termination_reason: str | None = None
        """Why AG2 ended the chat ("Maximum rounds (4) reached", a termination message), from
        its ``termination`` event: the result chunk says it, so a caller can tell a chat that
        ran out of rounds from one an agent ended."""

    def feed(self, event: Any) -> list[StreamChunk]:
        """Chunks for one AG2 event; events outside the mapped set yield none."""
        kind = getattr(event, "type", None)
        content = getattr(event, "content", None)
        if kind == "group_chat_run_chat":
            speaker = getattr(content, "speaker", None)
            self.started = True
            return [StreamChunk(type="system", metadata={"event": "speaker", "speaker": speaker})]
        if kind == "executed_function":
            self._executed(content)
            return []
        if kind == "termination":
            reason = getattr(content, "termination_reason", None)
            if isinstance(reason, str) and reason:
                self.termination_reason = reason
            return []
        sender = getattr(content, "sender", None)
        if kind == "tool_response":
            # Sent by AG2's own group tool executor, which is not one of the caller's agents.
            return [
                self._result(response.tool_call_id, None, response.content, sender)
                for response in getattr(content, "tool_responses", ())
            ]
        if kind == "function_response":
            name = getattr(content, "name", None)
            return [self._result(None, name, getattr(content, "content", None), sender)]
        if sender not in self._speakers or not self.started:
            return []  # the caller's opening message and manager echoes are input
        if kind == "text":
            return _text(getattr(content, "content", None), sender)
        if kind == "tool_call":
            chunks = _text(getattr(content, "content", None), sender)
            for call in getattr(content, "tool_calls", ()):
                name = call.function.name or "unknown"
                if call.id:
                    self._names[call.id] = name
                chunks.append(_use(call.id, name, call.function.arguments, sender))
            return chunks
        if kind == "function_call":
            # AG2's legacy single function call: it has no id; its response is paired by name.
            chunks = _text(getattr(content, "content", None), sender)
            call = getattr(content, "function_call", None)
            if call is not None:
                chunks.append(_use(None, call.name or "unknown", call.arguments, sender))
            return chunks
        return []

    def _executed(self, content: Any) -> None:
        name = str(getattr(content, "func_name", "") or "unknown")
        failed = not getattr(content, "is_exec_success", True)
        call_id = getattr(content, "call_id", None)
        if call_id:
            self._outcomes[call_id] = (name, failed)
        else:
            self._function_failed[name] = failed

    def _result(
        self, call_id: str | None, name: str | None, output: Any, sender: Any
    ) -> StreamChunk:
        failed = False
        if call_id:
            name, failed = self._outcomes.pop(call_id, (self._names.get(call_id), False))
        elif name is not None:
            failed = self._function_failed.pop(name, False)
        if failed:
            output = excerpt(str(output))  # redacted as the error chunk's text is
        return StreamChunk(
            type="tool_result",
            tool_name=name,
            tool_id=call_id,
            tool_output=output,
            is_error=failed,
            metadata={"speaker": sender},
        )


def _text(text: Any, sender: Any) -> list[StreamChunk]:
    """An agent's message text as one chunk; nothing for an empty message."""
    if text is None or text == "":
        return []
    content = text if isinstance(text, str) else json.dumps(text)
    return [StreamChunk(type="text", content=content, metadata={"speaker": sender})]


def _use(call_id: str | None, name: str, arguments: str | None, sender: Any) -> StreamChunk:
    return StreamChunk(
        type="tool_use",
        tool_name=name,
        tool_id=call_id,
        tool_input=_arguments(arguments),
        metadata={"speaker": sender},
    )


def _arguments(raw: str | None) -> dict[str, Any]:
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return {"raw": raw}
    return value if isinstance(value, dict) else {"raw": raw}
