"""A ``tool_choice`` forcing a tool the request does not offer is refused before any request.

The API answers such a request with a 400, after a round trip and an admission slot. Both rows
refuse it on ``tool_choice`` (chat through core's shared rule, Responses through its own
``{"type": "function", "name": ...}`` grammar); every choice the API may accept is still sent.
"""

from __future__ import annotations

from typing import Any

import pytest
from openai_loopback import openai_model

from lionagi.service import EndpointConfigurationError, iModel

KEY = "sk-tool-choice-responses-0123456789"
CHAT = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}]}
RESPONSES = {"model": "gpt-5", "input": "hi"}
LOOKUP = {"type": "function", "name": "lookup", "parameters": {"type": "object"}}
WEB = {"type": "web_search"}


def _named(name: str) -> dict[str, Any]:
    return {"type": "function", "name": name}


async def test_a_forced_choice_without_its_tool_never_reaches_the_server(server):
    chat_choice = {"type": "function", "function": {"name": "lookup"}}
    for row, base, choice in [
        ("chat", CHAT, "required"),
        ("chat", CHAT, chat_choice),
        ("responses", RESPONSES, "required"),
        ("responses", RESPONSES, _named("lookup")),
    ]:
        model = openai_model(
            f"{server.base_url}/v1", api_key=KEY, model=str(base["model"]), endpoint=row
        )
        async with model:
            with pytest.raises(EndpointConfigurationError) as refused:
                await model.invoke(**base, tool_choice=choice)
        assert refused.value.field == "tool_choice", (row, choice)
    assert server.requests == []


def _responses(**fields: Any) -> dict[str, Any]:
    endpoint = iModel(model="openai/gpt-5", endpoint="responses", api_key=KEY).endpoint
    payload, _ = endpoint.create_payload({**RESPONSES, **fields})
    return payload


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"tool_choice": "required"}, "offers no tools"),
        ({"tool_choice": "required", "tools": []}, "offers no tools"),
        ({"tool_choice": _named("lookup")}, "offers no tools"),
        ({"tool_choice": _named("lookpu"), "tools": [LOOKUP, WEB]}, "'lookup'"),
        # a built-in tool is not a function a function choice can force
        ({"tool_choice": _named("web_search"), "tools": [WEB]}, "functions: none"),
    ],
)
def test_a_responses_choice_forcing_a_tool_not_offered_is_refused(
    fields: dict[str, Any], says: str
) -> None:
    with pytest.raises(EndpointConfigurationError) as refused:
        _responses(**fields)
    assert refused.value.field == "tool_choice"
    assert says in str(refused.value)
    assert KEY not in str(refused.value)


@pytest.mark.parametrize(
    "fields",
    [
        {"tool_choice": _named("lookup"), "tools": [WEB, LOOKUP]},
        {"tool_choice": "required", "tools": [WEB]},
        {"tool_choice": "auto"},
        {"tool_choice": "none"},
        # built-in, MCP and allowed-tools choices: the server's to judge, sent as written
        {"tool_choice": {"type": "web_search_preview"}},
        {"tool_choice": {"type": "mcp", "server_label": "crm", "name": "find"}, "tools": [WEB]},
        {
            "tool_choice": {"type": "allowed_tools", "mode": "required", "tools": [WEB]},
            "tools": [WEB],
        },
        # a stored prompt may carry the tools; namespaces and tool search hold functions that
        # are not listed at the top level: the request alone cannot tell, so nothing is refused
        {"tool_choice": "required", "prompt": {"id": "pmpt_1"}},
        {"tool_choice": _named("lookup"), "prompt": {"id": "pmpt_1"}},
        {
            "tool_choice": _named("get_customer"),
            "tools": [{"type": "namespace", "name": "crm", "description": "", "tools": [LOOKUP]}],
        },
        {"tool_choice": _named("loaded_later"), "tools": [{"type": "tool_search"}, LOOKUP]},
    ],
)
def test_a_responses_choice_the_api_may_accept_is_sent_as_written(
    fields: dict[str, Any],
) -> None:
    sent = _responses(**fields)
    assert sent["tool_choice"] == fields["tool_choice"]
    for name in ("tools", "prompt"):
        if name in fields:
            assert sent[name] == fields[name]
