"""No descendant outlives the call, even one that left the process group with ``setsid()``.

Each test starts ``spawn_tree --setsid --ignore-term``: the CLI's children are tool shells in a
new session that ignore SIGTERM and have a sleeping child of their own, so process-group
teardown cannot reach them. Every descendant carries a unique tag in its argv; after each of
the five endings (deadline, cancellation, ``aclose()``, normal EOF, error exit) /proc is
scanned for any process still carrying the tag. Survivors found are killed by the test itself
so a failure here does not leak into the rest of the suite.

The deadline rule (a deadline-ended call escalates to SIGKILL within
``DEADLINE_TERMINATE_GRACE``) is checked here too, with generous bounds.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from lionagi.service import ProviderProcessError
from lionagi.service._transport.subprocess import json_events_from_process
from lionagi.service._transport.subprocess import process as process_module
from lionagi.service._transport.subprocess import tree as tree_module
from lionagi.service_testing.fake_clis import fake_cli_argv

from .conftest import alive

HANG_GUARD = 30.0
FAST_GRACE = 0.3

needs_cgroup = pytest.mark.skipif(
    tree_module.cgroup_root() is None,
    reason="per-call cgroups unavailable here: process-group teardown only (documented limit)",
)


def tagged(tag: str) -> list[int]:
    """Pids of live (non-zombie) processes whose argv contains ``tag``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if tag.encode() in cmdline.split(b"\0") and alive(int(entry)):
            found.append(int(entry))
    return found


def survivors(tag: str) -> list[int]:
    """Tagged processes still alive after a short settling bound (SIGKILL is asynchronous)."""
    deadline = time.monotonic() + 2.0
    while (left := tagged(tag)) and time.monotonic() < deadline:
        time.sleep(0.01)
    return left


@pytest.fixture
def tag() -> Iterator[str]:
    value = f"lionagi-test-{uuid.uuid4().hex}"
    yield value
    for pid in tagged(value):  # only reached when the code under test leaked them
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def tree_argv(tag: str, then: str) -> list[str]:
    return fake_cli_argv(
        "spawn_tree", "--children", "2", "--setsid", "--ignore-term", "--tag", tag, "--then", then
    )


async def first_event(events: Any) -> dict[str, Any]:
    event: dict[str, Any] = await events.__anext__()
    return event


@needs_cgroup
async def test_deadline_reaches_setsid_descendants(tag: str) -> None:
    seen: list[dict[str, Any]] = []
    with pytest.raises(TimeoutError), anyio.fail_after(1.0):
        async for event in json_events_from_process(tree_argv(tag, "stall")):
            seen.append(event)
    assert len(seen[0]["pids"]) == 4  # two shells, each with a sleeping child
    assert survivors(tag) == []


@needs_cgroup
async def test_cancellation_reaches_setsid_descendants(tag: str) -> None:
    with anyio.CancelScope() as scope:
        events = json_events_from_process(tree_argv(tag, "stall"), terminate_grace=FAST_GRACE)
        async with events:
            await first_event(events)
            assert len(tagged(tag)) == 5  # the CLI (its --tag argument) and 4 descendants
            scope.cancel()
            await anyio.sleep(HANG_GUARD)
    assert scope.cancelled_caught
    assert survivors(tag) == []


@needs_cgroup
async def test_aclose_reaches_setsid_descendants(tag: str) -> None:
    events = json_events_from_process(tree_argv(tag, "stall"), terminate_grace=FAST_GRACE)
    with anyio.fail_after(HANG_GUARD):
        await first_event(events)
        await events.aclose()
    assert survivors(tag) == []


@needs_cgroup
async def test_normal_eof_reaches_setsid_descendants(tag: str) -> None:
    with anyio.fail_after(HANG_GUARD):
        seen = [e async for e in json_events_from_process(tree_argv(tag, "exit"))]
    assert seen[0]["type"] == "spawned"
    assert survivors(tag) == []


@needs_cgroup
async def test_error_exit_reaches_setsid_descendants(tag: str) -> None:
    with pytest.raises(ProviderProcessError), anyio.fail_after(HANG_GUARD):
        async for _ in json_events_from_process(tree_argv(tag, "fail")):
            pass
    assert survivors(tag) == []


@needs_cgroup
async def test_no_cgroup_is_left_behind(tag: str) -> None:
    root = tree_module.cgroup_root()
    assert root is not None
    # Only this process's call groups: other test runs on the machine create their own.
    mine = f"lionagi-{os.getpid()}-"

    def ours() -> set[str]:
        return {name for name in os.listdir(root) if name.startswith(mine)}

    before = ours()
    with anyio.fail_after(HANG_GUARD):
        _ = [e async for e in json_events_from_process(tree_argv(tag, "exit"))]
    assert ours() == before


async def test_without_cgroups_the_process_group_is_still_torn_down(
    tag: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fallback (no writable cgroup v2): grandchildren in the group still die."""
    monkeypatch.setattr(tree_module, "_root", None)
    argv = fake_cli_argv("spawn_tree", "--children", "2", "--tag", tag, "--then", "exit")
    with anyio.fail_after(HANG_GUARD):
        seen = [e async for e in json_events_from_process(argv)]
    assert len(seen[0]["pids"]) == 2
    assert survivors(tag) == []


# -- the deadline rule (#9.7) ---------------------------------------------------------------------


async def test_deadline_escalates_to_sigkill_quickly_despite_the_grace() -> None:
    """A 1 s deadline on a CLI ignoring SIGTERM ends at ~1.5 s, not 1 s + the 5 s grace."""
    started = time.monotonic()
    with pytest.raises(TimeoutError), anyio.fail_after(1.0):
        async for _ in json_events_from_process(
            fake_cli_argv("stall", "--ignore-term"), terminate_grace=5.0
        ):
            pass
    elapsed = time.monotonic() - started
    assert elapsed < 1.0 + 1.0 + 0.5, f"the call took {elapsed:.2f} s"  # generous


async def test_cancellation_before_the_deadline_keeps_the_full_grace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    grants: list[float] = []
    original = process_module.terminate_process_group

    async def spy(*args: Any, grace: float, **kw: Any) -> None:
        grants.append(grace)
        await original(*args, grace=grace, **kw)

    monkeypatch.setattr(process_module, "terminate_process_group", spy)
    with anyio.fail_after(HANG_GUARD):  # a deadline exists but is far away
        with anyio.move_on_after(0.3):
            async for _ in json_events_from_process(fake_cli_argv("stall"), terminate_grace=4.0):
                pass
        events = json_events_from_process(fake_cli_argv("stall"), terminate_grace=4.0)
        await first_event(events)
        await events.aclose()
    # move_on_after(0.3) is itself a deadline that expired: the short grace applies there.
    assert grants == [process_module.DEADLINE_TERMINATE_GRACE, 4.0]


async def test_explicit_cancel_keeps_the_full_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    grants: list[float] = []
    original = process_module.terminate_process_group

    async def spy(*args: Any, grace: float, **kw: Any) -> None:
        grants.append(grace)
        await original(*args, grace=grace, **kw)

    monkeypatch.setattr(process_module, "terminate_process_group", spy)
    with anyio.fail_after(HANG_GUARD), anyio.CancelScope() as scope:
        async with json_events_from_process(fake_cli_argv("stall"), terminate_grace=4.0) as ev:
            await first_event(ev)
            scope.cancel()
            await anyio.sleep(HANG_GUARD)
    assert grants == [4.0]


@needs_cgroup
async def test_a_failed_move_falls_back_to_the_group_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = tree_module.cgroup_root()
    monkeypatch.setattr(tree_module, "_root", root)  # restored after the test

    def refuse(self: tree_module.CallTree, pid: int) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tree_module.CallTree, "adopt", refuse)
    with anyio.fail_after(HANG_GUARD):
        for _ in range(2):
            assert [e async for e in json_events_from_process(fake_cli_argv("emit"))]
    assert caplog.text.count("could not move process") == 1
    assert tree_module.cgroup_root() is None


@pytest.mark.parametrize("env", [{}, {"PWD": "/somewhere/else"}])
async def test_the_gate_leaves_the_environment_exact(env: dict[str, str]) -> None:
    argv = fake_cli_argv("echo", "--show", "PWD")
    with anyio.fail_after(HANG_GUARD):
        [event] = [e async for e in json_events_from_process(argv, env=env)]
    assert event["env_keys"] == sorted({"PATH", *env})
    assert event["env"] == {"PWD": env.get("PWD")}
    assert event["pgid"] == event["pid"] == event["sid"]  # exec kept the gate's pid


async def test_binary_removed_after_lookup_is_still_not_found(tmp_path: Path) -> None:
    """Behind the gate the shell's exec fails, not ours: the error must stay the same."""
    from lionagi.service import ProviderExecutableNotFound

    tool = tmp_path / "vanishing-cli"
    tool.write_text("#!/bin/sh\necho '{}'\n")
    tool.chmod(0o755)
    events = json_events_from_process([str(tool)])  # resolved (and cached) here
    tool.unlink()
    with pytest.raises(ProviderExecutableNotFound), anyio.fail_after(HANG_GUARD):
        async for _ in events:
            pass


def test_the_grace_never_reaches_past_the_deadline_by_more_than_the_short_grace() -> None:
    """#16: whatever starts the teardown, SIGKILL lands within the short grace of the deadline."""
    bounded = process_module._bounded_grace
    short = process_module.DEADLINE_TERMINATE_GRACE
    assert bounded(5.0, 100.0, 10.0) == 5.0  # far from the deadline: the full grace
    assert bounded(5.0, 10.4, 10.0) == pytest.approx(0.4 + short)  # cancel just before it
    assert bounded(5.0, 10.0, 10.0) == short  # the deadline itself
    assert bounded(5.0, 10.0, 12.0) == short  # a late teardown (a finalizer) still gets it
    assert bounded(0.2, 10.0, 10.0) == 0.2  # a shorter configured grace is kept
    assert bounded(5.0, float("inf"), 10.0) == 5.0  # no deadline


@needs_cgroup
async def test_moving_the_child_into_its_cgroup_does_not_block_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """#16: the cgroup.procs write waits on a kernel lock (~12 ms, more under load) per spawn;
    it runs in a worker thread, never on the loop's thread."""
    import threading

    threads: list[int] = []
    original = tree_module.CallTree.adopt

    def adopt(self: tree_module.CallTree, pid: int) -> None:
        threads.append(threading.get_ident())
        original(self, pid)

    monkeypatch.setattr(tree_module.CallTree, "adopt", adopt)
    with anyio.fail_after(HANG_GUARD):
        seen = [e async for e in json_events_from_process(fake_cli_argv("emit", "--events", "1"))]
    assert seen
    assert threads and threading.get_ident() not in threads
