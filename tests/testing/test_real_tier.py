"""The real-tier helpers shared by the CLI packages (settings, ports, survivors, versions)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from lionagi.service_testing.real_clis import MARKER_ENV, new_marker
from lionagi.service_testing.real_tier import (
    assert_no_survivors,
    closed_port,
    isolated_settings,
    scenario_url,
    settled_survivors,
    survivors_after,
    wait_for_process,
)


def test_isolated_settings_carry_the_marker_home_and_gateway(tmp_path: Path) -> None:
    settings = isolated_settings(
        Path("/bin/cli"), "http://127.0.0.1:1/x", "m-1", api_key="k", env={"A": "b"}, cwd=tmp_path
    )
    assert settings == {
        "binary": "/bin/cli",
        "gateway_url": "http://127.0.0.1:1/x",
        "gateway_api_key": "k",
        "config_home": "isolated",
        "env": {MARKER_ENV: "m-1", "A": "b"},
        "cwd": str(tmp_path),
    }
    assert "cwd" not in isolated_settings(Path("c"), "http://h", "m", api_key="k")


def test_closed_port_refuses_connections() -> None:
    port = closed_port()
    with socket.socket() as sock, pytest.raises(ConnectionRefusedError):
        sock.connect(("127.0.0.1", port))


def test_scenario_url_is_a_path_prefix(fake_provider_server: object) -> None:
    url = scenario_url(fake_provider_server, "401")  # type: ignore[arg-type]
    assert url.endswith("/scenario/401") and url.startswith("http://127.0.0.1:")


def test_a_marked_process_is_found_until_it_is_gone() -> None:
    marker = new_marker()
    env = {**os.environ, MARKER_ENV: marker}
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)
    try:
        anyio.run(wait_for_process, marker, 30.0, sys.executable)
        assert settled_survivors(marker, wait=0.2) == [child.pid]
        with pytest.raises(AssertionError, match=str(child.pid)):
            assert_no_survivors(marker, wait=0.2)
    finally:
        child.kill()
        child.wait()
    assert settled_survivors(marker) == []
    assert anyio.run(survivors_after, marker, 1.0) == []


def test_wait_for_process_gives_up_with_a_reason() -> None:
    with pytest.raises(AssertionError, match="no process running"):
        anyio.run(wait_for_process, new_marker(), 0.3, "sleep 300")


def test_a_missing_redis_server_skips_or_fails_by_env(monkeypatch: pytest.MonkeyPatch) -> None:
    from lionagi.service_testing.redis_server import REQUIRE_REDIS_ENV, require_redis_server

    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv(REQUIRE_REDIS_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception):
        require_redis_server()
    monkeypatch.setenv(REQUIRE_REDIS_ENV, "1")
    with pytest.raises(pytest.fail.Exception):
        require_redis_server()
