"""Contain every descendant of one CLI run, including those that left its process group.

Agentic CLIs start their tool shells with ``setsid()``: a new session and process group, so
signalling the CLI's group misses them and they are reparented to PID 1 when the CLI dies.
On Linux with a writable cgroup v2 hierarchy, each run gets its own cgroup: membership is
inherited by every fork whatever its session, and ``cgroup.kill`` SIGKILLs the whole tree
atomically. Nothing about the calling process changes (its cgroup, signal dispositions and
reaping stay as they were); only the child is moved.

The child must be inside the cgroup before it can fork. ``subprocess`` offers no hook between
fork and exec short of ``preexec_fn`` (unsafe with threads), so the child is started as
``/bin/sh -c 'read _ <&3; ...; exec "$@"'``: it blocks on a pipe until the parent has written
its pid to ``cgroup.procs``, then closes the pipe and execs the CLI under the same pid (so
process-group signalling and the return code are unchanged).

Where no cgroup can be created (not Linux, cgroup v1 only, or not delegated to this user),
:func:`open_call_tree` returns None and teardown falls back to the process group, which cannot
reach a descendant that called ``setsid()``: the documented limit of that fallback.
"""

from __future__ import annotations

import errno
import itertools
import logging
import os
import sys

import anyio

__all__ = ["GATE_FD_SCRIPT", "CallTree", "cgroup_root", "open_call_tree"]

logger = logging.getLogger("lionagi.service.subprocess")

# The gate: wait for the parent's go-ahead on fd 3, close it, become the CLI.
GATE_FD_SCRIPT = 'read _ <&3; exec 3<&-; exec "$@"'
GATE_SHELL = "/bin/sh"

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


def _probe() -> str | None:
    if not sys.platform.startswith("linux") or not os.path.exists(GATE_SHELL):
        return None
    base = _own_cgroup_dir()
    if base is None or not os.path.exists(os.path.join(base, "cgroup.kill")):
        return None  # cgroup.kill (Linux 5.14) is what makes the kill atomic
    probe = os.path.join(base, f"lionagi-probe-{os.getpid()}")
    try:
        os.mkdir(probe)
        os.rmdir(probe)
    except OSError as exc:
        logger.debug("no per-call cgroups under %s (%s): process-group teardown only", base, exc)
        return None
    return base


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
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        """SIGKILL every member atomically, including ones forking right now."""
        with open(os.path.join(self.path, "cgroup.kill"), "w", encoding="ascii") as handle:
            handle.write("1")

    async def remove(self, timeout: float) -> None:
        """Wait (up to ``timeout``) for the cgroup to empty, then delete it.

        Killed members leave asynchronously; a cgroup that stays populated is logged and left
        in place rather than reported as removed.
        """
        with anyio.move_on_after(timeout):
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

