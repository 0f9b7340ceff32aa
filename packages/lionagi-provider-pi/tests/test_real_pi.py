"""The real pi 0.73.1 binary through ``iModel``, against the fake provider server on loopback.

pi speaks OpenAI chat completions to ``<gateway>/v1``; the scenario is chosen by a path prefix
(``/scenario/<names>``) because pi cannot send the fake server's selector header. Every run
carries a marker variable so survivors, tool shells included, are found in ``/proc``.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from lionagi.providers.pi import PiCliEndpoint
from lionagi.service import (
    EventStatus,
    ProviderAuthError,
    ProviderError,
    RequestDeadlineExceeded,
    StreamChunk,
    iModel,
)
from lionagi.service_testing import FakeProviderServer
from lionagi.service_testing.real_clis import require_real_cli
from lionagi.service_testing.real_tier import (
    assert_pinned_version,
    closed_port,
    collect_into,
    isolated_model,
    survivors_after,
    wait_for_process,
)

pytestmark = [pytest.mark.real_cli, pytest.mark.anyio, pytest.mark.timeout(240)]

CALL_DEADLINE = 60.0
KEY = "sk-real-pi-0123456789abcdef"
HOSTILE = "-v --help \"double\" 'single' $(touch pwned) `id` --\n\tsecond line"


@pytest.fixture
def pi_binary() -> Path:
    return require_real_cli("pi")


def model_for(
    binary: Path,
    gateway: str,
    real_cli_marker: str,
    *,
    cwd: Path | None = None,
    model: str = "fake-model",
) -> iModel:
    return isolated_model(f"pi/{model}", binary, gateway, real_cli_marker, api_key=KEY, cwd=cwd)


async def collect(model: iModel, **request: Any) -> tuple[list[StreamChunk], BaseException | None]:
    chunks: list[StreamChunk] = []
    try:
        await collect_into(model, chunks, deadline=CALL_DEADLINE, **request)
    except ProviderError as exc:
        return chunks, exc
    return chunks, None


def slow_tool_workspace(tmp_path: Path) -> Path:
    """A project whose pi settings prefix every bash command with a long sleep."""
    work = tmp_path / "work"
    (work / ".pi").mkdir(parents=True)
    (work / ".pi" / "settings.json").write_text(json.dumps({"shellCommandPrefix": "sleep 300"}))
    return work


def test_pinned_version(pi_binary: Path) -> None:
    assert_pinned_version("pi", pi_binary, PiCliEndpoint)


async def test_plain_text_invoke(
    pi_binary: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    model = model_for(pi_binary, fake_provider_server.base_url, real_cli_marker)
    try:
        call = await model.invoke(prompt="say hello", timeout=CALL_DEADLINE)
    finally:
        await model.close()
    assert call.status is EventStatus.COMPLETED, call.execution.error
    result = call.execution.response
    assert result["result"] == "Hello from the fake server."
    assert result["session_id"]
    assert result["session_id"] == model.provider_session_id
    assert fake_provider_server.requests[-1].path == "/v1/chat/completions"
    assert await survivors_after(real_cli_marker, 15.0) == []


async def test_resume_round_trip_sends_turn_one_in_turn_two(
    pi_binary: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    model = model_for(pi_binary, fake_provider_server.base_url, real_cli_marker, cwd=tmp_path)
    try:
        first = await model.invoke(prompt="first turn marker-A", timeout=CALL_DEADLINE)
        assert first.status is EventStatus.COMPLETED, first.execution.error
        sid = model.provider_session_id
        assert sid
        turn_one = fake_provider_server.requests[-1].conversation_text()
        assert "Hello from the fake server." not in turn_one  # no history yet
        second = await model.invoke(prompt="second turn", timeout=CALL_DEADLINE)
        assert second.status is EventStatus.COMPLETED, second.execution.error
        assert second.payload["request"].resume == sid
    finally:
        await model.close()
    seen = fake_provider_server.requests[-1].conversation_text()
    assert "first turn marker-A" in seen
    assert "Hello from the fake server." in seen  # turn one's answer came back as history
    assert "second turn" in seen
    assert second.execution.response["session_id"] == sid


async def test_unknown_session_is_a_typed_error(
    pi_binary: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    model = model_for(pi_binary, fake_provider_server.base_url, real_cli_marker)
    try:
        call = await model.invoke(prompt="hi", resume="01a2ffff-0000", timeout=CALL_DEADLINE)
    finally:
        await model.close()
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderError)
    assert "No session found matching" in str(call.exception)


async def test_thinking_tool_usage_stream(
    pi_binary: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    gateway = f"{fake_provider_server.base_url}/scenario/thinking+tool+usage"
    model = model_for(pi_binary, gateway, real_cli_marker, cwd=tmp_path)
    try:
        chunks, exc = await collect(model, prompt="think, then run the tool")
    finally:
        await model.close()
    assert exc is None, repr(exc)
    thinking = "".join(c.content or "" for c in chunks if c.type == "thinking")
    assert thinking == "Pondering the fake request."
    (use,) = [c for c in chunks if c.type == "tool_use"]
    (result,) = [c for c in chunks if c.type == "tool_result"]
    assert use.tool_name == "bash"
    assert use.tool_id
    assert result.tool_id == use.tool_id
    assert result.tool_output == "fake-tool-ran\n"
    assert "Tool said: fake-tool-ran. Done." in "".join(
        c.content or "" for c in chunks if c.type == "text"
    )
    final = chunks[-1]
    assert final.type == "result"
    assert final.metadata["usage"]["input"] > 0
    assert final.metadata["usage"]["output"] > 0
    assert await survivors_after(real_cli_marker, 15.0) == []


@pytest.mark.parametrize(
    ("fields", "effort"),
    [({"thinking": "high"}, "high"), ({"thinking": "xhigh"}, "xhigh"), ({}, None)],
)
async def test_thinking_level_reaches_the_gateway(
    pi_binary: Path,
    fake_provider_server: FakeProviderServer,
    real_cli_marker: str,
    fields: dict[str, str],
    effort: str | None,
) -> None:
    model = model_for(pi_binary, fake_provider_server.base_url, real_cli_marker)
    try:
        call = await model.invoke(prompt="think hard", timeout=CALL_DEADLINE, **fields)
    finally:
        await model.close()
    assert call.status is EventStatus.COMPLETED, call.execution.error
    assert fake_provider_server.requests[-1].json.get("reasoning_effort") == effort


async def test_prompt_beginning_with_dash_arrives_verbatim(
    pi_binary: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    model = model_for(pi_binary, fake_provider_server.base_url, real_cli_marker)
    try:
        call = await model.invoke(prompt=HOSTILE, timeout=CALL_DEADLINE)
    finally:
        await model.close()
    assert call.status is EventStatus.COMPLETED, call.execution.error
    assert fake_provider_server.requests[-1].prompt_text() == HOSTILE


async def test_401_is_a_provider_auth_error(
    pi_binary: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    model = model_for(pi_binary, f"{fake_provider_server.base_url}/scenario/401", real_cli_marker)
    try:
        chunks, exc = await collect(model, prompt="hello")
        call = await model.invoke(prompt="hello", timeout=CALL_DEADLINE)
    finally:
        await model.close()
    assert isinstance(exc, ProviderAuthError), repr(exc)
    assert [c.type for c in chunks].count("error") == 1
    assert KEY not in str(exc)
    assert call.status is EventStatus.FAILED
    assert isinstance(call.exception, ProviderAuthError)


async def test_server_down_is_typed_within_the_deadline(
    pi_binary: Path, real_cli_marker: str
) -> None:
    model = model_for(pi_binary, f"http://127.0.0.1:{closed_port()}", real_cli_marker)
    started = time.monotonic()
    try:
        _chunks, exc = await collect(model, prompt="hello")
    finally:
        await model.close()
    assert isinstance(exc, ProviderError), repr(exc)
    assert "Connection error" in str(exc)
    assert time.monotonic() - started < CALL_DEADLINE + 5
    assert await survivors_after(real_cli_marker, 15.0) == []


async def test_cancellation_mid_tool_leaves_no_process(
    pi_binary: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    gateway = f"{fake_provider_server.base_url}/scenario/tool"
    model = model_for(pi_binary, gateway, real_cli_marker, cwd=slow_tool_workspace(tmp_path))
    seen: list[StreamChunk] = []

    async def consume() -> None:
        async for chunk in model.stream(prompt="run the tool", timeout=CALL_DEADLINE * 2):
            seen.append(chunk)

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(consume)
            await wait_for_process(real_cli_marker, CALL_DEADLINE, "sleep 300")
            tg.cancel_scope.cancel()
    finally:
        await model.close()
    assert "tool_use" in [c.type for c in seen]
    assert await survivors_after(real_cli_marker, 15.0) == []


async def test_deadline_mid_tool_leaves_no_process(
    pi_binary: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    gateway = f"{fake_provider_server.base_url}/scenario/tool"
    model = model_for(pi_binary, gateway, real_cli_marker, cwd=slow_tool_workspace(tmp_path))
    deadline = 25.0
    mid_tool = anyio.Event()

    async def watch() -> None:
        await wait_for_process(real_cli_marker, deadline + 5, "sleep 300")
        mid_tool.set()

    started = time.monotonic()
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(watch)
            with pytest.raises(RequestDeadlineExceeded):
                async for _chunk in model.stream(prompt="run the tool", timeout=deadline):
                    pass
            tg.cancel_scope.cancel()
    finally:
        await model.close()
    assert time.monotonic() - started < deadline + 5
    assert mid_tool.is_set(), "the deadline passed before the tool shell started"
    assert await survivors_after(real_cli_marker, 15.0) == []


async def test_system_prompt_paths_are_sent_as_text_never_read(
    pi_binary: Path,
    fake_provider_server: FakeProviderServer,
    real_cli_marker: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pi reads an existing path given to --system-prompt; the adapter must send the text."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))  # where the run's prompt files go
    work = tmp_path / "work"
    work.mkdir()
    secret = tmp_path / "id_rsa"
    secret.write_text("ABSOLUTE-FILE-CONTENT-7f3a", encoding="utf-8")
    (work / "notes.md").write_text("RELATIVE-FILE-CONTENT-9c1d", encoding="utf-8")
    literal = "literal append text -v --help"
    model = model_for(pi_binary, fake_provider_server.base_url, real_cli_marker, cwd=work)
    try:
        call = await model.invoke(
            prompt="hi",
            system_prompt=str(secret),
            append_system_prompt=["notes.md", literal],
            timeout=CALL_DEADLINE,
        )
    finally:
        await model.close()
    assert call.status is EventStatus.COMPLETED, call.execution.error
    sent = json.dumps(fake_provider_server.requests[-1].json)
    assert "ABSOLUTE-FILE-CONTENT-7f3a" not in sent
    assert "RELATIVE-FILE-CONTENT-9c1d" not in sent
    for text in (str(secret), "notes.md", literal):
        assert json.dumps(text)[1:-1] in sent  # the caller's text reached the model as text
    assert list(temp.glob("lionagi-pi-prompt-*")) == []
    assert await survivors_after(real_cli_marker, 15.0) == []


async def test_ephemeral_turn_between_saved_turns(
    pi_binary: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    """Turn 2 (ephemeral) neither resumes nor replaces turn 1's session; turn 3 resumes it."""
    model = model_for(pi_binary, fake_provider_server.base_url, real_cli_marker, cwd=tmp_path)
    try:
        first = await model.invoke(prompt="turn one marker-A", timeout=CALL_DEADLINE)
        assert first.status is EventStatus.COMPLETED, first.execution.error
        sid = model.provider_session_id
        assert sid
        second = await model.invoke(
            prompt="turn two marker-B", ephemeral=True, timeout=CALL_DEADLINE
        )
        assert second.status is EventStatus.COMPLETED, second.execution.error
        assert second.payload["request"].resume is None
        assert "marker-A" not in fake_provider_server.requests[-1].conversation_text()
        assert model.provider_session_id == sid
        third = await model.invoke(prompt="turn three", timeout=CALL_DEADLINE)
        assert third.status is EventStatus.COMPLETED, third.execution.error
    finally:
        await model.close()
    seen = fake_provider_server.requests[-1].conversation_text()
    assert "turn one marker-A" in seen
    assert "marker-B" not in seen
    assert third.execution.response["session_id"] == sid


@pytest.mark.parametrize(
    ("model_name", "fields", "effort"),
    [
        ("fake-model:high", {}, "high"),
        ("fake-model:xhigh", {"thinking": "xhigh"}, "xhigh"),
        ("fake-model:off", {}, None),
        ("fake-model:none", {}, None),
    ],
)
async def test_model_thinking_shorthand_through_the_gateway(
    pi_binary: Path,
    fake_provider_server: FakeProviderServer,
    real_cli_marker: str,
    model_name: str,
    fields: dict[str, str],
    effort: str | None,
) -> None:
    """pi's ``<model>:<level>`` reaches the gateway as the bare model id and that level.

    Before the adapter split it, the gateway's ``models.json`` declared ``fake-model:high`` as a
    model (pi matched it whole and sent that name) and ``--thinking off`` overrode the level.
    """
    model = model_for(pi_binary, fake_provider_server.base_url, real_cli_marker, model=model_name)
    try:
        call = await model.invoke(prompt="think hard", timeout=CALL_DEADLINE, **fields)
    finally:
        await model.close()
    assert call.status is EventStatus.COMPLETED, call.execution.error
    sent = fake_provider_server.requests[-1].json
    assert sent["model"] == "fake-model"
    assert sent.get("reasoning_effort") == effort
