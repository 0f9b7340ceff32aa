"""The static check holds a ``SubprocessCliEndpoint``'s request model to core's ``CliRequest``.

A CLI adapter whose request model lacks ``prompt``, ``repo`` or ``workspace`` used to pass the
catalog and ``static_conformance_problems`` and fail only at its first call, with
``EndpointConfigurationError: request_type: ...needs prompt, repo and workspace fields``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, ConfigDict

from lionagi.service import AgenticCapabilities
from lionagi.service.agentic import CliRequest, SubprocessCliEndpoint
from lionagi.service.scripted import ScriptedEndpoint
from lionagi.service_testing.conformance import (
    assert_static_conformance,
    static_conformance_problems,
)

CAPS = AgenticCapabilities("subprocess", False, False, False)


class Full(BaseModel):
    model_config = ConfigDict(extra="forbid")
    prompt: str
    repo: str | None = None
    workspace: str | None = None


class TextOnly(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str


class NoWorkspace(BaseModel):
    model_config = ConfigDict(extra="forbid")
    prompt: str
    repo: str | None = None


class PromptProperty(BaseModel):
    """A property satisfies the protocol as well as a field does (the runtime check agrees)."""

    model_config = ConfigDict(extra="forbid")
    text: str
    repo: str | None = None
    workspace: str | None = None

    @property
    def prompt(self) -> str:
        return self.text


def cli_class(name: str, model: type[BaseModel]) -> type[SubprocessCliEndpoint]:
    class Cli(SubprocessCliEndpoint):
        default_config: ClassVar[dict[str, Any]] = {
            "name": name,
            "provider": "acme",
            "endpoint": "query_cli",
        }
        cli_binary = "toycli"
        capabilities = CAPS
        request_type = model

        def cli_arguments(self, request: Any, *, extra: Any = ()) -> list[str]:
            return list(extra)

        def event_parser(self, request: Any) -> Any:
            return None

    Cli.__name__ = Cli.__qualname__ = name
    return Cli


def test_a_cli_request_model_without_the_fields_is_named() -> None:
    cls = cli_class("TextCli", TextOnly)
    problems = static_conformance_problems(cls)
    assert problems == [
        "TextCli.request_type TextOnly has no prompt, repo, workspace fields: "
        "SubprocessCliEndpoint reads prompt, repo, workspace from every request (CliRequest); "
        "declare them (prompt: str, repo: str | None = None, workspace: str | None = None)"
    ]
    with pytest.raises(AssertionError, match="has no prompt, repo, workspace fields"):
        assert_static_conformance(cls)


def test_only_the_missing_field_is_named() -> None:
    (problem,) = static_conformance_problems(cli_class("HalfCli", NoWorkspace))
    assert problem.startswith("HalfCli.request_type NoWorkspace has no workspace field: ")


@pytest.mark.parametrize("model", [Full, PromptProperty])
def test_a_model_the_run_loop_accepts_passes(model: type[BaseModel]) -> None:
    instance = model(**({"prompt": "hi"} if model is Full else {"text": "hi"}))
    assert isinstance(instance, CliRequest)  # the run loop's own check agrees
    assert static_conformance_problems(cli_class(f"{model.__name__}Cli", model)) == []


def test_the_check_matches_the_run_loops_protocol() -> None:
    """A model the static check refuses is one the run loop refuses at the first call."""
    assert not isinstance(NoWorkspace(prompt="hi"), CliRequest)
    assert not isinstance(TextOnly(text="hi"), CliRequest)


def test_other_agentic_endpoints_need_no_cli_fields() -> None:
    class NoPrompt(BaseModel):
        model_config = ConfigDict(extra="forbid")
        text: str

    cls = type("InProcess", (ScriptedEndpoint,), {"request_type": NoPrompt})
    assert static_conformance_problems(cls) == []
