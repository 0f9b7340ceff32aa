"""The conformance kit against the in-process scripted provider (and a stream-only variant)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from lionagi.service import ProviderConnectionError, StreamChunk
from lionagi.service.scripted import Delay, Raise, ScriptedEndpoint, ScriptStep, default_script
from lionagi.service_testing.conformance import (
    VENDOR_GRAMMAR_SCENARIOS,
    AgenticEndpointConformance,
    Scenario,
)

CONFIG: Mapping[str, Any] = {"name": "scripted", "provider": "scripted", "endpoint": "chat"}
# Scripted steps are already normalized chunks: there is no vendor event to mis-project.
NO_VENDOR_GRAMMAR: Mapping[Scenario, str] = dict.fromkeys(
    VENDOR_GRAMMAR_SCENARIOS, "scripted steps are normalized chunks, not a vendor grammar"
)


def script_for(scenario: Scenario) -> list[ScriptStep] | None:
    """None plays the default demo script: thinking, a tool round trip, text, usage."""
    if scenario is Scenario.PROVIDER_ERROR:
        return list(default_script("SCRIPTED_FAIL", model="scripted-demo"))
    if scenario is Scenario.STALL:
        return [StreamChunk("text", "Stalling", is_delta=True), Delay(3600.0)]
    if scenario is Scenario.TRANSPORT_ERROR:
        return [Raise(ProviderConnectionError("scripted transport failure"))]
    if scenario is Scenario.EMPTY:
        return []
    return None


class TestScriptedConformance(AgenticEndpointConformance):
    inapplicable_scenarios: ClassVar[Mapping[Scenario, str]] = NO_VENDOR_GRAMMAR

    def make_endpoint(self, scenario: Scenario) -> ScriptedEndpoint:
        return ScriptedEndpoint(CONFIG, script=script_for(scenario))

    def valid_request(self) -> dict[str, Any]:
        return {"prompt": "hello conformance"}


class StreamOnlyScripted(ScriptedEndpoint):
    """The scripted provider declared stream-only, to run the kit's invoke-refusal case."""

    supports_invoke: ClassVar[bool] = False


class TestStreamOnlyScriptedConformance(AgenticEndpointConformance):
    inapplicable_scenarios: ClassVar[Mapping[Scenario, str]] = NO_VENDOR_GRAMMAR

    def make_endpoint(self, scenario: Scenario) -> ScriptedEndpoint:
        return StreamOnlyScripted(CONFIG, script=script_for(scenario))

    def valid_request(self) -> dict[str, Any]:
        return {"prompt": "hello conformance"}
