"""Leftover checks: after a case (or a whole soak) nothing it started may remain.

The observations, all from this process's point of view (Linux ``/proc``; elsewhere the process
and descriptor checks are skipped):

- tasks: every asyncio task that did not exist before the case has finished;
- processes: this process has no new descendant at any depth (a reaped child disappears from
  ``/proc``; an unreaped zombie still counts), and every pid registered with
  :meth:`LeakCheck.track` (``setsid`` grandchildren reparented away, which are not ours to reap)
  is gone or a zombie; nor is any process left that inherited this process's environment
  during the case (:data:`CASE_TAG_ENV`), which finds a helper the adapter's own code started
  and detached (``setsid`` and a double fork leave no parent link to follow);
- threads: every thread started since the baseline has ended, except the idle workers of the
  bounded thread pools (anyio's and asyncio's), which are reused, not leaked;
- descriptors: the number of open file descriptors is back to the baseline;
- watched models (:meth:`LeakCheck.watch`): admission has nothing queued or active, and the
  endpoint's HTTP pool holds no connection that is still busy with a request.

:func:`resource_counts` is the same observation as plain numbers, for figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

__all__ = [
    "CASE_TAG_ENV",
    "LeakCheck",
    "ResourceCounts",
    "alive",
    "child_pids",
    "descendant_pids",
    "environ_tagged_pids",
    "model_leaks",
    "open_fd_count",
    "pool_connections",
    "proc_available",
    "resource_counts",
    "tagged_pids",
    "thread_idents",
]

# Idle workers of bounded, reused pools: anyio's to_thread pool and asyncio's default executor.
_POOL_THREAD_PREFIXES = ("AnyIO worker thread", "asyncio_", "ThreadPoolExecutor-")

_PROC = Path("/proc")

CASE_TAG_ENV = "LIONAGI_CONFORMANCE_CASE"
"""Set in this process's environment for the duration of a case (:meth:`LeakCheck.start`):
every process started from here inherits it, wherever it is reparented to."""


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


def descendant_pids(root: int | None = None) -> dict[int, str]:
    """``{pid: state}`` of every descendant of ``root`` (default: this process), at any depth.

    One pass over ``/proc`` builds the parent map, then the tree is walked from ``root``; a
    grandchild whose parent already exited is reparented (to PID 1 or a subreaper) and is found
    by :func:`tagged_pids` or :meth:`LeakCheck.track` instead.
    """
    top = os.getpid() if root is None else root
    if not proc_available():
        return {}
    kids: dict[int, list[tuple[int, str]]] = {}
    for entry in os.listdir(_PROC):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat is not None:
                kids.setdefault(stat[1], []).append((int(entry), stat[0]))
    found: dict[int, str] = {}
    todo = [top]
    while todo:
        for pid, state in kids.get(todo.pop(), ()):
            if pid not in found:
                found[pid] = state
                todo.append(pid)
    return found


def thread_idents() -> set[int]:
    """Live threads of this process, other than idle pool workers (see module docstring)."""
    return {
        t.ident
        for t in threading.enumerate()
        if t.ident is not None and not t.name.startswith(_POOL_THREAD_PREFIXES)
    }


def pool_connections(endpoint: Any) -> tuple[int, int]:
    """``(open, busy)`` connections in an HTTP endpoint's pool; ``(0, 0)`` without one.

    Reads httpx's transport pool (httpcore) of the client the endpoint built, if it built one:
    a connection that is neither idle nor closed still carries a request or an unread body.

    Core's ``Endpoint`` keeps its client name-mangled (``_Endpoint__client``) so that an
    adapter's own ``self._client`` cannot replace it; that is the attribute read first. Reading
    only ``_client`` found no pool on any core endpoint, so a stream whose response was never
    closed (the connection still busy when the case ended) passed unseen.
    """
    client = _endpoint_client(endpoint)
    pool = getattr(getattr(client, "_transport", None), "_pool", None)
    connections = list(getattr(pool, "connections", ()) or ())
    busy = 0
    for connection in connections:
        idle = getattr(connection, "is_idle", None)
        closed = getattr(connection, "is_closed", None)
        if callable(idle) and callable(closed) and not (idle() or closed()):
            busy += 1
    return len(connections), busy


def _endpoint_client(endpoint: Any) -> Any:
    """The HTTP client ``endpoint`` built: core's mangled attribute, else an own ``_client``."""
    try:
        state = vars(endpoint)
    except TypeError:  # a slotted object has no __dict__; its own _client is still readable
        state = {}
    client = state.get("_Endpoint__client")
    return client if client is not None else getattr(endpoint, "_client", None)


def model_leaks(models: Iterable[Any]) -> list[str]:
    """What the models still hold: queued/active admission, busy pool connections."""
    found: list[str] = []
    for model in models:
        snap = model.admission_snapshot()
        if snap.queued or snap.active or getattr(snap, "producers_waiting", 0):
            found.append(
                f"{model!r}: admission not back to zero (queued={snap.queued}, "
                f"active={snap.active}, producers_waiting={getattr(snap, 'producers_waiting', 0)})"
            )
        _open, busy = pool_connections(model.endpoint)
        if busy:
            found.append(f"{model!r}: {busy} HTTP pool connection(s) still busy")
    return found


@dataclass(frozen=True, slots=True)
class ResourceCounts:
    """One observation as numbers (for figures and before/after comparisons)."""

    fds: int
    descendants: int
    threads: int
    tasks: int

    def exceeds(self, baseline: ResourceCounts) -> list[str]:
        """The counts that grew since ``baseline``, as ``name: before -> now``."""
        return [
            f"{name}: {getattr(baseline, name)} -> {getattr(self, name)}"
            for name in ("fds", "descendants", "threads", "tasks")
            if getattr(self, name) > getattr(baseline, name)
        ]


def resource_counts() -> ResourceCounts:
    """Open descriptors, live descendants, non-pool threads and unfinished asyncio tasks."""
    try:
        tasks = sum(1 for t in asyncio.all_tasks() if not t.done())
    except RuntimeError:  # no running loop
        tasks = 0
    live = sum(1 for state in descendant_pids().values() if state != "Z")
    return ResourceCounts(open_fd_count(), live, len(thread_idents()), tasks)


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


def environ_tagged_pids(name: str, value: str) -> dict[int, str]:
    """``{pid: command}`` of live processes but this one whose environment has ``name=value``.

    ``/proc/<pid>/environ`` is the environment the process started with, so this finds what
    inherited it however it was detached. Processes of other users are unreadable and skipped.
    """
    found: dict[int, str] = {}
    if not proc_available():
        return found
    needle = f"{name}={value}".encode()
    for entry in os.listdir(_PROC):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = (_PROC / entry / "environ").read_bytes().split(b"\0")
            if needle not in environ or not alive(int(entry)):
                continue
            argv = (_PROC / entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        found[int(entry)] = b" ".join(argv).decode("utf-8", "replace").strip()
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
        self.models: list[Any] = []
        self._tasks: set[asyncio.Task[object]] = set()
        self._fds = 0
        self._children: dict[int, str] = {}
        self._threads: set[int] = set()
        self._tag = ""

    def start(self) -> None:
        """Record the baseline (call from a coroutine running on the case's event loop).

        Also sets :data:`CASE_TAG_ENV` to a value of this case's own in this process's
        environment, until :meth:`verify`.
        """
        self._tasks = set(asyncio.all_tasks())
        self._fds = open_fd_count()
        self._children = descendant_pids()
        self._threads = thread_idents()
        self._tag = f"{os.getpid()}-{time.monotonic_ns()}"
        os.environ[CASE_TAG_ENV] = self._tag

    def track(self, *pids: int) -> None:
        """Also require these pids (grandchildren) to be gone at :meth:`verify`."""
        self.tracked.update(pids)

    def watch(self, *models: Any) -> None:
        """Also require these ``iModel`` s' admission and HTTP pool to be idle at :meth:`verify`.

        Call :meth:`verify` before closing them when the pool matters: a closed client has
        no pool left to inspect (admission counters stay readable after close).
        """
        self.models.extend(models)

    def new_threads(self) -> set[int]:
        """Threads started since the baseline that are still running (pool workers aside)."""
        return thread_idents() - self._threads

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
        if os.environ.get(CASE_TAG_ENV) == self._tag:
            del os.environ[CASE_TAG_ENV]  # processes started from here on are not the case's
        with anyio.move_on_after(self.settle):
            while self.new_tasks():  # noqa: ASYNC110 - tasks offer no completion event to await
                await anyio.sleep(0.005)
        tasks = self.new_tasks()
        assert not tasks, f"tasks left running after the case: {tasks!r}"
        children = {pid: s for pid, s in descendant_pids().items() if pid not in self._children}
        assert not children, (
            f"descendant processes left behind (pid: state): {children}; the process group was "
            "not terminated and reaped before the stream returned"
        )
        held = model_leaks(self.models)
        assert not held, "; ".join(held)
        deadline = time.monotonic() + self.settle
        while any(alive(pid) for pid in self.tracked) and time.monotonic() < deadline:  # noqa: ASYNC110
            await anyio.sleep(0.01)  # polling /proc: a grandchild's death has no event to await
        survivors = sorted(pid for pid in self.tracked if alive(pid))
        assert not survivors, f"grandchildren survived the process group: {survivors}"
        await self._no_detached_processes()
        deadline = time.monotonic() + self.settle
        while self.new_threads() and time.monotonic() < deadline:  # noqa: ASYNC110
            await anyio.sleep(0.01)  # a thread's end has no event to await from the loop
        threads = self.new_threads()
        assert not threads, f"threads left running: {_thread_names(threads)}"
        fds = open_fd_count()
        assert fds <= self._fds, f"file descriptors leaked: {fds} open, {self._fds} before"

    async def _no_detached_processes(self) -> None:
        """No process that inherited the case's environment tag is still running.

        Found ones are killed after they are named, so one failing case does not leave
        processes behind for the rest of the run.
        """
        if not self._tag:
            return
        deadline = time.monotonic() + self.settle
        while environ_tagged_pids(CASE_TAG_ENV, self._tag) and time.monotonic() < deadline:  # noqa: ASYNC110
            await anyio.sleep(0.01)  # polling /proc: an unrelated process's end has no event
        left = environ_tagged_pids(CASE_TAG_ENV, self._tag)
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        assert not left, (
            f"processes started during the case are still running (pid: command): {left}; a "
            "helper the adapter started (and detached) was never stopped"
        )


def _thread_names(idents: set[int]) -> list[str]:
    return sorted(t.name for t in threading.enumerate() if t.ident in idents)
