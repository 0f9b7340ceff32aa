"""``providers``, ``models``, ``doctor``: a signal once the outcome is written leaves its exit code.

``chat`` holds Ctrl-C and SIGTERM from the moment it writes its outcome (``SigintHold``,
``SigtermHold``); these three commands got the holds only in ``_main``'s ``finally``, once they
had returned. A Ctrl-C or SIGTERM between a command's last write and there raised into
``_run``'s handler: the whole output written, then ``interrupted`` / ``terminated`` and exit
130 / 143 in place of the 0, 1, 2 the command had decided. Now each command puts the holds in
just before it writes its outcome (``OutcomeHold``), as ``chat`` does. A signal before that
still interrupts, as it always did; one while the outcome is written is handled as ``chat``
handles it: after a success it is still the outcome (reported once the output is complete,
not by cutting it), after a failure's lines the failure stands.

The children are those of test_cli_sigterm_after_outcome (its ``_CHILD``: a pause said on a
pipe, a real signal sent from outside, then "go on"), with the command's function wrapped in
front of it so the child pauses at a fixed point:

- ``before``: the command has been chosen and has not started (nothing is written yet);
- ``writing``: the command is about to write its outcome's first line to stdout (``--json``);
- ``returned``: the command has written its outcome and returned its code, and the command
  line has not yet returned it (the gap this file is about).
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

_POINT = os.environ["LIONAGI_TEST_POINT"]


def _test_pause(write=os.write, read=os.read):
    for _ in range(int(os.environ["LIONAGI_TEST_PAUSES"])):
        write(int(os.environ["LIONAGI_TEST_READY"]), b"r")
        read(int(os.environ["LIONAGI_TEST_GO"]), 1)


if _POINT in ("before", "writing", "returned"):
    import importlib

    _name = sys.argv[1]
    _module = importlib.import_module(f"lionagi.service.cli._{_name}")
    _command = getattr(_module, f"{_name}_command")

    def _wrapped(*args, **kwargs):
        if _POINT == "before":
            _test_pause()
        code = _command(*args, **kwargs)
        if _POINT == "returned":
            _test_pause()
        return code

    setattr(_module, f"{_name}_command", _wrapped)

    if _POINT == "writing":
        import builtins

        _print, _paused = builtins.print, []

        def _print_pausing(*args, **kwargs):
            if not _paused and kwargs.get("file") in (None, sys.stdout):
                _paused.append(True)
                _test_pause()
            _print(*args, **kwargs)

        builtins.print = _print_pausing
"""
    + _EXITING_CHILD
)

SIGNALS = {
    "sigint": (signal.SIGINT, 130, "interrupted"),
    "sigterm": (signal.SIGTERM, 143, "terminated"),
}


def _child(
    argv: list[str], *, point: str, entry: str = "script", pauses: int = 1
) -> contextlib.AbstractContextManager[PausedChild]:
    """Start the child; yield it, a wait for its next pause and its "go on"."""
    return paused_child(_CHILD, argv, point=point, entry=entry, pauses=pauses)


def _signal_at(
    argv: list[str], signum: int, *, point: str, entry: str = "script"
) -> tuple[int, str, str]:
    """One ``signum`` while the child is paused at ``point``; its exit code, stdout, stderr."""
    with _child(argv, point=point, entry=entry) as (proc, paused, go_on):
        paused()
        proc.send_signal(signum)
        go_on()
        out, err = proc.communicate(timeout=HANG_GUARD)
        return proc.returncode, out, err


# Each command with an outcome of each kind: (argv, exit code, stdout is a JSON document).
OUTCOMES = [
    (["providers", "--json"], 0, True),
    (["models", "scripted", "--json"], 0, True),
    (["models", "nope"], 2, False),  # refused: its one stderr line is the outcome
    (["doctor", "ag2", "--json"], 0, True),  # ag2's Python modules are a dependency: found
    (["doctor", "--json"], 1, True),  # a CLI program not installed here
    (["doctor", "scripted"], 2, False),  # runs no CLI program
]
OUTCOME_IDS = ["providers", "models", "models-refused", "doctor", "doctor-missing", "doctor-no-cli"]


@pytest.mark.parametrize("sig", sorted(SIGNALS))
@pytest.mark.parametrize(("argv", "code", "document"), OUTCOMES, ids=OUTCOME_IDS)
def test_a_signal_after_the_outcome_is_written_leaves_its_exit_code(
    argv: list[str], code: int, document: bool, sig: str
) -> None:
    signum, _, word = SIGNALS[sig]
    got, out, err = _signal_at(argv, signum, point="returned")

    assert got == code, err
    assert word not in err  # no `interrupted` / `terminated` line: the command was over
    assert "Traceback" not in err
    if document:
        assert json.loads(out) is not None  # the whole document, flushed
    else:
        assert out == ""
        assert err.count("\n") == 1  # its one error line


@pytest.mark.parametrize("command", ["providers", "models", "doctor"])
def test_the_hold_is_there_under_python_dash_m_too(command: str) -> None:
    argv = [command, "scripted", "--json"] if command == "models" else [command, "--json"]
    got, out, err = _signal_at(argv, signal.SIGINT, point="returned", entry="module")

    assert got == (1 if command == "doctor" else 0), err
    assert "interrupted" not in err
    assert json.loads(out) is not None


@pytest.mark.parametrize("sig", sorted(SIGNALS))
@pytest.mark.parametrize("command", ["providers", "models", "doctor"])
def test_a_signal_before_the_outcome_still_interrupts(command: str, sig: str) -> None:
    signum, code, word = SIGNALS[sig]
    argv = [command, "scripted", "--json"] if command == "models" else [command, "--json"]
    got, out, err = _signal_at(argv, signum, point="before")

    assert got == code, err
    assert err == f"{word}\n"
    assert out == ""  # nothing was written: the command never ran


@pytest.mark.parametrize("sig", sorted(SIGNALS))
@pytest.mark.parametrize(
    "argv",
    [["providers", "--json"], ["models", "scripted", "--json"], ["doctor", "ag2", "--json"]],
    ids=["providers", "models", "doctor"],
)
def test_a_signal_while_a_success_is_written_is_reported_after_the_whole_output(
    argv: list[str], sig: str
) -> None:
    # As `chat` reports one while a completed answer's end is written: the signal is still the
    # outcome (it came before the outcome was written), but it no longer cuts the output.
    signum, code, word = SIGNALS[sig]
    got, out, err = _signal_at(argv, signum, point="writing")

    assert got == code, err
    assert err == f"{word}\n"
    assert json.loads(out) is not None  # the whole document, then the signal's line


@pytest.mark.parametrize("sig", sorted(SIGNALS))
def test_a_signal_while_a_failure_is_written_leaves_the_failure(sig: str) -> None:
    # As a `chat` error's record stands: the failure's lines are already the outcome.
    signum, _, word = SIGNALS[sig]
    got, out, err = _signal_at(["doctor", "--json"], signum, point="writing")

    assert got == 1, err
    assert word not in err
    assert json.loads(out) is not None


@pytest.mark.parametrize("sig", sorted(SIGNALS))
def test_a_second_signal_after_the_outcome_still_ends_the_process_at_once(sig: str) -> None:
    signum, _, _ = SIGNALS[sig]
    with _child(["providers", "--json"], point="returned", pauses=2) as (proc, paused, go_on):
        paused()
        proc.send_signal(signum)  # the first: held
        go_on()
        paused()  # the child ran Python since, so the hold has taken the first one
        proc.send_signal(signum)  # the second: the signal's default action, at once
        code = proc.wait(timeout=HANG_GUARD)

    assert code == -signum  # a shell reports 128 + signum
