"""Item 4 of issue #10: deployment settings reach agentic endpoints.

``AgenticSettings`` (binary, gateway URL and key, env, cwd, config home) flows through
``iModel(...)``, ``match_endpoint``, ``copy()``, ``to_dict``/``from_dict`` (no secret written)
and the ``lionagi-service chat`` flags, and reaches a real child process: the replay fake
reports its argv, cwd and environment.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from lionagi.service import (
    AgenticSettings,
    EndpointConfigurationError,
    EventStatus,
    iModel,
    match_endpoint,
)
from lionagi.service.cli import main
from lionagi.service.scripted import ScriptedEndpoint
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

KEY = "gw-key-ZZsettingsQQ42distinct"
TOKEN = "env-token-ZZsettingsQQ99distinct"
GATEWAY_NAMES = ["LIONAGI_REFERENCE_GATEWAY_URL", "LIONAGI_REFERENCE_GATEWAY_KEY", "EXTRA_TOKEN"]


def same_path(a: str | Path, b: str | Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


# -- the model -------------------------------------------------------------------------------------


def test_settings_are_typed_frozen_and_strict() -> None:
    settings = AgenticSettings(gateway_url="https://gw.example/v1", env={"A": "1"})
    assert isinstance(settings.env["A"], SecretStr)
    with pytest.raises(ValueError):
        settings.binary = "x"  # type: ignore[misc]
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(endpoint=ReferenceCliEndpoint(settings={"gateway_url": "ftp://gw.example"}))
    assert info.value.field == "agentic_settings.gateway_url"
    with pytest.raises(EndpointConfigurationError) as info:
        ReferenceCliEndpoint(settings={"binray": "x"})
    assert info.value.field == "agentic_settings.binray"
    with pytest.raises(EndpointConfigurationError) as info:
        ReferenceCliEndpoint(settings={"env": {"BAD NAME": "v"}})
    assert info.value.field == "agentic_settings.env"


def test_env_is_read_only_so_copies_and_endpoints_without_settings_cannot_share_a_write() -> None:
    given = {"A": "1"}
    settings = AgenticSettings(env=given)
    given["B"] = "2"  # the caller's dict is not the settings' mapping
    assert sorted(settings.env) == ["A"]
    with pytest.raises(TypeError):
        settings.env["B"] = SecretStr("2")  # type: ignore[index]
    bare = ReferenceCliEndpoint()
    with pytest.raises(TypeError):
        bare.settings.env["LEAK"] = SecretStr("x")  # type: ignore[index]
    assert dict(ReferenceCliEndpoint().settings.env) == {}
    # A read-only mapping still dumps, copies deeply and pickles like the dict it replaced.
    assert settings.model_dump()["env"] == {"A": SecretStr("1")}
    assert json.loads(settings.model_dump_json())["env"] == {"A": "**********"}
    assert copy.deepcopy(settings) == settings
    assert settings.model_copy(deep=True).env["A"].get_secret_value() == "1"
    assert pickle.loads(pickle.dumps(settings)) == settings
    assert AgenticSettings(env=settings.env) == settings


def test_secrets_never_show_in_repr_or_errors() -> None:
    settings = AgenticSettings(gateway_api_key=KEY, env={"EXTRA_TOKEN": TOKEN})
    assert KEY not in repr(settings) and TOKEN not in repr(settings)
    with pytest.raises(EndpointConfigurationError) as info:
        ReferenceCliEndpoint(settings={"env": {"X": TOKEN + "\x00"}})
    assert TOKEN not in str(info.value)


def test_in_process_and_http_endpoints_refuse_settings() -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(model="scripted/demo", agentic_settings={"binary": "/bin/true"})
    assert info.value.field == "agentic_settings.binary"
    scripted = ScriptedEndpoint({"name": "s", "provider": "scripted", "endpoint": "chat"})
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(endpoint=scripted, agentic_settings={"cwd": "."})
    assert info.value.field == "agentic_settings"
    with pytest.raises(EndpointConfigurationError) as info:
        match_endpoint(
            "my-gateway",
            "",
            openai_compatible=True,
            base_url="https://gw.example/v1",
            agentic_settings={"binary": "x"},
        )
    assert info.value.field == "agentic_settings"


def test_an_adapter_without_a_gateway_mapping_refuses_a_gateway() -> None:
    class NoGateway(ReferenceCliEndpoint):
        supports_gateway = False

    with pytest.raises(EndpointConfigurationError) as info:
        NoGateway(settings={"gateway_url": "https://gw.example"})
    assert info.value.field == "agentic_settings.gateway_url"


# -- reaching the child ----------------------------------------------------------------------------


async def test_binary_env_gateway_and_cwd_reach_the_child(replay: Any, tmp_path: Path) -> None:
    replay.write(log_env=GATEWAY_NAMES)
    work = tmp_path / "work"
    work.mkdir()
    settings = AgenticSettings(
        binary=replay.wrapper(),
        gateway_url="https://gw.example/v1",
        gateway_api_key=KEY,
        env={"EXTRA_TOKEN": TOKEN},
        cwd=work,
    )
    endpoint = ReferenceCliEndpoint(settings=settings)
    async with iModel(endpoint=endpoint) as model:
        call = await model.invoke(prompt="hi")
    assert call.status is EventStatus.COMPLETED
    launch = replay.launch()
    assert launch["env"] == {
        "LIONAGI_REFERENCE_GATEWAY_URL": "https://gw.example/v1",
        "LIONAGI_REFERENCE_GATEWAY_KEY": KEY,
        "EXTRA_TOKEN": TOKEN,
    }
    assert same_path(launch["cwd"], work)
    assert "--gateway" in launch["argv"]


async def test_match_endpoint_and_imodel_pass_settings(
    reference_catalog: None, replay: Any
) -> None:
    settings = {"binary": replay.wrapper(), "env": {"EXTRA_TOKEN": TOKEN}}
    endpoint = match_endpoint("reference", "cli", agentic_settings=settings)
    assert isinstance(endpoint, ReferenceCliEndpoint)
    assert endpoint.settings.binary == settings["binary"]
    replay.write(log_env=["EXTRA_TOKEN"])
    async with iModel(provider="reference", agentic_settings=settings) as model:
        call = await model.invoke(prompt="hi")
        assert call.status is EventStatus.COMPLETED
    assert replay.launch()["env"] == {"EXTRA_TOKEN": TOKEN}


def test_base_url_is_refused_with_a_pointer_to_the_gateway(reference_catalog: None) -> None:
    with pytest.raises(EndpointConfigurationError) as info:
        iModel(provider="reference", base_url="https://gw.example")
    assert info.value.field == "base_url"
    assert "gateway_url" in str(info.value)


async def test_copy_keeps_the_settings(replay: Any) -> None:
    settings = AgenticSettings(binary=replay.wrapper(), env={"EXTRA_TOKEN": TOKEN})
    async with iModel(endpoint=ReferenceCliEndpoint(settings=settings)) as model:
        twin = model.copy()
        async with twin:
            endpoint = twin.endpoint
            assert isinstance(endpoint, ReferenceCliEndpoint)
            assert endpoint.settings == settings
            replay.write(log_env=["EXTRA_TOKEN"])
            call = await twin.invoke(prompt="hi")
            assert call.status is EventStatus.COMPLETED
    assert replay.launch()["env"] == {"EXTRA_TOKEN": TOKEN}


def test_to_dict_writes_no_secret_and_from_dict_asks_for_them(
    reference_catalog: None, tmp_path: Path
) -> None:
    settings = {
        "binary": "/opt/agent/bin/agent",
        "gateway_url": "https://gw.example/v1",
        "gateway_api_key": KEY,
        "env": {"EXTRA_TOKEN": TOKEN},
        "cwd": str(tmp_path),
        "config_home": "isolated",
    }
    model = iModel(provider="reference", agentic_settings=settings)
    data = model.to_dict()
    text = json.dumps(data)
    assert KEY not in text and TOKEN not in text
    assert data["agentic_settings"] == {
        "binary": "/opt/agent/bin/agent",
        "gateway_url": "https://gw.example/v1",
        "cwd": str(tmp_path),
        "config_home": "isolated",
        "env_names": ["EXTRA_TOKEN"],
        "gateway_api_key_set": True,
    }
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(data)
    assert info.value.field == "agentic_settings.env"
    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(data, agentic_settings={"env": {"EXTRA_TOKEN": TOKEN}})
    assert info.value.field == "agentic_settings.gateway_api_key"
    restored = iModel.from_dict(
        data, agentic_settings={"env": {"EXTRA_TOKEN": TOKEN}, "gateway_api_key": KEY}
    )
    endpoint = restored.endpoint
    assert isinstance(endpoint, ReferenceCliEndpoint)
    original = model.endpoint
    assert isinstance(original, ReferenceCliEndpoint)
    assert endpoint.settings == original.settings


def test_a_gateway_token_in_the_url_query_is_never_serialized(reference_catalog: None) -> None:
    url = f"https://gw.example/v1?api-version=2024-06-01&key={KEY}"
    model = iModel(provider="reference", agentic_settings={"gateway_url": url})
    data = json.loads(json.dumps(model.to_dict()))
    assert KEY not in json.dumps(data)
    written = data["agentic_settings"]["gateway_url"]
    assert written.startswith("https://gw.example/v1?api-version=2024-06-01&key=")

    with pytest.raises(EndpointConfigurationError) as info:
        iModel.from_dict(data)  # never launched against a mangled URL
    assert info.value.field == "agentic_settings.gateway_url"
    restored = iModel.from_dict(data, agentic_settings={"gateway_url": url})
    endpoint, original = restored.endpoint, model.endpoint
    assert isinstance(endpoint, ReferenceCliEndpoint)
    assert isinstance(original, ReferenceCliEndpoint)
    assert endpoint.settings == original.settings
    # Nor in a repr or str of the settings (logs, tracebacks); the value itself is intact.
    assert KEY not in repr(endpoint.settings) and KEY not in str(endpoint.settings)
    assert endpoint.settings.gateway_url == url


# -- the command line ------------------------------------------------------------------------------


def test_chat_flags_reach_the_cli(
    reference_catalog: None,
    replay: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    replay.write(log_env=[*GATEWAY_NAMES, "FROM_PARENT"])
    monkeypatch.setenv("GW_KEY_SOURCE", KEY)
    monkeypatch.setenv("FROM_PARENT", "copied")
    code = main(
        [
            "chat",
            "reference/m1",
            "hello",
            "--binary",
            replay.wrapper(),
            "--gateway-url",
            "http://127.0.0.1:9/v1",
            "--gateway-key-env",
            "GW_KEY_SOURCE",
            "--env",
            f"EXTRA_TOKEN={TOKEN}",
            "--env",
            "FROM_PARENT",
            "--cwd",
            str(tmp_path),
            "--config-home",
            "isolated",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "first second" in out.out
    launch = replay.launch()
    assert launch["env"] == {
        "LIONAGI_REFERENCE_GATEWAY_URL": "http://127.0.0.1:9/v1",
        "LIONAGI_REFERENCE_GATEWAY_KEY": KEY,
        "EXTRA_TOKEN": TOKEN,
        "FROM_PARENT": "copied",
    }
    assert same_path(launch["cwd"], tmp_path)
    assert launch["argv"][2:] == ["--gateway", "env", "--model", "m1", "--", "hello"]


def test_chat_flag_errors_exit_2_and_name_the_field(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["chat", "scripted/demo", "hi", "--binary", "/bin/true"]) == 2
    assert "--binary: " in capsys.readouterr().err  # the flag typed, not the Python field
    assert main(["chat", "scripted/demo", "hi", "--gateway-key-env", "NOPE_NOT_SET_42"]) == 2
    assert "--gateway-key-env: $NOPE_NOT_SET_42 is not set" in capsys.readouterr().err
