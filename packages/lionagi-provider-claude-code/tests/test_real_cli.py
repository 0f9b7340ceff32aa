"""The real ``claude`` binary (pinned 2.1.332) through iModel against the fake provider server.

Also run against 2.1.197, the pin before (its recordings are ``captures/*.jsonl``; 2.1.332's are
in ``captures/2.1.332``): every case but the pinned-version check passes on both.

Skipped when node or the binary is absent (``scripts/install-real-clis`` installs it); failed
instead under ``LIONAGI_REQUIRE_REAL_CLIS=1``. Every run is isolated (own config home), points
``ANTHROPIC_BASE_URL`` at the fake server with the scenario in the path, and carries a marker
variable so that any survivor, tool shells included, is found in ``/proc`` afterwards.

Mid-tool cases need a tool that runs long, but the fake server's tool call is always
``echo fake-tool-ran``. Claude Code runs Bash tool commands through ``$SHELL``; the tests point
``SHELL`` at a wrapper that turns exactly that command into ``sleep 600`` (recording that it
started), and forwards everything else to the real bash.

The CLI's private temporary files (``claude-<uid>/``, ``cc-socks/``) must stay in the isolated
home even when the deployment gives the tools a ``TMPDIR`` of its own; the check compares only
entries this run created (its tool ``TMPDIR`` is private to the test, and its project directory
is named after a unique working directory), since the system temp dir is shared.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
import uuid
from contextlib import aclosing
from pathlib import Path
from typing import Any

import anyio
import pytest

from lionagi.providers.claude_code import ClaudeCodeEndpoint
from lionagi.service import (
    EventStatus,
    ProviderAuthError,
    ProviderPermissionError,
    ProviderStreamConnectionError,
    ProviderStreamDisconnectError,
    ProviderStreamError,
    ProviderStreamServerError,
    RequestDeadlineExceeded,
    StreamChunk,
    iModel,
)
from lionagi.service_testing import FakeProviderServer, scripted_stream_server
from lionagi.service_testing.real_clis import (
    processes_with_marker,
    real_cli_version,
    require_real_cli,
)
from lionagi.service_testing.real_tier import (
    assert_pinned_version,
    closed_port,
    collect_into,
    collect_stream,
    isolated_model,
    scenario_url,
)

pytestmark = [pytest.mark.real_cli, pytest.mark.timeout(180)]

CALL_DEADLINE = 60.0
FAKE_KEY = "sk-ant-fake-gateway-key-0123456789"


@pytest.fixture(scope="module")
def claude() -> Path:
    return require_real_cli("claude")


@pytest.fixture
def slow_shell(tmp_path: Path) -> tuple[Path, Path]:
    """A ``bash`` wrapper that hangs the fake tool command; returns (wrapper, started-flag)."""
    started = tmp_path / "tool-started"
    wrapper = tmp_path / "bin" / "bash"
    wrapper.parent.mkdir()
    wrapper.write_text(
        "#!/bin/sh\n"
        'case "$*" in\n'
        f"  *fake-tool-ran*) echo $$ > '{started}'; exec sleep 600;;\n"
        "esac\n"
        'exec /bin/bash "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    return wrapper, started


def model_for(claude: Path, gateway: str, real_cli_marker: str, **options: Any) -> iModel:
    model = options.pop("model", "claude_code/sonnet")
    return isolated_model(model, claude, gateway, real_cli_marker, api_key=FAKE_KEY, **options)


async def collect(model: iModel, **request: Any) -> list[StreamChunk]:
    return await collect_stream(model, deadline=CALL_DEADLINE, **request)


def test_pinned_version(claude: Path) -> None:
    assert_pinned_version("claude", claude, ClaudeCodeEndpoint)


async def test_plain_text_usage_and_session(
    claude: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    async with model_for(
        claude, scenario_url(fake_provider_server, "text"), real_cli_marker
    ) as model:
        chunks = await collect(model, prompt="say hi")
    texts = [c.content for c in chunks if c.type == "text"]
    assert "".join(t or "" for t in texts) == "Hello from the fake server."
    (result,) = [c for c in chunks if c.type == "result"]
    assert result.content is None  # the result repeats the text: emitted once
    assert result.metadata["usage"]["input_tokens"] > 0
    assert result.metadata["num_turns"] == 1
    assert "total_cost_usd" in result.metadata
    system = next(c for c in chunks if c.type == "system")
    assert system.metadata["session_id"] == result.metadata["session_id"]
    seen = fake_provider_server.requests[-1]
    assert seen.path.startswith("/v1/messages")
    # the user turn arrives verbatim (the CLI adds system reminders as further blocks)
    assert "say hi" in seen.conversation_text().splitlines()
    assert FAKE_KEY not in str(seen.headers)  # recorded redacted, but it was sent


async def test_invoke_reports_usage(
    claude: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    async with model_for(
        claude, scenario_url(fake_provider_server, "usage"), real_cli_marker
    ) as model:
        call = await model.invoke(prompt="count", timeout=CALL_DEADLINE)
    assert call.status is EventStatus.COMPLETED, repr(call.execution.error)
    response = call.execution.response
    assert response["result"] == "Hello from the fake server."
    assert response["usage"]["output_tokens"] > 0
    assert response["session_id"]


async def test_thinking_and_tool_round_trip(
    claude: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    url = scenario_url(fake_provider_server, "thinking+tool")
    async with model_for(claude, url, real_cli_marker) as model:
        chunks = await collect(model, prompt="think, then run the tool")
    kinds = [c.type for c in chunks]
    assert "thinking" in kinds
    (use,) = [c for c in chunks if c.type == "tool_use"]
    (result,) = [c for c in chunks if c.type == "tool_result"]
    assert kinds.index("tool_use") < kinds.index("tool_result")
    assert use.tool_name == "Bash"
    assert use.tool_id
    assert result.tool_id == use.tool_id
    assert result.tool_output == "fake-tool-ran"
    assert any(c.type == "text" and "fake-tool-ran" in (c.content or "") for c in chunks)


async def test_subagent_run_completes_with_paired_tools(
    claude: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    # Without Bash the fake server's tool call goes to the Agent tool: a subagent runs, and the
    # CLI reports its tasks with system/task_started, task_progress, task_updated, ... From
    # 2.1.332 it runs in the background (system/background_tasks_changed), and its notification
    # starts another turn with a result of its own: still one result chunk, last. The fake
    # server answers that notification turn with text, as a model does, so the run ends.
    url = scenario_url(fake_provider_server, "tool")
    async with model_for(claude, url, real_cli_marker) as model:
        chunks = await collect(model, prompt="delegate", disallowed_tools=["Bash"])
    uses = [c for c in chunks if c.type == "tool_use"]
    assert uses
    assert {c.tool_name for c in uses} == {"Agent"}
    used = {c.tool_id for c in uses}
    assert {c.tool_id for c in chunks if c.type == "tool_result"} == used
    kinds = [c.type for c in chunks]
    assert kinds[-1] == "result"
    assert kinds.count("result") == 1


async def test_resume_round_trip(
    claude: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    word = f"zebra-{uuid.uuid4().hex[:8]}"
    async with model_for(
        claude, scenario_url(fake_provider_server, "text"), real_cli_marker
    ) as model:
        first = await collect(model, prompt=f"remember the word {word}")
        session = model.provider_session_id
        assert session
        assert next(c for c in first if c.type == "system").metadata["session_id"] == session
        second = await collect(model, prompt="which word did I ask you to remember?")
    assert next(c for c in second if c.type == "system").metadata["session_id"] == session
    turn_two = fake_provider_server.requests[-1].conversation_text()
    assert word in turn_two
    assert "which word did I ask you to remember?" in turn_two


async def test_an_unsaved_run_is_not_resumed_by_the_next_call(
    claude: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    url = scenario_url(fake_provider_server, "text")
    async with model_for(claude, url, real_cli_marker) as model:
        first = await collect(model, prompt="one", no_session_persistence=True)
        assert model.provider_session_id is None  # the CLI saved nothing to resume
        assert first[0].metadata["provider_session_id"]
        second = await collect(model, prompt="two")  # failed: "No conversation found ..."
        assert second[-1].type == "result"
        assert model.provider_session_id == second[-1].metadata["session_id"]


async def test_prompt_beginning_with_dash(
    claude: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    prompt = "-v --help --resume nothing"
    async with model_for(
        claude, scenario_url(fake_provider_server, "text"), real_cli_marker
    ) as model:
        chunks = await collect(model, prompt=prompt)
    assert any(c.type == "text" for c in chunks)
    # an operand, not options: the model received it verbatim as the user's text
    assert prompt in fake_provider_server.requests[-1].conversation_text().splitlines()


async def test_401_is_provider_auth_error(
    claude: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    chunks: list[StreamChunk] = []
    async with model_for(
        claude, scenario_url(fake_provider_server, "401"), real_cli_marker
    ) as model:
        with pytest.raises(ProviderAuthError) as info:
            await collect_into(model, chunks, deadline=CALL_DEADLINE, prompt="hi")
    assert isinstance(info.value, ProviderStreamError)
    assert [c.type for c in chunks].count("error") == 1  # reported twice by the CLI
    assert not any(c.type == "text" for c in chunks)
    assert FAKE_KEY not in str(info.value)


async def test_server_down_is_typed_within_the_deadline(claude: Path, real_cli_marker: str) -> None:
    port = closed_port()
    started = time.monotonic()
    async with model_for(claude, f"http://127.0.0.1:{port}", real_cli_marker) as model:
        with pytest.raises(ProviderStreamConnectionError) as info:
            await collect(model, prompt="hi")
    assert time.monotonic() - started < CALL_DEADLINE + 5
    # 2.1.197: "Unable to connect to API (ConnectionRefused)"; 2.1.332: "Connection refused — a
    # firewall or proxy may be blocking it (ECONNREFUSED)". Nothing answered: the connection
    # family (a ProviderConnectionError), not the server-fault twin its "server_error" label
    # gave it.
    assert re.search(r"Unable to connect|ECONNREFUSED", str(info.value)), str(info.value)


async def test_an_idle_stream_is_the_disconnect_twin_within_seconds(
    claude: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    # ``stall``: message_start and the first text delta, then nothing. The CLI's byte watchdog
    # (10 s, its floor; CLAUDE_STREAM_IDLE_TIMEOUT_MS cannot go below 300 s) ends the stream,
    # and without its non-streaming retry the run fails after one request: "Stream idle
    # timeout - no chunks received", labelled "unknown". The provider had answered: a client
    # timeout, the disconnect twin (never retried), not a plain stream error.
    env = {
        "CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS": "10000",
        "CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK": "1",
    }
    url = scenario_url(fake_provider_server, "stall")
    started = time.monotonic()
    async with model_for(claude, url, real_cli_marker, env=env) as model:
        with pytest.raises(ProviderStreamDisconnectError) as info:
            await collect(model, prompt="hi")
    assert time.monotonic() - started < 25
    assert "Stream idle timeout" in str(info.value), str(info.value)
    assert len(fake_provider_server.requests) == 1
    assert FAKE_KEY not in str(info.value)


# message_start, then the Messages API's in-stream form of a 500, before any content block.
_API_ERROR_AFTER_START = [
    b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_fake_err",'
    b'"type":"message","role":"assistant","model":"claude-sonnet","content":[],'
    b'"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}\n\n',
    b'event: error\ndata: {"type":"error","error":{"type":"api_error",'
    b'"message":"Internal server error"}}\n\n',
]


async def test_an_api_error_event_before_any_block_is_the_server_fault_twin(
    claude: Path, real_cli_marker: str
) -> None:
    # 2.1.332 labels it `unknown` ("API Error: Internal server error") and names the API's type
    # in `api_error_type`: the retryable server-fault twin, as a 500 labelled `server_error` is.
    # 2.1.197 prints the same words, labelled `unknown` too, but with no `api_error_type`:
    # nothing names the fault, so it stays the plain stream error it always was. Without the
    # non-streaming retry (which this server would answer with the same stream), one request
    # (2.1.197 also sends its `HEAD /` check), well under a second.
    expected = ProviderStreamError
    if not real_cli_version(claude).startswith("2.1.197"):
        expected = ProviderStreamServerError
    env = {"CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK": "1"}
    async with (
        scripted_stream_server(_API_ERROR_AFTER_START, path="") as server,
        model_for(claude, server.url, real_cli_marker, env=env) as model,
    ):
        with pytest.raises(ProviderStreamError) as info:
            await collect(model, prompt="hi")
    assert type(info.value) is expected, repr(info.value)
    assert "API Error: Internal server error" in str(info.value), str(info.value)
    assert info.value.retryable is (expected is ProviderStreamServerError)
    assert [line.split()[0] for line in server.request_lines].count("POST") == 1
    assert FAKE_KEY not in str(info.value)


async def _wait_for(path: Path, limit: float) -> None:
    """Poll for ``path`` (written by the tool shell wrapper, another process)."""
    target = anyio.Path(path)
    for _ in range(int(limit * 10)):
        if await target.exists():
            return
        await anyio.sleep(0.1)
    raise AssertionError(f"{path} did not appear within {limit} s")


async def test_cancellation_mid_tool_leaves_no_process(
    claude: Path,
    fake_provider_server: FakeProviderServer,
    real_cli_marker: str,
    slow_shell: tuple[Path, Path],
) -> None:
    wrapper, started = slow_shell
    url = scenario_url(fake_provider_server, "tool")
    async with model_for(claude, url, real_cli_marker, env={"SHELL": str(wrapper)}) as model:
        async with aclosing(model.stream(prompt="run the tool", timeout=CALL_DEADLINE)) as stream:
            async for chunk in stream:
                if chunk.type == "tool_use":
                    break
            await _wait_for(started, CALL_DEADLINE)
            assert processes_with_marker(real_cli_marker), "the tool shell should be running"
        # leaving the stream cancels the run and reaps the whole tree
        assert processes_with_marker(real_cli_marker) == []


async def test_deadline_mid_tool_leaves_no_process(
    claude: Path,
    fake_provider_server: FakeProviderServer,
    real_cli_marker: str,
    slow_shell: tuple[Path, Path],
) -> None:
    wrapper, started = slow_shell
    deadline = 20.0
    url = scenario_url(fake_provider_server, "tool")
    begun = time.monotonic()
    async with model_for(claude, url, real_cli_marker, env={"SHELL": str(wrapper)}) as model:
        with pytest.raises(RequestDeadlineExceeded):
            await collect_with_deadline(model, deadline)
    assert time.monotonic() - begun < deadline + 5
    assert started.exists(), "the deadline should have struck while the tool ran"
    assert processes_with_marker(real_cli_marker) == []


async def collect_with_deadline(model: iModel, deadline: float) -> None:
    async with aclosing(model.stream(prompt="run the tool", timeout=deadline)) as stream:
        async for _chunk in stream:
            pass


@pytest.mark.skipif(os.geteuid() != 0, reason="the root refusal only happens as root")
async def test_yolo_as_root_is_refused_as_permission_error(
    claude: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    url = scenario_url(fake_provider_server, "text")
    async with model_for(claude, url, real_cli_marker, yolo=True) as model:
        with pytest.raises(ProviderPermissionError) as info:
            await collect(model, prompt="hi")
    assert "root" in str(info.value)


async def test_yolo_in_a_declared_sandbox_runs_the_tool(
    claude: Path, fake_provider_server: FakeProviderServer, real_cli_marker: str
) -> None:
    url = scenario_url(fake_provider_server, "tool")
    async with model_for(claude, url, real_cli_marker, yolo=True, env={"IS_SANDBOX": "1"}) as model:
        chunks = await collect(model, prompt="run the tool")
    init = next(c for c in chunks if c.type == "system")
    assert init.metadata["permission_mode"] == "bypassPermissions"
    assert any(c.type == "tool_result" and c.tool_output == "fake-tool-ran" for c in chunks)


# The CLI's per-uid directory and its socket directories (``cc-socks-<uid>`` is 2.1.332's
# fallback in /tmp when the socket path under its temp dir would be too long for AF_UNIX).
_CLI_TEMP_ROOTS = re.compile(r"^(claude-\d+|cc-socks(-\d+)?)$")


def cli_temp_roots(folder: Path) -> set[str]:
    """Names of the CLI's temp roots directly in ``folder`` (none when it does not exist)."""
    if not folder.is_dir():
        return set()
    return {entry.name for entry in folder.iterdir() if _CLI_TEMP_ROOTS.match(entry.name)}


@pytest.mark.parametrize("case", ["bash", "subagent"])
async def test_cli_temp_files_stay_in_the_isolated_home(
    case: str,
    claude: Path,
    fake_provider_server: FakeProviderServer,
    real_cli_marker: str,
    tmp_path: Path,
) -> None:
    # A deployment TMPDIR for the agent's tools: without CLAUDE_CODE_TMPDIR pinned into the
    # home, the CLI followed it and left claude-<uid>/<project>/<session>/ and cc-socks/ there.
    system_tmp = Path(tempfile.gettempdir())
    per_uid = f"claude-{os.getuid()}"
    roots_before = cli_temp_roots(system_tmp)
    tools_tmp = tmp_path / "tools-tmp"
    tools_tmp.mkdir()
    work = tmp_path / f"work-{uuid.uuid4().hex[:12]}"
    work.mkdir()
    if case == "bash":
        url, request = scenario_url(fake_provider_server, "thinking+tool"), {}
    else:
        url, request = scenario_url(fake_provider_server, "tool"), {"disallowed_tools": ["Bash"]}
    env = {"TMPDIR": str(tools_tmp)}
    async with model_for(claude, url, real_cli_marker, env=env, cwd=work) as model:
        chunks = await collect(model, prompt="run the tool", **request)
        home = model.endpoint.isolated_home
        assert home is not None
        kept = home / "tmp" / per_uid
        projects = set()
        if kept.is_dir():
            projects = {p.name for p in kept.iterdir() if not p.name.startswith("fswatch-probe-")}
    assert any(c.type == "tool_result" for c in chunks)
    assert not home.exists()
    assert cli_temp_roots(tools_tmp) == set(), "the CLI's temp files left the isolated home"
    assert cli_temp_roots(system_tmp) - roots_before == set()
    # the run did write its task directory, into the home (so the check below is not vacuous)
    assert projects, f"no project directory under {kept}"
    assert not [name for name in projects if (system_tmp / per_uid / name).exists()]
