"""Console entry point of ``lionagi-service``: a refused installation is one line and exit 2.

The script pip writes for a console entry imports its target before calling it. With the
target ``lionagi.service.cli:main``, that import runs ``lionagi/service/__init__.py`` first, and
that is exactly where core's start-up guard (``_lionagi_service_guard``) refuses another
distribution's file standing in place of core's, or no file at all: the refusal escaped from
the script as a traceback with exit 1, before the command line's own handler could run. This
module imports nothing of ``lionagi`` until it is inside its handler, so the refusal is reported
the way the command line reports any configuration error (docs/cli.md): one line on stderr,
exit 2, and with ``--json`` a final ``exception`` record on stdout.

It is installed beside the guard, as a top-level module, for the same reason the guard is:
no module under ``lionagi.service`` can run when that package is the thing that is broken.
The report's format repeats the command line's ``_import_failed`` (a few lines), which covers
the same failure when the guard is not loaded (``python -S``) and core's modules fail later.
"""

import signal
import sys

__all__ = ["Terminated", "main"]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises ``KeyboardInterrupt``; exit code ``128 + signum``.

    A copy of ``lionagi.service.cli._signals.Terminated`` (this module may import nothing of
    ``lionagi`` before its handler exists); the command line reads ``signum``, not the class.
    """

    signum: int = signal.SIGTERM


class _RaiseTerminated:
    """SIGTERM's handler from this module's first line: back to the default, raise ``Terminated``.

    Without it SIGTERM's default action ended the process while the command line was still
    being imported (the first half second of ``chat``): no ``terminated`` line, no ``--json``
    record, exit "killed by signal 15" where docs/cli.md promises 143. The command line
    recognises it by the ``lionagi_service_sigterm`` attribute and takes SIGTERM over from it
    for a run. A second SIGTERM ends the process at once, as during a run's teardown.
    """

    lionagi_service_sigterm = True

    def __call__(self, signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise Terminated


def main() -> int:
    """Run the command line as this process; report its package failing to import in one line.

    It enters through ``lionagi.service.cli._program_main`` (``main`` as the process itself):
    SIGTERM and Ctrl-C stay held from the written outcome until the exit, so the exit code is the
    outcome's. ``main`` recognises the console script by this module's SIGTERM handler, which is
    not installed when SIGTERM was inherited ignored: there a Ctrl-C after the outcome still
    printed ``interrupted`` and exited 130.

    A Ctrl-C or SIGTERM while that import runs (the first few tens of milliseconds of every
    command), or one the command line's own handlers did not see, is reported as the command
    line reports one: ``interrupted`` / exit 130 or ``terminated`` / exit 143, and the
    ``--json`` record of ``demo`` and ``chat``. It escaped as a traceback (Ctrl-C) or ended the
    process with no word at all (SIGTERM) before.
    """
    args = sys.argv[1:]
    installed = None
    try:
        # Installed inside the handler: a SIGTERM the moment it is installed (before the name
        # is bound) escaped as a bare `Terminated` traceback. The handler disarms itself.
        installed = _raise_on_sigterm()
        try:
            from lionagi.service.cli import _program_main as run
        except ImportError as exc:
            code = _report(exc, args)
        else:
            try:
                code = run()
            except SystemExit:  # --help, --version, a usage error: argparse exits itself
                _give_back(installed)
                raise
        _give_back(installed)  # inside the handler: a SIGTERM until then is reported below
    except KeyboardInterrupt as exc:
        _give_back(installed)
        return _interrupted(args, exc)
    return code


def _raise_on_sigterm() -> "_RaiseTerminated | None":
    """Install the handler over SIGTERM's default (an inherited ignore or handler is kept)."""
    if sys.platform == "win32" or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return None
    handler = _RaiseTerminated()
    try:
        signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread (an embedding program calling main())
        return None
    return handler


def _give_back(installed: "_RaiseTerminated | None") -> None:
    """SIGTERM back to its default, unless the handler was already replaced or disarmed."""
    if installed is not None and signal.getsignal(signal.SIGTERM) is installed:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _interrupted(args: "list[str]", exc: KeyboardInterrupt) -> int:
    code = 128 + int(getattr(exc, "signum", signal.SIGINT))
    if args[:1] in (["demo"], ["chat"]) and "--json" in args and sys.stdout is not None:
        print(f'{{"type": "interrupted", "exit_code": {code}}}', flush=True)
    if sys.stderr is not None:
        print("terminated" if code == 128 + signal.SIGTERM else "interrupted", file=sys.stderr)
    return code


def _report(exc: ImportError, args: "list[str]") -> int:
    import json

    name, message = type(exc).__name__, " ".join(str(exc).split())
    if "--json" in args and sys.stdout is not None:
        print(json.dumps({"type": "exception", "error": name, "message": message}), flush=True)
    if sys.stderr is not None:  # closed (2>&-): print() would write the line to stdout instead
        print(f"error: {name}: {message}", file=sys.stderr)
    return 2
