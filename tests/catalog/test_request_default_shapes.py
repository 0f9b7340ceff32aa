"""A Chat Completions default whose nested shape is wrong is refused when the model is built.

Each request default was checked against its field's type at construction, but the nested
shapes a Chat Completions request checks after validation (message roles and keys, content
parts, tools, ``tool_choice``, ``response_format``, ``stream_options``, ...) were checked only
at the first call: ``iModel(..., request_defaults={"stream_options": {"include_usgae": True}})``
built, and every call then failed. The build now refuses it with the call's own error, under
``request_defaults.<path>``, and never repeats the value.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from pydantic import StrictBool

from lionagi.service import (
    EndpointConfigurationError,
    OpenAIChatCompletionsRequest,
    iModel,
    openai_chat_shapes,
)

from .conftest import Dists

SECRET = "sk-proj-Zq8vT3xK9mW2nL5pR7sY4uB6"
HI = [{"role": "user", "content": "hi"}]
GATEWAY: dict[str, Any] = {
    "provider": "somegateway",
    "endpoint": "chat/completions",
    "openai_compatible": True,
    "base_url": "https://gateway.example/v1",
    "api_key": "sk-default-shapes-0123456789",
}


def _built(**kwargs: Any) -> EndpointConfigurationError:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(**GATEWAY, **kwargs)
    return info.value


def _called(**request: Any) -> EndpointConfigurationError:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(**GATEWAY).create_api_calling(model="m", **request)
    return info.value


def _message(error: EndpointConfigurationError) -> str:
    return str(error).removeprefix(f"{error.field}: ")


# (defaults, the path under request_defaults, what the message says)
MISSHAPEN = [
    (
        {"messages": [{"role": "usr", "content": SECRET}]},
        "messages.0.role",
        "did you mean 'user'?",
    ),
    (
        {"messages": [{"role": "user", "contnet": SECRET}]},
        "messages.0.contnet",
        "unknown field of OpenAIChatUserMessage; did you mean 'content'?",
    ),
    (
        {"stream_options": {"include_usgae": True}},
        "stream_options.include_usgae",
        "unknown field of OpenAIChatStreamOptions; did you mean 'include_usage'?",
    ),
    (
        {"tools": [{"type": "function", "function": {"name": "f", "paramters": {}}}]},
        "tools.0.function.paramters",
        "did you mean 'parameters'?",
    ),
    (
        {"tool_choice": {"type": "function", "function": {"nmae": "f"}}},
        "tool_choice.function.nmae",
        "did you mean 'name'?",
    ),
    ({"response_format": {"type": "json_shcema"}}, "response_format.type", "'json_schema'"),
]


@pytest.mark.parametrize(("defaults", "path", "says"), MISSHAPEN)
def test_a_misshapen_nested_default_is_refused_at_construction_as_the_call_refuses_it(
    defaults: dict[str, Any], path: str, says: str
) -> None:
    built = _built(request_defaults=defaults)
    assert isinstance(built, EndpointConfigurationError)
    assert built.field == f"request_defaults.{path}"
    assert says in str(built)
    assert SECRET not in str(built)
    # The same words the first call would have used for the same value.
    called = _called(**{"messages": HI, **defaults})
    assert called.field == path
    assert _message(built) == _message(called)


def test_a_registered_chat_row_refuses_it_too() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(
            model="openai/gpt-4.1",
            api_key="sk-abcdefgh12345678",
            request_defaults={"stream_options": {"include_usgae": True}},
        )
    assert info.value.field == "request_defaults.stream_options.include_usgae"
    assert "did you mean 'include_usage'?" in str(info.value)


def test_a_provider_spec_with_a_misshapen_default_fails_the_catalog_build(dists: Dists) -> None:
    from lionagi.service import CatalogValidationError

    dists.provider(
        "acme",
        "from lionagi.service import OpenAIChatCompletionsRequest\n"
        "PROVIDER_SPECS = (api('acme', 'chat', request_options=OpenAIChatCompletionsRequest, "
        f"request_defaults={{'messages': [{{'role': 'usr', 'content': {SECRET!r}}}]}}),)\n",
    )
    catalog = dists.catalog()
    with pytest.raises(CatalogValidationError) as info:
        catalog.snapshot()
    (diag,) = info.value.diagnostics
    assert (diag.code, diag.key) == ("invalid_request_default", "messages.0.role")
    assert "request_defaults.messages.0.role" in diag.message
    assert "did you mean 'user'?" in diag.message
    assert SECRET not in diag.message


class _PrefixRequest(OpenAIChatCompletionsRequest):
    shapes = openai_chat_shapes("PrefixChat", roles={"assistant": {"prefix": StrictBool}})


def test_a_vendors_own_shapes_judge_its_defaults() -> None:
    prefilled = [{"role": "assistant", "content": "Once", "prefix": True}]
    model = iModel(
        **GATEWAY, request_options=_PrefixRequest, request_defaults={"messages": prefilled}
    )
    assert model.endpoint.config.request_defaults == {"messages": prefilled}

    built = _built(
        request_options=_PrefixRequest,
        request_defaults={"messages": [{"role": "assistant", "content": "x", "prefx": True}]},
    )
    assert built.field == "request_defaults.messages.0.prefx"
    assert "did you mean 'prefix'?" in str(built)


def test_well_shaped_nested_defaults_build_and_go_out_as_written() -> None:
    defaults: dict[str, Any] = {
        "messages": [{"role": "system", "content": [{"type": "text", "text": "Be brief."}]}],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
        "tool_choice": {"type": "function", "function": {"name": "f"}},
        "response_format": {"type": "json_object"},
        "stream_options": {"include_usage": True},
    }
    model = iModel(**GATEWAY, request_defaults=defaults)
    payload = model.create_api_calling(model="m").payload
    assert {key: payload[key] for key in defaults} == defaults


def test_a_rule_that_reads_the_whole_request_stays_with_the_call() -> None:
    # `tool_choice="required"` needs tools, which each call may bring: not a build error.
    model = iModel(**GATEWAY, request_defaults={"tool_choice": "required"})
    tools = [{"type": "function", "function": {"name": "f"}}]
    assert model.create_api_calling(model="m", messages=HI, tools=tools).payload["tools"] == tools
    with pytest.raises(EndpointConfigurationError) as info:
        model.create_api_calling(model="m", messages=HI)
    assert info.value.field == "tool_choice"


def test_building_with_plain_defaults_does_not_load_the_shapes() -> None:
    # Cold start: scalar defaults and plain-text messages are valid in every shapes model, so
    # building with them must not import (or build) the shapes check.
    code = (
        "import json, sys\n"
        "from lionagi.service import iModel\n"
        "iModel(provider='openai', model='gpt-4.1', api_key='sk-abcdefgh12345678',\n"
        "       request_defaults={'temperature': 0.2,\n"
        "                         'messages': [{'role': 'system', 'content': 'Be brief.'}]})\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert out.returncode == 0, out.stderr[-3000:]
    loaded = set(json.loads(out.stdout))
    assert "lionagi.service._catalog.openai_request" in loaded  # the chat row was built
    assert "lionagi.service._catalog.openai_chat_types" not in loaded
