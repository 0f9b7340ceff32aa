"""The real ``codex`` binary (0.171.0) through ``iModel`` against the fake server on 127.0.0.1.

Skips cleanly without node or the installed binary (``scripts/install-real-clis``); with
``LIONAGI_REQUIRE_REAL_CLIS=1`` a missing binary fails instead. Deadlines are generous (a loaded
2-core machine); nothing here asserts speed.

Mid-tool cases need a tool that runs long. The fake server's tool call is always
``echo fake-tool-ran``. Codex (0.171.0) snapshots the user's login shell once per session
(functions included) and runs each command as ``bash -c '<source snapshot>; exec bash -c CMD'``
inside its sandbox; when the snapshot is not ready yet it runs ``bash -lc CMD``, which reads
the profile itself. The test's ``HOME`` carries a ``.bash_profile`` covering both paths: an
``exec`` function and an ``echo`` function that first sleep when the command is the fake
tool's. The sleep is a grandchild of codex holding the test's marker variable, which is how
survivors are found.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from lionagi.providers.codex import DEFAULT_MODEL, CodexCliEndpoint, CodexFastModeUnavailableError
from lionagi.service import (
    EventStatus,
    ProviderAuthError,
    ProviderStreamConnectionError,
    RequestDeadlineExceeded,
    StreamChunk,
    iModel,
)
from lionagi.service_testing import FakeProviderServer
from lionagi.service_testing.real_clis import require_real_cli
from lionagi.service_testing.real_tier import (
    assert_pinned_version,
    closed_port,
    collect_stream,
    isolated_settings,
    scenario_url,
    settled_survivors,
    wait_for_process,
)

pytestmark = [pytest.mark.real_cli, pytest.mark.timeout(240)]

CALL_TIMEOUT = 60.0
SLOW_PROFILE = """\
exec() {
  case "$*" in
    *fake-tool-ran*) command sleep 300 ;;
  esac
  builtin exec "$@"
}
echo() {
  if [ "$1" = fake-tool-ran ]; then
    command sleep 300
  fi
  builtin echo "$@"
}
"""


@pytest.fixture(scope="module")
def codex_binary() -> Path:
    return require_real_cli("codex")


@pytest.fixture(scope="module")
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer.running_in_thread() as running:
        yield running


def _model(
    binary: Path,
    gateway: str,
    real_cli_marker: str,
    tmp_path: Path,
    *,
    env: dict[str, str] | None = None,
    **kwargs: Any,
) -> iModel:
    return iModel(
        model="codex",
        request_defaults={"skip_git_repo_check": True},
        agentic_settings=isolated_settings(
            binary, gateway, real_cli_marker, api_key="sk-fake-codex-key", env=env, cwd=tmp_path
        ),
        **kwargs,
    )


def test_pinned_version(codex_binary: Path) -> None:
    assert_pinned_version("codex", codex_binary, CodexCliEndpoint)


async def test_plain_text_with_usage(
    codex_binary: Path, server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    model = _model(codex_binary, scenario_url(server, "text"), real_cli_marker, tmp_path)
    try:
        call = await model.invoke(prompt="say hi", timeout=CALL_TIMEOUT)
    finally:
        await model.close()
    assert call.status is EventStatus.COMPLETED, call.execution.error
    response = call.execution.response
    assert response["result"] == "Hello from the fake server."
    assert response["usage"]["input_tokens"] > 0
    assert response["usage"]["output_tokens"] > 0
    assert response["metadata"]["provider_session_id"]
    warnings = response["metadata"].get("warnings", [])
    assert not [w for w in warnings if "unrecognized configuration" in w], warnings
    seen = server.requests[-1]
    assert seen.path == "/v1/responses"
    assert seen.json["model"] == DEFAULT_MODEL
    # The default model is passed explicitly so codex offers its tools to a custom provider.
    assert [tool for tool in seen.json.get("tools", []) if tool.get("name") == "exec_command"]


async def test_thinking(
    codex_binary: Path, server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    model = _model(codex_binary, scenario_url(server, "thinking"), real_cli_marker, tmp_path)
    try:
        chunks = await collect_stream(model, deadline=CALL_TIMEOUT, prompt="think first")
    finally:
        await model.close()
    thinking = [c.content for c in chunks if c.type == "thinking"]
    assert thinking
    assert "Pondering" in (thinking[0] or "")
    assert [c.content for c in chunks if c.type == "text"] == ["Hello from the fake server."]
    assert chunks[-1].type == "result"


async def test_tool_call_paired_by_id(
    codex_binary: Path, server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    model = _model(codex_binary, scenario_url(server, "tool"), real_cli_marker, tmp_path)
    try:
        chunks = await collect_stream(model, deadline=CALL_TIMEOUT, prompt="run the tool")
    finally:
        await model.close()
    uses = [c for c in chunks if c.type == "tool_use"]
    results = [c for c in chunks if c.type == "tool_result"]
    assert len(uses) == len(results) == 1
    assert uses[0].tool_name == "shell"
    assert "echo fake-tool-ran" in uses[0].tool_input["command"]
    assert uses[0].tool_id == results[0].tool_id
    assert results[0].tool_output.strip() == "fake-tool-ran"
    assert not results[0].is_error
    assert [c.content for c in chunks if c.type == "text"] == ["Tool said: fake-tool-ran. Done."]
    assert chunks[-1].metadata["usage"]["input_tokens"] > 0
    # The tool's output went back to the model in the second request.
    assert "fake-tool-ran" in server.requests[-1].conversation_text()


async def test_effort_reaches_the_server(
    codex_binary: Path, server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    model = _model(codex_binary, scenario_url(server, "text"), real_cli_marker, tmp_path)
    try:
        call = await model.invoke(prompt="hi", reasoning_effort="high", timeout=CALL_TIMEOUT)
    finally:
        await model.close()
    assert call.status is EventStatus.COMPLETED, call.execution.error
    assert server.requests[-1].json["reasoning"]["effort"] == "high"


async def test_fast_mode_sends_the_priority_tier_for_a_model_that_lists_it(
    codex_binary: Path, server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    # gpt-5.5's entry in 0.171.0's bundled catalog lists the priority tier.
    model = _model(codex_binary, scenario_url(server, "text"), real_cli_marker, tmp_path)
    try:
        call = await model.invoke(prompt="hi", model="gpt-5.5", fast_mode=True, timeout=60.0)
    finally:
        await model.close()
    assert call.status is EventStatus.COMPLETED, call.execution.error
    assert server.requests[-1].json["service_tier"] == "priority"


async def test_fast_mode_for_a_model_without_the_tier_is_refused_typed(
    codex_binary: Path, server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    # The default model has no catalog entry: codex would omit the tier and run at standard.
    model = _model(codex_binary, scenario_url(server, "text"), real_cli_marker, tmp_path)
    try:
        call = await model.invoke(prompt="hi", fast_mode=True, timeout=CALL_TIMEOUT)
        plain = await model.invoke(prompt="hi", timeout=CALL_TIMEOUT)
    finally:
        await model.close()
    assert call.status is EventStatus.FAILED
    error = call.exception
    assert isinstance(error, CodexFastModeUnavailableError), repr(error)
    assert (error.field, error.model) == ("fast_mode", DEFAULT_MODEL)
    assert plain.status is EventStatus.COMPLETED, plain.execution.error
    assert "service_tier" not in server.requests[-1].json
    assert settled_survivors(real_cli_marker) == []


async def test_prompt_beginning_with_a_dash(
    codex_binary: Path, server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    prompt = "--help -v say hi"
    model = _model(codex_binary, scenario_url(server, "text"), real_cli_marker, tmp_path)
    try:
        call = await model.invoke(prompt=prompt, timeout=CALL_TIMEOUT)
    finally:
        await model.close()
    assert call.status is EventStatus.COMPLETED, call.execution.error
    assert server.requests[-1].prompt_text() == prompt


async def test_401_is_an_auth_error(
    codex_binary: Path, server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    model = _model(codex_binary, scenario_url(server, "401"), real_cli_marker, tmp_path)
    started = time.monotonic()
    try:
        call = await model.invoke(prompt="hi", timeout=CALL_TIMEOUT)
        with pytest.raises(ProviderAuthError) as info:
            await collect_stream(model, deadline=CALL_TIMEOUT, prompt="hi again")
    finally:
        await model.close()
    assert call.status is EventStatus.FAILED
    assert isinstance(call.execution.exception, ProviderAuthError)
    assert "sk-fake-codex-key" not in str(info.value)
    # Fail-fast provider retries: one request per call, not six.
    assert len([r for r in server.requests if r.scenario == "401"]) == 2
    assert time.monotonic() - started < 2 * CALL_TIMEOUT + 5


async def test_server_down_is_a_typed_error_within_the_deadline(
    codex_binary: Path, real_cli_marker: str, tmp_path: Path
) -> None:
    gateway = f"http://127.0.0.1:{closed_port()}"
    model = _model(codex_binary, gateway, real_cli_marker, tmp_path)
    started = time.monotonic()
    try:
        # Isolated mode turns codex's endless wait for the network off: a refused connection
        # is a failed turn at once, in the connection family (the API was never reached).
        with pytest.raises(ProviderStreamConnectionError):
            await collect_stream(model, deadline=CALL_TIMEOUT, prompt="hi")
    finally:
        await model.close()
    assert time.monotonic() - started < CALL_TIMEOUT + 5


def _slow_tool_model(
    binary: Path, server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> iModel:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bash_profile").write_text(SLOW_PROFILE)
    return _model(
        binary, scenario_url(server, "tool"), real_cli_marker, tmp_path, env={"HOME": str(home)}
    )


async def test_cancel_mid_tool_leaves_no_process(
    codex_binary: Path, server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    model = _slow_tool_model(codex_binary, server, real_cli_marker, tmp_path)
    try:
        stream = model.stream(prompt="run the slow tool", timeout=CALL_TIMEOUT)
        async for chunk in stream:
            if chunk.type == "tool_use":
                break
        await wait_for_process(real_cli_marker, 30.0, "sleep 300")
        await stream.aclose()
    finally:
        await model.close()
    assert settled_survivors(real_cli_marker) == [], "codex or its tool shell survived cancellation"


async def test_deadline_mid_tool_leaves_no_process(
    codex_binary: Path, server: FakeProviderServer, real_cli_marker: str, tmp_path: Path
) -> None:
    # Codex's exec tool yields to the model after ~10 s of a still-running command, and the
    # fake model then ends the turn. Aim the deadline 5 s after the tool starts, measured on
    # this machine by a first (cancelled) run, so it lands mid-tool even when loaded.
    model = _slow_tool_model(codex_binary, server, real_cli_marker, tmp_path)
    try:
        started = time.monotonic()
        stream = model.stream(prompt="run the slow tool", timeout=CALL_TIMEOUT)
        async for chunk in stream:
            if chunk.type == "tool_use":
                break
        to_tool = time.monotonic() - started
        await stream.aclose()
        assert settled_survivors(real_cli_marker) == []
        deadline = to_tool + 5.0
        seen: list[str] = []
        started = time.monotonic()
        with pytest.raises(RequestDeadlineExceeded):
            await _collect_types(model.stream(prompt="run the slow tool", timeout=deadline), seen)
    finally:
        await model.close()
    assert time.monotonic() - started < deadline + 5
    assert "tool_use" in seen, seen
    assert "tool_result" not in seen, seen
    assert settled_survivors(real_cli_marker) == [], "codex or its tool shell survived the deadline"


async def _collect_types(stream: AsyncIterator[StreamChunk], into: list[str]) -> None:
    async for chunk in stream:
        into.append(chunk.type)
