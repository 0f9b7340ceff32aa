"""The command line against installed vendor distributions and the fake server (issue 12)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lionagi.service_testing import DEFAULT_TEXT, FakeProviderServer

SCRIPT = Path(sys.executable).with_name("lionagi-service")


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer.running_in_thread() as running:
        yield running


def _chat(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": "sk-cli-test-key-000000"}
    return subprocess.run(
        [str(SCRIPT), "chat", *args], capture_output=True, text=True, timeout=120, env=env
    )


def test_chat_openai_streams_from_the_fake_server(server: FakeProviderServer) -> None:
    done = _chat(
        "openai/gpt-4.1", "hi", "--base-url", f"{server.base_url}/v1",
        "--allow-local-network", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    chunks = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    text = "".join(c["content"] or "" for c in chunks if c["type"] == "text")
    assert text == DEFAULT_TEXT
    assert chunks[-1]["type"] == "result"
    assert server.requests[-1].path == "/v1/chat/completions"
    assert "sk-cli-test-key" not in done.stdout + done.stderr


def test_chat_without_local_network_opt_in_is_refused(server: FakeProviderServer) -> None:
    done = _chat("openai/gpt-4.1", "hi", "--base-url", f"{server.base_url}/v1")
    assert done.returncode != 0
    assert server.requests == []


def test_an_explicit_endpoint_is_not_second_guessed(server: FakeProviderServer) -> None:
    done = _chat(
        "openai/gpt-4.1", "hi", "--endpoint", "nope", "--base-url", f"{server.base_url}/v1",
        "--allow-local-network",
    )  # fmt: skip
    assert done.returncode == 2
    assert server.requests == []
