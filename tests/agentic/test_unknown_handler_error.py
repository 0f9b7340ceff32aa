"""A callable under a name the adapter does not declare is an unknown handler (ADR-0030 D2).

"A runtime handler name outside runtime_arg_keys raises AgenticHandlerError." A callable passed
under a name that is neither a runtime key nor a request field used to surface as
``AgenticRequestValidationError`` from the request check; both are ``ValueError`` but a caller
telling "no such callback" from "bad request" could not. A callable *in a request field* stays a
request error (a wrong value for that field), and so does a non-callable unknown key.
"""

from __future__ import annotations

from typing import Any

import pytest

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.providers.codex import CodexCliEndpoint
from lionagi.service import AgenticHandlerError, AgenticRequestValidationError, iModel
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint


def on_callback(*_args: Any) -> None:
    """A handler body; its identity never matters here."""


@pytest.mark.parametrize(
    ("endpoint_type", "name"),
    [
        (CodexCliEndpoint, "on_thinking"),  # codex declares on_text only
        (ClaudeCodeEndpoint, "on_text"),  # claude-code declares no runtime keys
        (ReferenceCliEndpoint, "on_tool_use"),
    ],
)
async def test_undeclared_handler_through_imodel_is_a_handler_error(
    endpoint_type: type[Any], name: str
) -> None:
    model = iModel(endpoint=endpoint_type())
    try:
        with pytest.raises(AgenticHandlerError) as info:
            model.create_api_calling(prompt="hi", **{name: on_callback})
    finally:
        await model.close()
    assert info.value.handler == name
    assert str(info.value).startswith(f"{name}: unknown handler for {endpoint_type.__name__}")
    assert not isinstance(info.value, AgenticRequestValidationError)


def test_undeclared_handler_in_create_payload_names_the_accepted_ones() -> None:
    with pytest.raises(AgenticHandlerError) as info:
        CodexCliEndpoint().create_payload({"prompt": "hi", "on_txt": on_callback})
    assert info.value.handler == "on_txt"
    assert "(accepted: on_text)" in str(info.value)
    assert "did you mean 'on_text'" in str(info.value)


def test_a_callable_in_a_request_field_stays_a_request_error() -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        CodexCliEndpoint().create_payload({"prompt": on_callback})
    assert info.value.field == "prompt"


def test_a_declared_handler_as_request_data_stays_a_request_error() -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        CodexCliEndpoint().create_payload({"prompt": "hi", "on_text": on_callback})
    assert info.value.field == "on_text"
    assert "runtime argument" in str(info.value)


def test_a_non_callable_unknown_key_stays_an_unknown_field() -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        ClaudeCodeEndpoint().create_payload({"prompt": "hi", "on_text": "not callable"})
    assert info.value.field == "on_text"
    assert "unknown request field" in str(info.value)
