"""Item 5 of issue #10: whose config home a CLI reads.

``user`` (the deployment default): the user's own login and config, with ``HOME`` always set,
even when this process has none (a CLI without ``HOME`` writes its config into the home of
whoever runs it). ``isolated``: a per-endpoint throwaway home seeded with the adapter's
headless settings and removed on close. This suite runs isolated (``tests/conftest.py``).
"""

from __future__ import annotations

import json
import os
import pwd
from pathlib import Path
from typing import Any

import pytest

from lionagi.service import EndpointConfigurationError, EventStatus, iModel
from lionagi.service.agentic import CONFIG_HOME_ENV
from lionagi.service_testing.reference_cli import ReferenceCliEndpoint

HOME_NAMES = [
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "TMPDIR",  # CLIs' error reports (Gemini CLI's hold the conversation) stay in the home
]


async def run_once(endpoint: ReferenceCliEndpoint, model: iModel | None = None) -> None:
    model = model or iModel(endpoint=endpoint)
    call = await model.invoke(prompt="hi")
    assert call.status is EventStatus.COMPLETED, call.execution.error


async def test_isolated_home_is_private_seeded_and_removed_on_close(replay: Any) -> None:
    replay.write(log_env=HOME_NAMES)
    endpoint = ReferenceCliEndpoint(argv=replay.argv, settings={"config_home": "isolated"})
    async with iModel(endpoint=endpoint) as model:
        await run_once(endpoint, model)
        home = endpoint.isolated_home
        assert home is not None and home.is_dir()
        env = replay.launch()["env"]
        assert env["HOME"] == os.fspath(home)
        assert env["XDG_CONFIG_HOME"] == os.fspath(home / ".config")
        assert env["TMPDIR"] == os.fspath(home / "tmp")
        assert (home / "tmp").is_dir()  # a CLI can write its reports there
        assert all(Path(env[name]).is_relative_to(home) for name in HOME_NAMES)
        seeded = json.loads((home / ".reference-cli" / "settings.json").read_text())
        assert seeded == {"retries": 0, "telemetry": False, "trust_workspace": True}
        assert (home.stat().st_mode & 0o077) == 0  # private to this user
        twin = model.copy()
        async with twin:
            await run_once(twin.endpoint, twin)  # type: ignore[arg-type]
            other = twin.endpoint.isolated_home  # type: ignore[attr-defined]
            assert other is not None and other != home
        assert not other.exists()
    assert not home.exists()


async def test_the_suite_default_is_isolated(replay: Any) -> None:
    assert os.environ[CONFIG_HOME_ENV] == "isolated"
    replay.write(log_env=["HOME"])
    endpoint = ReferenceCliEndpoint(argv=replay.argv)
    async with iModel(endpoint=endpoint) as model:
        await run_once(endpoint, model)
        assert replay.launch()["env"]["HOME"] == os.fspath(endpoint.isolated_home)


async def test_user_mode_uses_the_users_home_and_xdg(
    replay: Any, user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", os.fspath(user_home / "cfg"))
    replay.write(log_env=["HOME", "XDG_CONFIG_HOME"])
    endpoint = ReferenceCliEndpoint(argv=replay.argv, settings={"config_home": "user"})
    async with iModel(endpoint=endpoint) as model:
        await run_once(endpoint, model)
    assert replay.launch()["env"] == {
        "HOME": os.fspath(user_home),
        "XDG_CONFIG_HOME": os.fspath(user_home / "cfg"),
    }
    assert endpoint.isolated_home is None


async def test_user_mode_never_leaves_home_unset(
    replay: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HOME", raising=False)
    replay.write(log_env=["HOME"])
    endpoint = ReferenceCliEndpoint(argv=replay.argv, settings={"config_home": "user"})
    async with iModel(endpoint=endpoint) as model:
        await run_once(endpoint, model)
    assert replay.launch()["env"]["HOME"] == pwd.getpwuid(os.getuid()).pw_dir


async def test_an_invalid_deployment_default_is_a_named_error(
    replay: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CONFIG_HOME_ENV, "shared")
    async with iModel(endpoint=ReferenceCliEndpoint(argv=replay.argv)) as model:
        with pytest.raises(EndpointConfigurationError) as info:
            async for _ in model.stream(prompt="hi"):
                pass
    assert info.value.field == "config_home"
    assert replay.launches() == []


async def test_a_cli_launched_with_no_settings_always_has_a_home(replay: Any) -> None:
    replay.write(log_env=["HOME"])
    async with iModel(endpoint=ReferenceCliEndpoint(argv=replay.argv)) as model:
        call = await model.invoke(prompt="hi")
    assert call.status is EventStatus.COMPLETED
    assert replay.launch()["env"]["HOME"]
