"""Request model, argv, model policy, catalog registration, gateway and isolated-home settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.claude_code import ClaudeCodeEndpoint, ClaudeCodeRequest
from lionagi.providers.claude_code._request import BASE_FLAGS, command_flags
from lionagi.service import (
    AgenticRequestValidationError,
    EndpointConfigurationError,
    EndpointRegistry,
    ProviderPermissionError,
    iModel,
)
from lionagi.service.agentic import ErrorClassifier


def _stderr(endpoint: ClaudeCodeEndpoint) -> ErrorClassifier:
    """The classifier core gives the run's process (the endpoint's patterns before core's)."""
    classify = endpoint.stderr_classifier()
    assert classify is not None
    return classify


def argv(**fields: Any) -> list[str]:
    return ClaudeCodeEndpoint().command(ClaudeCodeRequest(prompt="p", **fields))


def test_minimal_argv_is_print_mode_stream_json_verbose_and_no_prompt() -> None:
    assert argv() == ["claude", "-p", "--output-format", "stream-json", "--verbose"]
    assert "p" not in argv()  # core appends "--" and the prompt


def test_every_flag_and_value_is_its_own_element() -> None:
    args = argv(
        model="sonnet",
        effort="high",
        permission_mode="bypassPermissions",
        resume="cd417ada-3e8f-4a06-868d-31626a48d5ea",
        fork_session=True,
        allowed_tools=("Bash(git *)", "Read"),
        disallowed_tools=("Edit",),
        append_system_prompt="be brief",
        max_budget_usd=0.5,
    )
    assert args[: 1 + len(BASE_FLAGS)] == ["claude", *BASE_FLAGS]
    rest = args[1 + len(BASE_FLAGS) :]
    assert rest == [
        "--model",
        "sonnet",
        "--effort",
        "high",
        "--permission-mode",
        "bypassPermissions",
        "--resume",
        "cd417ada-3e8f-4a06-868d-31626a48d5ea",
        "--fork-session",
        "--append-system-prompt",
        "be brief",
        "--allowedTools",
        "Bash(git *)",
        "--allowedTools",
        "Read",
        "--disallowedTools",
        "Edit",
        "--max-budget-usd",
        "0.5",
    ]


@pytest.mark.parametrize("mode", ["default", "manual"])
def test_both_names_of_the_default_permission_mode_are_passed_on(mode: str) -> None:
    """2.1.332 lists ``manual`` where 2.1.197 listed ``default``, and still takes ``default``."""
    args = argv(permission_mode=mode)
    assert args[args.index("--permission-mode") + 1] == mode


def test_binary_setting_replaces_the_program() -> None:
    endpoint = ClaudeCodeEndpoint(settings={"binary": "/opt/claude"})
    request = ClaudeCodeRequest(prompt="p")
    assert endpoint.command(request, program=endpoint.launch_settings().program)[0] == "/opt/claude"


def test_unknown_field_says_did_you_mean() -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        ClaudeCodeEndpoint().create_payload({"prompt": "p", "permision_mode": "plan"})
    assert info.value.field == "permision_mode"
    assert "permission_mode" in str(info.value)


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"effort": "ultra"}, "effort"),
        ({"effort": "none"}, "effort"),
        ({"permission_mode": "yolo"}, "permission_mode"),
        ({"model": "--dangerously-skip-permissions"}, "model"),
        ({"resume": "-x"}, "resume"),
        ({"fork_session": True}, "fork_session"),
        ({"allowed_tools": ["--tools"]}, "allowed_tools"),
        ({"session_id": "not-a-uuid"}, "session_id"),
        ({"prompt": ""}, "prompt"),
    ],
)
def test_invalid_values_name_the_field(fields: dict[str, Any], field: str) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        ClaudeCodeEndpoint().create_payload({"prompt": "p", **fields})
    assert info.value.field.split(".")[0] == field


def test_command_flags_is_pure() -> None:
    request = ClaudeCodeRequest(prompt="-v --help", model="opus")
    assert command_flags(request) == [*BASE_FLAGS, "--model", "opus"]


# -- catalog and model policy --------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["claude_code", "claude-code", "claude", "CLAUDE_CODE"])
@pytest.mark.parametrize("endpoint", ["query_cli", "cli", "code"])
def test_catalog_resolves_every_alias(provider: str, endpoint: str) -> None:
    assert isinstance(EndpointRegistry.match(provider, endpoint), ClaudeCodeEndpoint)


def test_model_alias_claude_is_sonnet() -> None:
    spec = EndpointRegistry.parse_model_spec("claude")
    assert (spec.provider, spec.model_name, spec.effort) == ("claude_code", "sonnet", None)


# Legacy lionagi's bare model strings (its BACKENDS table); ADR-0028 D5 keeps them accepted.
LEGACY_BARE_MODELS = ("claude-code", "claude_code")


@pytest.mark.parametrize("legacy", LEGACY_BARE_MODELS)
def test_legacy_bare_spelling_selects_what_claude_selects(legacy: str) -> None:
    canonical = EndpointRegistry.parse_model_spec("claude")
    spec = EndpointRegistry.parse_model_spec(legacy)
    assert (spec.model, spec.provider, spec.effort) == (
        canonical.model,
        canonical.provider,
        canonical.effort,
    )
    assert spec.model == "claude_code/sonnet"
    with_effort = EndpointRegistry.parse_model_spec(f"{legacy}-high", yolo=True)
    assert dict(with_effort.kwargs) == dict(
        EndpointRegistry.parse_model_spec("claude-high", yolo=True).kwargs
    )
    model = iModel(model=legacy)
    assert isinstance(model.endpoint, ClaudeCodeEndpoint)
    assert (
        model.endpoint.config.request_defaults
        == iModel(model="claude").endpoint.config.request_defaults
    )


def test_effort_suffix_becomes_the_effort_field() -> None:
    spec = EndpointRegistry.parse_model_spec("claude_code/opus-xhigh")
    assert spec.model_name == "opus"
    assert dict(spec.kwargs) == {"effort": "xhigh"}
    aliased = EndpointRegistry.parse_model_spec("claude-high")
    assert (aliased.model_name, dict(aliased.kwargs)) == ("sonnet", {"effort": "high"})


def test_effort_the_cli_does_not_accept_is_refused_naming_model() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        EndpointRegistry.parse_model_spec("claude_code/opus-ultra")
    assert info.value.field == "model"
    assert "low, medium, high, xhigh, max" in str(info.value)


@pytest.mark.parametrize("mode", ["yolo", "bypass"])
def test_yolo_and_bypass_select_bypass_permissions(mode: str) -> None:
    spec = EndpointRegistry.parse_model_spec("claude_code/sonnet", **{mode: True})
    assert dict(spec.kwargs) == {"permission_mode": "bypassPermissions"}


def test_fast_mode_is_refused_not_silently_dropped() -> None:
    with pytest.raises(EndpointConfigurationError):
        EndpointRegistry.parse_model_spec("claude_code/sonnet", fast=True)


def test_imodel_carries_policy_kwargs_into_the_request() -> None:
    model = iModel(model="claude-max", yolo=True)
    payload, _ = model.endpoint.create_payload({"prompt": "p"})
    request = payload["request"]
    assert isinstance(request, ClaudeCodeRequest)
    assert (request.model, request.effort, request.permission_mode) == (
        "sonnet",
        "max",
        "bypassPermissions",
    )


def test_availability_attributes() -> None:
    assert ClaudeCodeEndpoint.cli_binary == "claude"
    assert ClaudeCodeEndpoint.tested_version == "2.1.332"
    assert ClaudeCodeEndpoint.install_hint == "npm install -g @anthropic-ai/claude-code@2.1.332"
    assert "login" in ClaudeCodeEndpoint.auth_hint


# -- deployment settings -------------------------------------------------------------------------


def test_gateway_maps_to_anthropic_env_and_key_is_a_secret() -> None:
    endpoint = ClaudeCodeEndpoint(
        settings={
            "gateway_url": "http://127.0.0.1:1234/scenario/tool/",
            "gateway_api_key": "sk-gateway-secret-123456",
            "config_home": "user",
        }
    )
    launch = endpoint.launch_settings()
    assert launch.env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:1234/scenario/tool"
    assert launch.env["ANTHROPIC_API_KEY"] == "sk-gateway-secret-123456"
    assert launch.env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert "sk-gateway-secret-123456" in launch.secrets
    assert launch.args == ()


def test_user_home_mode_sets_home_and_no_config_dir() -> None:
    launch = ClaudeCodeEndpoint(settings={"config_home": "user"}).launch_settings()
    assert launch.env["HOME"]
    assert "CLAUDE_CONFIG_DIR" not in launch.env
    assert "CLAUDE_CODE_MAX_RETRIES" not in launch.env


async def test_isolated_home_is_seeded_headless_and_removed_on_close() -> None:
    endpoint = ClaudeCodeEndpoint(settings={"config_home": "isolated"})
    launch = endpoint.launch_settings()
    home = endpoint.isolated_home
    assert home is not None
    config = Path(launch.env["CLAUDE_CONFIG_DIR"])
    assert config == home / ".claude"
    assert launch.env["HOME"] == str(home)
    assert launch.env["CLAUDE_CODE_MAX_RETRIES"] == "0"
    assert launch.env["DISABLE_TELEMETRY"] == "1"
    assert launch.env["DISABLE_AUTOUPDATER"] == "1"
    settings = json.loads((config / "settings.json").read_text())
    assert settings["env"]["CLAUDE_CODE_MAX_RETRIES"] == "0"
    assert json.loads((config / ".claude.json").read_text())["hasCompletedOnboarding"] is True
    await endpoint.aclose()
    assert not home.exists()


def test_copy_keeps_argv_grace_and_settings() -> None:
    endpoint = ClaudeCodeEndpoint(argv=("x", "y"), terminate_grace=1.5, settings={"cwd": "/"})
    other = endpoint.copy()
    assert (other.argv, other.terminate_grace, other.settings) == (
        ("x", "y"),
        1.5,
        endpoint.settings,
    )


def test_root_refusal_on_stderr_is_a_permission_error() -> None:
    text = "--dangerously-skip-permissions cannot be used with root/sudo privileges for security"
    error = _stderr(ClaudeCodeEndpoint())(text, returncode=1, stderr_tail=text)
    assert isinstance(error, ProviderPermissionError)
    assert error.returncode == 1
