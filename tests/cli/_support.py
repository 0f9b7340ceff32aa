"""How the command-line tests start the real ``lionagi-service`` command, in one place."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

SCRIPT = Path(sys.executable).with_name("lionagi-service")
HANG_GUARD = 30.0  # seconds; a "did not hang" bound only


def command() -> list[str]:
    """The installed console script, or the same entry point through this interpreter."""
    if SCRIPT.exists():
        return [str(SCRIPT)]
    return [
        sys.executable,
        "-c",
        "import sys; from _lionagi_service_cli import main; sys.exit(main())",
    ]


def cli_env(*, columns: str | None = None, **extra: str) -> dict[str, str]:
    """This environment with plain output (no colour, no terminal codes, unbuffered).

    ``columns`` fixes the width the command wraps at; None removes any inherited ``COLUMNS``.
    """
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    env.update({"NO_COLOR": "1", "TERM": "dumb", "PYTHONUNBUFFERED": "1"})
    if columns is not None:
        env["COLUMNS"] = columns
    env.update(extra)
    return env


def signals_as_started(ignored: tuple[int, ...] = ()) -> Callable[[], None]:
    """As systemd, a shell or ``timeout`` start a program: SIGTERM and SIGINT at their
    defaults, or ignored (a background job of a non-interactive shell ignores SIGINT)."""

    def preexec() -> None:
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, signal.SIG_IGN if signum in ignored else signal.SIG_DFL)

    return preexec


PausedChild = tuple[subprocess.Popen[str], Callable[[], None], Callable[[], None]]


@contextlib.contextmanager
def paused_child(
    code: str,
    argv: list[str],
    *,
    point: str,
    entry: str = "script",
    pauses: int = 1,
    ignored: tuple[int, ...] = (),
) -> Iterator[PausedChild]:
    """Run ``code`` (a child that pauses at ``point``); yield it, a wait for its next pause
    and its "go on".

    The child reports each pause on one pipe and waits for a byte on another, so a test sends
    its signal at an exact moment instead of racing a sleep. ``LIONAGI_TEST_*`` tell the child
    where to pause (``point``), how often (``pauses``) and how it was entered (``entry``).
    """
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(
            LIONAGI_TEST_READY=str(ready_w),
            LIONAGI_TEST_GO=str(go_r),
            LIONAGI_TEST_POINT=point,
            LIONAGI_TEST_PAUSES=str(pauses),
            LIONAGI_TEST_ENTRY=entry,
        ),
        pass_fds=(ready_w, go_r),
        preexec_fn=signals_as_started(ignored),
    )
    os.close(ready_w)
    os.close(go_r)

    def paused() -> None:
        ready, _, _ = select.select([ready_r], [], [], HANG_GUARD)  # a wait, not a poll
        assert ready, f"the child never reached {point}"
        assert os.read(ready_r, 1) == b"r", f"the child ended before {point}"

    def go_on() -> None:
        with contextlib.suppress(BrokenPipeError):
            os.write(go_w, b"g")

    try:
        yield proc, paused, go_on
    finally:
        os.close(ready_r)
        os.close(go_w)
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
