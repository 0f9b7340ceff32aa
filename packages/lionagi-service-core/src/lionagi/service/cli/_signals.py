"""SIGTERM from the first line of the command line to its last (exit 143, ``terminated``).

docs/cli.md promises that SIGTERM (``timeout``, systemd, Kubernetes) ends every command as
Ctrl-C does, with exit code 143, the ``terminated`` line and, for ``demo`` / ``chat --json``, the
``interrupted`` record. Only ``run_chat`` watched for it, from inside its event loop; before that
(the first half second: importing the command line and ``iModel``, parsing, reading stdin) and
in every other command, SIGTERM's default action ended the interpreter with no line, no record and
no teardown. These stages now cover the whole process:

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
  process group killed, its isolated home removed) runs before the process exits. Only while
  the prompt is read from stdin (:meth:`SigtermHold.interruptible`) does it raise: a recorded
  signal cannot end a read that waits on a pipe.
- **Once the outcome is written** (the process is the command line: the console script or
  ``python -m``) SIGTERM stays held until the process has exited with the outcome's code:
  :func:`hold_until_exit`. With SIGTERM back at its default there, one arriving while the process
  tore down (the interpreter's exit takes tens of milliseconds) ended it as "killed by signal 15"
  although the outcome, exit code 0 or 2 included, was already decided and written.
  ``providers``, ``models`` and ``doctor`` put the holds in just before they write their
  outcome (:func:`written_held`), as ``run_chat`` does: put in only once the command had
  returned, a signal between its last write and there still ended it ``interrupted``.
- **A second SIGTERM** after the first one was taken ends the process at once: every handler
  here puts SIGTERM back to its default before it acts on the first.
- **Ctrl-C (SIGINT) once the outcome is written** is held the same way (:class:`SigintHold`):
  before, Python's handler raised ``KeyboardInterrupt`` wherever the process was on its way out,
  so a Ctrl-C after a written answer printed ``interrupted`` and exit 130 (a second final
  ``--json`` record), a traceback and "killed by signal 2", or ended the teardown by SIGINT's
  default action. The first Ctrl-C from then on is taken and changes nothing; a second one has
  SIGINT's default action (the process ends at once, a shell reports 130). Before the outcome
  Ctrl-C is untouched: it raises ``KeyboardInterrupt`` and cancels the run (130,
  ``interrupted``). Only Python's own handler is replaced: an ignored SIGINT (a background job
  of a non-interactive shell) or an embedding program's handler is kept.

A SIGTERM that was ignored or handled by the parent process when the command started is left as
it was: a handler is installed only over the default disposition (or over one of the handlers
here, which recognise each other by :data:`MARK`). Signals reach the main thread only, and
Windows has no SIGTERM an interpreter can catch: there nothing is installed (nor for SIGINT,
whose Ctrl-C there is a console event rather than a POSIX signal with a default action).
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar

__all__ = [
    "MARK",
    "OutcomeWriter",
    "SigintHold",
    "SigtermHold",
    "Terminated",
    "give_back_sigterm",
    "hold_until_exit",
    "interrupt_exit_code",
    "interrupt_word",
    "raise_on_sigterm",
    "takes_sigterm",
    "written_as_is",
    "written_held",
]

_T = TypeVar("_T")

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

    ``arrived`` says a SIGTERM came while the run was held (its outcome reports it); one that
    comes after :meth:`release` kept the hold (``keep=True``) is ``late``: the outcome is already
    written, and only the process's exit is left.
    """

    lionagi_service_sigterm = True

    def __init__(self) -> None:
        self.arrived = False
        self.late = False
        self.released = False
        self._raising = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends us at once
        if self.released:
            self.late = True
        elif self._raising:
            raise Terminated
        else:
            self.arrived = True

    def interruptible(self, read: Callable[[], _T]) -> _T | None:
        """``read()`` (a blocking read of stdin) with SIGTERM raising ``Terminated`` inside it.

        A recorded SIGTERM cannot end a read that waits on a pipe nobody writes to: the
        interpreter retries the read once the handler has run. Raised, it ends it, as it did
        before the hold was installed. None, without calling ``read``, when a SIGTERM has
        already arrived (the run is over before it began).
        """
        self._raising = True
        try:
            if self.arrived:  # checked after the switch: none can slip between the two
                return None
            return read()
        finally:
            self._raising = False

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

    def release(self, *, keep: bool = False) -> None:
        """End the run's hold: SIGTERM is the default again, or (``keep``) held until exit.

        Not the handler found: a raising handler put back here would report a SIGTERM that
        arrives after the run's outcome was written as a second outcome (two final ``--json``
        records). Called from Python (``main(argv)``), the default goes back, as it was found.
        ``keep`` is for the process that is the command line: the hold stays, so a SIGTERM from
        here on changes nothing the run reports and the exit code stays the outcome's
        (:func:`hold_until_exit` carries it through the interpreter's exit).
        """
        if not self._installed():
            return  # a SIGTERM was taken (the default is back), or the handler is not ours
        if keep:
            self.released = True
        else:
            # Before `released` is set: a SIGTERM still pending runs as this call starts, and
            # counts as having arrived during the run.
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            self.released = True

    def _installed(self) -> bool:
        return signal.getsignal(signal.SIGTERM) is self


class SigintHold:
    """Ctrl-C (SIGINT) from the moment the outcome is written until the process exits: taken.

    Python's own handler raises ``KeyboardInterrupt`` wherever the main thread is, and once the
    outcome is written there is nothing left for it to cancel: raised in the command line's way
    out it printed ``interrupted`` and returned 130 (a second final ``--json`` record), raised
    after that it escaped as a traceback and "killed by signal 2". This handler takes the first
    one instead, and puts SIGINT back to its default before anything else, so a second Ctrl-C
    ends the process at once (a shell reports 130), as a second SIGTERM does.

    ``run_chat`` installs it just before it writes the outcome (:meth:`install`): a Ctrl-C while
    the outcome is written is ``arrived`` (a completed answer has no final record yet, so it is
    reported, 130, as it would have been a moment earlier; an error's record stands), one after
    :meth:`release` is ``late`` (the outcome stands). :func:`hold_until_exit` keeps it, or puts
    one in place for the other commands, until the process has exited. ``providers``,
    ``models`` and ``doctor`` install it (with SIGTERM's hold) through :func:`written_held`.
    """

    def __init__(self) -> None:
        self.arrived = False
        self.late = False
        self.released = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a second Ctrl-C ends us at once
        if self.released:
            self.late = True
        else:
            self.arrived = True

    @classmethod
    def install(cls) -> SigintHold | None:
        """Take SIGINT from Python's own handler; None when it is not ours to take.

        Only ``signal.default_int_handler`` is replaced, in the main thread on POSIX: an
        ignored SIGINT (inherited: Python keeps it ignored) or an embedding program's handler
        stays. A Ctrl-C still pending runs Python's handler first: ``KeyboardInterrupt`` is
        raised from here, before anything is changed (the outcome is not written yet).
        """
        if not _can_handle() or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            return None
        hold = cls()
        signal.signal(signal.SIGINT, hold)
        return hold

    def release(self) -> None:
        """The outcome is written: a Ctrl-C from here on is ``late`` and changes nothing."""
        self.released = True


OutcomeWriter = Callable[[Callable[[], int]], int]
"""How ``providers`` / ``models`` / ``doctor`` write their outcome: ``writer(write)``.

``write`` writes the whole outcome (the report, or the error lines) and returns its exit code;
the writer runs it and returns the code: :func:`written_held` for the process that is the
command line, :func:`written_as_is` called from Python.
"""


def written_as_is(write: Callable[[], int]) -> int:
    """``write()``: the outcome of a command called from Python, no signal touched."""
    return write()


def written_held(write: Callable[[], int]) -> int:
    """``write()`` with SIGTERM and Ctrl-C held, and held from then until the process exits.

    ``providers``, ``models`` and ``doctor`` run no event loop: while they work (import
    providers, probe programs) SIGTERM raises :class:`Terminated` and Ctrl-C
    ``KeyboardInterrupt``, and they end ``terminated`` / ``interrupted`` (143 / 130), as they
    always did. The holds used to go in only in ``_main``'s ``finally``, once the command had
    returned: a signal in the bytecodes from its last write to there still raised into
    ``_run``'s handler, and a command whose whole output was written (its 0, 1, 2 or 5 decided)
    said ``interrupted`` and exited 130 / 143. Now they go in just before the outcome is
    written, as ``run_chat`` installs them before ``_render_outcome``, and are released (kept:
    :func:`hold_until_exit` finds them) as soon as it is: a signal from then on is ``late`` and
    changes nothing, and no bytecode is left in which one is raised.

    One that arrives while the outcome is written is handled as ``run_chat`` handles it: after
    a success (0) it is still the outcome and is raised here, once the output is complete
    rather than by cutting it (``_run`` reports it: ``interrupted`` 130, ``terminated`` 143);
    after a failure the lines written are the outcome and the code stands, as a ``chat``
    error's record does. A second signal of the same kind ends the process at once (each hold
    puts its signal back to the default first), so a write stalled on a reader that never reads
    is still ended by it. A signal pending as a hold goes in runs the handler found first, which
    raises here: it came before the outcome, which is then not written.
    """
    sigint: SigintHold | None = None
    sigterm: SigtermHold | None = None
    try:
        sigint = SigintHold.install()
        sigterm = SigtermHold.install()
        code = write()
    finally:
        if sigterm is not None:
            sigterm.release(keep=True)
        if sigint is not None:
            sigint.release()
    if code == 0:
        if sigterm is not None and sigterm.arrived:
            raise Terminated
        if sigint is not None and sigint.arrived:
            raise KeyboardInterrupt
    return code


def hold_until_exit() -> None:
    """Hold SIGTERM and Ctrl-C from here until the process exits with the outcome's code.

    For the process that is the command line (the console script, ``python -m``), called once
    its outcome is written. The default action ended the process "killed by signal 15" while it
    exited, with the exit code the outcome decided (0, or 2 after a usage error) lost, and any
    output the interpreter still had to flush; a Ctrl-C raised ``KeyboardInterrupt`` on the way
    out (``interrupted``, 130, or a traceback). Now the first of each from here on is taken and
    nothing else happens; a second one ends the process at once, as everywhere else.

    Left as it is: a signal at its default (a first one was already taken, so the next must
    kill), ignored, or under an embedding program's handler. A signal still pending as a
    handler is replaced runs the handler found first, which raises (``Terminated``, or Python's
    ``KeyboardInterrupt``): it came after the outcome too, so it is taken here as the hold would
    take it, and the rest is put in place. The interpreter puts every Python handler back to the
    default once it has flushed stdout and stderr, before it tears its modules down (tens of
    milliseconds); the last step, :func:`_ignore_for_teardown`, covers that.
    """
    if not _can_handle():
        return
    sigint_taken = False
    while True:  # each pass cut short consumed one delivered signal, so this ends
        try:
            _hold_sigterm_until_exit()
            _hold_sigint_until_exit(taken=sigint_taken)
            break
        except KeyboardInterrupt as exc:
            # `_RaiseTerminated` already put SIGTERM back to its default (the next one kills);
            # Python's SIGINT handler did not, which the next pass does.
            if interrupt_exit_code(exc) == 128 + signal.SIGINT:
                sigint_taken = True
    global _TEARDOWN_REGISTERED
    if not _TEARDOWN_REGISTERED:
        atexit.register(_ignore_for_teardown)
        _TEARDOWN_REGISTERED = True


def _hold_sigterm_until_exit() -> None:
    """SIGTERM: the run's hold kept, or one put in place of a raising handler of ours."""
    current = signal.getsignal(signal.SIGTERM)
    if getattr(current, MARK, False) is not True:
        return  # the default (one was taken), ignored, or an embedding program's handler
    if isinstance(current, SigtermHold) and current.released:
        return  # the run's, kept
    hold = SigtermHold()
    hold.released = True
    signal.signal(signal.SIGTERM, hold)


def _hold_sigint_until_exit(*, taken: bool) -> None:
    """SIGINT: the run's hold kept, or one put in place of Python's handler.

    ``taken``: Python's handler already raised for a Ctrl-C after the outcome (pending as a
    handler was replaced, and swallowed by :func:`hold_until_exit`), so the next one must kill.
    """
    current = signal.getsignal(signal.SIGINT)
    if isinstance(current, SigintHold):
        current.release()  # the run's, kept (it already is released once its outcome is written)
        return
    if current is not signal.default_int_handler:
        return  # the default (one was taken), ignored, or an embedding program's handler
    if taken:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        return
    hold = SigintHold()
    hold.released = True
    signal.signal(signal.SIGINT, hold)


_TEARDOWN_REGISTERED = False
"""Whether :func:`_ignore_for_teardown` is registered (once per process)."""


def _ignore_for_teardown() -> None:
    """At exit, once our output is flushed: SIGTERM and SIGINT ignored while the interpreter ends.

    Python resets its signal handlers to the default after flushing stdout and stderr and before
    clearing its modules, which takes tens of milliseconds here; a SIGTERM or Ctrl-C then still
    ended the process as "killed by signal 15" or "2". An ignored signal is the one disposition
    that reset keeps. It is set only after this function flushed stdout and stderr itself, under
    the holds (a second signal still kills while a stalled reader blocks that flush), so the
    command line has nothing left to write; and not at all for a signal one of which was taken,
    when the next one must kill. Registered once the outcome is written, this runs before the
    exit functions registered earlier (the standard library's, such as logging's final flush),
    which then run with both ignored too. SIGKILL ends the process as it always does.
    """
    holds = [
        (signum, hold)
        for signum, hold in (
            (signal.SIGTERM, signal.getsignal(signal.SIGTERM)),
            (signal.SIGINT, signal.getsignal(signal.SIGINT)),
        )
        if isinstance(hold, SigtermHold | SigintHold) and hold.released
    ]
    if not holds:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return  # the interpreter's own flush reports it; the holds stay until then
    for signum, hold in holds:
        # A signal still pending runs its hold first; one taken puts back the default.
        signal.signal(signum, signal.SIG_IGN)
        if isinstance(hold, SigtermHold | SigintHold) and hold.late:
            signal.signal(signum, signal.SIG_DFL)  # one was taken: the next one kills
