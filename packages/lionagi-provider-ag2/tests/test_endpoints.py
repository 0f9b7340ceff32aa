"""Beta agent and group chat behaviour, and teardown counted after every way a run ends."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from ag2_fakes import (
    ReplyConfig,
    add,
    failing,
    speaker,
    stalling,
    streamed_answer,
    tool_agent,
)
from autogen.beta import Agent, MemoryStream
from autogen.beta.events import ModelMessage, ModelMessageChunk, ModelResponse, ToolCallsEvent
from autogen.beta.events import ToolCallEvent as BetaToolCall
from autogen.beta.testing import TestConfig

from lionagi.providers.ag2 import (
    INSTALL_LINE,
    AG2AgentConfig,
    AG2BetaEndpoint,
    AG2GroupChatEndpoint,
    AG2GroupChatRequest,
)
from lionagi.service import (
    AgenticOperationUnsupported,
    AgenticRequestValidationError,
    EndpointConfigurationError,
    ProviderConnectionError,
    ProviderStreamError,
    RequestDeadlineExceeded,
    iModel,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Streams:
    """A stream factory that keeps every MemoryStream so its subscriptions can be counted."""

    def __init__(self) -> None:
        self.made: list[MemoryStream] = []

    def __call__(self) -> MemoryStream:
        stream = MemoryStream()
        self.made.append(stream)
        return stream

    def baseline(self) -> int:
        return len(MemoryStream()._subscribers)  # the storage subscriber every stream has

    def all_released(self) -> bool:
        base = self.baseline()
        return all(not s._interrupters and len(s._subscribers) == base for s in self.made)


def _snapshot() -> tuple[set[asyncio.Task[Any]], set[threading.Thread]]:
    return set(asyncio.all_tasks()), set(threading.enumerate())


async def _assert_nothing_left(before: tuple[set[Any], set[Any]]) -> None:
    await anyio.lowlevel.checkpoint()
    me = asyncio.current_task()
    tasks = {t for t in asyncio.all_tasks() - before[0] if t is not me and not t.done()}
    # AnyIO's shared worker pool is not the run's: AG2's MemoryStream storage subscriber is
    # sync, so AG2 hands it to that pool, whose idle workers anyio itself retires later. Every
    # other thread started during the run must be gone.
    threads = {
        t
        for t in set(threading.enumerate()) - before[1]
        if t.is_alive() and t.name != "AnyIO worker thread"
    }
    assert not tasks, tasks
    assert not threads, threads


def test_import_does_not_import_ag2() -> None:
    code = (
        "import sys, lionagi.providers.ag2\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'autogen', 'ag2', "
        "'nlip_sdk', 'nlip_server'})\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_dependency_names_the_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from lionagi.providers.ag2 import _deps

    monkeypatch.setattr(_deps.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(EndpointConfigurationError) as info:
        AG2BetaEndpoint()
    assert info.value.field == "ag2.agent"
    assert INSTALL_LINE in str(info.value)
    with pytest.raises(EndpointConfigurationError, match="pip install"):
        AG2GroupChatEndpoint()


async def test_beta_events_in_causal_order_deduplicated_with_usage() -> None:
    endpoint = AG2BetaEndpoint(agent_config=AG2AgentConfig(), llm=ReplyConfig(streamed_answer))
    chunks = [c async for c in endpoint.stream({"prompt": "2+3?"})]
    assert [c.type for c in chunks] == ["thinking", "text", "text", "result"]
    assert "".join(c.content or "" for c in chunks if c.type == "text") == "The answer is 5."
    assert chunks[-1].metadata["usage"] == {"prompt_tokens": 11, "completion_tokens": 4}


async def test_beta_tool_result_never_precedes_its_call() -> None:
    endpoint = AG2BetaEndpoint(agent=tool_agent())
    chunks = [c async for c in endpoint.stream({"prompt": "add 2 and 3"})]
    kinds = [c.type for c in chunks]
    use, result = kinds.index("tool_use"), kinds.index("tool_result")
    assert use < result
    assert chunks[use].tool_id == chunks[result].tool_id
    assert chunks[use].tool_input == {"a": 2, "b": 3}
    assert chunks[result].tool_output == 5


async def test_beta_prebuilt_agent_wins_and_config_needs_model() -> None:
    endpoint = AG2BetaEndpoint()
    with pytest.raises(AgenticRequestValidationError) as info:
        [c async for c in endpoint.stream({"prompt": "x", "config": {"name": "a"}})]
    assert info.value.field == "llm"
    with pytest.raises(AgenticRequestValidationError) as info:
        [c async for c in endpoint.stream({"prompt": "x"})]
    assert info.value.field == "config"
    with pytest.raises(AgenticRequestValidationError) as info:
        endpoint.create_payload({"prompt": "x", "agent": object()})
    assert info.value.field == "agent"
    # A pre-built agent is used even though config (without llm) is also given.
    chunks = [
        c async for c in endpoint.stream({"prompt": "x", "agent": tool_agent(), "config": {}})
    ]
    assert any(c.type == "tool_use" for c in chunks)


def _prompt_recorder() -> tuple[ReplyConfig, list[list[str]]]:
    """A model that answers "ok" and records the system prompt each call was given."""
    from autogen.beta.events import ModelMessage, ModelResponse

    prompts: list[list[str]] = []

    async def reply(messages: Any, context: Any) -> ModelResponse:
        prompts.append(list(context.prompt))
        message = ModelMessage("ok")
        await context.send(message)
        return ModelResponse(message)

    return ReplyConfig(reply), prompts


async def test_system_prompt_string_is_one_system_message() -> None:
    # What docs/providers/ag2.md invites: config with a name and a system prompt, as a string.
    llm, prompts = _prompt_recorder()
    model = iModel(endpoint=AG2BetaEndpoint())
    config = {"name": "x", "system_prompt": "be nice"}
    chunks = [c async for c in model.stream(prompt="go", config=config, llm=llm)]
    assert [(c.type, c.content) for c in chunks] == [("text", "ok")]
    assert prompts == [["be nice"]]
    one = AG2AgentConfig.model_validate({"system_prompt": "be nice"})
    assert one.system_prompt == ("be nice",)
    # A list is still several messages, in order (not one joined string).
    several = AG2AgentConfig.model_validate({"system_prompt": ["a", "b"]})
    assert several.system_prompt == ("a", "b")


async def test_system_prompt_of_another_type_says_what_to_pass() -> None:
    endpoint = AG2BetaEndpoint()
    with pytest.raises(AgenticRequestValidationError) as info:
        endpoint.create_payload({"prompt": "x", "config": {"system_prompt": 5}})
    assert info.value.field == "config.system_prompt"
    assert str(info.value) == (
        "config.system_prompt: must be a string (one system message) or a list of strings"
    )
    # A bad line keeps its own location and pydantic's per-item check (no coercion to str).
    with pytest.raises(AgenticRequestValidationError) as info:
        endpoint.create_payload({"prompt": "x", "config": {"system_prompt": ["a", 5]}})
    assert info.value.field == "config.system_prompt.1"


def test_constructor_default_errors_read_without_pydantic_wording() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        AG2BetaEndpoint(agent=object())
    assert str(info.value) == "ag2.agent: must be an autogen.beta.Agent, got object"
    with pytest.raises(EndpointConfigurationError) as info:
        AG2BetaEndpoint(agent_config={"nme": "x"})  # type: ignore[arg-type]
    # Named after the constructor argument the caller wrote (``agent_config``), not the
    # request field it fills (``config``); worded as core words an unknown nested field.
    assert info.value.field == "ag2.agent_config.nme"
    assert str(info.value) == (
        "ag2.agent_config.nme: unknown field of AG2AgentConfig; did you mean 'name'?"
    )
    with pytest.raises(EndpointConfigurationError) as info:
        AG2BetaEndpoint(agent_config={"system_prompt": 5})  # type: ignore[arg-type]
    assert "must be a string (one system message)" in str(info.value)
    assert "Value error" not in str(info.value)


async def test_stream_only_endpoints_refuse_invoke_before_work() -> None:
    for endpoint in (AG2BetaEndpoint(), AG2GroupChatEndpoint()):
        with pytest.raises(AgenticOperationUnsupported):
            await endpoint.call({"prompt": "x"})


@pytest.mark.parametrize("ending", ["success", "error", "cancel", "deadline", "close"])
async def test_beta_teardown_counted(ending: str) -> None:
    streams = Streams()
    model_fn = {"success": streamed_answer, "error": failing}.get(ending, stalling)
    endpoint = AG2BetaEndpoint(
        agent_config=AG2AgentConfig(), llm=ReplyConfig(model_fn), stream_factory=streams
    )
    before = _snapshot()
    model = iModel(endpoint=endpoint)
    await _drive(model, ending)
    await model.close()
    assert streams.made, "no run started"
    assert streams.all_released()
    await _assert_nothing_left(before)
    snap = model.admission_snapshot()
    assert (snap.active, snap.queued) == (0, 0)


async def _drive(model: iModel, ending: str, request: dict[str, Any] | None = None) -> None:
    request = request or {"prompt": "hello"}
    if ending == "success":
        chunks = [c async for c in model.stream(**request)]
        assert chunks
    elif ending == "error":
        with pytest.raises(ProviderStreamError):
            [c async for c in model.stream(**request)]
    elif ending == "deadline":
        with pytest.raises(RequestDeadlineExceeded):
            [c async for c in model.stream(**request, timeout=0.5)]
    elif ending == "cancel":
        with anyio.move_on_after(0.5):
            [c async for c in model.stream(**request)]
    else:
        stream = model.stream(**request)
        await stream.__anext__()
        await stream.aclose()


def _chat(ending: str) -> AG2GroupChatEndpoint:
    if ending == "success":
        return AG2GroupChatEndpoint(agents=[speaker("alice", "hi"), speaker("bob", "yo")])
    if ending == "error":
        return AG2GroupChatEndpoint(
            agents=[speaker("alice", "hi"), speaker("bob", RuntimeError("model unreachable"))]
        )
    return AG2GroupChatEndpoint(agents=[speaker("alice", "hi"), speaker("bob", stall_at=0)])


@pytest.mark.parametrize("ending", ["success", "error", "cancel", "deadline", "close"])
async def test_group_chat_teardown_counted(ending: str) -> None:
    before = _snapshot()
    model = iModel(endpoint=_chat(ending))
    await _drive(model, ending, {"prompt": "hello", "max_round": 4})
    await model.close()
    await _assert_nothing_left(before)
    snap = model.admission_snapshot()
    assert (snap.active, snap.queued) == (0, 0)


async def test_group_chat_speakers_text_and_one_error_chunk() -> None:
    chunks: list[Any] = []

    async def consume() -> None:
        async for chunk in iModel(endpoint=_chat("error")).stream(prompt="Start", max_round=4):
            chunks.append(chunk)

    with pytest.raises(ProviderStreamError, match="model unreachable"):
        await consume()
    assert [(c.type, c.metadata.get("speaker"), c.content) for c in chunks] == [
        ("system", "alice", None),
        ("text", "alice", "hi"),
        ("system", "bob", None),
        ("error", None, "model unreachable"),
    ]


def test_group_chat_max_round_default_and_bound() -> None:
    assert AG2GroupChatRequest(prompt="x").max_round == 15
    with pytest.raises(AgenticRequestValidationError) as info:
        AG2GroupChatEndpoint().create_payload({"prompt": "x", "max_round": 0})
    assert info.value.field == "max_round"


def test_queue_and_concurrency_defaults() -> None:
    from lionagi.providers.ag2 import AG2NlipEndpoint

    for cls, queue, active in (
        (AG2BetaEndpoint, 3, 1),
        (AG2GroupChatEndpoint, 3, 1),
        (AG2NlipEndpoint, 10, 3),
    ):
        assert (queue, active) == (cls.DEFAULT_QUEUE_CAPACITY, cls.DEFAULT_CONCURRENCY_LIMIT)


def test_bad_constructor_defaults_are_configuration_errors() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        AG2BetaEndpoint(agent=object())
    assert info.value.field == "ag2.agent"
    with pytest.raises(EndpointConfigurationError) as info:
        AG2GroupChatEndpoint(agents=[object()])
    assert info.value.field == "ag2.agents"


# -- secrets and typed failures --------------------------------------------------------------

_KEY = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"


def _raising(exc: BaseException) -> ReplyConfig:
    async def reply(messages: Any, context: Any) -> Any:
        await context.send(ModelMessageChunk("working"))
        raise exc

    return ReplyConfig(reply)


async def test_beta_transport_failure_is_redacted_and_names_the_type() -> None:
    endpoint = AG2BetaEndpoint(agent_config=AG2AgentConfig(), llm=_raising(ConnectionError(_KEY)))
    with pytest.raises(ProviderConnectionError) as info:
        [c async for c in endpoint.stream({"prompt": "x"})]
    assert _KEY not in str(info.value)
    assert str(info.value) == "AG2 model transport failed: ConnectionError: [REDACTED]"
    # A bare TimeoutError() says nothing: the message names its type instead of ending empty.
    endpoint = AG2BetaEndpoint(agent_config=AG2AgentConfig(), llm=_raising(TimeoutError()))
    with pytest.raises(ProviderConnectionError) as info:
        [c async for c in endpoint.stream({"prompt": "x"})]
    assert str(info.value) == "AG2 model transport failed: TimeoutError"


async def test_group_chat_transport_failure_is_redacted() -> None:
    agents = [speaker("alice", "hi"), speaker("bob", ConnectionError(f"refused token={_KEY}"))]
    endpoint = AG2GroupChatEndpoint(agents=agents)
    with pytest.raises(ProviderConnectionError) as info:
        [c async for c in endpoint.stream({"prompt": "x", "max_round": 4})]
    assert _KEY not in str(info.value)
    assert "ConnectionError: refused token=[REDACTED]" in str(info.value)


async def test_task_cancelled_inside_the_agent_is_a_typed_provider_error() -> None:
    # A model client whose own inner work was cancelled leaks CancelledError out of the agent;
    # our caller was not cancelled, so it must get a ProviderError, not CancelledError.
    model = iModel(
        endpoint=AG2BetaEndpoint(
            agent_config=AG2AgentConfig(), llm=_raising(asyncio.CancelledError())
        )
    )
    with anyio.fail_after(5), pytest.raises(ProviderStreamError, match="cancelled from inside"):
        [c async for c in model.stream(prompt="x")]
    snap = model.admission_snapshot()
    assert (snap.active, snap.queued) == (0, 0)
    await model.close()


async def test_tool_error_text_redacted_in_the_tool_result() -> None:
    def leaky(a: int) -> int:
        """Fail with a secret in the message."""
        raise ValueError("db password=hunter2hunter2")

    agent = Agent(
        "a",
        config=TestConfig(BetaToolCall(name="leaky", arguments='{"a": 1}'), "after"),
        tools=[leaky],
    )
    chunks = [c async for c in AG2BetaEndpoint(agent=agent).stream({"prompt": "x"})]
    (result,) = [c for c in chunks if c.type == "tool_result"]
    assert result.is_error
    assert result.tool_name == "leaky"
    assert "hunter2hunter2" not in str(result.tool_output)
    assert "[REDACTED]" in str(result.tool_output)


# -- de-duplication per model turn -----------------------------------------------------------


async def test_text_streamed_before_a_tool_call_does_not_repeat_the_answer() -> None:
    """The capture's order: a few words, a tool call, then the streamed answer and its message.

    Regression: the words of the first turn were still counted as "streamed" when the second
    turn's ModelMessage arrived, so it no longer matched and was sent again whole.
    """
    turn = [0]

    async def reply(messages: Any, context: Any) -> ModelResponse:
        turn[0] += 1
        if turn[0] == 1:
            await context.send(ModelMessageChunk("Let me "))
            call = BetaToolCall(name="add", arguments='{"a": 2, "b": 3}')
            return ModelResponse(tool_calls=ToolCallsEvent([call]))
        await context.send(ModelMessageChunk("The answer "))
        await context.send(ModelMessageChunk("is 5."))
        message = ModelMessage("The answer is 5.")
        await context.send(message)
        return ModelResponse(message)

    agent = Agent("calc", config=ReplyConfig(reply), tools=[add])
    chunks = [c async for c in AG2BetaEndpoint(agent=agent).stream({"prompt": "2+3?"})]
    text = "".join(c.content or "" for c in chunks if c.type == "text")
    assert text == "Let me The answer is 5."


# -- request fields win over deployment defaults ---------------------------------------------


async def test_request_config_and_llm_win_over_a_default_agent() -> None:
    llm, prompts = _prompt_recorder()
    endpoint = AG2BetaEndpoint(agent=tool_agent())
    request = {"prompt": "x", "config": {"name": "mine", "system_prompt": "own"}, "llm": llm}
    chunks = [c async for c in endpoint.stream(request)]
    assert [(c.type, c.content) for c in chunks] == [("text", "ok")]
    assert prompts == [["own"]]
    # Without request fields the default agent still runs.
    chunks = [c async for c in endpoint.stream({"prompt": "x"})]
    assert any(c.type == "tool_use" for c in chunks)


# -- group chat mapping ----------------------------------------------------------------------


def _tool_call(call_id: str, name: str, arguments: str, text: str | None = None) -> dict[str, Any]:
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    return {"role": "assistant", "content": text, "tool_calls": [call]}


async def test_group_chat_keeps_text_sent_with_tool_calls() -> None:
    agents = [
        speaker(
            "alice",
            _tool_call("c1", "add", '{"a": 1, "b": 1}', "Let me add"),
            "done",
            functions=[add],
        ),
        speaker("bob", "ok"),
    ]
    chunks = [
        c
        async for c in AG2GroupChatEndpoint(agents=agents).stream({"prompt": "x", "max_round": 4})
        if c.type != "system"
    ]
    assert [(c.type, c.content, c.tool_name) for c in chunks[:3]] == [
        ("text", "Let me add", None),
        ("tool_use", None, "add"),
        ("tool_result", None, "add"),
    ]
    assert chunks[2].tool_id == chunks[1].tool_id == "c1"
    assert chunks[2].tool_output == "2"
    assert not chunks[2].is_error


async def test_group_chat_failed_tool_is_an_error_result_with_its_name() -> None:
    def boom(a: int) -> int:
        """Fail with a secret in the message."""
        raise ValueError("db password=hunter2hunter2")

    agents = [
        speaker("alice", _tool_call("c2", "boom", '{"a": 2}'), "done", functions=[boom]),
        speaker("bob", "ok"),
    ]
    endpoint = AG2GroupChatEndpoint(agents=agents)
    chunks = [c async for c in endpoint.stream({"prompt": "x", "max_round": 4})]
    (result,) = [c for c in chunks if c.type == "tool_result"]
    assert (result.tool_id, result.tool_name, result.is_error) == ("c2", "boom", True)
    assert "hunter2hunter2" not in str(result.tool_output)


async def test_group_chat_legacy_function_call_and_response() -> None:
    call = {"name": "add", "arguments": '{"a": 1, "b": 1}'}
    agents = [
        speaker("alice", {"role": "assistant", "content": "calling", "function_call": call}),
        speaker("bob", {"role": "function", "name": "add", "content": "2"}),
    ]
    endpoint = AG2GroupChatEndpoint(agents=agents)
    chunks = [
        c
        async for c in endpoint.stream({"prompt": "x", "max_round": 3})
        if c.type not in ("system", "result")
    ]
    assert [(c.type, c.content, c.tool_name, c.tool_input, c.tool_output) for c in chunks] == [
        ("text", "calling", None, None, None),
        ("tool_use", None, "add", {"a": 1, "b": 1}, None),
        ("tool_result", None, "add", None, "2"),
    ]


# -- constructor input -----------------------------------------------------------------------


def test_constructor_input_errors_name_the_field_in_the_library_words() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        AG2GroupChatEndpoint(agents=5)  # type: ignore[arg-type]
    assert str(info.value) == "ag2.agents: must be a list of AG2 ConversableAgents, got int"
    with pytest.raises(EndpointConfigurationError) as info:
        AG2BetaEndpoint(stream_factory=5)  # type: ignore[arg-type]
    assert info.value.field == "ag2.stream_factory"
    with pytest.raises(EndpointConfigurationError) as info:
        AG2BetaEndpoint(agent_config={"name": "bad name"})  # type: ignore[arg-type]
    assert info.value.field == "ag2.agent_config.name"
    assert "must be an identifier" in str(info.value)
    assert "pattern" not in str(info.value)


async def test_stream_factory_returning_another_type_is_a_configuration_error() -> None:
    endpoint = AG2BetaEndpoint(
        agent_config=AG2AgentConfig(),
        llm=ReplyConfig(streamed_answer),
        stream_factory=object,  # type: ignore[arg-type]
    )
    with pytest.raises(EndpointConfigurationError) as info:
        [c async for c in endpoint.stream({"prompt": "x"})]
    assert info.value.field == "ag2.stream_factory"


async def test_group_chat_where_no_agent_spoke_returns_no_prompt_as_result() -> None:
    """max_round=1: AG2 counts the opening message, no agent speaks; the prompt is not echoed."""
    endpoint = AG2GroupChatEndpoint(agents=[speaker("alice", "a1"), speaker("bob", "b1")])
    chunks = [c async for c in iModel(endpoint=endpoint).stream(prompt="start", max_round=1)]
    assert [c for c in chunks if c.type == "result"] == []
    assert all(c.content != "start" for c in chunks)
    assert all(c.metadata.get("summary") != "start" for c in chunks)
