"""Advice an agent's refusal gives fits the agent, and names every setting it refuses.

Before, a key given to a CLI or in-process agent (`iModel(model="scripted/demo", api_key=...)`,
`chat scripted/demo hi --api-key-env K`) was refused with the HTTP advice to pass
`auth_type='bearer'`, which an agent refuses in turn; and agentic settings given to an
in-process agent were refused naming only the first of them.
"""

from __future__ import annotations

import contextlib
import io

import pytest

from lionagi.service import (
    AgenticCapabilities,
    AgenticEndpoint,
    EndpointConfigurationError,
    iModel,
)
from lionagi.service.cli import main
from lionagi.service.scripted import ScriptedEndpoint

KEY = "ZZadvicekeyQQ42valueXY"
KEY_VAR = "LIONAGI_TEST_ADVICE_KEY"
BASE = {"name": "t", "provider": "t", "endpoint": "run", "auth_type": "none"}


def _chat(*argv: str) -> tuple[int, str]:
    """Run `lionagi-service chat` in this process: exit code and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["chat", *argv])
    return code, err.getvalue()


# -- a key given to an agent ----------------------------------------------------------------------


def test_an_in_process_agent_refuses_a_key_without_http_advice() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="scripted/demo", api_key=KEY)
    text = str(info.value)
    assert info.value.field == "api_key"
    assert "auth_type" not in text and KEY not in text
    assert "(ScriptedEndpoint, in_process transport)" in text
    assert "leave the key out" in text


def test_a_hand_built_in_process_agent_gets_the_same_advice() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        ScriptedEndpoint(api_key=KEY)
    assert info.value.field == "api_key"
    assert "auth_type" not in str(info.value)
    assert "in-process agent" in str(info.value)


def test_a_cli_agent_is_told_to_put_the_key_in_its_environment() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="claude_code/sonnet", api_key=KEY)
    text = str(info.value)
    assert info.value.field == "api_key"
    assert "auth_type" not in text and KEY not in text
    assert "agentic_settings={'env': {'NAME': ...}}" in text
    assert "agentic_settings={'gateway_api_key': ...} with a gateway_url" in text

    # An HTTP endpoint keeps the auth_type advice: it is how its key would be sent.
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="ollama/llama3.2", api_key=KEY)
    assert info.value.field == "api_key"
    assert "pass auth_type='bearer' (or 'x-api-key')" in str(info.value)


def test_the_command_line_gives_agent_advice_as_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VAR, KEY)
    code, err = _chat("scripted/demo", "hi", "--api-key-env", KEY_VAR)
    assert code == 2
    assert err.startswith("error: EndpointConfigurationError: --api-key-env: "), err
    assert "auth_type" not in err and "in-process agent" in err and KEY not in err

    code, err = _chat("claude_code/sonnet", "hi", "--api-key-env", KEY_VAR)
    assert code == 2
    assert err.startswith("error: EndpointConfigurationError: --api-key-env: "), err
    assert "auth_type" not in err and "agentic_settings" not in err, err
    assert "--env NAME" in err and "--gateway-key-env NAME with --gateway-url URL" in err


# -- agentic settings given to an in-process agent ------------------------------------------------


def test_every_setting_an_in_process_agent_ignores_is_named() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="scripted/demo", agentic_settings={"cwd": "/tmp", "terminate_grace": 2})
    text = str(info.value)
    assert info.value.field == "agentic_settings.cwd"
    assert "agentic_settings.cwd and agentic_settings.terminate_grace" in text, text
    assert "launches no process" in text


def test_the_command_line_names_every_flag_an_in_process_agent_ignores() -> None:
    code, err = _chat("scripted/demo", "hi", "--cwd", "/tmp", "--terminate-grace", "2")
    assert code == 2
    assert err.startswith(
        "error: EndpointConfigurationError: --cwd: ScriptedEndpoint (in_process transport) "
        "launches no process"
    ), err
    assert "--cwd and --terminate-grace" in err and "agentic_settings" not in err, err


def _agent_class(transport: str) -> type[AgenticEndpoint]:
    class Agent(AgenticEndpoint):
        capabilities = AgenticCapabilities(
            transport=transport,  # type: ignore[arg-type]
            resumable=False,
            emits_tool_events=False,
            reports_usage=False,
        )

    return Agent


def test_a_cli_agent_without_a_gateway_is_not_told_of_one() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        _agent_class("subprocess")(BASE, api_key=KEY)
    text = str(info.value)
    assert "(Agent, subprocess transport)" in text and "agentic_settings={'env'" in text
    assert "gateway" not in text and "auth_type" not in text

    # A remote agent sends HTTP requests: auth_type='bearer' is how its key would be sent.
    with pytest.raises(EndpointConfigurationError) as info:
        _agent_class("remote")(BASE, api_key=KEY)
    assert "pass auth_type='bearer' (or 'x-api-key')" in str(info.value)
