"""A request value of the wrong type is refused naming the field, before AG2 runs anything.

Regression: pydantic's lax mode coerced it, so a group chat's ``max_round=True`` ran one
round, ``max_round="5"`` or ``5.0`` five, and ``b"..."`` text (a prompt, an agent name, a
system prompt line, an NLIP url) was decoded instead of refused. Each case goes through the
path a caller takes: ``iModel(endpoint=...)`` then ``stream`` (the in-process endpoints have
no one-shot ``invoke``), the request built directly, or an endpoint argument.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from ag2_nlip_fixtures import ScriptedApp, asgi_transport, echo
from autogen import ConversableAgent
from autogen.beta import Context
from autogen.beta.events import ModelMessage, ModelResponse

from lionagi.providers.ag2 import (
    AG2AgentConfig,
    AG2BetaEndpoint,
    AG2GroupChatEndpoint,
    AG2GroupChatRequest,
    AG2NlipEndpoint,
)
from lionagi.service import (
    AgenticRequestValidationError,
    EndpointConfigurationError,
    StreamChunk,
    iModel,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _collect(model: iModel, **request: Any) -> list[StreamChunk]:
    try:
        return [chunk async for chunk in model.stream(**request)]
    finally:
        await model.close()


# -- group chat: max_round is an int -------------------------------------------------------------


def _speaker(name: str, spoken: list[str]) -> ConversableAgent:
    """A ConversableAgent with no LLM that records each turn it takes in ``spoken``."""
    agent = ConversableAgent(name, llm_config=False, human_input_mode="NEVER")

    async def reply(recipient: Any, messages: Any, sender: Any, config: Any) -> tuple[bool, Any]:
        spoken.append(name)
        return True, f"{name} speaks"

    agent.register_reply([ConversableAgent, None], reply)
    return agent


def _chat(spoken: list[str]) -> iModel:
    agents = [_speaker("alice", spoken), _speaker("bob", spoken)]
    return iModel(endpoint=AG2GroupChatEndpoint(agents=agents))


# The conformance kit sends max_round "3", True and 3.5 (``wrong_typed_values``); lax mode
# refuses 3.5 too, so an integral float (and bytes) still needs this case.
@pytest.mark.parametrize("value", [5.0, b"5"])
async def test_group_chat_refuses_a_max_round_that_is_not_an_int(value: Any) -> None:
    spoken: list[str] = []
    with pytest.raises(AgenticRequestValidationError) as info:
        await _collect(_chat(spoken), prompt="hello", max_round=value)
    assert info.value.field == "max_round"
    assert spoken == []


def test_group_chat_request_built_directly_refuses_a_bool_max_round() -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        AG2GroupChatRequest(prompt="x", max_round=True)
    assert str(info.value) == "max_round: Input should be a valid integer"


async def test_group_chat_refuses_a_bytes_prompt() -> None:
    spoken: list[str] = []
    with pytest.raises(AgenticRequestValidationError) as info:
        await _collect(_chat(spoken), prompt=b"hello", max_round=3)
    assert info.value.field == "prompt"
    assert spoken == []


async def test_group_chat_int_max_round_still_runs() -> None:
    spoken: list[str] = []
    chunks = await _collect(_chat(spoken), prompt="hello", max_round=3)
    assert chunks[-1].type == "result"
    assert spoken == ["alice", "bob"]  # the opening message is round 1


# -- beta agent: text fields are strings ---------------------------------------------------------


def _llm(calls: list[int]) -> Any:
    from autogen.beta.config import LLMClient, ModelConfig

    class Client(LLMClient):
        async def __call__(self, messages: Any, context: Context, **kwargs: Any) -> ModelResponse:
            calls.append(1)
            message = ModelMessage("ok")
            await context.send(message)
            return ModelResponse(message)

    class Config(ModelConfig):
        def copy(self) -> Config:
            return self

        def create(self) -> Client:
            return Client()

        def create_files_client(self) -> Any:
            raise RuntimeError("no files API offline")

    return Config()


@pytest.mark.parametrize(
    ("request_fields", "field"),
    [
        ({"prompt": b"go"}, "prompt"),
        ({"config": {"name": b"helper"}}, "config.name"),
        ({"config": {"system_prompt": [b"be nice"]}}, "config.system_prompt.0"),
    ],
)
async def test_beta_agent_refuses_bytes_for_text(
    request_fields: dict[str, Any], field: str
) -> None:
    calls: list[int] = []
    fields = {"prompt": "go", "config": {"name": "helper"}, **request_fields}
    with pytest.raises(AgenticRequestValidationError) as info:
        await _collect(iModel(endpoint=AG2BetaEndpoint()), llm=_llm(calls), **fields)
    assert info.value.field == field
    assert calls == []


def test_agent_config_built_directly_refuses_a_bytes_name() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        AG2AgentConfig(name=b"helper")  # type: ignore[arg-type]
    assert str(info.value) == "name: Input should be a valid string"


async def test_beta_agent_text_config_still_runs() -> None:
    calls: list[int] = []
    config = {"name": "helper", "system_prompt": ["be nice"]}
    chunks = await _collect(
        iModel(endpoint=AG2BetaEndpoint()), prompt="go", config=config, llm=_llm(calls)
    )
    assert [(c.type, c.content) for c in chunks] == [("text", "ok")]
    assert calls == [1]


# -- NLIP: text fields are strings, nothing is sent ----------------------------------------------


class Counting(httpx.AsyncBaseTransport):
    """nlip-server's app in-process, counting the requests that reach it."""

    def __init__(self) -> None:
        self.inner = asgi_transport(ScriptedApp(echo))
        self.sent = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent += 1
        return await self.inner.handle_async_request(request)


def _nlip(transport: Counting) -> iModel:
    config = {
        "name": "ag2-nlip",
        "provider": "ag2",
        "endpoint": "nlip",
        "base_url": "http://nlip.test",
        "allow_local_network": True,
    }
    return iModel(endpoint=AG2NlipEndpoint(config, transport=transport))


@pytest.mark.parametrize(
    ("request_fields", "field"),
    [
        ({"prompt": b"ping"}, "prompt"),
        ({"url": b"http://nlip.test"}, "url"),
        ({"language": b"english"}, "language"),
    ],
)
async def test_nlip_refuses_bytes_for_text(request_fields: dict[str, Any], field: str) -> None:
    transport = Counting()
    with pytest.raises(AgenticRequestValidationError) as info:
        await _collect(_nlip(transport), **{"prompt": "ping", **request_fields})
    assert info.value.field == field
    assert transport.sent == 0


async def test_nlip_text_fields_still_run() -> None:
    transport = Counting()
    chunks = await _collect(_nlip(transport), prompt="ping", language="english")
    assert "".join(c.content or "" for c in chunks if c.type == "text") == "echo: ping"
    assert transport.sent == 1
