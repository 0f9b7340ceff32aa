"""Leak checks for subprocess tests: after every test, nothing this test started may remain.

``clean`` (autouse) snapshots this process's open file descriptors inside the test's event loop
and, after the test, requires (1) the same descriptor count, (2) no child process of this
process (reaped children disappear from /proc; unreaped zombies still count), and (3) every pid
a test registered with ``clean.track`` (grandchildren) gone or a zombie. Grandchildren are not
ours to reap, and SIGKILL takes effect asynchronously, so (3) polls under a generous bound.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest


def children_of(ppid: int) -> list[tuple[int, str]]:
    """(pid, state) of every process whose parent is ``ppid``."""
    found: list[tuple[int, str]] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        stat = proc_stat(int(entry))
        if stat is not None and stat[1] == ppid:
            found.append((int(entry), stat[0]))
    return found


def proc_stat(pid: int) -> tuple[str, int] | None:
    """(state, ppid) of ``pid`` or None when it no longer exists."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    stat = proc_stat(pid)
    return stat is not None and stat[0] != "Z"


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


class Clean:
    def __init__(self) -> None:
        self.tracked: set[int] = set()

    def track(self, *pids: int) -> None:
        self.tracked.update(pids)

    def assert_clean(self, fds_before: set[str]) -> None:
        assert children_of(os.getpid()) == [], "a child process was left behind"
        deadline = time.monotonic() + 10.0
        while any(alive(pid) for pid in self.tracked) and time.monotonic() < deadline:
            time.sleep(0.01)
        survivors = [pid for pid in self.tracked if alive(pid)]
        assert survivors == [], f"grandchildren survived the process group: {survivors}"
        after = open_fds()
        assert len(after) == len(fds_before), (
            f"file descriptors leaked: {sorted(after - fds_before)}"
        )


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
async def clean(anyio_backend: str) -> AsyncIterator[Clean]:
    checker = Clean()
    before = open_fds()
    yield checker
    checker.assert_clean(before)
