"""Both conformance kits against the template's two rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lionagi.providers.acme import AcmeCli
from lionagi.service import ProviderStreamAuthError
from lionagi.service_testing.conformance import (
    CatalogRow,
    HTTPChatConformance,
    Scenario,
    SubprocessCliConformance,
)


class TestAcmeChat(CatalogRow, HTTPChatConformance):
    """The HTTP row, as the catalog builds it, against the fake provider server."""

    provider = "acme"
    dialect = "openai_chat"
    tool_calls = True


EVENTS: dict[Scenario, list[dict[str, Any]]] = {
    Scenario.TEXT: [
        {"type": "progress"},
        {"type": "text", "content": "hello from acme"},
        {"type": "result"},
    ],
    Scenario.TOOL: [
        {"type": "tool_use", "id": "t1", "name": "shell", "input": {"command": "ls"}},
        {"type": "tool_result", "id": "t1", "output": "README.md"},
        {"type": "text", "content": "There is a README."},
        {"type": "result"},
    ],
    Scenario.USAGE: [
        {"type": "text", "content": "counted"},
        {"type": "result", "usage": {"input_tokens": 3, "output_tokens": 1}},
    ],
    Scenario.PROVIDER_ERROR: [
        {"type": "text", "content": "working"},
        {"type": "error", "message": "acme refused the key", "kind": "auth", "status": 401},
    ],
    Scenario.EMPTY: [{"type": "progress"}],
    Scenario.RESULT_REPEATS_TEXT: [
        {"type": "text", "content": "said once, "},
        {"type": "text", "content": "never twice"},
        {"type": "result", "content": "said once, never twice"},
    ],
}


class TestAcmeCli(SubprocessCliConformance):
    """The CLI row against the kit's replay fake CLI, which replays acme's own events."""

    cli_endpoint_type = AcmeCli
    resume_flag = None
    provider_error_class = ProviderStreamAuthError  # the fixture's refused key (status 401)
    inapplicable_scenarios = {  # noqa: RUF012 - the kit reads a plain mapping
        Scenario.ERROR_MESSAGE: "acme reports failures only as error events",
        Scenario.RETRY_NOTICE: "acme does not retry inside a run",
    }

    def cli_events(self, scenario: Scenario) -> Sequence[Mapping[str, Any]]:
        return EVENTS[scenario]
