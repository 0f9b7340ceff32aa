"""The nested fields of the shared Chat Completions request are checked, not sent unchecked.

Core's ``OpenAIChatCompletionsRequest`` (OpenAI's row, every compatible vendor and the compatible
fallback) typed ``messages`` as a list of mappings and ``tools``, ``tool_choice``,
``response_format`` and ``stream_options`` as plain mappings, so a misspelled key or kind went
out as written (``include_usgae`` silently turned usage reporting off). Each is refused now
before any request, naming the path the caller wrote and the closest name, and never repeating
a value. Valid requests still go out exactly as written
(``tests/transport/test_chat_shapes_wire.py``).
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, StrictBool

from lionagi.service import (
    EndpointConfigurationError,
    OpenAIChatCompletionsRequest,
    iModel,
    openai_chat_shapes,
)
from lionagi.service._transport.http.json_native import json_field_order

SECRET = "sk-proj-Zq8vT3xK9mW2nL5pR7sY4uB6"
HI = [{"role": "user", "content": "hi"}]


def _model() -> iModel:
    return iModel(
        provider="somegateway",
        endpoint="chat/completions",
        openai_compatible=True,
        base_url="https://gateway.example/v1",
        api_key="sk-chat-shapes-0123456789",
    )


def _refused(**request: Any) -> EndpointConfigurationError:
    with pytest.raises(EndpointConfigurationError) as info:
        _model().create_api_calling(model="m", **request)
    return info.value


def _payload(**request: Any) -> dict[str, Any]:
    return _model().create_api_calling(model="m", **request).payload


# (request, field, what the message says)
AUDIT_CASES = [
    (
        {"messages": [{"role": "user", "contnet": SECRET}]},
        "messages.0.contnet",
        "unknown field of OpenAIChatUserMessage; did you mean 'content'?",
    ),
    (
        {"messages": [{"role": "usr", "content": SECRET}]},
        "messages.0.role",
        "did you mean 'user'?",
    ),
    (
        {"messages": [{"role": "user", "content": [{"type": "txt", "text": SECRET}]}]},
        "messages.0.content.0.type",
        "did you mean 'text'?",
    ),
    (
        {
            "messages": HI,
            "tools": [
                {"type": "function", "function": {"name": "f", "paramters": {"type": "object"}}}
            ],
        },
        "tools.0.function.paramters",
        "unknown field of OpenAIChatFunctionDefinition; did you mean 'parameters'?",
    ),
    (
        {"messages": HI, "response_format": {"type": "json_shcema"}},
        "response_format.type",
        "did you mean 'json_schema'?",
    ),
    (
        {"messages": HI, "stream_options": {"include_usgae": True}},
        "stream_options.include_usgae",
        "unknown field of OpenAIChatStreamOptions; did you mean 'include_usage'?",
    ),
]


@pytest.mark.parametrize(("request_data", "field", "says"), AUDIT_CASES)
def test_the_audit_typos_are_refused_naming_the_path(
    request_data: dict[str, Any], field: str, says: str
) -> None:
    error = _refused(**request_data)
    assert error.field == field
    assert says in str(error)
    assert SECRET not in str(error)
    assert "Extra inputs" not in str(error)


MORE_CASES = [
    # every role is checked with its own fields
    ({"messages": [{"role": "tool", "content": "x"}]}, "messages.0.tool_call_id", "required"),
    ({"messages": [{"content": "x"}]}, "messages.0.role", "Field required"),
    ({"messages": ["hi"]}, "messages.0", ""),
    ({"messages": [{"role": "user", "content": 5}]}, "messages.0.content", "string or a list"),
    ({"messages": [{"role": "user"}]}, "messages.0.content", "required"),
    (
        {"messages": [{"role": "system", "content": [{"type": "image_url", "image_url": {}}]}]},
        "messages.0.content.0.type",
        "expected text",
    ),
    (
        {"messages": [{"role": "developer", "content": "x", "nmae": "a"}]},
        "messages.0.nmae",
        "did you mean 'name'?",
    ),
    (
        {
            "messages": [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "c", "type": "function", "function": {"name": "f", "args": "{}"}}
                    ],
                }
            ]
        },
        "messages.0.tool_calls.0.function.args",
        "unknown field of OpenAIChatFunctionCall",
    ),
    (
        {
            "messages": [
                {"role": "user", "content": [{"type": "image_url", "image_url": {"uri": "x"}}]}
            ]
        },
        "messages.0.content.0.image_url.uri",
        "did you mean 'url'?",
    ),
    (
        {
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "input_audio", "input_audio": {"data": SECRET}}],
                }
            ]
        },
        "messages.0.content.0.input_audio.format",
        "required",
    ),
    (
        {"messages": [{"role": "user", "content": [{"type": "file", "file": {"fileid": "x"}}]}]},
        "messages.0.content.0.file.fileid",
        "did you mean 'file_id'?",
    ),
    # tools: a malformed function tool, a typo'd type, a tool without a type
    ({"messages": HI, "tools": [{"type": "function"}]}, "tools.0.function", "required"),
    (
        {"messages": HI, "tools": [{"type": "fucntion", "function": {"name": "f"}}]},
        "tools.0.type",
        "did you mean 'function'?",
    ),
    ({"messages": HI, "tools": [{"function": {"name": "f"}}]}, "tools.0.type", "required"),
    (
        {"messages": HI, "tools": [{"type": "custom", "custom": {"name": "g", "fromat": {}}}]},
        "tools.0.custom.fromat",
        "did you mean 'format'?",
    ),
    # tool_choice
    ({"messages": HI, "tool_choice": "requird"}, "tool_choice", "did you mean 'required'?"),
    (
        {"messages": HI, "tool_choice": {"type": "function", "function": {"nmae": "f"}}},
        "tool_choice.function.nmae",
        "did you mean 'name'?",
    ),
    (
        {"messages": HI, "tool_choice": {"type": "allowed_tools", "allowed_tools": {"mode": "x"}}},
        "tool_choice.allowed_tools.mode",
        "",
    ),
    # response_format, the other option objects
    (
        {
            "messages": HI,
            "response_format": {"type": "json_schema", "json_schema": {"name": "n", "shema": {}}},
        },
        "response_format.json_schema.shema",
        "did you mean 'schema'?",
    ),
    (
        {"messages": HI, "stream_options": {"include_usage": "yes"}},
        "stream_options.include_usage",
        "",
    ),
    (
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "image_url", "image_url": {"url": "u", "detail": "orignal"}}
                    ],
                }
            ]
        },
        "messages.0.content.0.image_url.detail",
        "did you mean 'original'?",
    ),
    ({"messages": HI, "audio": {"voice": "alloy", "fromat": "wav"}}, "audio.fromat", "'format'"),
    ({"messages": HI, "prediction": {"type": "content", "contnet": "x"}}, "prediction.contnet", ""),
    (
        {"messages": HI, "web_search_options": {"search_context": "low"}},
        "web_search_options.search_context",
        "did you mean 'search_context_size'?",
    ),
]


@pytest.mark.parametrize(("request_data", "field", "says"), MORE_CASES)
def test_every_nested_object_is_checked(
    request_data: dict[str, Any], field: str, says: str
) -> None:
    error = _refused(**request_data)
    assert error.field == field
    assert says in str(error)
    assert SECRET not in str(error)


RICH: dict[str, Any] = {
    "messages": [
        {"role": "developer", "content": "Be brief."},
        {"role": "system", "content": [{"type": "text", "text": "Answer in English."}]},
        {
            "role": "user",
            "name": "ana",
            "content": [
                {"type": "text", "text": "What is in these?"},
                {
                    "type": "image_url",
                    "image_url": {"url": "https://x.example/a.png", "detail": "low"},
                },
                {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                {
                    "type": "file",
                    "file": {"filename": "a.pdf", "file_data": "data:application/pdf;base64,JVBE"},
                },
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": '{"q": 1}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "42"},
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "no"}], "refusal": "no"},
        {"role": "function", "name": "lookup", "content": None},
    ],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "lookup",
                "description": "Look a thing up.",
                "parameters": {"type": "object", "properties": {"q": {"type": "integer"}}},
                "strict": True,
            },
        },
        {"type": "custom", "custom": {"name": "grammar", "format": {"type": "text"}}},
    ],
    "tool_choice": {"type": "function", "function": {"name": "lookup"}},
    "response_format": {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": {"type": "object"}, "strict": True},
    },
    "stream_options": {"include_usage": True, "include_obfuscation": False},
    "audio": {"voice": "alloy", "format": "mp3"},
    "prediction": {"type": "content", "content": [{"type": "text", "text": "x"}]},
    "web_search_options": {
        "search_context_size": "low",
        "user_location": {"type": "approximate", "approximate": {"city": "Oslo"}},
    },
}


def test_a_rich_valid_request_passes_and_is_built_as_written() -> None:
    payload = _payload(**RICH)
    assert {k: v for k, v in payload.items() if k != "model"} == RICH
    for key, value in RICH.items():
        assert payload[key] is value or payload[key] == value


@pytest.mark.parametrize(
    "request_data",
    [
        # a tool type this model does not type (a vendor's built-in) passes through
        {"messages": HI, "tools": [{"type": "browser_search"}]},
        {"messages": HI, "tools": [{"type": "code_interpreter", "container": {"type": "auto"}}]},
        {"messages": HI, "tool_choice": {"type": "vendor_choice", "x": 1}},
        {"messages": HI, "tool_choice": "none"},
        {
            "messages": HI,
            "tool_choice": {
                "type": "allowed_tools",
                "allowed_tools": {
                    "mode": "auto",
                    "tools": [{"type": "function", "function": {"name": "f"}}],
                },
            },
        },
        {"messages": HI, "response_format": {"type": "json_object"}},
        {"messages": HI, "response_format": {"type": "text"}},
        # a compatible service may take a schema without a name (Perplexity's older pages)
        {"messages": HI, "response_format": {"type": "json_schema", "json_schema": {"schema": {}}}},
        {"messages": [{"role": "assistant", "content": "x", "audio": {"id": "a1"}}]},
        {"messages": []},
        # openai-python lists "original" among the image detail levels (ImageURL.detail)
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image_url",
                            "image_url": {"url": "https://x.example/a.png", "detail": "original"},
                        }
                    ],
                }
            ]
        },
    ],
)
def test_documented_and_pass_through_shapes_are_accepted(request_data: dict[str, Any]) -> None:
    payload = _payload(**request_data)
    assert {k: v for k, v in payload.items() if k != "model"} == request_data


def test_the_unoffered_tool_choice_rule_still_holds() -> None:
    error = _refused(messages=HI, tool_choice={"type": "function", "function": {"name": "f"}})
    assert error.field == "tool_choice"
    assert "offers no tools" in str(error)


def test_the_request_model_keeps_the_payload_fast_path() -> None:
    assert json_field_order(OpenAIChatCompletionsRequest) is not None


class _Prefix(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    type: str


class _ExtendedRequest(OpenAIChatCompletionsRequest):
    shapes = openai_chat_shapes(
        "TestChat",
        roles={"assistant": {"prefix": StrictBool}},
        parts={"text": {"cache_control": _Prefix}},
        tool_calls={"function": {"extra": dict[str, Any]}},
    )


def test_a_vendor_adds_documented_fields_and_keeps_the_rest_strict() -> None:
    base = {"model": "m"}
    good = {
        **base,
        "messages": [
            {
                "role": "system",
                "content": [{"type": "text", "text": "x", "cache_control": {"type": "e"}}],
            },
            {
                "role": "assistant",
                "content": "x",
                "prefix": True,
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": ""},
                        "extra": {},
                    }
                ],
            },
        ],
    }
    assert _ExtendedRequest.model_validate(good).messages == good["messages"]
    with pytest.raises(ValueError) as info:
        _ExtendedRequest.model_validate(
            {**base, "messages": [{"role": "assistant", "prefx": True}]}
        )
    assert "messages.0.prefx" in str(info.value)
    # the core model does not take the vendor's fields
    with pytest.raises(ValueError) as core:
        OpenAIChatCompletionsRequest.model_validate(good)
    assert "cache_control" in str(core.value) or "prefix" in str(core.value)


def test_shapes_are_built_once_per_argument_set_and_validate_unknown_arguments() -> None:
    assert openai_chat_shapes() is openai_chat_shapes()
    with pytest.raises(ValueError, match="unknown role"):
        openai_chat_shapes("X", roles={"robot": {"a": str}})
    with pytest.raises(ValueError, match="typed already"):
        openai_chat_shapes("X", user_parts={"text": _Prefix})


def test_the_request_checks_exactly_the_fields_the_shapes_model_declares() -> None:
    # The request names its nested fields itself, so a plain-text call never imports the
    # shapes module; the two lists must not drift apart.
    from lionagi.service._catalog.openai_chat_types import OpenAIChatShapes
    from lionagi.service._catalog.openai_request import NESTED_FIELDS

    assert set(NESTED_FIELDS) == set(OpenAIChatShapes.model_fields)
