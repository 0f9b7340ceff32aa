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
from ag2_fakes import ReplyConfig, failing, speaker, stalling, streamed_answer, tool_agent
from autogen.beta import MemoryStream

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
    assert info.value.field == "ag2.config.nme"
    assert str(info.value) == "ag2.config.nme: unknown field"
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
