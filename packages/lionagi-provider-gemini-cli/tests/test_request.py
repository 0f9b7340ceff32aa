"""Request model, argv building, catalog rows and model policy."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from lionagi.providers.gemini_cli import (
    DEFAULT_MODEL,
    HEADLESS_SETTINGS,
    GeminiCodeEndpoint,
    GeminiCodeRequest,
)
from lionagi.service import (
    AgenticRequestValidationError,
    AgenticSettings,
    EndpointConfigurationError,
    iModel,
)


def argv(**fields: object) -> list[str]:
    endpoint = GeminiCodeEndpoint()
    payload, _ = endpoint.create_payload({"prompt": "hi", **fields})
    request = payload["request"]
    assert isinstance(request, GeminiCodeRequest)
    return endpoint.command(request)


def test_default_argv_passes_the_model_and_never_the_prompt() -> None:
    assert argv() == ["gemini", "--output-format", "stream-json", "--model", DEFAULT_MODEL]


def test_flags_are_separate_elements() -> None:
    assert argv(model="gemini-2.5-pro", approval_mode="plan", resume="latest") == [
        "gemini",
        "--output-format",
        "stream-json",
        "--model",
        "gemini-2.5-pro",
        "--approval-mode",
        "plan",
        "--resume",
        "latest",
    ]


def test_yolo_is_approval_mode_yolo() -> None:
    assert argv(yolo=True)[-2:] == ["--approval-mode", "yolo"]
    assert argv(yolo=True, approval_mode="yolo")[-2:] == ["--approval-mode", "yolo"]


def test_prompt_with_leading_dash_stays_out_of_argv() -> None:
    assert all("--resume x" not in a for a in argv(prompt="-h --resume x"))


def test_binary_setting_replaces_the_program() -> None:
    endpoint = GeminiCodeEndpoint(settings=AgenticSettings(binary="/opt/gemini/bin/gemini"))
    payload, _ = endpoint.create_payload({"prompt": "hi"})
    assert endpoint.command(payload["request"])[0] == "/opt/gemini/bin/gemini"  # type: ignore[arg-type]


def test_unknown_field_is_refused_with_a_suggestion() -> None:
    with pytest.raises(AgenticRequestValidationError, match="did you mean 'resume'"):
        GeminiCodeEndpoint().create_payload({"prompt": "hi", "resum": "latest"})


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"prompt": ""}, "prompt"),
        ({"prompt": "   \n"}, "prompt"),
        ({"prompt": "hi", "resume": "--session-file=/etc/passwd"}, "resume"),
        ({"prompt": "hi", "resume": "-1"}, "resume"),
        ({"prompt": "hi", "model": "-m"}, "model"),
        ({"prompt": "hi", "approval_mode": "everything"}, "approval_mode"),
        ({"prompt": "hi", "yolo": True, "approval_mode": "plan"}, "yolo"),
    ],
)
def test_invalid_fields_are_named(fields: dict[str, object], field: str) -> None:
    with pytest.raises(AgenticRequestValidationError) as info:
        GeminiCodeEndpoint().create_payload(fields)
    assert info.value.field == field


def test_gateway_maps_to_gemini_variables() -> None:
    endpoint = GeminiCodeEndpoint(
        settings=AgenticSettings(gateway_url="http://127.0.0.1:9/g", gateway_api_key="k-123")
    )
    launch = endpoint.launch_settings()
    assert launch.env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:9/g"
    assert launch.env["GEMINI_API_KEY"] == "k-123"
    assert "k-123" in launch.secrets


async def test_isolated_home_is_seeded_headless() -> None:
    endpoint = GeminiCodeEndpoint(settings=AgenticSettings(config_home="isolated"))
    launch = endpoint.launch_settings()
    home = Path(launch.env["HOME"])
    seeded = json.loads((home / ".gemini" / "settings.json").read_text())
    assert seeded == json.loads(json.dumps(HEADLESS_SETTINGS))
    assert seeded["general"]["maxAttempts"] == 1
    assert seeded["general"]["retryFetchErrors"] is False
    assert seeded["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert launch.env["GEMINI_CLI_TRUST_WORKSPACE"] == "true"
    await endpoint.aclose()
    assert not await anyio.Path(home).exists()


def test_user_home_is_not_trusted_implicitly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    endpoint = GeminiCodeEndpoint(settings=AgenticSettings(config_home="user"))
    launch = endpoint.launch_settings()
    assert "GEMINI_CLI_TRUST_WORKSPACE" not in launch.env
    assert not (tmp_path / ".gemini").exists()


@pytest.mark.parametrize("provider", ["gemini_code", "gemini-code", "gemini_cli", "gemini-cli"])
def test_provider_keys_resolve(provider: str) -> None:
    model = iModel(provider=provider, endpoint="cli")
    assert isinstance(model.endpoint, GeminiCodeEndpoint)


def test_model_alias_expands_to_the_default_model() -> None:
    model = iModel(model="gemini-cli")
    assert isinstance(model.endpoint, GeminiCodeEndpoint)
    assert model.endpoint.config.request_defaults == {"model": DEFAULT_MODEL}


# Legacy lionagi's bare model strings (its BACKENDS table); ADR-0028 D5 keeps them accepted.
LEGACY_BARE_MODELS = ("gemini_cli", "gemini-code", "gemini_code")


@pytest.mark.parametrize("legacy", LEGACY_BARE_MODELS)
def test_legacy_bare_spelling_selects_what_gemini_cli_selects(legacy: str) -> None:
    canonical = iModel(model="gemini-cli")
    model = iModel(model=legacy, yolo=True)
    assert type(model.endpoint) is type(canonical.endpoint) is GeminiCodeEndpoint
    assert model.endpoint.config.provider == canonical.endpoint.config.provider
    assert model.endpoint.config.request_defaults == {"model": DEFAULT_MODEL, "yolo": True}


def test_effort_is_folded_into_the_model_name() -> None:
    model = iModel(model="gemini_code/gemini-2.5-pro-high")
    assert model.endpoint.config.request_defaults == {"model": "gemini-2.5-pro-high"}


@pytest.mark.parametrize("mode", ["yolo", "bypass"])
def test_permission_modes_set_yolo(mode: str) -> None:
    model = iModel(model="gemini-cli", **{mode: True})
    assert model.endpoint.config.request_defaults == {"model": DEFAULT_MODEL, "yolo": True}


def test_fast_mode_is_refused() -> None:
    with pytest.raises(EndpointConfigurationError, match="fast"):
        iModel(model="gemini-cli", fast=True)


def test_availability_attributes() -> None:
    assert GeminiCodeEndpoint.cli_binary == "gemini"
    assert GeminiCodeEndpoint.tested_version == "0.61.0"
    assert GeminiCodeEndpoint.install_hint == "npm install -g @google/gemini-cli@0.61.0"
    assert "GEMINI_API_KEY" in GeminiCodeEndpoint.auth_hint
