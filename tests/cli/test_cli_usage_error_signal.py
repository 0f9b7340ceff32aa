"""A signal once a usage error's line is written leaves exit 2 and one final ``--json`` record.

The parser printed its error line itself and raised; the holds that keep a written outcome's
exit code (``written_held``, then ``hold_until_exit``) went in only afterwards, in ``_run`` and
``_main``'s ``finally``. A SIGTERM or Ctrl-C in between was raised into ``_run``'s handler: the
usage line, then ``terminated`` / ``interrupted`` with 143 / 130 in place of the decided 2, and
under ``--json`` a second final record after the ``UsageError`` one. Now the line and the record
are written together as the outcome, under the holds, as the other commands write theirs.

The child (test_cli_sigterm_after_outcome's, entered through the console script or
``python -m``) wraps stderr so it pauses right after the line that says ``error:``; the test sends
a real signal there and lets it go on.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal

import pytest

from ._support import HANG_GUARD, PausedChild, paused_child
from .test_cli_sigterm_after_outcome import _CHILD as _EXITING_CHILD

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT/SIGTERM are POSIX signals")

_CHILD = (
    """
import os, sys


def _test_pause(write=os.write, read=os.read):
    write(int(os.environ["LIONAGI_TEST_READY"]), b"r")
    read(int(os.environ["LIONAGI_TEST_GO"]), 1)


class _PausingStderr:
    # Pauses once, right after the first write that carries a usage error's line.
    def __init__(self, inner):
        self._inner, self._paused = inner, False

    def write(self, text):
        written = self._inner.write(text)
        if not self._paused and "error:" in text:
            self._paused = True
            self._inner.flush()
            _test_pause()
        return written

    def __getattr__(self, name):
        return getattr(self._inner, name)


sys.stderr = _PausingStderr(sys.stderr)
"""
    + _EXITING_CHILD
)

SIGNALS = {"sigint": signal.SIGINT, "sigterm": signal.SIGTERM}

USAGE_ERRORS = {
    "parser": ["chat", "scripted/demo", "hi", "--timeout", "-1", "--json"],
    # stdin is the null device: `-` reads no text, refused from inside the chat run.
    "stdin": ["chat", "scripted/demo", "-", "--json"],
}


def _child(argv: list[str], *, entry: str) -> contextlib.AbstractContextManager[PausedChild]:
    return paused_child(_CHILD, argv, point="usage-written", entry=entry)


@pytest.mark.parametrize("entry", ["script", "module"])
@pytest.mark.parametrize("sig", sorted(SIGNALS))
@pytest.mark.parametrize("usage", sorted(USAGE_ERRORS))
def test_a_signal_after_the_usage_line_leaves_exit_2_and_one_record(
    usage: str, sig: str, entry: str
) -> None:
    with _child(USAGE_ERRORS[usage], entry=entry) as (proc, paused, go_on):
        paused()
        proc.send_signal(SIGNALS[sig])
        go_on()
        out, err = proc.communicate(timeout=HANG_GUARD)

    assert proc.returncode == 2, err
    lines = err.splitlines()
    assert len(lines) == 1, err  # the usage line alone: no `terminated` / `interrupted`
    assert "error:" in lines[0] and "(see lionagi-service chat --help)" in lines[0]
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["type"] for r in records] == ["exception"], out
    assert records[0]["error"] == "UsageError"


@pytest.mark.parametrize("usage", sorted(USAGE_ERRORS))
def test_without_a_signal_the_usage_error_is_written_as_before(usage: str) -> None:
    """The control: the same child, let go without a signal, writes the same outcome."""
    with _child(USAGE_ERRORS[usage], entry="script") as (proc, paused, go_on):
        paused()
        go_on()
        out, err = proc.communicate(timeout=HANG_GUARD)

    assert proc.returncode == 2, err
    assert len(err.splitlines()) == 1, err
    assert [json.loads(line)["type"] for line in out.splitlines()] == ["exception"]
