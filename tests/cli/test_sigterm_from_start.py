"""SIGTERM is ``terminated`` / exit 143 from the console script's first line, not only mid-run.

Only ``run_chat`` watched for SIGTERM, from inside its event loop. In the first half second of
``chat`` (importing the command line and ``iModel``, parsing, starting the loop), and in every
other command, SIGTERM's default action ended the interpreter: exit "killed by signal 15", no
``terminated`` line, no ``--json`` record, although docs/cli.md promises all three.

A signal sent "right after ``Popen``" lands in the interpreter's own start-up (before the
script's first line runs) on this machine every time, where no program can handle it; it says
nothing about the window this is about. So each child here pauses at a chosen point of its
start (a finder ahead of the import system, when a given module is first imported) and tells
the test so through a pipe; the test sends a real SIGTERM from outside, then lets it go on. No
sleeping, no polling: the point the signal lands is fixed, and where it says "any time after"
the outcome must be the same wherever it lands.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ._support import HANG_GUARD, cli_env

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGTERM is a POSIX signal")

# The child: pause when TARGET is first imported (say so on READY, wait for a byte on GO),
# then run the console script's wrapper, or the module `python -m` runs.
_CHILD = """
import os, sys

READY, GO = int(os.environ["LIONAGI_TEST_READY"]), int(os.environ["LIONAGI_TEST_GO"])
TARGET = os.environ["LIONAGI_TEST_TARGET"]

class Pause:
    def find_spec(self, name, path=None, target=None):
        if name == TARGET:
            sys.meta_path.remove(self)
            if os.environ.get("LIONAGI_TEST_OTHER_THREAD"):
                # From here on the kernel can deliver SIGTERM only to this sleeping thread.
                import signal, threading, time
                threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
            os.write(READY, b"r")
            os.read(GO, 1)
        return None

sys.meta_path.insert(0, Pause())
sys.argv = ["lionagi-service", *sys.argv[1:]]
if os.environ["LIONAGI_TEST_ENTRY"] == "module":
    import runpy
    runpy.run_module("lionagi.service.cli", run_name="__main__", alter_sys=True)
else:
    from _lionagi_service_cli import main
    sys.exit(main())
"""

STALL = ["chat", "scripted/demo", "SCRIPTED_STALL"]  # streams, then waits until cancelled
RECORD = {"type": "interrupted", "exit_code": 143}


def _default_signals() -> None:
    # As systemd or `timeout` start a program: SIGTERM and SIGINT at their defaults.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _ignore_sigterm() -> None:
    _default_signals()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


@contextlib.contextmanager
def _paused(
    target: str,
    argv: list[str],
    *,
    entry: str = "script",
    preexec: Callable[[], None] = _default_signals,
    stdin: int | None = subprocess.DEVNULL,
    other_thread: bool = False,
) -> Iterator[tuple[subprocess.Popen[str], Callable[[], None]]]:
    """Start the child, wait until it pauses at ``target``; yield it and its "go on"."""
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, *argv],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(
            LIONAGI_TEST_READY=str(ready_w),
            LIONAGI_TEST_GO=str(go_r),
            LIONAGI_TEST_TARGET=target,
            LIONAGI_TEST_ENTRY=entry,
            LIONAGI_TEST_OTHER_THREAD="1" if other_thread else "",
        ),
        pass_fds=(ready_w, go_r),
        preexec_fn=preexec,
    )
    os.close(ready_w)
    os.close(go_r)
    try:
        ready, _, _ = select.select([ready_r], [], [], HANG_GUARD)  # a wait, not a poll
        assert ready, f"the child never imported {target}"
        assert os.read(ready_r, 1) == b"r"

        def go_on() -> None:
            with contextlib.suppress(BrokenPipeError):  # it may have ended already
                os.write(go_w, b"g")

        yield proc, go_on
    finally:
        os.close(ready_r)
        os.close(go_w)
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def _terminate_at(target: str, argv: list[str], **kwargs: Any) -> tuple[int, str, str]:
    """SIGTERM while the child is paused at ``target``; its exit code, stdout and stderr."""
    with _paused(target, argv, **kwargs) as (proc, go_on):
        proc.send_signal(signal.SIGTERM)
        go_on()
        out, err = proc.communicate(timeout=HANG_GUARD)
        return proc.returncode, out, err


@pytest.mark.parametrize(
    "target",
    [
        "lionagi.service",  # the wrapper imports the command line (and core)
        "lionagi.service.cli._render",  # main() runs, before the command line's own handler
        "lionagi.service.cli._chat",  # arguments parsed, iModel being imported
        "anyio._backends._asyncio",  # run_chat, its event loop starting
    ],
)
def test_sigterm_while_chat_starts_is_terminated_143_with_the_json_record(target: str) -> None:
    code, out, err = _terminate_at(target, [*STALL, "--json"])

    assert code == 143, err
    assert err == "terminated\n"  # one line, no traceback
    assert [json.loads(line) for line in out.splitlines()] == [RECORD]


def test_sigterm_while_chat_starts_in_text_mode_writes_only_the_line() -> None:
    code, out, err = _terminate_at("lionagi.service.cli._chat", STALL)

    assert (code, out, err) == (143, "", "terminated\n")


@pytest.mark.parametrize(
    ("target", "argv"),
    [
        ("lionagi.service.cli._providers", ["providers", "--json"]),
        ("lionagi.service.cli._models", ["models", "scripted"]),
        ("lionagi.service.cli._doctor", ["doctor"]),
        ("lionagi.service.cli._render", ["demo", "--json"]),
    ],
)
def test_sigterm_ends_every_command_as_documented(target: str, argv: list[str]) -> None:
    code, out, err = _terminate_at(target, argv)

    assert (code, err) == (143, "terminated\n")
    # Like Ctrl-C's `interrupted` record, the record is demo's and chat's only.
    assert out == (json.dumps(RECORD) + "\n" if argv[0] == "demo" else "")


def test_sigterm_any_time_after_the_first_line_is_terminated_143() -> None:
    # Released at the wrapper's first import and signalled at once: the signal lands wherever
    # the child has got to (an import, parsing, the loop starting, the stream). The stream
    # never ends by itself, so every landing point must give the documented outcome.
    with _paused("lionagi.service", [*STALL, "--json"]) as (proc, go_on):
        go_on()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=HANG_GUARD)

    assert proc.returncode == 143, err
    assert err == "terminated\n"
    assert json.loads(out.splitlines()[-1]) == RECORD


def test_sigterm_while_the_prompt_is_read_from_stdin_is_terminated_143() -> None:
    # stdin stays open and empty, so the child blocks reading it unless the signal lands first.
    read_end, write_end = os.pipe()
    try:
        code, out, err = _terminate_at(
            "lionagi.service.cli._render", ["chat", "scripted/demo", "-", "--json"], stdin=read_end
        )
    finally:
        os.close(read_end)
        os.close(write_end)

    assert (code, err) == (143, "terminated\n")
    assert [json.loads(line) for line in out.splitlines()] == [RECORD]


def test_sigterm_under_python_dash_m_is_terminated_143() -> None:
    code, out, err = _terminate_at("lionagi.service.cli._chat", [*STALL, "--json"], entry="module")

    assert (code, err) == (143, "terminated\n")
    assert [json.loads(line) for line in out.splitlines()] == [RECORD]


def test_an_ignored_sigterm_stays_ignored_from_the_first_line() -> None:
    # nohup-style: the parent ignored SIGTERM, so the command must not start handling it.
    with _paused("lionagi.service", ["demo", "--pace", "0"], preexec=_ignore_sigterm) as (
        proc,
        go_on,
    ):
        proc.send_signal(signal.SIGTERM)
        go_on()
        out, err = proc.communicate(timeout=HANG_GUARD)

    assert proc.returncode == 0, err
    assert "This answer comes from the scripted provider" in out
    assert "terminated" not in err  # stderr holds no outcome line: the run completed


def test_sigterm_delivered_to_another_thread_wakes_the_sleeping_run() -> None:
    # The handler runs in the main thread only once it runs Python again; while the event loop
    # sleeps in select() with nothing due (the stalled stream), only the wakeup descriptor the
    # interpreter writes from the receiving thread can wake it.
    with _paused("anyio._backends._asyncio", [*STALL, "--json"], other_thread=True) as (
        proc,
        go_on,
    ):
        go_on()
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the stream has started and now waits
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=HANG_GUARD)

    assert json.loads(first)["content"] == "Stalling"
    assert proc.returncode == 143, err
    assert err == "terminated\n"
    assert [json.loads(line) for line in out.splitlines()] == [RECORD]


class _SignalledWhileClosing:
    """A renderer that receives SIGTERM while it writes the run's outcome."""

    def __init__(self) -> None:
        from lionagi.service.cli._render import JsonRenderer

        self.inner = JsonRenderer()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def close(self) -> None:
        signal.raise_signal(signal.SIGTERM)
        self.inner.close()

    def error(self, exc: BaseException) -> None:
        signal.raise_signal(signal.SIGTERM)
        self.inner.error(exc)


@pytest.mark.parametrize(
    ("model", "code", "last"),
    [
        # A complete answer has no final record yet: the signal is the outcome.
        ("scripted/demo", 143, RECORD),
        # An error's record is already the final one: it stands, and stays the only one.
        ("nope/model", 2, {"type": "exception", "error": "EndpointNotFound"}),
    ],
)
def test_sigterm_while_the_outcome_is_written_leaves_one_final_record(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    model: str,
    code: int,
    last: dict[str, Any],
) -> None:
    import lionagi.service.cli._chat as chat_module

    monkeypatch.setattr(chat_module, "renderer_for", lambda **_: _SignalledWhileClosing())
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # else this process would die

    assert chat_module.run_chat(model, "hi", timeout=None, as_json=True, pace=0) == code

    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert records[-1].items() >= last.items()
    assert [r["type"] for r in records].count("interrupted") + [r["type"] for r in records].count(
        "exception"
    ) == 1
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # given back
