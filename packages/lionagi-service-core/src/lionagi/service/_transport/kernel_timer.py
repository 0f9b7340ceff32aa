"""A one-shot timer kept by the kernel, for a limit that stays pending while the loop spins.

An agentic run's limit is usually minutes away and almost never fires, yet an asyncio timer
(``loop.call_at``) is paid for on every event-loop iteration while it is pending: the loop
computes a select timeout from the heap's head before each poll and checks the head again
after it (about 90 bytecodes an iteration; a paced CLI event takes three iterations, ≈ 6 k
machine instructions, a twentieth of a bare reader's whole cost per event, issue 15). On Linux
a ``timerfd`` registered with ``loop.add_reader`` costs the loop nothing until it fires: the
kernel makes the descriptor readable when the time is up and the loop's poll wakes for it like
for any pipe.

``os.timerfd_create`` exists from Python 3.13; on 3.11 and 3.12 the same two libc calls go
through :mod:`ctypes`. Anywhere else (another OS, a loop without ``add_reader``, a kernel
refusing a descriptor) :func:`call_later` returns the loop's own ``call_later`` handle: the
behaviour is the same, only the per-iteration cost differs. The delay is relative to the loop's
clock at arming, so a loop whose ``time()`` has another origin (uvloop) is still right.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import asyncio

__all__ = ["Cancellable", "call_later"]

logger = logging.getLogger("lionagi.service.subprocess")


class Cancellable(Protocol):
    """What :func:`call_later` returns: ``cancel()`` stops a timer that has not fired yet."""

    def cancel(self) -> None:
        """Disarm; idempotent, and harmless once the timer fired."""


_MakeTimer = Callable[[float], int]


def _from_os(flags: int) -> _MakeTimer | None:
    """Python 3.13+'s own timerfd functions, when this build has them."""
    create = getattr(os, "timerfd_create", None)
    settime = getattr(os, "timerfd_settime", None)
    if create is None or settime is None:
        return None

    def make(delay: float) -> int:
        fd: int = create(time.CLOCK_MONOTONIC, flags=flags)
        try:
            settime(fd, initial=delay)
        except BaseException:
            os.close(fd)
            raise
        return fd

    return make


def _from_libc(flags: int) -> _MakeTimer | None:
    """The same two calls through libc (Linux, Python 3.11 and 3.12)."""
    try:
        import ctypes
    except ImportError:  # a build without _ctypes
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        create = libc.timerfd_create
        settime = libc.timerfd_settime
    except (OSError, AttributeError):
        return None

    class _Timespec(ctypes.Structure):
        _fields_ = (("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long))

    class _Itimerspec(ctypes.Structure):
        _fields_ = (("it_interval", _Timespec), ("it_value", _Timespec))

    create.argtypes = (ctypes.c_int, ctypes.c_int)
    create.restype = ctypes.c_int
    settime.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
    settime.restype = ctypes.c_int

    def make(delay: float) -> int:
        fd: int = create(time.CLOCK_MONOTONIC, flags)
        if fd < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        seconds = int(delay)
        # A zero it_value disarms a timerfd: the smallest delay is one nanosecond.
        nanoseconds = max(int((delay - seconds) * 1e9), 0 if seconds else 1)
        spec = _Itimerspec(_Timespec(0, 0), _Timespec(seconds, nanoseconds))
        if settime(fd, 0, ctypes.byref(spec), None) < 0:
            err = ctypes.get_errno()
            os.close(fd)
            raise OSError(err, os.strerror(err))
        return fd

    return make


@functools.cache
def _maker() -> _MakeTimer | None:
    """The timerfd factory, looked up once per process (ctypes is imported only here)."""
    if not sys.platform.startswith("linux"):
        return None
    # Linux defines TFD_NONBLOCK and TFD_CLOEXEC as O_NONBLOCK and O_CLOEXEC (whose values
    # differ between architectures); the clock is time.monotonic()'s, the loop's.
    flags = os.O_NONBLOCK | os.O_CLOEXEC
    return _from_os(flags) or _from_libc(flags)


class _FdTimer:
    """A timerfd watched by the loop: fires ``callback`` once, or is cancelled first."""

    __slots__ = ("_callback", "_fd", "_loop")

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int, callback: Callable[[], object]):
        self._loop = loop
        self._fd = fd
        self._callback = callback
        loop.add_reader(fd, self._fire)

    def _release(self) -> bool:
        fd = self._fd
        if fd < 0:
            return False
        self._fd = -1
        self._loop.remove_reader(fd)
        os.close(fd)
        return True

    def _fire(self) -> None:
        if self._release():
            self._callback()

    def cancel(self) -> None:
        self._release()


def call_later(
    loop: asyncio.AbstractEventLoop, delay: float, callback: Callable[[], object]
) -> Cancellable:
    """Call ``callback()`` on ``loop`` after ``delay`` seconds, at no cost per loop iteration.

    A timerfd where the platform has one (see the module text); the loop's ``call_later``
    otherwise, and for a delay already over (a timerfd cannot be armed for "now").
    """
    make = _maker() if delay > 0 else None
    if make is not None:
        try:
            fd = make(delay)
        except OSError as exc:  # out of descriptors, or a sandbox refusing timerfd
            logger.debug("no kernel timer (%s); using the event loop's", exc)
        else:
            try:
                return _FdTimer(loop, fd, callback)
            except (NotImplementedError, RuntimeError):  # a loop without add_reader
                os.close(fd)
    return loop.call_later(delay, callback)
