"""SIGTERM from the first line of the command line to its last (exit 143, ``terminated``).

docs/cli.md promises that SIGTERM (``timeout``, systemd, Kubernetes) ends every command as
Ctrl-C does, with exit code 143, the ``terminated`` line and, for ``demo`` / ``chat --json``, the
``interrupted`` record. Only ``run_chat`` watched for it, from inside its event loop; before that
(the first half second: importing the command line and ``iModel``, parsing, reading stdin) and
in every other command, SIGTERM's default action ended the interpreter with no line, no record and
no teardown. Three stages now cover the whole process:

- **Outside an event loop** SIGTERM raises :class:`Terminated` where Ctrl-C raises
  ``KeyboardInterrupt`` (it is a subclass, so every handler that ends a command cleanly on Ctrl-C
  does so on SIGTERM too, reading the exit code from ``signum``). The console script's wrapper
  (``_lionagi_service_cli``) installs its copy of the handler before it imports anything of
  ``lionagi``; :func:`raise_on_sigterm` installs this module's one for every other way in
  (``python -m lionagi.service.cli``, a direct ``main()`` call).
- **While ``run_chat`` runs** a raised exception would land at an arbitrary point of the event
  loop, outside the cancel scopes (the reason docs/decisions.md gives for watching the signal
  rather than raising). :class:`SigtermHold` only records the signal; a watcher task in the loop
  is woken through ``signal.set_wakeup_fd`` and cancels the run, so its teardown (an agentic CLI's
  process group killed, its isolated home removed) runs before the process exits.
- **A second SIGTERM** after the first one was taken ends the process at once: every handler
  here puts SIGTERM back to its default before it acts on the first.

A SIGTERM that was ignored or handled by the parent process when the command started is left as
it was: a handler is installed only over the default disposition (or over one of the handlers
here, which recognise each other by :data:`MARK`). Signals reach the main thread only, and
Windows has no SIGTERM an interpreter can catch: there nothing is installed.
"""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType
from typing import Any

__all__ = [
    "MARK",
    "SigtermHold",
    "Terminated",
    "give_back_sigterm",
    "interrupt_exit_code",
    "interrupt_word",
    "raise_on_sigterm",
    "takes_sigterm",
]

MARK = "lionagi_service_sigterm"
"""Attribute (True) of the command line's SIGTERM handlers, the wrapper's included.

The wrapper cannot import this module (nothing of ``lionagi`` is imported before its own
handler exists), so the handlers are recognised by this attribute rather than by class.
"""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises ``KeyboardInterrupt``; exit code ``128 + signum``."""

    signum: int = signal.SIGTERM


def interrupt_exit_code(exc: BaseException) -> int:
    """130 for Ctrl-C, 143 for SIGTERM: 128 + the signal number, as a shell reports it.

    The interrupt is recognised by its ``signum`` attribute, not its class, so the wrapper's own
    copy of :class:`Terminated` (raised before this module could be imported) counts as well.
    """
    signum = getattr(exc, "signum", signal.SIGINT)
    return 128 + int(signum)


def interrupt_word(exit_code: int) -> str:
    """The stderr line of a run a signal ended: ``terminated`` (143) or ``interrupted``."""
    return "terminated" if exit_code == 128 + signal.SIGTERM else "interrupted"


class _RaiseTerminated:
    """SIGTERM handler outside an event loop: back to the default, then raise ``Terminated``."""

    lionagi_service_sigterm = True

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends us at once
        raise Terminated


def _can_handle() -> bool:
    return os.name == "posix" and threading.current_thread() is threading.main_thread()


def takes_sigterm(handler: Any) -> bool:
    """True for a disposition the command line may replace: the default, or its own handler."""
    return handler is signal.SIG_DFL or getattr(handler, MARK, False) is True


def raise_on_sigterm() -> Any:
    """Make SIGTERM raise :class:`Terminated`; return what to give back, None if unchanged.

    Only over the default disposition: under the console script the wrapper's handler is
    already there, and an ignored SIGTERM or an embedding program's handler is kept.
    """
    if not _can_handle() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return None
    handler = _RaiseTerminated()
    signal.signal(signal.SIGTERM, handler)
    return handler


def give_back_sigterm(installed: Any) -> None:
    """Put SIGTERM back to its default if ``installed`` (from ``raise_on_sigterm``) is still set."""
    if installed is not None and signal.getsignal(signal.SIGTERM) is installed:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


class SigtermHold:
    """SIGTERM while ``run_chat`` runs: recorded, never raised; the event loop is woken.

    Installed before the event loop starts and kept until the run's outcome is written, so there
    is no moment, as there was while an ``anyio`` signal receiver was being opened or closed, at
    which SIGTERM had its default action. The wake-up is ``signal.set_wakeup_fd`` (see
    ``_chat._watch_sigterm``), which also covers a signal the kernel delivered to another thread
    while the loop slept: the handler itself runs only in the main thread, once it runs Python.
    """

    lionagi_service_sigterm = True

    def __init__(self) -> None:
        self.arrived = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends us at once
        self.arrived = True

    @classmethod
    def install(cls) -> SigtermHold | None:
        """Take SIGTERM for a run; None when it is not ours to take (nothing is changed then).

        It is ours over the default disposition or one of the command line's handlers, in the
        main thread on POSIX; an ignored SIGTERM or an embedding program's handler is kept.
        """
        if not _can_handle() or not takes_sigterm(signal.getsignal(signal.SIGTERM)):
            return None
        hold = cls()
        signal.signal(signal.SIGTERM, hold)
        return hold

    def release(self) -> None:
        """End the hold: SIGTERM has its default action again (the run is over).

        Not the handler found: a raising handler put back here would report a SIGTERM that
        arrives after the run's outcome was written as a second outcome (two final ``--json``
        records). From here the process only exits, and the default action ends it as well.
        """
        if signal.getsignal(signal.SIGTERM) is self:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
