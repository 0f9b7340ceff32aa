"""static_conformance_problems names each declaration mistake; a conforming class has none."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, ConfigDict

from lionagi.service import AgenticCapabilities, AgenticEndpoint, Endpoint
from lionagi.service.scripted import ScriptedEndpoint, ScriptedRequest
from lionagi.service_testing.conformance import (
    assert_static_conformance,
    static_conformance_problems,
)
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

CAPS = AgenticCapabilities("in_process", False, False, False)


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")
    prompt: str = ""


class Other(BaseModel):
    prompt: str = ""


def variant(name: str, **attrs: Any) -> type[Endpoint]:
    return type(name, (ScriptedEndpoint,), attrs)


class NoStream(AgenticEndpoint):
    capabilities: ClassVar[AgenticCapabilities | None] = CAPS
    request_type: ClassVar[type[BaseModel] | None] = ScriptedRequest


CASES: list[tuple[type[Endpoint], dict[str, Any], str]] = [
    (Endpoint, {}, "does not subclass AgenticEndpoint"),
    (variant("NoCaps", capabilities=None), {}, "not an AgenticCapabilities instance"),
    (
        variant("BadTransport", capabilities=AgenticCapabilities("cli", False, False, False)),  # type: ignore[arg-type]
        {},
        "transport is 'cli'",
    ),
    (
        variant("IntFlag", capabilities=AgenticCapabilities("remote", 1, False, False)),  # type: ignore[arg-type]
        {},
        "resumable is not a bool",
    ),
    (variant("NoModel", request_type=None), {}, "not a pydantic model class"),
    (variant("LooseModel", request_type=Loose), {}, "extra='allow'"),
    (ScriptedEndpoint, {"request_options": Other}, "is not ScriptedEndpoint.request_type"),
    (
        variant(
            "ResumableNoField", capabilities=AgenticCapabilities("in_process", True, False, False)
        ),
        {},
        "declares no resume_field",
    ),
    (
        variant(
            "ResumableBadField",
            capabilities=AgenticCapabilities("in_process", True, False, False),
            resume_field="resume",
        ),
        {},
        "'resume' is not a field of ScriptedRequest",
    ),
    (variant("FieldNotResumable", resume_field="model"), {}, "resumable is False"),
    (variant("ClashingRuntime", runtime_arg_keys=frozenset({"prompt"})), {}, "also fields of"),
    (variant("ListKeys", runtime_arg_keys=["on_text"]), {}, "not a frozenset of str"),
    (
        variant(
            "UndeclaredHandler",
            runtime_arg_keys=frozenset({"on_text"}),
            _handler_params=("on_tool",),
        ),
        {},
        "not in runtime_arg_keys",
    ),
    (variant("InvokeFlag", supports_invoke="yes"), {}, "supports_invoke is not a bool"),
    (NoStream, {}, "does not implement _stream_agentic()"),
]


@pytest.mark.parametrize(("cls", "kwargs", "expected"), CASES, ids=[c[0].__name__ for c in CASES])
def test_each_declaration_mistake_is_named(
    cls: type[Endpoint], kwargs: dict[str, Any], expected: str
) -> None:
    problems = static_conformance_problems(cls, **kwargs)
    assert any(expected in p for p in problems), problems
    if not kwargs:
        with pytest.raises(AssertionError, match="does not conform"):
            assert_static_conformance(cls)


@pytest.mark.parametrize("cls", [ScriptedEndpoint, ReferenceCliEndpoint])
def test_conforming_classes_have_no_problems(cls: type[Endpoint]) -> None:
    assert static_conformance_problems(cls) == []
    assert_static_conformance(cls)
