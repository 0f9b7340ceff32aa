"""A Ctrl-C after the outcome is written leaves the outcome's exit code (a second one kills).

Once the outcome was written SIGINT still had Python's handler, which raises
``KeyboardInterrupt`` wherever the process is: on the command line's way out it printed
``interrupted`` and exited 130 after a completed answer (with a second final ``--json`` record),
once the command had returned it escaped as a traceback and "killed by signal 2", and in the
interpreter's teardown SIGINT's default action killed it. Now, when the process is the command
line (the console script, ``python -m``), the first Ctrl-C from the written outcome to the exit
changes nothing, as the first SIGTERM does there; a second one has SIGINT's default action and
ends the process at once. Before the outcome Ctrl-C still cancels the run (130, ``interrupted``).

The children are those of test_cli_sigterm_after_outcome (its ``_CHILD``: a pause at a fixed
point of the exit, said on a pipe, a real signal sent from outside, then "go on"), with one more
point in front of it: ``returned``, where ``run_chat`` has written the outcome and returned its
code and the command line has not yet returned it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from typing import Any

import pytest

import lionagi.service.cli as cli

from ._support import HANG_GUARD, PausedChild, cli_env, command, paused_child, signals_as_started
from .test_cli_sigterm_after_outcome import _CHILD as _EXITING_CHILD

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT's default action is POSIX")

# The `returned` point, before the shared child runs: `run_chat` pauses once it has returned.
_CHILD = (
    """
import os

if os.environ["LIONAGI_TEST_POINT"] == "returned":
    import lionagi.service.cli._chat as _chat

    def _returned(*args, _run_chat=_chat.run_chat, **kwargs):
        code = _run_chat(*args, **kwargs)
        for _ in range(int(os.environ["LIONAGI_TEST_PAUSES"])):
            os.write(int(os.environ["LIONAGI_TEST_READY"]), b"r")
            os.read(int(os.environ["LIONAGI_TEST_GO"]), 1)
        return code

    _chat.run_chat = _returned
"""
    + _EXITING_CHILD
)

CHAT = ["chat", "scripted/demo", "hi", "--json"]
REFUSED = ["chat", "nope/model", "hi", "--json"]


def _child(
    argv: list[str],
    *,
    point: str,
    entry: str = "script",
    pauses: int = 1,
    ignored: tuple[int, ...] = (),
) -> contextlib.AbstractContextManager[PausedChild]:
    """Start the child; yield it, a wait for its next pause and its "go on"."""
    return paused_child(_CHILD, argv, point=point, entry=entry, pauses=pauses, ignored=ignored)


def _ctrl_c_at(
    argv: list[str], *, point: str, entry: str = "script", ignored: tuple[int, ...] = ()
) -> tuple[int, str, str]:
    """One SIGINT while the child is paused at ``point``; its exit code, stdout and stderr."""
    with _child(argv, point=point, entry=entry, ignored=ignored) as (proc, paused, go_on):
        paused()
        proc.send_signal(signal.SIGINT)
        go_on()
        out, err = proc.communicate(timeout=HANG_GUARD)
        return proc.returncode, out, err


def _records(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("entry", ["script", "module"])
@pytest.mark.parametrize("point", ["returned", "exiting", "teardown"])
def test_ctrl_c_after_a_completed_answer_leaves_exit_0_and_the_whole_answer(
    point: str, entry: str
) -> None:
    code, out, err = _ctrl_c_at(CHAT, point=point, entry=entry)

    assert code == 0, err
    assert err == ""  # no `interrupted` line, no traceback: the run was over
    records = _records(out)
    assert records[-1]["type"] == "result"
    assert "interrupted" not in [r["type"] for r in records]


@pytest.mark.parametrize(
    ("argv", "code", "last", "point"),
    [
        (REFUSED, 2, "exception", "returned"),  # refused by the catalog, in `run_chat`
        (REFUSED, 2, "exception", "exiting"),
        (REFUSED, 2, "exception", "teardown"),
        (["chat", "scripted/demo", "hi", "--timeout", "-1", "--json"], 2, "exception", "exiting"),
        (["chat", "scripted/demo", "hi", "--timeout", "-1", "--json"], 2, "exception", "teardown"),
        (["providers", "--json"], 0, None, "exiting"),  # a command without a run of its own
        (["providers", "--json"], 0, None, "teardown"),
    ],
    ids=[
        "model-refused-returned",
        "model-refused-exiting",
        "model-refused-teardown",
        "usage-error-exiting",
        "usage-error-teardown",
        "providers-exiting",
        "providers-teardown",
    ],
)
def test_ctrl_c_after_any_outcome_leaves_its_exit_code(
    argv: list[str], code: int, last: str | None, point: str
) -> None:
    got, out, err = _ctrl_c_at(argv, point=point)

    assert got == code, err
    assert "interrupted" not in err
    assert "Traceback" not in err
    if last is not None:
        records = _records(out)
        assert records[-1]["type"] == last
        assert [r["type"] for r in records].count(last) == 1  # one final record
    else:
        assert json.loads(out)  # the whole document, flushed


@pytest.mark.parametrize("entry", ["script", "module"])
@pytest.mark.parametrize("point", ["returned", "exiting"])
def test_a_second_ctrl_c_after_the_outcome_still_ends_the_process_at_once(
    point: str, entry: str
) -> None:
    with _child(CHAT, point=point, entry=entry, pauses=2) as (proc, paused, go_on):
        paused()
        proc.send_signal(signal.SIGINT)  # the first: held
        go_on()
        paused()  # the child ran Python since, so the hold has taken the first one
        proc.send_signal(signal.SIGINT)  # the second: SIGINT's default action, at once
        code = proc.wait(timeout=HANG_GUARD)

    assert code == -signal.SIGINT  # a shell reports 130


@pytest.mark.parametrize("point", ["returned", "teardown"])
def test_ctrl_c_after_the_outcome_is_held_when_sigterm_was_inherited_ignored(point: str) -> None:
    # With SIGTERM ignored the console script's wrapper installs no SIGTERM handler, by which
    # `main` recognised the console script: Ctrl-C was not held there at all.
    code, out, err = _ctrl_c_at(CHAT, point=point, ignored=(signal.SIGTERM,))

    assert code == 0, err
    assert err == ""
    assert _records(out)[-1]["type"] == "result"


def test_an_inherited_ignored_sigint_is_left_ignored() -> None:
    # A hold put over the ignored disposition would let the second Ctrl-C kill.
    with _child(CHAT, point="exiting", pauses=2, ignored=(signal.SIGINT,)) as (proc, paused, go):
        for _ in range(2):
            paused()
            proc.send_signal(signal.SIGINT)
            go()
        out, err = proc.communicate(timeout=HANG_GUARD)

    assert proc.returncode == 0, err
    assert _records(out)[-1]["type"] == "result"


@pytest.mark.parametrize("target", ["script", "module"])
def test_ctrl_c_during_the_run_still_cancels_it_and_is_interrupted_130(target: str) -> None:
    argv = ["chat", "scripted/demo", "SCRIPTED_STALL", "--json"]  # streams, then waits
    head = command() if target == "script" else [sys.executable, "-m", "lionagi.service.cli"]
    with subprocess.Popen(
        [*head, *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        preexec_fn=signals_as_started(),
    ) as proc:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the stream has started and now waits
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=HANG_GUARD)

    assert json.loads(first)["content"] == "Stalling"
    assert proc.returncode == 130, err
    assert err == "interrupted\n"
    assert _records(out) == [{"type": "interrupted", "exit_code": 130}]


def test_main_called_from_python_never_touches_ctrl_c(capsys: pytest.CaptureFixture[str]) -> None:
    before = signal.getsignal(signal.SIGINT)

    assert cli.main(["demo", "--json", "--pace", "0", "hi"]) == 0
    assert cli.main(["providers", "--json"]) == 0
    assert signal.getsignal(signal.SIGINT) is before
    capsys.readouterr()


class _CtrlCWhileWriting:
    """A renderer that receives a Ctrl-C while it writes the run's outcome."""

    def __init__(self) -> None:
        from lionagi.service.cli._render import JsonRenderer

        self.inner = JsonRenderer()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def close(self) -> None:
        signal.raise_signal(signal.SIGINT)
        self.inner.close()

    def error(self, exc: BaseException) -> None:
        signal.raise_signal(signal.SIGINT)
        self.inner.error(exc)


@pytest.mark.parametrize(
    ("model", "code", "last"),
    [
        # A completed answer has no final record yet: the Ctrl-C is the outcome, as a SIGTERM is.
        ("scripted/demo", 130, {"type": "interrupted", "exit_code": 130}),
        # An error's record is already the final one: it stands, and stays the only one.
        ("nope/model", 2, {"type": "exception", "error": "EndpointNotFound"}),
    ],
)
def test_ctrl_c_while_the_outcome_is_written_leaves_one_final_record(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    model: str,
    code: int,
    last: dict[str, Any],
) -> None:
    import lionagi.service.cli._chat as chat_module

    monkeypatch.setattr(chat_module, "renderer_for", lambda **_: _CtrlCWhileWriting())
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    sigterm = signal.getsignal(signal.SIGTERM)
    try:
        got = chat_module.run_chat(
            model, "hi", timeout=None, as_json=True, pace=0, hold_signals_to_exit=True
        )
        # Taken while the outcome was written: the next Ctrl-C has the default action.
        assert signal.getsignal(signal.SIGINT) is signal.SIG_DFL
    except KeyboardInterrupt:  # not pytest's own Ctrl-C: fail this test only
        pytest.fail("the Ctrl-C raised inside the outcome's writing")
    finally:
        # The holds are kept for the process's exit; this process is pytest's.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, sigterm)

    assert got == code
    captured = capsys.readouterr()
    records = _records(captured.out)
    assert records[-1].items() >= last.items()
    types = [r["type"] for r in records]
    assert types.count("interrupted") + types.count("exception") == 1
    if code == 130:
        assert captured.err == "interrupted\n"


@pytest.mark.parametrize("pending", ["sigint", "sigterm"])
def test_a_signal_pending_as_the_holds_go_in_is_taken_and_both_are_still_held(
    monkeypatch: pytest.MonkeyPatch, pending: str
) -> None:
    # `signal.signal` runs the handlers of signals already delivered before it replaces one:
    # Python's raises `KeyboardInterrupt`, the command line's `_RaiseTerminated` raises
    # `Terminated` (having put SIGTERM back to its default). That signal came after the
    # outcome, so it is taken (the next one kills) and the rest of the holds still go in.
    from lionagi.service.cli import _signals

    real = signal.signal
    delivered = [pending]

    def signal_with_one_pending(signum: int, handler: Any) -> Any:
        if delivered:
            delivered.clear()
            if pending == "sigint":
                raise KeyboardInterrupt  # Python's own SIGINT handler, before anything changed
            real(signal.SIGTERM, signal.SIG_DFL)
            raise _signals.Terminated
        return real(signum, handler)

    monkeypatch.setattr(_signals, "_TEARDOWN_REGISTERED", True)  # not at pytest's exit
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    sigterm = real(signal.SIGTERM, _signals._RaiseTerminated())  # as under the console script
    monkeypatch.setattr(signal, "signal", signal_with_one_pending)
    try:
        try:
            _signals.hold_until_exit()
        except KeyboardInterrupt as exc:  # not pytest's own Ctrl-C: fail this test only
            pytest.fail(f"hold_until_exit let the pending signal's {type(exc).__name__} escape")
        now = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    finally:
        monkeypatch.undo()
        real(signal.SIGINT, signal.default_int_handler)
        real(signal.SIGTERM, sigterm)

    if pending == "sigint":
        assert now[0] is signal.SIG_DFL  # taken: the next Ctrl-C ends the process
        assert isinstance(now[1], _signals.SigtermHold) and now[1].released
    else:
        assert isinstance(now[0], _signals.SigintHold) and now[0].released
        assert now[1] is signal.SIG_DFL  # taken: the next SIGTERM ends the process
