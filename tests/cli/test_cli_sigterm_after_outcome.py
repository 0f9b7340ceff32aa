"""A SIGTERM after the outcome is written leaves the outcome's exit code (a second one kills).

Once ``run_chat`` had written its outcome it put SIGTERM back to its default, and the other
commands did the same on the way out, so a SIGTERM while the process exited (the interpreter's
exit takes tens of milliseconds: threads, ``atexit``, flushing, tearing its modules down) ended
it as "killed by signal 15": a shell read 143 where the command had succeeded (0) or had
refused its arguments (2), and whatever was still to be flushed was lost. Now, when the process
is the command line (the console script, ``python -m``), SIGTERM stays held until it has
exited: the first one changes nothing, a second one still ends it at once.

Each child pauses at a fixed point of its exit and tells the test so through a pipe; the test
sends a real SIGTERM from outside, then lets it go on (the scheme of test_sigterm_from_start):

- ``exiting``: the command has returned its code and ``SystemExit`` is on its way out;
- ``teardown``: inside the interpreter's own teardown (an object of the child's ``__main__``
  whose ``__del__`` pauses as the module is cleared), after Python has put every signal
  handler it had back to the default.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal

import pytest

from ._support import HANG_GUARD, PausedChild, paused_child

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGTERM is a POSIX signal")

_CHILD = """
import os, sys

READY, GO = int(os.environ["LIONAGI_TEST_READY"]), int(os.environ["LIONAGI_TEST_GO"])
POINT = os.environ["LIONAGI_TEST_POINT"]
PAUSES = int(os.environ["LIONAGI_TEST_PAUSES"])


def pause(write=os.write, read=os.read, times=PAUSES):
    # Default arguments: in the teardown the module's globals may already be cleared.
    for _ in range(times):
        write(READY, b"r")
        read(GO, 1)


class AtTeardown:
    def __del__(self, pause=pause):
        pause()


if POINT == "teardown":
    keep = AtTeardown()
sys.argv = ["lionagi-service", *sys.argv[1:]]
try:
    if os.environ["LIONAGI_TEST_ENTRY"] == "module":
        import runpy
        runpy.run_module("lionagi.service.cli", run_name="__main__", alter_sys=True)
    else:
        from _lionagi_service_cli import main
        sys.exit(main())
except SystemExit:
    if POINT == "exiting":
        pause()
    raise
"""


def _exiting(
    argv: list[str], *, point: str, entry: str, pauses: int = 1
) -> contextlib.AbstractContextManager[PausedChild]:
    """Start the child; yield it, a wait for its next pause and its "go on"."""
    return paused_child(_CHILD, argv, point=point, entry=entry, pauses=pauses)


def _result(argv: list[str], *, point: str, entry: str) -> tuple[int, str, str]:
    """One SIGTERM while the child is paused at ``point``; its exit code, stdout and stderr."""
    with _exiting(argv, point=point, entry=entry) as (proc, paused, go_on):
        paused()
        proc.send_signal(signal.SIGTERM)
        go_on()
        out, err = proc.communicate(timeout=HANG_GUARD)
        return proc.returncode, out, err


CHAT = ["chat", "scripted/demo", "hi", "--json"]


@pytest.mark.parametrize("entry", ["script", "module"])
@pytest.mark.parametrize("point", ["exiting", "teardown"])
def test_sigterm_after_a_completed_answer_leaves_exit_0_and_the_whole_answer(
    point: str, entry: str
) -> None:
    code, out, err = _result(CHAT, point=point, entry=entry)

    assert code == 0, err
    assert err == ""  # no `terminated` line: the run was over
    records = [json.loads(line) for line in out.splitlines()]
    assert records[-1]["type"] == "result"
    assert "interrupted" not in [r["type"] for r in records]


@pytest.mark.parametrize(
    ("argv", "code", "last"),
    [
        (["chat", "nope/model", "hi", "--json"], 2, "exception"),  # refused by the catalog
        (["chat", "scripted/demo", "hi", "--timeout", "-1", "--json"], 2, "exception"),  # parser
        (["providers", "--json"], 0, None),  # a command without a run of its own
    ],
    ids=["model-refused", "usage-error", "providers"],
)
@pytest.mark.parametrize("point", ["exiting", "teardown"])
def test_sigterm_after_any_outcome_leaves_its_exit_code(
    argv: list[str], code: int, last: str | None, point: str
) -> None:
    got, out, err = _result(argv, point=point, entry="script")

    assert got == code, err
    assert "terminated" not in err
    if last is not None:
        assert json.loads(out.splitlines()[-1])["type"] == last
    else:
        assert json.loads(out)  # the whole document, flushed


@pytest.mark.parametrize("entry", ["script", "module"])
def test_a_second_sigterm_after_the_outcome_still_ends_the_process_at_once(entry: str) -> None:
    with _exiting(CHAT, point="exiting", entry=entry, pauses=2) as (proc, paused, go_on):
        paused()
        proc.send_signal(signal.SIGTERM)  # the first: held
        go_on()
        paused()  # the child ran Python since, so the handler has taken the first one
        proc.send_signal(signal.SIGTERM)  # the second: its default action, at once
        code = proc.wait(timeout=HANG_GUARD)

    assert code == -signal.SIGTERM
