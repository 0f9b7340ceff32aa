"""AgenticHandlersMixin: runtime-key classification, handler validation, precedence and copying."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, ConfigDict

from lionagi.service import (
    AgenticCapabilities,
    AgenticEndpoint,
    AgenticHandlerError,
    AgenticHandlersMixin,
)

CONFIG = {"name": "fake", "provider": "fake", "endpoint": "cli"}


class Req(BaseModel):
    model_config = ConfigDict(extra="forbid")
    prompt: str


class FakeCLI(AgenticEndpoint):
    capabilities = AgenticCapabilities("subprocess", True, True, True)
    request_type = Req
    runtime_arg_keys = frozenset({"on_text", "on_tool_use", "env"})
    _handler_params = ("on_text", "on_tool_use")


class OtherCLI(AgenticEndpoint):
    capabilities = AgenticCapabilities("subprocess", False, False, False)
    request_type = Req
    runtime_arg_keys = frozenset({"on_event"})


def on_text(text: str) -> None: ...


def on_tool(chunk: Any) -> None: ...


def test_handler_names_default_to_every_runtime_key() -> None:
    assert OtherCLI.handler_names() == frozenset({"on_event"})
    assert FakeCLI.handler_names() == frozenset({"on_text", "on_tool_use"})


def test_handler_params_outside_runtime_keys_is_a_declaration_error() -> None:
    class Broken(AgenticHandlersMixin):
        runtime_arg_keys: ClassVar[frozenset[str]] = frozenset({"on_text"})
        _handler_params = ("on_text", "on_typo")

    with pytest.raises(TypeError, match="on_typo"):
        Broken.handler_names()


def test_split_runtime_args_removes_runtime_keys_first_without_mutating_input() -> None:
    call = {"prompt": "hi", "on_text": on_text, "env": {"A": "1"}, "model": "m"}
    before = dict(call)
    request_fields, runtime_args = FakeCLI.split_runtime_args(call)
    assert request_fields == {"prompt": "hi", "model": "m"}
    assert runtime_args == {"on_text": on_text, "env": {"A": "1"}}
    assert call == before
    assert not any(callable(v) for v in request_fields.values())


def test_update_handlers_refuses_unknown_name_naming_it() -> None:
    ep = FakeCLI(CONFIG)
    with pytest.raises(AgenticHandlerError, match="on_txt") as info:
        ep.update_handlers(on_txt=on_text)
    assert info.value.handler == "on_txt"
    assert "did you mean 'on_text'" in str(info.value)
    # A non-handler runtime key is not a handler either.
    with pytest.raises(AgenticHandlerError) as info2:
        ep.update_handlers(env=on_text)
    assert info2.value.handler == "env"


def test_update_handlers_refuses_non_callable_and_is_all_or_nothing() -> None:
    ep = FakeCLI(CONFIG)
    with pytest.raises(AgenticHandlerError, match="callable") as info:
        ep.update_handlers(on_text=on_text, on_tool_use="print")  # type: ignore[arg-type]
    assert info.value.handler == "on_tool_use"
    assert dict(ep.handlers) == {}


def test_constructor_handlers_are_validated() -> None:
    ep = FakeCLI(CONFIG, handlers={"on_text": on_text})
    assert dict(ep.handlers) == {"on_text": on_text}
    with pytest.raises(AgenticHandlerError):
        FakeCLI(CONFIG, handlers={"nope": on_text})


def test_none_removes_a_configured_handler() -> None:
    ep = FakeCLI(CONFIG, handlers={"on_text": on_text})
    ep.update_handlers(on_text=None)
    assert dict(ep.handlers) == {}


def test_per_call_precedence_none_disables_and_missing_keeps_configured() -> None:
    ep = FakeCLI(CONFIG, handlers={"on_text": on_text, "on_tool_use": on_tool})

    def per_call(text: str) -> None: ...

    call = {"on_text": per_call, "env": {"X": "1"}}
    assert ep._runtime_handlers(call) == {"on_text": per_call, "on_tool_use": on_tool}
    assert call == {"on_text": per_call, "env": {"X": "1"}}  # not consumed
    assert ep._runtime_handlers({"on_tool_use": None}) == {"on_text": on_text}
    assert ep._runtime_handlers({}) == {"on_text": on_text, "on_tool_use": on_tool}
    # The per-call None did not change the configuration.
    assert dict(ep.handlers) == {"on_text": on_text, "on_tool_use": on_tool}


def test_per_call_unknown_or_non_callable_handler_is_refused() -> None:
    ep = FakeCLI(CONFIG)
    with pytest.raises(AgenticHandlerError) as info:
        ep._runtime_handlers({"on_spawn": on_text})
    assert info.value.handler == "on_spawn"
    with pytest.raises(AgenticHandlerError) as info2:
        ep._runtime_handlers({"on_text": 42})
    assert info2.value.handler == "on_text"
    # A declared non-handler runtime key may hold any value.
    assert ep._runtime_handlers({"env": {"A": "1"}}) == {}


def test_copy_runtime_state_copies_mapping_and_shares_callables() -> None:
    source = FakeCLI(CONFIG, handlers={"on_text": on_text})
    target = FakeCLI(CONFIG, handlers={"on_tool_use": on_tool})
    source.copy_runtime_state_to(target)
    assert dict(target.handlers) == {"on_text": on_text}
    assert target.handlers["on_text"] is on_text
    source.update_handlers(on_tool_use=on_tool)
    assert "on_tool_use" not in target.handlers  # the mapping was copied, not shared


def test_copy_runtime_state_to_an_incompatible_endpoint_fails_loudly() -> None:
    source = FakeCLI(CONFIG, handlers={"on_text": on_text})
    with pytest.raises(AgenticHandlerError):
        source.copy_runtime_state_to(OtherCLI(CONFIG))
    with pytest.raises(TypeError):
        source.copy_runtime_state_to(object())
    FakeCLI(CONFIG).copy_runtime_state_to(object())  # nothing configured: nothing to copy
