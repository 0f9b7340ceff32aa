"""The agentic conformance kit against all three AG2 endpoints, offline.

Beta agent: AG2's ``TestConfig`` and reply-function models. Group chat: ConversableAgents with
reply functions. NLIP: a real NLIP server (nlip-server's FastAPI app serving an AG2 agent) on a
loopback socket, one per case.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ag2_fakes import (
    ReplyConfig,
    add,
    counted,
    empty,
    failing,
    speaker,
    stalling,
    streamed_answer,
    tool_agent,
    transport_down,
)
from ag2_nlip_fixtures import NlipScript
from autogen.beta import Agent
from autogen.beta.testing import TestConfig

from lionagi.providers.ag2 import (
    AG2AgentConfig,
    AG2BetaEndpoint,
    AG2GroupChatEndpoint,
    AG2NlipEndpoint,
)
from lionagi.service import ProviderConnectionError
from lionagi.service_testing.conformance import AgenticEndpointConformance, Scenario

BETA_MODELS: dict[Scenario, Any] = {
    Scenario.TEXT: TestConfig("hello from the beta agent"),
    Scenario.USAGE: ReplyConfig(counted),
    Scenario.PROVIDER_ERROR: ReplyConfig(failing),
    Scenario.EMPTY: ReplyConfig(empty),
    Scenario.STALL: ReplyConfig(stalling),
    Scenario.TRANSPORT_ERROR: ReplyConfig(transport_down),
    Scenario.RESULT_REPEATS_TEXT: ReplyConfig(streamed_answer),
}


class TestBetaAgentConformance(AgenticEndpointConformance):
    inapplicable_scenarios: ClassVar[Mapping[Scenario, str]] = {
        Scenario.ERROR_MESSAGE: "a beta agent's failure is an exception, never a flagged message",
        Scenario.RETRY_NOTICE: "the beta agent reports no retries as events",
    }

    def make_endpoint(self, scenario: Scenario) -> AG2BetaEndpoint:
        if scenario is Scenario.TOOL:
            return AG2BetaEndpoint(agent=tool_agent())
        return AG2BetaEndpoint(agent_config=AG2AgentConfig(), llm=BETA_MODELS[scenario])

    def valid_request(self) -> dict[str, Any]:
        return {"prompt": "hello"}


def _tool_call() -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
            }
        ],
    }


def _tool_response() -> dict[str, Any]:
    return {
        "role": "tool",
        "content": "5",
        "tool_responses": [{"tool_call_id": "call_1", "role": "tool", "content": "5"}],
    }


class TestGroupChatConformance(AgenticEndpointConformance):
    inapplicable_scenarios: ClassVar[Mapping[Scenario, str]] = {
        Scenario.ERROR_MESSAGE: "a failing agent raises; AG2 has no error-flagged message",
        Scenario.RETRY_NOTICE: "group chat reports no retries as events",
        Scenario.RESULT_REPEATS_TEXT: "the result chunk carries the summary as metadata only",
    }

    def make_endpoint(self, scenario: Scenario) -> AG2GroupChatEndpoint:
        if scenario is Scenario.TEXT:
            agents = [speaker("alice", "Alice says hi"), speaker("bob", "Bob answers")]
        elif scenario is Scenario.TOOL:
            agents = [speaker("alice", _tool_call(), "done", functions=[add]), speaker("bob", "ok")]
        elif scenario is Scenario.PROVIDER_ERROR:
            agents = [speaker("alice", "hi"), speaker("bob", RuntimeError("model unreachable"))]
        elif scenario is Scenario.EMPTY:
            agents = [speaker("alice", ""), speaker("bob", "")]
        elif scenario is Scenario.STALL:
            agents = [speaker("alice", "Alice starts"), speaker("bob", stall_at=0)]
        elif scenario is Scenario.TRANSPORT_ERROR:
            agents = [speaker("alice", ProviderConnectionError("model connection refused"))]
        else:
            raise AssertionError(scenario)
        return AG2GroupChatEndpoint(agents=agents)

    def valid_request(self) -> dict[str, Any]:
        return {"prompt": "hello", "max_round": 3}


class TestNlipConformance(AgenticEndpointConformance):
    inapplicable_scenarios: ClassVar[Mapping[Scenario, str]] = {
        Scenario.ERROR_MESSAGE: "NLIP reports a failure as an HTTP status, not a flagged message",
        Scenario.RETRY_NOTICE: "NLIP is one request/response; retries are iModel's",
        Scenario.RESULT_REPEATS_TEXT: "the result chunk carries the NLIP mapping as metadata",
    }

    def make_endpoint(self, scenario: Scenario) -> AG2NlipEndpoint:
        return NlipScript.endpoint_for(scenario)

    def valid_request(self) -> dict[str, Any]:
        return {"prompt": "hello"}


__all__ = ["Agent"]
