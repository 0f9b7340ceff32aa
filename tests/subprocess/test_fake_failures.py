"""The fake CLIs fail the way real ones do (REAL_CLIS.md), so adapters are tested on those paths.

Provider errors on stdout with exit 1 (claude, codex), 145 (gemini: HTTP 401 mod 256) or 0 (pi
in json mode); retry notices printed while stalled (codex without network); tool shells in a
new session; a CLI that reads stdin to EOF.
"""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
import pytest

from lionagi.service import ProviderProcessError
from lionagi.service._transport.subprocess import json_events_from_process
from lionagi.service_testing.fake_clis import fake_cli_argv

from .conftest import Clean

HANG_GUARD = 30.0
ERROR = {"type": "error", "message": "401 invalid api key"}


async def collect(argv: list[str], **kw: Any) -> list[dict[str, Any]]:
    return [event async for event in json_events_from_process(argv, **kw)]


@pytest.mark.parametrize("code", [1, 145])
async def test_provider_error_on_stdout_with_nonzero_exit(code: int) -> None:
    argv = fake_cli_argv("fail", "--stdout", json.dumps(ERROR), "--stderr", "", "--code", str(code))
    seen: list[dict[str, Any]] = []
    with pytest.raises(ProviderProcessError) as info, anyio.fail_after(HANG_GUARD):
        async for event in json_events_from_process(argv):
            seen.append(event)
    assert seen == [{"type": "event", "seq": 0}, ERROR]  # the error event came first
    assert info.value.returncode == code
    assert info.value.stderr_tail == ""


async def test_provider_error_on_stdout_with_exit_zero() -> None:
    """pi: the stream ends normally; only the adapter's grammar knows the last event failed."""
    argv = fake_cli_argv("fail", "--stdout", json.dumps(ERROR), "--stderr", "", "--code", "0")
    with anyio.fail_after(HANG_GUARD):
        assert await collect(argv) == [{"type": "event", "seq": 0}, ERROR]


async def test_retry_notices_while_stalled_end_at_the_deadline() -> None:
    argv = fake_cli_argv("stall", "--retry-notices", "3", "--retry-every", "0.02")
    seen: list[dict[str, Any]] = []
    with anyio.move_on_after(1.5) as scope:
        async for event in json_events_from_process(argv):
            seen.append(event)
    assert scope.cancelled_caught  # notices are not progress: only the deadline ends it
    assert [e.get("message") for e in seen[1:]] == [f"Reconnecting... {n}/3" for n in (1, 2, 3)]


async def test_tool_shells_run_in_a_new_session(clean: Clean) -> None:
    argv = fake_cli_argv("spawn_tree", "--children", "1", "--setsid", "--then", "stall")
    events = json_events_from_process(argv, terminate_grace=0.3)
    with anyio.fail_after(HANG_GUARD):
        spawned = await events.__anext__()
        shell, sleeper = spawned["pids"]
        clean.track(shell, sleeper)
        cli_session = os.getsid(events_pid(shell))
        assert os.getsid(shell) == shell  # the shell leads its own session
        assert os.getsid(sleeper) == shell and cli_session != shell
        await events.aclose()


def events_pid(shell: int) -> int:
    """The CLI is the shell's parent."""
    with open(f"/proc/{shell}/stat", encoding="ascii") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[1])


async def test_cli_reading_stdin_gets_eof_from_devnull() -> None:
    with anyio.fail_after(HANG_GUARD):
        events = json_events_from_process(fake_cli_argv("stall", "--read-stdin", "--events", "0"))
        assert await events.__anext__() == {"type": "stdin", "bytes": 0}
        await events.aclose()


async def test_cli_reading_stdin_gets_the_bytes() -> None:
    argv = fake_cli_argv("stall", "--read-stdin", "--events", "0")
    with anyio.fail_after(HANG_GUARD):
        events = json_events_from_process(argv, stdin=b"hello")
        assert await events.__anext__() == {"type": "stdin", "bytes": 5}
        await events.aclose()
