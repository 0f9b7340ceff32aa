"""A function-calling config that forces a function the request does not declare is refused.

``toolConfig.functionCallingConfig`` with ``allowedFunctionNames`` naming an undeclared function,
or forcing a call (``mode: ANY``) with no ``functionDeclarations`` at all, is answered with a 400
by the API after a round trip. It is refused on ``toolConfig`` before any request; every config
the API may accept reaches the wire as given. The chat row (compatibility layer) refuses the
same mistake on ``tool_choice`` through core's shared Chat Completions rule.
"""

from __future__ import annotations

from typing import Any

import pytest
from gemini_loopback import API_KEY, chat_model, native_model

from lionagi.service import EndpointConfigurationError
from lionagi.service_testing.fake_server import FakeProviderServer

CONTENTS = [{"role": "user", "parts": [{"text": "hello"}]}]
SHELL = {"name": "shell", "parameters": {"type": "object"}}
FUNCTIONS = {"functionDeclarations": [SHELL, {"name": "grep"}]}
SEARCH = {"googleSearch": {}}
COMPUTER = {"computerUse": {"environment": "ENVIRONMENT_BROWSER"}}


def _calling(mode: str | None = None, *names: str) -> dict[str, Any]:
    config: dict[str, Any] = {}
    if mode is not None:
        config["mode"] = mode
    if names:
        config["allowedFunctionNames"] = list(names)
    return {"functionCallingConfig": config}


def _native_payload(**fields: Any) -> dict[str, Any]:
    endpoint = native_model().endpoint
    payload, _ = endpoint.create_payload({"contents": CONTENTS, **fields})
    return payload


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"toolConfig": _calling("ANY")}, "no tool has functionDeclarations"),
        ({"toolConfig": _calling("ANY"), "tools": []}, "no tool has functionDeclarations"),
        ({"toolConfig": _calling("ANY"), "tools": [SEARCH]}, "no tool has functionDeclarations"),
        ({"toolConfig": _calling("ANY", "shell")}, "no tool has functionDeclarations"),
        ({"toolConfig": _calling("ANY", "shel"), "tools": [FUNCTIONS]}, "'shell', 'grep'"),
        ({"toolConfig": _calling("VALIDATED", "ls"), "tools": [FUNCTIONS]}, "'shell', 'grep'"),
        (
            {"toolConfig": _calling("ANY", "shell", "ls"), "tools": [SEARCH, FUNCTIONS]},
            "names 1 function(s)",
        ),
    ],
)
def test_a_config_forcing_an_undeclared_function_is_refused(
    fields: dict[str, Any], says: str
) -> None:
    with pytest.raises(EndpointConfigurationError) as refused:
        _native_payload(**fields)
    assert refused.value.field == "toolConfig"
    assert says in str(refused.value)
    assert API_KEY not in str(refused.value)


@pytest.mark.parametrize(
    "fields",
    [
        {"toolConfig": _calling("ANY"), "tools": [SEARCH, FUNCTIONS]},
        {"toolConfig": _calling("ANY", "grep"), "tools": [FUNCTIONS]},
        {"toolConfig": _calling("ANY", "shell"), "tools": [{"functionDeclarations": [SHELL]}]},
        # not forcing: left to the API, as before
        {"toolConfig": _calling("AUTO")},
        {"toolConfig": _calling("NONE"), "tools": [SEARCH]},
        {"toolConfig": _calling("VALIDATED")},
        {"toolConfig": {"retrievalConfig": {"latLng": {"latitude": 1.5, "longitude": 2.5}}}},
        # computer use declares its predefined actions itself (click_at, type_text_at, ...)
        {"toolConfig": _calling("ANY"), "tools": [COMPUTER]},
        {"toolConfig": _calling("ANY", "click_at"), "tools": [COMPUTER]},
        {"toolConfig": _calling("VALIDATED", "click_at", "shell"), "tools": [COMPUTER, FUNCTIONS]},
    ],
)
def test_a_config_the_api_may_accept_is_sent_as_given(fields: dict[str, Any]) -> None:
    sent = _native_payload(**fields)
    assert {name: sent[name] for name in fields} == fields


async def test_neither_row_sends_a_forced_call_without_its_function() -> None:
    async with FakeProviderServer() as server:
        native = native_model(server)
        async with native:
            with pytest.raises(EndpointConfigurationError) as info:
                await native.invoke(
                    contents=CONTENTS, tools=[FUNCTIONS], toolConfig=_calling("ANY", "ls")
                )
        assert info.value.field == "toolConfig"
        chat = chat_model(server)
        tools = [{"type": "function", "function": SHELL}]
        forced = {"type": "function", "function": {"name": "ls"}}
        async with chat:
            with pytest.raises(EndpointConfigurationError) as info:
                await chat.invoke(
                    messages=[{"role": "user", "content": "hi"}], tools=tools, tool_choice=forced
                )
        assert info.value.field == "tool_choice"
        assert server.requests == []
