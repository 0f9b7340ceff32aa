"""A signal once ``--help`` / ``--version`` has written its text leaves exit 0 and the text.

argparse printed the text itself while parsing and called ``sys.exit(0)``; the holds that keep
a written outcome's exit code went in only afterwards (``_main``'s ``finally``). A SIGTERM or
Ctrl-C in between was raised into ``_run``'s handler: the whole help or version text on stdout,
then ``terminated`` / ``interrupted`` on stderr and 143 / 130 for a command that had finished.
Now the parser hands the text back and ``_run`` writes it as the outcome, under the holds, as
the usage error's line is written (test_cli_usage_error_signal).

The child (test_cli_sigterm_after_outcome's, through the console script or ``python -m``)
pauses at its first ``sys.exit`` call: argparse's own, right after the text, before the fix;
the child's ``sys.exit(main())`` once the outcome is written and held, with it. The test sends
a real signal there and lets it go on.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal

import pytest

from ._support import HANG_GUARD, PausedChild, paused_child
from .test_cli_sigterm_after_outcome import _CHILD as _EXITING_CHILD

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT/SIGTERM are POSIX signals")

_CHILD = (
    """
import os, sys

_real_exit, _paused = sys.exit, []


def _exit_after_a_pause(code=None):
    # The first exit of the process, whoever calls it: pause there once, then exit as asked.
    if not _paused:
        _paused.append(True)
        os.write(int(os.environ["LIONAGI_TEST_READY"]), b"r")
        os.read(int(os.environ["LIONAGI_TEST_GO"]), 1)
    _real_exit(code)


sys.exit = _exit_after_a_pause
"""
    + _EXITING_CHILD
)

SIGNALS = {"sigint": signal.SIGINT, "sigterm": signal.SIGTERM}

# argv -> a line the text must hold (the first line of what the user asked for).
OUTPUTS = {
    "version": (["--version"], "lionagi-service-core "),
    "help": (["--help"], "usage: lionagi-service "),
    "chat-help": (["chat", "--help"], "usage: lionagi-service chat "),
}


def _child(argv: list[str], *, entry: str) -> contextlib.AbstractContextManager[PausedChild]:
    return paused_child(_CHILD, argv, point="first-exit", entry=entry)


@functools.cache
def _unsignalled(output: str) -> str:
    """The child's stdout let go without a signal (exit 0, nothing on stderr)."""
    with _child(OUTPUTS[output][0], entry="script") as (proc, paused, go_on):
        paused()
        go_on()
        out, err = proc.communicate(timeout=HANG_GUARD)
    assert (proc.returncode, err) == (0, "")
    return out


@pytest.mark.parametrize("entry", ["script", "module"])
@pytest.mark.parametrize("sig", sorted(SIGNALS))
@pytest.mark.parametrize("output", sorted(OUTPUTS))
def test_a_signal_after_the_text_leaves_exit_0_and_the_whole_text(
    output: str, sig: str, entry: str
) -> None:
    with _child(OUTPUTS[output][0], entry=entry) as (proc, paused, go_on):
        paused()
        proc.send_signal(SIGNALS[sig])
        go_on()
        out, err = proc.communicate(timeout=HANG_GUARD)

    assert proc.returncode == 0, err
    assert err == ""  # no `terminated` / `interrupted` after a finished command
    assert out == _unsignalled(output)


@pytest.mark.parametrize("output", sorted(OUTPUTS))
def test_without_a_signal_the_text_is_written_as_before(output: str) -> None:
    """The control: the text the user asked for, whole, exit 0."""
    out = _unsignalled(output)
    assert out.startswith(OUTPUTS[output][1]), out
    assert out.endswith("\n") and len(out.splitlines()) > 3, out
