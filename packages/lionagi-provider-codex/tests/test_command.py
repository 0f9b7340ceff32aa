"""Request validation, argv building and the deployment mapping (no process is started)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from lionagi.providers.codex import DEFAULT_MODEL, CodexCliEndpoint, CodexRequest
from lionagi.providers.codex._command import (
    GATEWAY_KEY_ENV,
    HEADLESS_CONFIG,
    gateway_base_url,
)
from lionagi.service import (
    AgenticRequestValidationError,
    AgenticSettings,
    EndpointConfigurationError,
)


def _argv(endpoint: CodexCliEndpoint, **fields: object) -> list[str]:
    payload, _ = endpoint.create_payload({"prompt": "hi", **fields})
    request = payload["request"]
    assert isinstance(request, CodexRequest)
    launch = endpoint.launch_settings()
    return endpoint.command(request, program=launch.program, extra=launch.args)


def test_default_argv_passes_the_model_explicitly() -> None:
    argv = _argv(CodexCliEndpoint())
    assert argv == ["codex", "exec", "--json", "-m", DEFAULT_MODEL, "--ephemeral"]
    assert "--" not in argv  # core appends "--", prompt


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"reasoning_effort": "high"}, ["-c", 'model_reasoning_effort="high"']),
        ({"fast_mode": True}, ["-c", 'service_tier="fast"']),
        ({"sandbox": "read-only"}, ["--sandbox", "read-only"]),
        ({"full_auto": True}, ["--sandbox", "workspace-write"]),
        ({"bypass_approvals": True}, ["--dangerously-bypass-approvals-and-sandbox"]),
        ({"skip_git_repo_check": True}, ["--skip-git-repo-check"]),
        ({"model": "gpt-5.1-codex"}, ["-m", "gpt-5.1-codex"]),
    ],
)
def test_each_field_is_its_own_argv_elements(
    fields: dict[str, object], expected: list[str]
) -> None:
    argv = _argv(CodexCliEndpoint(), **fields)
    width = len(expected)
    assert any(argv[i : i + width] == expected for i in range(len(argv))), argv


def test_not_ephemeral_drops_the_flag() -> None:
    assert "--ephemeral" not in _argv(CodexCliEndpoint(), ephemeral=False)


def test_binary_setting_replaces_the_program() -> None:
    endpoint = CodexCliEndpoint(settings={"binary": "/opt/codex/bin/codex"})
    assert _argv(endpoint)[:2] == ["/opt/codex/bin/codex", "exec"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("prompt", ""),
        ("model", "-rf"),
        ("model", "gpt 5"),
        ("reasoning_effort", "extreme"),
        ("sandbox", "none"),
    ],
)
def test_invalid_values_name_the_field(field: str, value: object) -> None:
    fields = {"prompt": "hi", field: value}
    with pytest.raises(AgenticRequestValidationError) as info:
        CodexCliEndpoint().create_payload(fields)
    assert field in str(info.value)


def test_unknown_field_suggests_the_close_one() -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        CodexCliEndpoint().create_payload({"prompt": "hi", "reasoning_efort": "low"})
    assert "did you mean 'reasoning_effort'" in str(info.value)


@pytest.mark.parametrize(
    ("fields", "field", "other"),
    [
        ({"bypass_approvals": True, "full_auto": True}, "bypass_approvals", "full_auto"),
        ({"bypass_approvals": True, "sandbox": "read-only"}, "bypass_approvals", "sandbox"),
        ({"full_auto": True, "sandbox": "danger-full-access"}, "full_auto", "sandbox"),
    ],
)
def test_conflicting_sandbox_modes_name_a_field_and_the_conflict(
    fields: dict[str, object], field: str, other: str
) -> None:
    # docs/providers/codex.md: "a validation error names the field" -- one the caller set, not
    # the whole request; the message names the other field of the pair and says they conflict.
    with pytest.raises(AgenticRequestValidationError) as info:
        CodexCliEndpoint().create_payload({"prompt": "hi", **fields})
    assert info.value.field == field
    message = str(info.value)
    assert message.startswith(f"{field}: conflicts with {other}")
    assert message.endswith("set one of them")


def test_full_auto_with_its_own_sandbox_is_accepted() -> None:
    argv = _argv(CodexCliEndpoint(), full_auto=True, sandbox="workspace-write")
    assert argv.count("--sandbox") == 1


# -- gateway -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8123", "http://127.0.0.1:8123/v1"),
        ("http://127.0.0.1:8123/", "http://127.0.0.1:8123/v1"),
        ("http://127.0.0.1:8123/scenario/tool", "http://127.0.0.1:8123/scenario/tool/v1"),
        ("https://gw.example/v1", "https://gw.example/v1"),
        ("https://gw.example/v1/", "https://gw.example/v1"),
    ],
)
def test_gateway_base_url(url: str, expected: str) -> None:
    assert gateway_base_url(url) == expected


def _provider_table(argv: list[str]) -> dict[str, object]:
    (override,) = [a for a in argv if a.startswith("model_providers.lionagi=")]
    parsed = tomllib.loads(override.replace("model_providers.lionagi=", "t = ", 1))
    table = parsed["t"]
    assert isinstance(table, dict)
    return table


def test_gateway_is_a_custom_provider_and_the_key_stays_out_of_argv() -> None:
    secret = "sk-gateway-secret-123"
    endpoint = CodexCliEndpoint(
        settings={
            "gateway_url": "http://127.0.0.1:9999/scenario/text",
            "gateway_api_key": secret,
            "config_home": "isolated",
        }
    )
    argv = _argv(endpoint)
    assert argv[3:5] == ["-c", 'model_provider="lionagi"']
    table = _provider_table(argv)
    assert table == {
        "name": "lionagi gateway",
        "base_url": "http://127.0.0.1:9999/scenario/text/v1",
        "wire_api": "responses",
        "env_key": GATEWAY_KEY_ENV,
        "stream_max_retries": 0,
        "request_max_retries": 0,
    }
    assert not any(secret in a for a in argv)
    launch = endpoint.launch_settings()
    assert launch.env[GATEWAY_KEY_ENV] == secret
    assert secret in launch.secrets


def test_user_home_keeps_codex_retries_and_no_key_means_no_env_key() -> None:
    endpoint = CodexCliEndpoint(
        settings={"gateway_url": "http://127.0.0.1:9999", "config_home": "user"}
    )
    table = _provider_table(_argv(endpoint))
    assert "env_key" not in table
    assert "stream_max_retries" not in table


def test_gateway_url_with_quotes_cannot_break_the_toml() -> None:
    with pytest.raises(EndpointConfigurationError):
        CodexCliEndpoint(settings={"gateway_url": "ftp://x"})
    endpoint = CodexCliEndpoint(settings={"gateway_url": 'http://h/a"b', "config_home": "user"})
    assert _provider_table(_argv(endpoint))["base_url"] == 'http://h/a"b/v1'


# -- isolated home -------------------------------------------------------------------------------


async def test_isolated_home_is_codex_home_with_headless_config() -> None:
    endpoint = CodexCliEndpoint(settings=AgenticSettings(config_home="isolated"))
    try:
        launch = endpoint.launch_settings()
        home = endpoint.isolated_home
        assert home is not None
        codex_home = Path(launch.env["CODEX_HOME"])
        assert codex_home == home / ".codex"
        config = tomllib.loads((codex_home / "config.toml").read_text())
        assert config == tomllib.loads(HEADLESS_CONFIG)
        assert config["check_for_update_on_startup"] is False
        assert config["analytics"] == {"enabled": False}
        assert config["features"] == {"unbounded_connection_retries": False, "plugins": False}
    finally:
        await endpoint.aclose()
    assert not home.exists()


def test_class_attributes_for_availability() -> None:
    assert CodexCliEndpoint.cli_binary == "codex"
    assert CodexCliEndpoint.tested_version == "0.171.0"
    assert CodexCliEndpoint.install_hint == "npm install -g @openai/codex@0.171.0"
    assert "codex login" in CodexCliEndpoint.auth_hint
