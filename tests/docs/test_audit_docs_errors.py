"""docs/errors.md's rows hold when the failure is built as a user would meet it.

`test_errors_page.py` checks the tree; this checks the attributes a row names (``field``,
``handler``, ``name``, ``phase``, ``install_hint``), that the message starts with the field, and
that a secret given by mistake never shows. No network, no key: the scripted provider, an
uninstalled CLI and configuration refused at construction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest

from lionagi.service import (
    AdmissionConfigError,
    AgenticHandlerError,
    AgenticRequestValidationError,
    AgenticSettings,
    EndpointConfigurationError,
    ModelNameConflict,
    ProviderExecutableNotFound,
    RequestDeadlineExceeded,
    iModel,
    iModelManager,
)

SECRET = "sk-proj-DOCSAUDITabcdefghijkl0123456789"


def scripted() -> iModel:
    return iModel(model="scripted/demo")


async def invoke(spec: str, **kwargs: Any) -> Any:
    async with iModel(model=spec) as model:
        return await model.invoke(**kwargs)


def manager_remove(name: str, **kwargs: Any) -> Callable[[], object]:
    return lambda: anyio.run(lambda: iModelManager(scripted()).remove(name, **kwargs))


CASES: list[Any] = [
    # iModelManager: every bad argument but a taken name is an EndpointConfigurationError.
    pytest.param(lambda: iModelManager(chat=SECRET), EndpointConfigurationError, "field", "chat",
                 (TypeError,), id="manager-non-model-keyword"),
    pytest.param(lambda: iModelManager(scripted(), SECRET), EndpointConfigurationError, "field",
                 "parse", (TypeError,), id="manager-non-model-second-positional"),
    pytest.param(lambda: iModelManager(scripted(), scripted(), scripted()),
                 EndpointConfigurationError, "field", "models", (TypeError,),
                 id="manager-third-positional"),
    pytest.param(lambda: iModelManager().register("  ", scripted()), EndpointConfigurationError,
                 "field", "name", (), id="manager-blank-name"),
    pytest.param(lambda: iModelManager().register("m", SECRET), EndpointConfigurationError,
                 "field", "model", (TypeError,), id="manager-register-non-model"),
    pytest.param(manager_remove(SECRET), EndpointConfigurationError, "field", "name", (KeyError,),
                 id="manager-remove-unknown-name"),
    pytest.param(manager_remove("chat", close_timeout=0), EndpointConfigurationError, "field",
                 "close_timeout", (), id="manager-close-timeout"),
    pytest.param(lambda: iModelManager(scripted()).register("chat", scripted()), ModelNameConflict,
                 "name", "chat", (KeyError,), id="manager-taken-name"),
    # Agentic request and handler errors, before any work.
    pytest.param(lambda: anyio.run(lambda: invoke("scripted/demo", prompt="x", foo=1)),
                 AgenticRequestValidationError, "field", "foo", (ValueError,),
                 id="agentic-unknown-field"),
    pytest.param(lambda: anyio.run(lambda: invoke("codex/gpt-5", prompt="x", on_text=3)),
                 AgenticHandlerError, "handler", "on_text", (ValueError,),
                 id="agentic-handler-not-callable"),
    # A key or header value HTTP cannot carry is refused when configured, never echoed.
    pytest.param(lambda: iModel(model="openai/gpt-4.1", api_key=SECRET + "\n"),
                 EndpointConfigurationError, "field", "api_key", (ValueError,),
                 id="key-trailing-newline"),
    pytest.param(lambda: iModel(model="openai/gpt-4.1", api_key="sk-x",
                                default_headers={"X-Token": SECRET + "\n"}),
                 EndpointConfigurationError, "field", "default_headers.X-Token", (ValueError,),
                 id="header-trailing-newline"),
    pytest.param(lambda: anyio.run(lambda: invoke("scripted/demo", prompt="x", timeout=-1)),
                 AdmissionConfigError, "field", "timeout", (ValueError,), id="negative-timeout"),
]  # fmt: skip


@pytest.mark.parametrize(("build", "cls", "attribute", "value", "also"), CASES)
def test_the_documented_class_and_attribute(
    build: Callable[[], object], cls: type, attribute: str, value: str, also: tuple[type, ...]
) -> None:
    with pytest.raises(cls) as raised:
        build()
    error = raised.value
    assert getattr(error, attribute) == value
    for parent in also:
        assert isinstance(error, parent), f"{type(error).__name__} is not also a {parent.__name__}"
    if attribute == "field":
        assert str(error).startswith(f"{value}:"), str(error)
    assert SECRET not in str(error) and SECRET not in repr(error)


def test_a_failed_invoke_keeps_the_typed_error_with_its_install_hint() -> None:
    # A program name no machine has: CI installs the real codex, which must not start here.
    missing = AgenticSettings(binary="lionagi-docs-audit-no-such-program")

    async def run() -> Any:
        async with iModel(model="codex/gpt-5", agentic_settings=missing) as model:
            return await model.invoke(prompt="x")

    call = anyio.run(run)
    assert call.status == "failed"
    assert isinstance(call.exception, ProviderExecutableNotFound)
    assert call.exception.install_hint.startswith("npm install")


@pytest.mark.parametrize(("prompt", "phase"), [("SCRIPTED_STALL", "transport")])
def test_the_deadline_names_its_phase(prompt: str, phase: str) -> None:
    with pytest.raises(RequestDeadlineExceeded) as raised:
        anyio.run(lambda: invoke("scripted/demo", prompt=prompt, timeout=0.2))
    assert raised.value.phase == phase and isinstance(raised.value, TimeoutError)
