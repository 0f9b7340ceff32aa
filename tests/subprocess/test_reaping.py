"""The child's real exit status reaches the caller: nothing reaps it behind the child watcher.

asyncio's child watcher (a thread blocked in ``waitpid(pid)`` per child on Python 3.11) reaps
each CLI and reports its exit status. Teardown used to close the subprocess transport right
after SIGKILL; ``close()`` polls the ``Popen`` with ``waitpid(WNOHANG)`` while the child may
already be dead and not yet reaped, so it sometimes reaped the child first. The watcher then
logged "Unknown child process pid ..., will report returncode 255" and the run's status was 255
instead of -SIGKILL (a few dozen times in a 10,000-call soak). Teardown now waits for the
watcher's report before it closes the transport.
"""

from __future__ import annotations

import asyncio.base_subprocess
import logging
import signal

import anyio
import pytest

from lionagi.service._transport.subprocess import json_events_from_process
from lionagi.service_testing.fake_clis import fake_cli_argv

HANG_GUARD = 30.0


def _watch_closes(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """Record each subprocess transport's reported return code at the moment it is closed."""
    seen: list[int | None] = []
    original = asyncio.base_subprocess.BaseSubprocessTransport.close

    def close(self: asyncio.base_subprocess.BaseSubprocessTransport) -> None:
        if not self.is_closing():
            seen.append(self.get_returncode())
        original(self)

    monkeypatch.setattr(asyncio.base_subprocess.BaseSubprocessTransport, "close", close)
    return seen


async def _killed_run() -> None:
    """One run whose CLI ignores SIGTERM, ended by ``aclose()`` with no grace: SIGKILL."""
    events = json_events_from_process(fake_cli_argv("stall", "--ignore-term"), terminate_grace=0.0)
    async for _ in events:
        break
    await events.aclose()


async def test_the_transport_is_closed_only_after_the_exit_is_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    closes = _watch_closes(monkeypatch)
    with anyio.fail_after(HANG_GUARD):
        await _killed_run()
    assert closes == [-signal.SIGKILL], "closed before the child watcher reported the exit"


async def test_killed_runs_never_lose_their_exit_status(caplog: pytest.LogCaptureFixture) -> None:
    """Many SIGKILL teardowns side by side: no child is reaped behind the watcher's back."""
    with caplog.at_level(logging.WARNING, logger="asyncio"), anyio.fail_after(HANG_GUARD * 2):
        for _ in range(10):
            async with anyio.create_task_group() as tg:
                for _ in range(4):
                    tg.start_soon(_killed_run)
    unknown = [r.getMessage() for r in caplog.records if "Unknown child process" in r.getMessage()]
    assert unknown == []
