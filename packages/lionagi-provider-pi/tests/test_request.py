"""The pi request model, its argv, the gateway mapping, the isolated home and the catalog rows."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from lionagi.providers.pi import (
    DEFAULT_MODEL,
    MODEL_POLICIES,
    PROVIDER_SPECS,
    PiCliEndpoint,
    PiRequest,
)
from lionagi.providers.pi._home import GATEWAY_KEY_ENV, GATEWAY_PROVIDER
from lionagi.service import (
    AgenticRequestValidationError,
    EndpointConfigurationError,
    iModel,
)

KEY = "sk-gateway-0123456789abcdef"


def request(**fields: object) -> PiRequest:
    payload, _ = PiCliEndpoint().create_payload({"prompt": "hi", **fields})
    value = payload["request"]
    assert isinstance(value, PiRequest)
    return value


def test_argv_has_every_flag_as_its_own_element_and_no_prompt() -> None:
    argv = PiCliEndpoint().command(
        request(
            model="claude-sonnet-4-5",
            provider="anthropic",
            resume="01a2-abc",
            thinking="high",
            tools=["read", "grep"],
            no_context_files=True,
            no_extensions=True,
        )
    )
    assert argv == [
        "pi",
        "--mode", "json",
        "--session", "01a2-abc",
        "--provider", "anthropic",
        "--model", "claude-sonnet-4-5",
        "--thinking", "high",
        "--tools", "read,grep",
        "--no-context-files",
        "--no-extensions", "--no-skills", "--no-prompt-templates",
    ]  # fmt: skip
    assert "hi" not in argv
    assert "--" not in argv  # pi has no separator: the prompt goes to stdin
    # System prompts are files a launch writes (test_system_prompt_files.py), never argv text.


def test_defaults_and_thinking_none_is_off_and_no_tools_wins() -> None:
    assert PiCliEndpoint().command(request()) == ["pi", "--mode", "json"]
    assert PiCliEndpoint().command(request(ephemeral=True)) == [
        "pi",
        "--mode",
        "json",
        "--no-session",
    ]
    argv = PiCliEndpoint().command(request(thinking="none", no_tools=True, tools=["read"]))
    assert argv[-3:] == ["--thinking", "off", "--no-tools"]


def test_binary_setting_replaces_the_program() -> None:
    ep = PiCliEndpoint(settings={"binary": "/opt/pi/bin/pi"})
    launch = ep.launch_settings()
    assert ep.command(request(), program=launch.program)[0] == "/opt/pi/bin/pi"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"promt": "x"}, "promt"),
        ({"thinking": "max"}, "thinking"),
        ({"model": "-v"}, "model"),
        ({"provider": "--help"}, "provider"),
        ({"tools": ["read,bash"]}, "tools"),
        ({"prompt": ""}, "prompt"),
        ({"no_tools": "maybe"}, "no_tools"),
        ({"resume": "--fork"}, "resume"),
        ({"resume": "../sessions/x.jsonl"}, "resume"),
        ({"resume": "01a2", "ephemeral": True}, "request"),
    ],
)
def test_bad_fields_are_refused_naming_the_field(fields: dict[str, object], field: str) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        PiCliEndpoint().create_payload({"prompt": "hi", **fields})
    assert info.value.field.startswith(field)


def test_unknown_field_suggests_the_close_one() -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        PiCliEndpoint().create_payload({"prompt": "hi", "thinkng": "low"})
    assert "thinking" in str(info.value)


def test_gateway_maps_to_provider_flag_key_env_and_a_key_free_models_file(tmp_path: Path) -> None:
    ep = PiCliEndpoint(
        settings={
            "gateway_url": "http://127.0.0.1:9/scenario/tool",
            "gateway_api_key": KEY,
            "config_home": "isolated",
        }
    )
    launch = ep.launch_settings()
    assert list(launch.args) == ["--provider", GATEWAY_PROVIDER]
    assert launch.env[GATEWAY_KEY_ENV] == KEY
    assert KEY in launch.secrets
    argv = ep.command(request(), program=launch.program, extra=launch.args)
    assert argv[argv.index("--provider") + 1] == GATEWAY_PROVIDER
    assert argv[argv.index("--model") + 1] == "gemini-3.1-pro-preview"
    ep.prepare_launch(request(model="m1"), launch)
    home = ep.isolated_home
    assert home is not None
    agent = home / ".pi" / "agent"
    assert launch.env["PI_CODING_AGENT_DIR"] == str(agent)
    models = json.loads((agent / "models.json").read_text())
    provider = models["providers"][GATEWAY_PROVIDER]
    assert provider["baseUrl"] == "http://127.0.0.1:9/scenario/tool/v1"
    assert provider["api"] == "openai-completions"
    assert provider["apiKey"] == GATEWAY_KEY_ENV
    assert [m["id"] for m in provider["models"]] == ["m1"]
    settings = json.loads((agent / "settings.json").read_text())
    assert settings["retry"] == {"enabled": False, "provider": {"maxRetries": 0}}
    assert settings["enableInstallTelemetry"] is False
    for path in (agent / "models.json", agent / "settings.json"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert KEY not in path.read_text()
    assert stat.S_IMODE(home.stat().st_mode) == 0o700


def test_gateway_models_are_declared_reasoning_and_no_thinking_is_sent_as_off() -> None:
    # pi clamps --thinking to "off" for a custom model not declared reasoning, so the
    # request's thinking never reached the gateway; pi's own default for a reasoning model is
    # "medium", so a run asking for none says "off" explicitly.
    ep = PiCliEndpoint(settings={"gateway_url": "http://127.0.0.1:9", "config_home": "isolated"})
    launch = ep.launch_settings()
    ep.prepare_launch(request(model="m1"), launch)
    assert ep.isolated_home is not None
    models = json.loads((ep.isolated_home / ".pi" / "agent" / "models.json").read_text())
    (entry,) = models["providers"][GATEWAY_PROVIDER]["models"]
    assert entry == {"id": "m1", "reasoning": True, "thinkingLevelMap": {"xhigh": "xhigh"}}
    argv = ep.command(request(model="m1"), extra=launch.args)
    assert argv[argv.index("--thinking") + 1] == "off"
    argv = ep.command(request(model="m1", thinking="xhigh"), extra=launch.args)
    assert argv[argv.index("--thinking") + 1] == "xhigh"
    assert "--thinking" not in PiCliEndpoint().command(request(model="m1"))  # pi's own default


def test_gateway_refuses_a_request_provider() -> None:
    ep = PiCliEndpoint(settings={"gateway_url": "http://127.0.0.1:9", "config_home": "isolated"})
    launch = ep.launch_settings()
    with pytest.raises(AgenticRequestValidationError) as info:
        ep.command(request(provider="openai"), extra=launch.args)
    assert info.value.field == "provider"


def test_gateway_in_the_user_home_and_key_without_url_are_configuration_errors() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        PiCliEndpoint(settings={"gateway_url": "http://127.0.0.1:9", "config_home": "user"})
    assert info.value.field == "agentic_settings.gateway_url"
    with pytest.raises(EndpointConfigurationError) as info:
        PiCliEndpoint(settings={"gateway_api_key": KEY, "config_home": "isolated"})
    assert info.value.field == "agentic_settings.gateway_api_key"
    assert KEY not in str(info.value)


def test_catalog_rows_aliases_and_thinking_effort() -> None:
    (spec,) = PROVIDER_SPECS
    assert (spec.provider, spec.provider_aliases) == ("pi", ("pi-code", "pi_code"))
    assert (spec.endpoint, spec.endpoint_aliases) == ("query_cli", ("cli", "code"))
    (policy,) = MODEL_POLICIES
    assert policy.effort_kwarg == "thinking"
    assert PiCliEndpoint.cli_binary == "pi"
    assert PiCliEndpoint.install_hint == "npm install -g @mariozechner/pi-coding-agent@0.73.1"
    caps = PiCliEndpoint.capabilities
    assert caps is not None
    assert (caps.transport, caps.resumable, caps.emits_tool_events, caps.reports_usage) == (
        "subprocess",
        True,
        True,
        True,
    )
    assert PiCliEndpoint.resume_field == "resume"


BARE_ALIASES = ("pi", "pi-code", "pi_code")  # legacy lionagi's bare names for pi's default


@pytest.mark.parametrize("spelling", [*BARE_ALIASES, "pi-code/m1-high", "pi_code/m1-high"])
def test_model_strings_resolve_through_the_catalog(spelling: str) -> None:
    model = iModel(model=spelling)
    assert isinstance(model.endpoint, PiCliEndpoint)
    call = model.create_api_calling(prompt="hi")
    sent = call.payload["request"]
    if spelling in BARE_ALIASES:
        assert (model.endpoint.config.provider, model.model_name) == ("pi", DEFAULT_MODEL)
        assert sent.model == DEFAULT_MODEL == "gemini-3.1-pro-preview"
    else:
        assert (sent.model, sent.thinking) == ("m1", "high")


def test_effort_pi_cannot_spell_is_refused() -> None:
    with pytest.raises(EndpointConfigurationError):
        iModel(model="pi/m1-max")
