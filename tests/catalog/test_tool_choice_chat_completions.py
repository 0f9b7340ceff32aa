"""A Chat Completions ``tool_choice`` that forces a tool the request does not offer is refused.

Every OpenAI-compatible row validates with core's ``OpenAIChatCompletionsRequest``. A request
forcing a function that is not among its ``tools`` (or forcing tool use with no tools at all)
used to be sent, and the service answered 400 after a round trip and an admission slot. It is
refused on ``tool_choice`` when the call is built; every choice the service may accept (``auto``,
``none``, shapes this model does not know) is still sent as written.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, iModel

KEY = "sk-tool-choice-0123456789"
MESSAGES = [{"role": "user", "content": "hi"}]
LOOKUP = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}
GRAMMAR = {"type": "custom", "custom": {"name": "grammar"}}


def _model() -> iModel:
    return iModel(
        provider="somegateway",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url="https://gateway.example/v1",
        api_key=KEY,
    )


def _sent(**fields: Any) -> dict[str, Any]:
    return _model().create_api_calling(model="m", messages=MESSAGES, **fields).payload


def _refused(**fields: Any) -> EndpointConfigurationError:
    with pytest.raises(EndpointConfigurationError) as info:
        _sent(**fields)
    return info.value


def _named(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name}}


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"tool_choice": "required"}, "offers no tools"),
        ({"tool_choice": "required", "tools": []}, "offers no tools"),
        ({"tool_choice": "required", "tools": None}, "offers no tools"),
        ({"tool_choice": _named("lookup")}, "offers no tools"),
        ({"tool_choice": _named("lookup"), "tools": []}, "offers no tools"),
        ({"tool_choice": _named("lookpu"), "tools": [LOOKUP]}, "'lookup'"),
        # a custom tool is not a function: a function choice cannot force it
        ({"tool_choice": _named("grammar"), "tools": [GRAMMAR]}, "functions: none"),
    ],
)
def test_a_choice_forcing_a_tool_not_offered_is_refused_naming_tool_choice(
    fields: dict[str, Any], says: str
) -> None:
    error = _refused(**fields)
    assert error.field == "tool_choice"
    assert says in str(error)
    assert KEY not in str(error)


@pytest.mark.parametrize(
    "fields",
    [
        {"tool_choice": _named("lookup"), "tools": [GRAMMAR, LOOKUP]},
        {"tool_choice": "required", "tools": [LOOKUP]},
        {"tool_choice": "required", "tools": [GRAMMAR]},
        # not forcing: the service's to judge, sent as written
        {"tool_choice": "auto"},
        {"tool_choice": "none"},
        {"tool_choice": "none", "tools": [LOOKUP]},
        # shapes this model does not read pass through unchanged
        {
            "tool_choice": {
                "type": "allowed_tools",
                "allowed_tools": {"mode": "required", "tools": [_named("other")]},
            },
            "tools": [LOOKUP],
        },
        {"tool_choice": {"type": "custom", "custom": {"name": "grammar"}}, "tools": [GRAMMAR]},
        {"tool_choice": {"type": "vendor_tool"}},
        # entries that are not function tools (a vendor's built-in) name nothing, quietly; a
        # malformed entry ({"type": "function"} with no function, one with no type) is refused
        # by the nested shapes now (tests/catalog/test_openai_chat_shapes.py)
        {"tool_choice": _named("lookup"), "tools": [{"type": "vendor_search"}, LOOKUP]},
    ],
)
def test_a_choice_the_service_may_accept_is_sent_as_written(fields: dict[str, Any]) -> None:
    sent = _sent(**fields)
    assert sent["tool_choice"] == fields["tool_choice"]
    if "tools" in fields:
        assert sent["tools"] == fields["tools"]


def test_a_vendor_subclass_inherits_the_check() -> None:
    # Rows with their own request model (OpenAI, Gemini's compatibility layer, DeepSeek, ...)
    # subclass the shared one, so they refuse the same choice.
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="openai/gpt-4.1", endpoint="chat", api_key=KEY).create_api_calling(
            messages=MESSAGES, tool_choice="required"
        )
    assert info.value.field == "tool_choice"
