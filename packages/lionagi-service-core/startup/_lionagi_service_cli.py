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

import sys

__all__ = ["main"]


def main() -> int:
    """Run ``lionagi.service.cli.main``; report its package failing to import in one line.

    A Ctrl-C while that import runs (the first few tens of milliseconds of every command) is
    reported as the command line reports one later: ``interrupted``, exit 130, and the
    ``--json`` record of ``demo`` and ``chat``. It escaped as a traceback before.
    """
    try:
        from lionagi.service.cli import main as run
    except ImportError as exc:
        return _report(exc, sys.argv[1:])
    except KeyboardInterrupt:
        return _interrupted(sys.argv[1:])
    return run()


def _interrupted(args: "list[str]") -> int:
    if args[:1] in (["demo"], ["chat"]) and "--json" in args and sys.stdout is not None:
        print('{"type": "interrupted", "exit_code": 130}', flush=True)
    if sys.stderr is not None:
        print("interrupted", file=sys.stderr)
    return 130


def _report(exc: ImportError, args: "list[str]") -> int:
    import json

    name, message = type(exc).__name__, " ".join(str(exc).split())
    if "--json" in args and sys.stdout is not None:
        print(json.dumps({"type": "exception", "error": name, "message": message}), flush=True)
    if sys.stderr is not None:  # closed (2>&-): print() would write the line to stdout instead
        print(f"error: {name}: {message}", file=sys.stderr)
    return 2
