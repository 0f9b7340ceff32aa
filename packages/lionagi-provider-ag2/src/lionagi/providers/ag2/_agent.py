"""The AG2 beta agent, run in-process: one ``Agent.ask`` task per request, events as chunks.

Why a subscription with ``interrupt=True``: AG2 delivers to ordinary subscribers in post-order
(a tool's result can arrive before the call that caused it, see REAL_CLIS.md); interrupters see
every event before anything reacts to it, i.e. in causal order. The interrupter is async so AG2
does not hop to a worker thread per event, and it only enqueues: projection happens in the
consumer's task, so a slow consumer never runs inside AG2's dispatch.

Teardown (ADR-0030 D5): on completion the queue is drained before the result; on error,
deadline, cancellation or consumer close the subscription is removed and, if the agent task has
not finished, it is cancelled and awaited (shielded) before the generator returns, so admission
is released only after AG2 has stopped.

What the run started outside its task ends with it too, on every path (success included).
AG2 runs a background subagent (``background_agent_tool``) as a task of the *stream*
(``spawn_background``) that ``ask`` neither awaits nor cancels: left alone it went on calling
tools after the call had been cancelled, or had returned. Those tasks are cancelled and awaited
with the agent task, and a message one of them queued for "the next ``ask`` on this stream"
(``stream.pending_messages``) is dropped, so nothing of a finished call reaches a later one on a
shared stream (``stream_factory``). Messages queued before the run are left alone.

A synchronous tool is the one thing that cannot be stopped: AG2 runs it in a worker thread
(``anyio.to_thread.run_sync``) and, when the run is cancelled, stops waiting for it. The call
still ends promptly and nothing new starts (no further tool, model turn or background task),
but the thread runs the tool to its end and its side effects happen, possibly while a later
call runs; its return value is discarded, never delivered to that call.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import anyio
import httpx
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictStr,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
)

from lionagi.service import (
    AgenticCapabilities,
    AgenticRequestValidationError,
    EndpointConfig,
    EndpointConfigurationError,
    ProviderConnectionError,
    ProviderError,
    StreamChunk,
)
from lionagi.service.agentic import TokenCounts, first_count, validation_failure
from lionagi.service.http import excerpt

from ._deps import require_modules
from ._in_process import InProcessEndpoint
from ._subtasks import expand_rollups
from ._validation import TypedModel

if TYPE_CHECKING:
    from autogen.beta import Agent, MemoryStream

__all__ = ["AGENT_CONFIG", "QUEUE_POLL", "AG2AgentConfig", "AG2AgentRequest", "AG2BetaEndpoint"]

AGENT_CONFIG: Mapping[str, Any] = {"name": "ag2-agent", "provider": "ag2", "endpoint": "agent"}
QUEUE_POLL = 0.1
"""Seconds between checks of the agent task while no event is queued (ADR-0030 D5; inherited,
a responsiveness interval only: the caller's deadline governs the run)."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_M = TypeVar("_M", bound=BaseModel)


def _is_instance(value: object, module: str, name: str) -> bool:
    """``isinstance`` against an AG2 class imported only when a value needs checking."""
    import importlib

    cls = getattr(importlib.import_module(module), name)
    return isinstance(value, cls)


class AG2AgentConfig(TypedModel):
    """How to build a beta ``Agent`` when the caller gives none.

    Building one directly with an invalid value raises ``EndpointConfigurationError`` naming
    the field (``name``, ``system_prompt.1``), never the value; inside a request or the
    endpoint's ``agent_config=`` the field is named from there (``config.name``,
    ``ag2.agent_config.name``).

    Attributes:
        name: The agent's name (an identifier).
        system_prompt: System prompt lines, in order; a single string is one line.

    Strings are strict (``StrictStr``): pydantic's lax mode decoded ``b"..."`` as text.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    typed_error: ClassVar[Callable[[str, str], Exception]] = EndpointConfigurationError

    name: StrictStr = "assistant"
    system_prompt: tuple[StrictStr, ...] = ()

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        """An identifier, in the library's words rather than the regular expression's."""
        if not _NAME.fullmatch(value):
            raise ValueError(
                "must be an identifier: a letter or '_', then letters, digits, '_' or '-'"
            )
        return value

    @field_validator("system_prompt", mode="wrap")
    @classmethod
    def _system_prompt(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        """A string is one system message, as AG2's own ``Agent(prompt=...)`` takes it.

        A string is what a caller naturally writes for "the system prompt", and without this it
        was refused as "not a valid tuple" (a string is not a sequence of lines here: splitting
        it into characters would be wrong). Nothing else is coerced. A value that is neither a
        string nor a sequence gets a message saying what to pass instead of pydantic's type
        name; a bad item keeps its own error and location (``system_prompt.1``).
        """
        if isinstance(value, str):
            return (value,)
        try:
            return handler(value)
        except ValidationError as exc:
            if any(not error["loc"] for error in exc.errors()):
                raise ValueError(
                    "must be a string (one system message) or a list of strings"
                ) from None
            raise


class AG2AgentRequest(TypedModel):
    """One beta-agent run.

    Built directly, an invalid field raises ``AgenticRequestValidationError`` naming it (as
    core does for the same fields in a request mapping); the value, which may be a model
    configuration holding an API key, is never repeated.

    Attributes:
        prompt: The user message.
        agent: A pre-built ``autogen.beta.Agent``; wins over ``config`` and ``llm``.
        config: Builds the agent when ``agent`` is absent (needs ``llm`` too); with ``llm``, it
            wins over the endpoint's default ``agent``.
        llm: The ``autogen.beta`` ``ModelConfig`` for a built agent (``TestConfig`` offline).

    ``prompt`` is a strict string (``b"..."`` is refused, not decoded); ``config`` still takes a
    mapping, validated as :class:`AG2AgentConfig`.
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, defer_build=True)
    typed_error: ClassVar[Callable[[str, str], Exception]] = AgenticRequestValidationError

    prompt: StrictStr = Field(min_length=1)
    agent: Any | None = None
    config: AG2AgentConfig | None = None
    llm: Any | None = None

    @field_validator("agent")
    @classmethod
    def _agent_type(cls, value: Any) -> Any:
        if value is not None and not _is_instance(value, "autogen.beta", "Agent"):
            raise ValueError(f"must be an autogen.beta.Agent, got {type(value).__name__}")
        return value

    @field_validator("llm")
    @classmethod
    def _llm_type(cls, value: Any) -> Any:
        # ModelConfig is a (non-runtime) Protocol: its contract is a ``create()`` factory.
        if value is not None and not callable(getattr(value, "create", None)):
            raise ValueError(
                f"must be an autogen.beta ModelConfig (e.g. TestConfig), got {type(value).__name__}"
            )
        return value


StreamFactory = Callable[[], "MemoryStream"]


class AG2BetaEndpoint(InProcessEndpoint):
    """In-process AG2 beta agent; serial (queue 3, concurrency 1): agents hold mutable state.

    Args:
        config: Endpoint config; defaults to :data:`AGENT_CONFIG`.
        agent: Deployment default pre-built agent (a request's own ``agent``, ``config`` or
            ``llm`` wins).
        agent_config: Deployment default :class:`AG2AgentConfig`.
        llm: Deployment default ``ModelConfig``.
        stream_factory: Builds the ``MemoryStream`` of each run (default: a fresh one); lets a
            deployment choose storage, and tests count subscriptions.
    """

    capabilities: ClassVar[AgenticCapabilities | None] = AgenticCapabilities(
        transport="in_process", resumable=False, emits_tool_events=True, reports_usage=True
    )
    request_type: ClassVar[type[BaseModel] | None] = AG2AgentRequest

    def __init__(
        self,
        config: EndpointConfig | Mapping[str, Any] | None = None,
        *,
        agent: Any | None = None,
        agent_config: AG2AgentConfig | None = None,
        llm: Any | None = None,
        stream_factory: StreamFactory | None = None,
        **overrides: Any,
    ) -> None:
        require_modules("agent", self.required_modules)
        super().__init__(AGENT_CONFIG if config is None else config, **overrides)
        defaults = _checked_defaults(
            AG2AgentRequest,
            {"prompt": "-", "agent": agent, "config": agent_config, "llm": llm},
            {"config": "agent_config"},
        )
        self.default_agent = defaults.agent
        self.default_agent_config = defaults.config
        self.default_llm = defaults.llm
        if stream_factory is not None and not callable(stream_factory):
            raise EndpointConfigurationError(
                "ag2.stream_factory",
                "must be a callable that returns an autogen.beta MemoryStream, "
                f"got {type(stream_factory).__name__}",
            )
        self.stream_factory = stream_factory

    def copy(self) -> AG2BetaEndpoint:
        """Same config and defaults; handlers copied; no run state."""
        other = type(self)(
            self.config,
            agent=self.default_agent,
            agent_config=self.default_agent_config,
            llm=self.default_llm,
            stream_factory=self.stream_factory,
            settings=self.settings,
        )
        self.copy_runtime_state_to(other)
        return other

    def token_counts(self, usage: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """AG2's ``Usage`` summed over the run (:class:`BetaProjector`), its cache counts beside.

        AG2 names the cache counts as Anthropic does (``cache_read_input_tokens``,
        ``cache_creation_input_tokens``) but its input is ``prompt_tokens``, never Anthropic's
        ``input_tokens``: the default read found no input, and reported the cache counts alone
        as the input. The projector has already added the cache to ``prompt_tokens`` where the
        vendor reports it apart (Anthropic, Bedrock) and the thoughts to ``completion_tokens``
        (Gemini), response by response (:func:`_complete_counts`), so they are read as they are.
        """
        return TokenCounts(
            first_count(usage, "prompt_tokens"),
            first_count(usage, "completion_tokens"),
            cache_read=first_count(usage, "cache_read_input_tokens"),
            cache_creation=first_count(usage, "cache_creation_input_tokens"),
        )

    def build_agent(self, request: AG2AgentRequest) -> Agent:
        """The agent for ``request``; the request's own fields win over the deployment defaults.

        In order: the request's ``agent``; an agent built from the request's ``config``/``llm``
        when it gives either (the other completed from the defaults ``agent_config``/``llm``);
        the default ``agent``; an agent built from the default ``agent_config`` and ``llm``.

        Raises:
            AgenticRequestValidationError: the chosen way to build lacks ``config`` or ``llm``.
        """
        if request.agent is not None:
            return request.agent  # type: ignore[no-any-return]
        own = request.config is not None or request.llm is not None
        if not own and self.default_agent is not None:
            return self.default_agent  # type: ignore[no-any-return]
        config = request.config or self.default_agent_config
        llm = request.llm if request.llm is not None else self.default_llm
        if config is None:
            raise AgenticRequestValidationError(
                "config", "required without a pre-built agent (with llm, the model configuration)"
            )
        if llm is None:
            raise AgenticRequestValidationError(
                "llm", "required without a pre-built agent: the agent's model configuration"
            )
        from autogen.beta import Agent

        return Agent(config.name, prompt=list(config.system_prompt), config=llm)

    async def _stream_agentic(
        self,
        request: BaseModel,
        *,
        runtime_args: dict[str, Any],
        local_timeout: float | None,
    ) -> AsyncIterator[StreamChunk]:
        assert isinstance(request, AG2AgentRequest)
        agent = self.build_agent(request)  # validated before any task exists
        from autogen.beta import MemoryStream

        stream = self.stream_factory() if self.stream_factory is not None else MemoryStream()
        if not isinstance(stream, MemoryStream):
            raise EndpointConfigurationError(
                "ag2.stream_factory",
                f"returned {type(stream).__name__}, not an autogen.beta MemoryStream",
            )
        events: asyncio.Queue[Any] = asyncio.Queue()

        async def interrupter(event: Any) -> Any:
            events.put_nowait(event)
            return event

        sub_id = stream.subscribe(interrupter, interrupt=True)
        projector = BetaProjector()
        task: asyncio.Task[Any] | None = None
        background_before = _background_tasks(stream)
        pending_before = list(stream.pending_messages)
        try:
            task = asyncio.create_task(agent.ask(request.prompt, stream=stream))
            while True:
                event = None
                with anyio.move_on_after(QUEUE_POLL):
                    event = await events.get()
                if event is not None:
                    for chunk in projector.feed(event):
                        yield chunk
                elif task.done():
                    break
            while not events.empty():  # events queued after the last poll
                for chunk in projector.feed(events.get_nowait()):
                    yield chunk
            failure = _task_failure(task)
            if failure is not None:
                yield failure
                return
            await projector.settle(stream.history.storage)
            for chunk in projector.finish():
                yield chunk
        finally:
            stream.unsubscribe(sub_id)
            if task is not None:
                await _cancel_and_await(task)
            await _end_background(stream, background_before)
            # What a background task queued for the next ask on this stream: dropped (it
            # belongs to this call); what the caller queued before the run is kept.
            stream.pending_messages[:] = [
                message
                for message in stream.pending_messages
                if any(message is earlier for earlier in pending_before)
            ]


def _background_tasks(stream: MemoryStream) -> set[asyncio.Task[Any]]:
    """A copy of the stream's background tasks (AG2's ``spawn_background``), or an empty set.

    AG2 0.14 keeps them in the stream's ``_background_tasks`` set (no public accessor); the
    teardown test fails if a later AG2 moves them.
    """
    tasks = getattr(stream, "_background_tasks", None)
    return set(tasks) if isinstance(tasks, set) else set()


async def _end_background(stream: MemoryStream, before: set[asyncio.Task[Any]]) -> None:
    """Cancel and await the background tasks spawned on ``stream`` since ``before``.

    Repeated until none is left, in case one spawned another while it was being cancelled.
    """
    while spawned := {t for t in _background_tasks(stream) - before if not t.done()}:
        await _cancel_and_await(*spawned)


def _checked_defaults(
    model: type[_M], data: Mapping[str, Any], arguments: Mapping[str, str] | None = None
) -> _M:
    """Validate constructor defaults with the request model; a bad one names its argument.

    ``data`` is validated as ``model`` (``model_validate``: pydantic's error, converted here);
    ``arguments`` maps a request field to the constructor argument that gave it (the beta
    agent's ``agent_config=`` fills the request's ``config``), so the error names what the
    caller wrote: ``ag2.agent_config.name``. The message reads like core's request errors
    (:func:`lionagi.service.agentic.validation_failure`); the value given is never included
    (it may be a prompt or a model configuration holding a key).

    Raises:
        EndpointConfigurationError: field ``ag2.<argument>[.<nested field>]`` of the first
            invalid default.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        field, message = validation_failure(exc, "request", model)
        head, dot, rest = field.partition(".")
        head = (arguments or {}).get(head, head)
        raise EndpointConfigurationError(f"ag2.{head}{dot}{rest}", message) from None


def _task_failure(task: asyncio.Task[Any], what: str = "AG2 model") -> StreamChunk | None:
    """The finished agent task's failure as the provider's error chunk, or raise it if transport.

    A lionagi ``ProviderError`` (a model client built on core) and connection/timeout failures
    (a model SDK's and httpx's included) are transport failures and propagate typed; any other
    exception is the agent reporting that its run failed, so it becomes the one error chunk
    (ADR-0030 D3), with a model SDK's HTTP status, code and ``Retry-After`` as its metadata.
    A task cancelled from inside AG2 (our caller was not cancelled, or this would not run) is
    such a failure too: reading its exception would raise ``CancelledError`` into a caller that
    was never cancelled.

    ``what`` names the run in a transport error ("AG2 model", "AG2 group chat").

    Raises:
        ProviderError: the task's own typed error, unchanged.
        ProviderConnectionError: a ``ConnectionError``/``TimeoutError``, an httpx transport
            error or an SDK's ``APIConnectionError``; the message is redacted and names the
            exception type.
    """
    if task.cancelled():
        return StreamChunk(
            type="error",
            content=f"{what} run was cancelled from inside AG2 (the caller did not cancel it)",
            is_error=True,
            metadata={"exception": "CancelledError"},
        )
    exc = task.exception()
    if exc is None:
        return None
    if isinstance(exc, ProviderError):
        raise exc
    if _transport_failure(exc):
        detail = describe_exception(exc)
        raise ProviderConnectionError(f"{what} transport failed: {detail}") from exc
    return StreamChunk(
        type="error",
        content=str(exc) or type(exc).__name__,
        is_error=True,
        metadata={"exception": type(exc).__name__, **_sdk_status(exc)},
    )


def _transport_failure(exc: BaseException) -> bool:
    """No answer came: ``ConnectionError``/``TimeoutError``, httpx's or a model SDK's failure.

    AG2 lets the model SDKs' exceptions through (the classic client turns only OpenAI's timeout
    into ``TimeoutError``). The OpenAI and Anthropic SDKs, which AG2's clients use, both name
    theirs ``APIConnectionError`` (their timeout a subclass); matched by name because neither
    SDK is a dependency of this package.
    """
    if isinstance(exc, (ConnectionError, TimeoutError, httpx.TransportError)):
        return True
    return any(cls.__name__ == "APIConnectionError" for cls in type(exc).__mro__)


def _sdk_status(exc: BaseException) -> dict[str, Any]:
    """What a model SDK's HTTP status error tells core's classification of the error chunk.

    The OpenAI and Anthropic SDKs' ``APIStatusError`` carries the answer's ``status_code``,
    ``code``/``type`` from its body and the response: without them a 500 whose text names no
    known phrase was an unclassified failure, and a 429 lost its ``Retry-After``.
    """
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int) or isinstance(status, bool):
        return {}
    reported: dict[str, Any] = {"status": status}
    for key in ("code", "type"):
        value = getattr(exc, key, None)
        if isinstance(value, str) and value:
            reported[key] = value
    headers = getattr(getattr(exc, "response", None), "headers", None)
    retry_after = headers.get("retry-after") if isinstance(headers, httpx.Headers) else None
    if retry_after is not None:
        reported["retry_after"] = retry_after
    return reported


def describe_exception(exc: BaseException) -> str:
    """``Type: text``, the text redacted and bounded by core's ``excerpt``.

    The bare type name when the exception says nothing (``TimeoutError()``).
    """
    text = excerpt(str(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


async def _cancel_and_await(*tasks: asyncio.Task[Any]) -> None:
    """Cancel each unfinished task and wait for all, even while being cancelled ourselves."""
    for task in tasks:
        if not task.done():
            task.cancel()
    with anyio.CancelScope(shield=True):
        await asyncio.wait(tasks)
    for task in tasks:
        if not task.cancelled():
            task.exception()  # retrieved: a failure after close is not "never retrieved"


class BetaProjector:
    """Maps beta events to chunks, in the order the interrupter saw them.

    Message chunks are text deltas; a turn's final ``ModelMessage`` adds only what that turn's
    deltas did not already say (de-duplication). The turn ends at its ``ModelResponse``, where
    the streamed text is forgotten, so text streamed before a tool call never suppresses or
    repeats the answer of a later turn. Tool calls and results share the call id. Usage of every
    ``UsageEvent`` (each model call, compaction or sub-agent rollup, never the same tokens twice)
    is summed onto the result chunk, completed first (:func:`_complete_counts`); a sub-agent's
    rollup is first replaced by the records it sums, where its stream's history has them
    (:meth:`settle`).
    """

    def __init__(self) -> None:
        self._streamed = ""
        self._usage: dict[str, float] = {}
        self._spent: list[Any] = []  # UsageEvents and TaskCompleteds, summed by settle()

    def feed(self, event: Any) -> list[StreamChunk]:
        """Chunks for one AG2 event; events outside the mapped set yield none."""
        from autogen.beta import events as ev

        if isinstance(event, ev.ModelReasoning):
            # AG2's Responses client announces a reasoning item without a summary as reasoning
            # of no text: nothing for a consumer, and the item (id, encrypted content) is kept
            # by AG2, which sends it back in the run's next request.
            if not event.content:
                return []
            return [StreamChunk(type="thinking", content=event.content, is_delta=True)]
        if isinstance(event, ev.ModelMessageChunk):
            self._streamed += event.content
            return [StreamChunk(type="text", content=event.content, is_delta=True)]
        if isinstance(event, ev.ModelMessage):
            return self._message(event.content)
        if isinstance(event, ev.ToolCallEvent):
            return [
                StreamChunk(
                    type="tool_use",
                    tool_name=event.name,
                    tool_id=event.id,
                    tool_input=_arguments(event.arguments),
                )
            ]
        if isinstance(event, ev.ToolErrorEvent):
            return [
                StreamChunk(
                    type="tool_result",
                    tool_name=event.name,
                    tool_id=event.parent_id,
                    tool_output=excerpt(str(event.error)),  # redacted as the error chunk
                    is_error=True,
                )
            ]
        if isinstance(event, ev.ToolResultEvent):
            return [
                StreamChunk(
                    type="tool_result",
                    tool_name=event.name,
                    tool_id=event.parent_id,
                    tool_output=_tool_output(event.result),
                )
            ]
        if isinstance(event, ev.ModelResponse):
            # The model turn is over: the next turn's final message is compared only with what
            # that turn streams (a turn that streamed a few words, then called a tool, has no
            # ModelMessage of its own to consume them).
            self._streamed = ""
        elif isinstance(event, (ev.UsageEvent, ev.TaskCompleted)):  # AG2 events: `|` is a filter
            # AG2's one usage record per spend (a model call, a compaction, a sub-agent's
            # rollup), which its own UsageReport sums: a sub-agent's model responses stay on
            # its private stream, so ModelResponse usage alone left its tokens out. The
            # TaskCompleted after a rollup names that stream (settle()).
            self._spent.append(event)
        return []

    async def settle(self, storage: Any) -> None:
        """Sum the run's usage records, each sub-agent rollup read back as its own records.

        A rollup names no vendor, so an Anthropic sub-agent's cache was left out of its input;
        the records it sums (in ``storage``, AG2's history of the sub-agent's stream) name
        theirs and are completed as the run's own are (:func:`expand_rollups`).
        """
        spent, self._spent = self._spent, []
        for record in await expand_rollups(storage, spent):
            self._add_usage(record)

    def _message(self, content: str) -> list[StreamChunk]:
        streamed, self._streamed = self._streamed, ""
        if not streamed:
            return [StreamChunk(type="text", content=content)] if content else []
        if content.startswith(streamed):
            rest = content[len(streamed) :]
            return [StreamChunk(type="text", content=rest, is_delta=True)] if rest else []
        # The final message disagrees with what was streamed: the final one is authoritative,
        # but text already shown cannot be retracted, so it is sent whole as a new unit.
        return [StreamChunk(type="text", content=content)]

    def _add_usage(self, response: Any) -> None:
        counts: dict[str, float] = {}
        for key in _USAGE_KEYS:
            value = getattr(response.usage, key, None)
            if isinstance(value, int | float):
                counts[key] = value
        _complete_counts(counts, getattr(response, "provider", None))
        for key, value in counts.items():
            self._usage[key] = self._usage.get(key, 0) + value

    def finish(self) -> list[StreamChunk]:
        """The result chunk when AG2 reported usage; nothing is synthesized otherwise."""
        if not self._usage:
            return []
        usage = {k: int(v) if float(v).is_integer() else v for k, v in self._usage.items()}
        return [StreamChunk(type="result", metadata={"usage": usage})]


_USAGE_KEYS = (
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "thinking_tokens",
)

_CACHE_APART = frozenset({"anthropic", "bedrock"})
"""``ModelResponse.provider`` of AG2's clients whose ``prompt_tokens`` leaves the cache out."""

_THINKING_APART = frozenset({"google"})
"""``ModelResponse.provider`` of AG2's clients whose ``completion_tokens`` leaves thinking out."""


def _complete_counts(counts: dict[str, float], provider: object) -> None:
    """One response's counts in one meaning whichever vendor answered, before they are summed.

    AG2's mappers pass each vendor's counts on as the vendor means them, and the run's sum
    cannot tell them apart afterwards, but each call's ``UsageEvent`` names its client
    (``provider``). Anthropic's ``input_tokens`` and Bedrock's ``inputTokens`` leave out the
    cache reads and writes reported beside them, so ``prompt_tokens`` gets them added back, as
    OpenAI's and Gemini's prompt counts already include them; Gemini's ``candidates_token_count``
    leaves out the thoughts (``thinking_tokens``, billed as output), so ``completion_tokens``
    gets them added, as OpenAI's completion count already includes its reasoning. A total is then
    never below its parts (AG2 sums Anthropic's total from the two counts, without the cache).
    A record of another or no provider (a reply function, a sub-agent's rollup, which AG2
    sums from its calls' counts as they came) is summed as it is.
    """
    if provider in _CACHE_APART:
        cached = counts.get("cache_read_input_tokens", 0) + counts.get(
            "cache_creation_input_tokens", 0
        )
        if cached:
            counts["prompt_tokens"] = counts.get("prompt_tokens", 0) + cached
    elif provider in _THINKING_APART and counts.get("thinking_tokens"):
        counts["completion_tokens"] = counts.get("completion_tokens", 0) + counts["thinking_tokens"]
    else:
        return
    parts = counts.get("prompt_tokens", 0) + counts.get("completion_tokens", 0)
    if "total_tokens" in counts and counts["total_tokens"] < parts:
        counts["total_tokens"] = parts


def _arguments(raw: str) -> dict[str, Any]:
    """A tool call's JSON arguments; text that is not a JSON object is kept under ``raw``."""
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return {"raw": raw}
    return value if isinstance(value, dict) else {"raw": raw}


def _tool_output(result: Any) -> Any:
    """A ``ToolResult``'s parts as plain data: one part unwrapped, several as a list."""
    parts = getattr(result, "parts", None)
    if not isinstance(parts, list):
        return str(result)
    values = []
    for part in parts:
        if hasattr(part, "data"):
            values.append(part.data)
        elif hasattr(part, "content"):
            values.append(part.content)
        else:
            values.append(str(part))
    return values[0] if len(values) == 1 else values
