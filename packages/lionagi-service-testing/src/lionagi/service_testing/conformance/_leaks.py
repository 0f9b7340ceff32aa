"""Leftover checks: after a conformance case nothing it started may remain.

Three observations, all from this process's point of view (Linux ``/proc``; elsewhere the process
and descriptor checks are skipped):

- tasks: every asyncio task that did not exist before the case has finished;
- processes: this process has no child (a reaped child disappears from ``/proc``; an unreaped
  zombie still counts), and every pid registered with :meth:`LeakCheck.track` (grandchildren,
  which are not ours to reap) is gone or a zombie;
- descriptors: the number of open file descriptors is back to the baseline.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import anyio

__all__ = [
    "LeakCheck",
    "alive",
    "child_pids",
    "open_fd_count",
    "proc_available",
    "tagged_pids",
]

_PROC = Path("/proc")


def proc_available() -> bool:
    """True when ``/proc`` describes processes (Linux)."""
    return (_PROC / "self" / "stat").exists()


def child_pids(ppid: int | None = None) -> dict[int, str]:
    """``{pid: state}`` of every process whose parent is ``ppid`` (default: this process)."""
    parent = os.getpid() if ppid is None else ppid
    found: dict[int, str] = {}
    if not proc_available():
        return found
    for entry in os.listdir(_PROC):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat is not None and stat[1] == parent:
                found[int(entry)] = stat[0]
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def tagged_pids(tag: str) -> list[int]:
    """Live (non-zombie) processes, other than this one, with ``tag`` as an argv element.

    Finds descendants whatever their parent, group or session: a ``setsid()`` grandchild
    reparented to PID 1 still carries the tag its ancestor gave it.
    """
    found: list[int] = []
    if not proc_available():
        return found
    needle = tag.encode()
    for entry in os.listdir(_PROC):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            argv = (_PROC / entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if needle in argv and alive(int(entry)):
            found.append(int(entry))
    return found


def open_fd_count() -> int:
    """Open file descriptors of this process (0 when it cannot be observed)."""
    try:
        return len(os.listdir(_PROC / "self" / "fd"))
    except OSError:
        return 0


def _stat(pid: int) -> tuple[str, int] | None:
    try:
        raw = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = raw.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])


def _runner_task(task: asyncio.Task[object]) -> bool:
    name = getattr(task.get_coro(), "__qualname__", "")
    return name.startswith("TestRunner.")


class LeakCheck:
    """Baseline taken inside the event loop before a case; :meth:`verify` after it.

    Args:
        settle: Seconds to wait for tasks and grandchildren to finish before failing. Children
            of this process and descriptors are checked without waiting: teardown must have
            reaped and closed them before the stream returned.
    """

    def __init__(self, *, settle: float = 2.0) -> None:
        self.settle = settle
        self.tracked: set[int] = set()
        self._tasks: set[asyncio.Task[object]] = set()
        self._fds = 0
        self._children: dict[int, str] = {}

    def start(self) -> None:
        """Record the baseline (call from a coroutine running on the case's event loop)."""
        self._tasks = set(asyncio.all_tasks())
        self._fds = open_fd_count()
        self._children = child_pids()

    def track(self, *pids: int) -> None:
        """Also require these pids (grandchildren) to be gone at :meth:`verify`."""
        self.tracked.update(pids)

    def new_tasks(self) -> list[asyncio.Task[object]]:
        """Tasks started since the baseline that have not finished.

        The caller's task and the pytest runner's own tasks (anyio runs fixture teardown in a
        fresh runner task) are not the case's.
        """
        this = asyncio.current_task()
        return [
            t
            for t in asyncio.all_tasks()
            if t not in self._tasks and t is not this and not t.done() and not _runner_task(t)
        ]

    async def verify(self) -> None:
        """Fail with an AssertionError naming whatever the case left behind."""
        with anyio.move_on_after(self.settle):
            while self.new_tasks():  # noqa: ASYNC110 - tasks offer no completion event to await
                await anyio.sleep(0.005)
        tasks = self.new_tasks()
        assert not tasks, f"tasks left running after the case: {tasks!r}"
        children = {pid: s for pid, s in child_pids().items() if pid not in self._children}
        assert not children, (
            f"child processes left behind (pid: state): {children}; the process group was not "
            "terminated and reaped before the stream returned"
        )
        deadline = time.monotonic() + self.settle
        while any(alive(pid) for pid in self.tracked) and time.monotonic() < deadline:  # noqa: ASYNC110
            await anyio.sleep(0.01)  # polling /proc: a grandchild's death has no event to await
        survivors = sorted(pid for pid in self.tracked if alive(pid))
        assert not survivors, f"grandchildren survived the process group: {survivors}"
        fds = open_fd_count()
        assert fds <= self._fds, f"file descriptors leaked: {fds} open, {self._fds} before"
