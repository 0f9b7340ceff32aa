"""The real ``gemini`` binary through iModel against the fake provider server (real_cli tier).

Each test runs the pinned CLI with an isolated home, pointed at a loopback FakeProviderServer by
``agentic_settings`` (the scenario is a path prefix: the CLI cannot set headers). A unique marker
variable reaches the CLI and every descendant (tool shells included), so the cancellation and
deadline cases can prove nothing survived.

A long-running tool without a special server: the fake server's tool call runs ``echo`` in
``bash``; ``BASH_ENV`` (read by every non-interactive bash) points at a script that sleeps first,
so the tool is still running when the test cancels.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from lionagi.providers.gemini_cli import GeminiCodeEndpoint
from lionagi.service import (
    ProviderAuthError,
    ProviderConnectionError,
    ProviderError,
    ProviderStreamQuotaError,
    RequestDeadlineExceeded,
    StreamChunk,
    iModel,
)
from lionagi.service_testing import FakeProviderServer
from lionagi.service_testing.real_clis import processes_with_marker, require_real_cli
from lionagi.service_testing.real_tier import (
    assert_no_survivors,
    assert_pinned_version,
    closed_port,
    collect_stream,
    isolated_model,
    scenario_url,
)

pytestmark = [pytest.mark.real_cli, pytest.mark.anyio, pytest.mark.timeout(240)]

CALL_DEADLINE = 90.0  # one gemini start is 2-12 s on a loaded 2-core machine
ANSWER = "Hello from the fake server."


@pytest.fixture
def gemini() -> Path:
    return require_real_cli("gemini")


def model_for(gemini: Path, url: str, real_cli_marker: str, **options: Any) -> iModel:
    key = "fake-gemini-key"
    return isolated_model("gemini-cli", gemini, url, real_cli_marker, api_key=key, **options)


async def collect(model: iModel, **request: Any) -> list[StreamChunk]:
    return await collect_stream(model, deadline=CALL_DEADLINE, **request)


def test_pinned_version(gemini: Path) -> None:
    assert_pinned_version("gemini", gemini, GeminiCodeEndpoint)


async def test_plain_text_and_usage(
    gemini: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    async with model_for(
        gemini, scenario_url(fake_provider_server, "text"), real_cli_marker
    ) as model:
        call = await model.invoke(prompt="say hi", timeout=CALL_DEADLINE)
        assert call.exception is None, repr(call.exception)
        result = call.execution.response
        assert result["result"] == ANSWER
        assert result["usage"]["input_tokens"] > 0
        assert result["usage"]["output_tokens"] > 0
        assert result["session_id"]
        assert model.provider_session_id == result["session_id"]
    assert "say hi" in fake_provider_server.requests[-1].conversation_text()


async def test_tool_call_paired_by_id(
    gemini: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    async with model_for(
        gemini, scenario_url(fake_provider_server, "tool"), real_cli_marker, yolo=True
    ) as model:
        chunks = await collect(model, prompt="run the tool")
    uses = [c for c in chunks if c.type == "tool_use"]
    results = [c for c in chunks if c.type == "tool_result"]
    assert len(uses) == len(results) == 1
    assert uses[0].tool_id
    assert uses[0].tool_id == results[0].tool_id
    assert uses[0].tool_name == "run_shell_command"
    assert results[0].tool_output == "fake-tool-ran"
    assert not results[0].is_error
    text = "".join(c.content or "" for c in chunks if c.type == "text")
    assert "fake-tool-ran" in text
    assert chunks[-1].type == "result"
    assert chunks[-1].metadata["tool_calls"] == 1


async def test_resume_round_trip(
    gemini: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    async with model_for(
        gemini, scenario_url(fake_provider_server, "text"), real_cli_marker
    ) as model:
        first = await model.invoke(prompt="first turn marker-one", timeout=CALL_DEADLINE)
        assert first.exception is None, repr(first.exception)
        sid = first.execution.response["session_id"]
        second = await model.invoke(prompt="second turn marker-two", timeout=CALL_DEADLINE)
        assert second.exception is None, repr(second.exception)
        assert second.execution.response["session_id"] == sid
    seen = fake_provider_server.requests[-1].conversation_text()
    assert "first turn marker-one" in seen
    assert "second turn marker-two" in seen


async def test_unknown_resume_id_is_typed(
    gemini: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    async with model_for(
        gemini, scenario_url(fake_provider_server, "text"), real_cli_marker
    ) as model:
        call = await model.invoke(
            prompt="hi", resume="00000000-0000-4000-8000-000000000000", timeout=CALL_DEADLINE
        )
    assert isinstance(call.exception, ProviderError), repr(call.exception)
    assert call.exception.returncode == 42 or "42" in str(call.exception)


async def test_401_is_an_auth_error(
    gemini: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    async with model_for(
        gemini, scenario_url(fake_provider_server, "401"), real_cli_marker
    ) as model:
        call = await model.invoke(prompt="hi", timeout=CALL_DEADLINE)
        with pytest.raises(ProviderAuthError):
            await collect(model, prompt="hi again")
    assert isinstance(call.exception, ProviderAuthError), repr(call.exception)
    assert "fake-gemini-key" not in str(call.exception)


async def test_429_is_a_quota_error_with_the_servers_delay(
    gemini: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    # The CLI rewrites the 429 (its RetryInfo becomes "Suggested retry after 1s."): the delay
    # the server asked for must still reach retry_after.
    async with model_for(
        gemini, scenario_url(fake_provider_server, "429"), real_cli_marker
    ) as model:
        call = await model.invoke(prompt="hi", timeout=CALL_DEADLINE)
    assert isinstance(call.exception, ProviderStreamQuotaError), repr(call.exception)
    assert call.exception.retry_after == 1.0


async def test_server_down_is_typed_within_the_deadline(gemini: Path, real_cli_marker: str) -> None:
    port = closed_port()
    started = time.monotonic()
    async with model_for(gemini, f"http://127.0.0.1:{port}", real_cli_marker) as model:
        call = await model.invoke(prompt="hi", timeout=CALL_DEADLINE)
    assert time.monotonic() - started < CALL_DEADLINE + 5
    # Node's "fetch failed" on the result event: a typed connection failure.
    assert isinstance(call.exception, ProviderConnectionError), repr(call.exception)


async def test_prompt_beginning_with_dash_arrives_verbatim(
    gemini: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    prompt = "-h --resume latest --yolo 'quoted' $(echo no)"
    async with model_for(
        gemini, scenario_url(fake_provider_server, "text"), real_cli_marker
    ) as model:
        call = await model.invoke(prompt=prompt, timeout=CALL_DEADLINE)
    assert call.exception is None, repr(call.exception)
    assert call.execution.response["result"] == ANSWER
    assert prompt in fake_provider_server.requests[-1].conversation_text()


async def _drain(stream: AsyncIterator[StreamChunk], seen: list[str]) -> None:
    async for chunk in stream:
        seen.append(chunk.type)


def _slow_tool_env(tmp_path: Path) -> dict[str, str]:
    script = tmp_path / "slow-tool.sh"
    script.write_text("sleep 300\n", encoding="utf-8")
    return {"BASH_ENV": str(script)}


async def test_cancellation_mid_tool_leaves_no_process(
    gemini: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    env = _slow_tool_env(tmp_path)
    seen: list[str] = []
    async with model_for(
        gemini, scenario_url(fake_provider_server, "tool"), real_cli_marker, env=env, yolo=True
    ) as model:
        with anyio.fail_after(CALL_DEADLINE + 30):
            stream = model.stream(prompt="run the tool", timeout=CALL_DEADLINE)
            async for chunk in stream:
                seen.append(chunk.type)
                if chunk.type == "tool_use":
                    break
            await anyio.sleep(1.0)  # the tool shell is running now
            assert processes_with_marker(real_cli_marker), "no CLI or tool process was running"
            await stream.aclose()
    assert "tool_use" in seen
    assert "tool_result" not in seen
    assert_no_survivors(real_cli_marker)


async def test_deadline_mid_tool_leaves_no_process(
    gemini: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    env = _slow_tool_env(tmp_path)
    deadline = 45.0
    seen: list[str] = []
    started = time.monotonic()
    async with model_for(
        gemini, scenario_url(fake_provider_server, "tool"), real_cli_marker, env=env, yolo=True
    ) as model:
        with pytest.raises(RequestDeadlineExceeded):
            await _drain(model.stream(prompt="run the tool", timeout=deadline), seen)
    assert time.monotonic() - started < deadline + 5
    assert "tool_use" in seen
    assert "tool_result" not in seen
    assert_no_survivors(real_cli_marker)
