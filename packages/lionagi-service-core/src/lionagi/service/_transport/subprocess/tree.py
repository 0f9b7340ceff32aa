"""Contain every descendant of one CLI run, including those that left its process group.

Agentic CLIs start their tool shells with ``setsid()``: a new session and process group, so
signalling the CLI's group misses them and they are reparented to PID 1 when the CLI dies.
On Linux with a writable cgroup v2 hierarchy, each run gets its own cgroup: membership is
inherited by every fork whatever its session, and ``cgroup.kill`` SIGKILLs the whole tree
atomically. Nothing about the calling process changes (its cgroup, signal dispositions and
reaping stay as they were); only the child is moved.

The child must be inside the cgroup before it can fork. ``subprocess`` offers no hook between
fork and exec short of ``preexec_fn`` (unsafe with threads), so the child is started as
``/bin/sh -c 'kill -STOP $$; exec "$@"'``: it stops itself (``kill`` is a shell builtin, so
nothing has been forked), the parent writes its pid to ``cgroup.procs``, waits until it is
seen stopped and sends SIGCONT; the shell then execs the CLI under the same pid, so
process-group signalling, descriptors and the return code are unchanged. (A pipe gate would
need the shell to read a descriptor number above 9, which dash cannot express.) If this
process dies in between, the kernel sends SIGHUP and SIGCONT to the orphaned, stopped group.

Where no cgroup can be created (not Linux, cgroup v1 only, or not delegated to this user),
:func:`open_call_tree` returns None and teardown falls back to the process group, which cannot
reach a descendant that called ``setsid()``: the documented limit of that fallback.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import signal
import sys
from collections.abc import Mapping, Sequence

import anyio

__all__ = [
    "GATE_SHELL",
    "CallTree",
    "cgroup_root",
    "contains_setsid_descendants",
    "gate_argv",
    "open_call_tree",
    "stop_using_cgroups",
]

logger = logging.getLogger("lionagi.service.subprocess")

# The gate: stop until the parent has moved us into the cgroup, then become the CLI. The shell
# exports PWD on start; the child's environment must stay exactly the one the spec built.
GATE_SHELL = "/bin/sh"
_GATE = 'kill -STOP $$; exec "$@"'


def gate_argv(name: str, executable: str, args: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """Argv running ``executable`` with ``args`` behind the gate, with ``env`` kept exact."""
    if "PWD" in env:
        return [GATE_SHELL, "-c", f"PWD=$1; shift; {_GATE}", name, env["PWD"], executable, *args]
    return [GATE_SHELL, "-c", f"unset PWD; {_GATE}", name, executable, *args]


_UNPROBED = object()
_root: object | str | None = _UNPROBED
_counter = itertools.count()


def _own_cgroup_dir() -> str | None:
    """Directory of this process's cgroup v2 node, or None when there is none to use."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        with open("/proc/self/mountinfo", encoding="utf-8") as handle:
            mounts = handle.read().splitlines()
    except OSError:
        return None
    relative = next((line[3:] for line in lines if line.startswith("0::")), None)
    if relative is None:
        return None
    for mount in mounts:
        left, sep, right = mount.partition(" - ")
        if sep and right.split(" ", 1)[0] == "cgroup2":
            fields = left.split(" ")
            root, point = fields[3], fields[4]
            # The mount exposes the hierarchy from ``root`` down; our path is below it.
            if relative == root or relative.startswith(root.rstrip("/") + "/"):
                tail = relative[len(root.rstrip("/")) :].lstrip("/")
                return os.path.join(point, tail) if tail else point
    return None


def cgroup_root() -> str | None:
    """Where per-call cgroups are created (probed once per process), or None.

    A probe cgroup is created and removed: write access alone does not prove the kernel lets
    this user create and populate children there.
    """
    global _root
    if _root is _UNPROBED:
        _root = _probe()
    return _root if isinstance(_root, str) else None


def contains_setsid_descendants() -> bool:
    """True when each CLI run gets its own cgroup, so teardown reaches `setsid()` descendants.

    False means process-group teardown only (not Linux, cgroup v1, or no delegated cgroup v2
    subtree): a descendant that left the group survives, the documented limit. Conformance
    kits use this to skip, with that reason, the case that needs containment.
    """
    return cgroup_root() is not None


def _probe() -> str | None:
    if not sys.platform.startswith("linux") or not os.path.exists(GATE_SHELL):
        return None
    base = _own_cgroup_dir()
    if base is None:
        return None
    probe = os.path.join(base, f"lionagi-probe-{os.getpid()}")
    try:
        os.mkdir(probe)
    except OSError as exc:
        logger.debug("no per-call cgroups under %s (%s): process-group teardown only", base, exc)
        return None
    try:
        # cgroup.kill (Linux 5.14) is what makes the kill atomic; a root cgroup has none of
        # its own, so the probe child is where to look.
        usable = os.path.exists(os.path.join(probe, "cgroup.kill"))
    finally:
        os.rmdir(probe)
    return base if usable else None


class CallTree:
    """The cgroup of one CLI run: adopt the child, signal or kill everything, remove it."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        """Wrap an existing, empty cgroup directory (use :func:`open_call_tree`)."""
        self.path = path

    def adopt(self, pid: int) -> None:
        """Move ``pid`` (still gated, so it has no children yet) into this cgroup."""
        with open(os.path.join(self.path, "cgroup.procs"), "w", encoding="ascii") as handle:
            handle.write(str(pid))

    async def release(self, pid: int, bound: float) -> None:
        """Let the gated child go on: wait until it has stopped itself, then SIGCONT it.

        A SIGCONT sent before the stop would be lost and leave the child stopped for good,
        hence the wait. A child that exits or vanishes instead needs no release.
        """
        with anyio.move_on_after(bound):
            # Polling /proc: the kernel offers no event for "stopped" short of waitpid, which
            # belongs to the event loop's child watcher.
            while _state(pid) not in ("T", "t", "Z", None):  # noqa: ASYNC110
                await anyio.sleep(0.0002)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)

    def pids(self) -> list[int]:
        """Members now (zombies are not members)."""
        try:
            with open(os.path.join(self.path, "cgroup.procs"), encoding="ascii") as handle:
                return [int(line) for line in handle.read().split()]
        except FileNotFoundError:
            return []

    def signal(self, sig: int) -> None:
        """Send ``sig`` to every member (SIGTERM for the graceful step)."""
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    def kill(self) -> None:
        """SIGKILL every member atomically, including ones forking right now."""
        with open(os.path.join(self.path, "cgroup.kill"), "w", encoding="ascii") as handle:
            handle.write("1")

    async def remove(self, bound: float) -> None:
        """Wait (up to ``bound`` seconds) for the cgroup to empty, then delete it.

        Killed members leave asynchronously; a cgroup that stays populated is logged and left
        in place rather than reported as removed.
        """
        with anyio.move_on_after(bound):
            while True:
                try:
                    os.rmdir(self.path)
                    return
                except FileNotFoundError:
                    return
                except OSError as exc:
                    if exc.errno != errno.EBUSY:
                        raise
                await anyio.sleep(0.002)
        logger.error("cgroup %s still has members %s after teardown", self.path, self.pids())


def stop_using_cgroups() -> None:
    """Fall back to process-group teardown for the rest of this process's life.

    Called when moving a child into its cgroup failed although creating one worked (e.g. a
    cgroup delegated without write access to ``cgroup.procs``): every later call would fail the
    same way, so the caller logs it once instead of on every spawn.
    """
    global _root
    _root = None


def _state(pid: int) -> str | None:
    """The one-letter scheduler state of ``pid`` from /proc, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split(None, 1)[0]
    except (OSError, IndexError):
        return None


def open_call_tree(label: str) -> CallTree | None:
    """Create the cgroup for one run, or None where per-call cgroups are unavailable."""
    root = cgroup_root()
    if root is None:
        return None
    name = f"lionagi-{os.getpid()}-{next(_counter)}"
    path = os.path.join(root, name)
    try:
        os.mkdir(path)
    except OSError as exc:
        logger.warning(
            "%s: could not create cgroup %s (%s); descendants that leave the process group "
            "will not be reached",
            label,
            path,
            exc,
        )
        return None
    return CallTree(path)
