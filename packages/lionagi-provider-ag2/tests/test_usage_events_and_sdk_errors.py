"""A beta run's usage read from AG2's ``UsageEvent``s; model-SDK failures typed by their family.

AG2 0.14 emits a ``UsageEvent`` wherever tokens are spent (each model call, history compaction,
memory aggregation) and, for a sub-agent run as a tool, one ``"subtask"`` rollup on the parent
stream: the sub-agent's own model responses stay on its private stream. Summing the parent's
``ModelResponse`` usage left the sub-agent's tokens out of the run's usage.

AG2 lets the model SDKs' exceptions through unchanged (beta clients, and the classic client for
everything but its own timeout). An SDK's connection failure (``APIConnectionError``, httpx's
transport errors) is a transport failure like ``ConnectionError``; an SDK's HTTP status error
carries its status, code and ``Retry-After`` to the classification, so a 500 is a server fault
and a 429 keeps its delay.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from ag2_fakes import ReplyConfig, speaker
from autogen.beta import Agent
from autogen.beta.events import (
    ModelMessage,
    ModelMessageChunk,
    ModelResponse,
    ToolCallEvent,
    ToolCallsEvent,
    Usage,
)
from autogen.beta.testing import TestConfig

from lionagi.providers.ag2 import AG2AgentConfig, AG2BetaEndpoint, AG2GroupChatEndpoint
from lionagi.service import (
    ProviderConnectionError,
    ProviderQuotaError,
    ProviderServerFaultError,
    iModel,
)

pytestmark = pytest.mark.anyio

_REQUEST = httpx.Request("POST", "https://api.openai.com/v1/chat/completions")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_sub_agent_usage_is_part_of_the_run_usage() -> None:
    child = Agent(
        "helper",
        config=TestConfig(
            ModelResponse(
                ModelMessage("seven"), usage=Usage(prompt_tokens=100, completion_tokens=20)
            )
        ),
    )
    call = ToolCallEvent(name="task_helper", arguments='{"objective": "compute"}')
    parent = Agent(
        "boss",
        config=TestConfig(
            ModelResponse(
                tool_calls=ToolCallsEvent([call]),
                usage=Usage(prompt_tokens=10, completion_tokens=2),
            ),
            ModelResponse(ModelMessage("7"), usage=Usage(prompt_tokens=12, completion_tokens=3)),
        ),
        tools=[child.as_tool(description="delegate")],
    )
    model = iModel(endpoint=AG2BetaEndpoint(agent=parent))
    chunks = [c async for c in model.stream(prompt="go")]
    await model.close()
    (result,) = [c for c in chunks if c.type == "result"]
    # The parent's two calls once each, plus the sub-agent's rollup (AG2's own UsageReport).
    assert result.metadata["usage"] == {"prompt_tokens": 122, "completion_tokens": 25}


def _raising(exc: BaseException) -> ReplyConfig:
    async def reply(messages: Any, context: Any) -> Any:
        await context.send(ModelMessageChunk("working"))
        raise exc

    return ReplyConfig(reply)


async def _beta_failure(exc: BaseException) -> BaseException:
    model = iModel(endpoint=AG2BetaEndpoint(agent_config=AG2AgentConfig(), llm=_raising(exc)))
    try:
        with pytest.raises(Exception) as info:
            [c async for c in model.stream(prompt="x")]
    finally:
        await model.close()
    return info.value


async def test_sdk_connection_failures_are_transport_failures() -> None:
    openai = pytest.importorskip("openai")
    for exc in (
        openai.APIConnectionError(request=_REQUEST),
        openai.APITimeoutError(request=_REQUEST),
        httpx.ConnectError("All connection attempts failed", request=_REQUEST),
    ):
        error = await _beta_failure(exc)
        assert isinstance(error, ProviderConnectionError), (exc, error)
        assert type(exc).__name__ in str(error)


async def test_sdk_status_error_keeps_its_status_and_retry_after() -> None:
    openai = pytest.importorskip("openai")
    server = openai.InternalServerError(
        "Error code: 500 - {'error': {'message': 'The server had an error'}}",
        response=httpx.Response(500, request=_REQUEST),
        body={"message": "The server had an error", "type": "server_error"},
    )
    error = await _beta_failure(server)
    assert isinstance(error, ProviderServerFaultError), error
    assert getattr(error, "status", None) == 500
    limited = openai.RateLimitError(
        "Error code: 429 - {'error': {'message': 'Rate limit reached'}}",
        response=httpx.Response(429, request=_REQUEST, headers={"retry-after": "7"}),
        body={"message": "Rate limit reached", "code": "rate_limit_exceeded"},
    )
    error = await _beta_failure(limited)
    assert isinstance(error, ProviderQuotaError), error
    assert getattr(error, "retry_after", None) == 7.0


async def test_group_chat_sdk_failures_are_typed_too() -> None:
    openai = pytest.importorskip("openai")
    failures: list[BaseException] = []
    for exc in (
        openai.APIConnectionError(request=_REQUEST),
        openai.InternalServerError(
            "Error code: 500", response=httpx.Response(500, request=_REQUEST), body=None
        ),
    ):
        endpoint = AG2GroupChatEndpoint(agents=[speaker("alice", "hi"), speaker("bob", exc)])
        model = iModel(endpoint=endpoint)
        with pytest.raises(Exception) as info:
            [c async for c in model.stream(prompt="x", max_round=4)]
        await model.close()
        failures.append(info.value)
    assert isinstance(failures[0], ProviderConnectionError), failures[0]
    assert isinstance(failures[1], ProviderServerFaultError), failures[1]
