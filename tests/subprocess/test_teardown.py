"""Teardown on every exit path: EOF, error, deadline, cancellation, consumer close, GC.

The ``clean`` fixture proves after each test that no child, grandchild or descriptor is left.
Troubleshooting: a survivor in ``clean`` means the process group was not signalled on that
path; a test that takes ~5 s means ``terminate_grace`` was not passed through.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from lionagi.service import ProviderAuthError, ProviderProcessError
from lionagi.service._transport.subprocess import json_events_from_process
from lionagi.service._transport.subprocess import process as process_module
from lionagi.service_testing.fake_clis import fake_cli_argv

from .conftest import Clean, alive, children_of

HANG_GUARD = 30.0
FAST_GRACE = 0.3


def record_signals(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, bool]]:
    """Record (signal, child still alive) for each teardown signal step."""
    sent: list[tuple[int, bool]] = []
    original = process_module._send

    def spy(transport: Any, pid: int, sig: int, *, child_alive: bool, **kw: Any) -> None:
        sent.append((sig, child_alive))
        original(transport, pid, sig, child_alive=child_alive, **kw)

    monkeypatch.setattr(process_module, "_send", spy)
    return sent


async def drain_into(seen: list[dict[str, Any]], argv: list[str], **kw: Any) -> None:
    async for event in json_events_from_process(argv, **kw):
        seen.append(event)


async def test_deadline_while_stalled_tears_down() -> None:
    seen: list[dict[str, Any]] = []
    started = time.monotonic()
    with pytest.raises(TimeoutError), anyio.fail_after(0.5):
        await drain_into(seen, fake_cli_argv("stall"))
    assert seen == [{"type": "event", "seq": 0}]
    assert time.monotonic() - started < HANG_GUARD


async def test_cancel_scope_while_stalled_tears_down(monkeypatch: pytest.MonkeyPatch) -> None:
    sent = record_signals(monkeypatch)
    with anyio.move_on_after(0.5) as scope:
        async for _ in json_events_from_process(fake_cli_argv("stall", "--partial")):
            pass
    assert scope.cancelled_caught
    # SIGTERM was enough: the child was gone before the SIGKILL step.
    assert sent == [(signal.SIGTERM, True), (signal.SIGKILL, False)]


async def test_sigterm_ignored_escalates_to_sigkill(monkeypatch: pytest.MonkeyPatch) -> None:
    sent = record_signals(monkeypatch)
    started = time.monotonic()
    with anyio.move_on_after(0.5):
        async for _ in json_events_from_process(
            fake_cli_argv("stall", "--ignore-term"), terminate_grace=FAST_GRACE
        ):
            pass
    assert sent == [(signal.SIGTERM, True), (signal.SIGKILL, True)]
    assert time.monotonic() - started < HANG_GUARD


async def test_consumer_aclose_mid_stream() -> None:
    events = json_events_from_process(fake_cli_argv("stall", "--events", "3"))
    with anyio.fail_after(HANG_GUARD):
        assert await events.__anext__() == {"type": "event", "seq": 0}
        await events.aclose()
    assert children_of(os.getpid()) == []
    await events.aclose()  # idempotent


async def test_leaving_async_with_early_tears_down() -> None:
    with anyio.fail_after(HANG_GUARD):
        async with json_events_from_process(fake_cli_argv("stall", "--events", "2")) as events:
            async for event in events:
                if event["seq"] == 1:
                    break
    assert children_of(os.getpid()) == []


async def test_break_then_aclose_on_ignored_sigterm_is_bounded() -> None:
    argv = fake_cli_argv("stall", "--ignore-term")
    with anyio.fail_after(HANG_GUARD):
        async with json_events_from_process(argv, terminate_grace=FAST_GRACE) as events:
            async for _ in events:
                break
    assert children_of(os.getpid()) == []


async def test_abandoned_iterator_is_finalized_by_the_loop() -> None:
    events = json_events_from_process(fake_cli_argv("stall"))
    await events.__anext__()
    del events
    gc.collect()
    with anyio.fail_after(HANG_GUARD):
        while children_of(os.getpid()):  # noqa: ASYNC110  # polling /proc: no event to wait on
            await anyio.sleep(0.01)


def read_pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()]


@pytest.mark.parametrize("ignore_term", [False, True])
async def test_grandchildren_die_with_the_group_on_close(
    tmp_path: Path, clean: Clean, ignore_term: bool
) -> None:
    pidfile = tmp_path / "pids"
    args = ["--children", "3", "--pidfile", str(pidfile), "--then", "stall"]
    if ignore_term:
        args.append("--ignore-term")
    events = json_events_from_process(
        fake_cli_argv("spawn_tree", *args), terminate_grace=FAST_GRACE
    )
    with anyio.fail_after(HANG_GUARD):
        spawned = await events.__anext__()
        clean.track(*spawned["pids"])
        assert spawned["pids"] == read_pids(pidfile)
        assert all(alive(pid) for pid in spawned["pids"])
        await events.aclose()


async def test_orphans_left_by_a_successful_cli_are_killed(tmp_path: Path, clean: Clean) -> None:
    argv = fake_cli_argv("spawn_tree", "--children", "2", "--then", "exit")
    with anyio.fail_after(HANG_GUARD):
        events = [e async for e in json_events_from_process(argv)]
    clean.track(*events[0]["pids"])


async def test_orphans_left_by_a_failing_cli_are_killed(clean: Clean) -> None:
    argv = fake_cli_argv("spawn_tree", "--children", "2", "--then", "fail")
    seen: list[dict[str, Any]] = []
    with pytest.raises(ProviderProcessError), anyio.fail_after(HANG_GUARD):
        await drain_into(seen, argv)
    clean.track(*seen[0]["pids"])


async def test_grandchild_holding_stdout_ends_at_the_deadline(clean: Clean) -> None:
    """Documented limit: stdout EOF needs every writer gone, so the caller's deadline ends it."""
    argv = fake_cli_argv("spawn_tree", "--children", "1", "--then", "exit", "--hold", "stdout")
    seen: list[dict[str, Any]] = []
    with anyio.move_on_after(1.0) as scope:
        async for event in json_events_from_process(argv):
            seen.append(event)
    assert scope.cancelled_caught
    clean.track(*seen[0]["pids"])


def boom(pgid: int, sig: int) -> None:
    raise RuntimeError("kill step failed")


async def test_cleanup_failure_does_not_mask_provider_error(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(process_module, "_signal_group", boom)
    argv = fake_cli_argv("fail", "--stderr", "Error: invalid api key")
    with (
        caplog.at_level(logging.WARNING, logger="lionagi.service.subprocess"),
        pytest.raises(ProviderAuthError),
        anyio.fail_after(HANG_GUARD),
    ):
        await drain_into([], argv)
    assert "kill step failed" in caplog.text


async def test_cleanup_failure_does_not_mask_cancellation(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(process_module, "_signal_group", boom)
    with caplog.at_level(logging.WARNING, logger="lionagi.service.subprocess"):
        with anyio.move_on_after(0.5) as scope:
            async for _ in json_events_from_process(fake_cli_argv("stall")):
                pass
    assert scope.cancelled_caught  # cancellation still ended the scope: nothing replaced it
    assert "kill step failed" in caplog.text


async def test_cleanup_failure_without_primary_error_is_visible(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(process_module, "_signal_group", boom)
    with pytest.raises(RuntimeError, match="kill step failed"), anyio.fail_after(HANG_GUARD):
        async for _ in json_events_from_process(fake_cli_argv("emit")):
            pass


async def test_cleanup_failure_on_consumer_close_is_visible(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(process_module, "_signal_group", boom)
    events = json_events_from_process(fake_cli_argv("stall"))
    with anyio.fail_after(HANG_GUARD):
        await events.__anext__()
        with pytest.raises(RuntimeError, match="kill step failed"):
            await events.aclose()


async def fail_in_body() -> None:
    async with json_events_from_process(fake_cli_argv("stall")) as events:
        async for _ in events:
            raise LookupError("consumer failed")


async def test_exception_in_the_loop_body_tears_down_before_leaving_the_block() -> None:
    with pytest.raises(LookupError), anyio.fail_after(HANG_GUARD):
        await fail_in_body()
    assert children_of(os.getpid()) == []


async def test_deadline_in_the_loop_body_tears_down_before_leaving_the_block() -> None:
    with anyio.move_on_after(0.3) as scope:
        async with json_events_from_process(fake_cli_argv("stall")) as events:
            async for _ in events:
                await anyio.sleep(HANG_GUARD)  # the consumer, not the stream, is waiting
    assert scope.cancelled_caught
    assert children_of(os.getpid()) == []


async def test_cleanup_failure_does_not_mask_the_block_exception(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(process_module, "_signal_group", boom)
    with (
        caplog.at_level(logging.WARNING, logger="lionagi.service.subprocess"),
        pytest.raises(LookupError),
        anyio.fail_after(HANG_GUARD),
    ):
        await fail_in_body()
    assert "kill step failed" in caplog.text


async def test_grandchild_holding_stderr_only_delays_a_failure_by_the_drain_timeout(
    clean: Clean,
) -> None:
    argv = fake_cli_argv("spawn_tree", "--children", "1", "--then", "fail", "--hold", "stderr")
    seen: list[dict[str, Any]] = []
    with pytest.raises(ProviderProcessError) as info, anyio.fail_after(HANG_GUARD):
        await drain_into(seen, argv, drain_timeout=0.2)
    clean.track(*seen[0]["pids"])
    assert info.value.returncode == 1
    assert "grandchildren:" in info.value.stderr_tail  # what arrived before the wait ended
