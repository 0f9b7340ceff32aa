"""``main(argv)`` called from Python, the moment SIGTERM's handler is installed, and stdin's bound.

The command line installs a SIGTERM handler and a wakeup descriptor while it runs. Called as a
library function (``main(argv)``), it must give back what it found, and run from a thread
(where ``signal.signal`` raises) it must run without them. A SIGTERM that lands just as the
handler is installed escaped ``main`` (and the console script's wrapper) as a bare
``Terminated`` traceback. A prompt read from stdin had no bound: a producer that never ends
was read into memory until the process was killed.

No sleeps: every signal here is raised synchronously (``signal.raise_signal`` runs the handler
before it returns), and each test first checks SIGTERM is at its default, so that handler is
the command line's own and never this process's default action.
"""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest

import lionagi.service.cli as cli

from ._support import HANG_GUARD, cli_env, command

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGTERM is a POSIX signal")

DEMO = ["demo", "--json", "--pace", "0", "hi"]
RECORD = {"type": "interrupted", "exit_code": 143}


def _records(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def _then_sigterm(install: Callable[[], Any]) -> Callable[[], Any]:
    """``install``, then a SIGTERM delivered the moment it returns (before its result is bound)."""

    def arm_and_signal() -> Any:
        installed = install()
        assert installed is not None, "SIGTERM was not the command line's to take"
        signal.raise_signal(signal.SIGTERM)  # its handler raises `Terminated` from here
        return installed

    return arm_and_signal


def test_main_called_from_python_gives_back_sigterm_and_the_wakeup_fd(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    host_reader, host_writer = socket.socketpair()
    with host_reader, host_writer:
        host_writer.setblocking(False)
        previous = signal.set_wakeup_fd(host_writer.fileno())
        try:
            assert cli.main(DEMO) == 0
            assert cli.main(["providers", "--json"]) == 0
            assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
            assert signal.set_wakeup_fd(previous) == host_writer.fileno()  # the host's, back
        finally:
            signal.set_wakeup_fd(previous)
    capsys.readouterr()


def test_main_keeps_a_handler_the_calling_program_installed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def host_handler(signum: int, frame: object) -> None:
        raise AssertionError("not raised in this test")

    previous = signal.signal(signal.SIGTERM, host_handler)
    try:
        assert cli.main(DEMO) == 0
        assert signal.getsignal(signal.SIGTERM) is host_handler
    finally:
        signal.signal(signal.SIGTERM, previous)
    capsys.readouterr()


def test_main_runs_from_a_thread_where_no_handler_can_be_installed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    outcome: list[object] = []

    def call() -> None:
        try:
            outcome.append(cli.main(DEMO))
        except BaseException as exc:  # reported below rather than lost in the thread
            outcome.append(exc)

    worker = threading.Thread(target=call)
    worker.start()
    worker.join(HANG_GUARD)

    assert outcome == [0]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert _records(capsys.readouterr().out)[-1]["type"] == "result"


def test_sigterm_as_main_installs_its_handler_is_terminated_143(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # else this process would die
    monkeypatch.setattr(cli, "raise_on_sigterm", _then_sigterm(cli.raise_on_sigterm))

    try:
        code = cli.main(DEMO)
    except KeyboardInterrupt as exc:  # not pytest's own Ctrl-C: fail this test only
        pytest.fail(f"main() let {type(exc).__name__} escape")

    captured = capsys.readouterr()
    assert (code, captured.err) == (143, "terminated\n")
    assert _records(captured.out) == [RECORD]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_sigterm_as_the_console_script_installs_its_handler_is_terminated_143(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import _lionagi_service_cli as wrapper

    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # else this process would die
    monkeypatch.setattr(wrapper, "_raise_on_sigterm", _then_sigterm(wrapper._raise_on_sigterm))
    monkeypatch.setattr(sys, "argv", ["lionagi-service", *DEMO])

    try:
        code = wrapper.main()
    except KeyboardInterrupt as exc:  # not pytest's own Ctrl-C: fail this test only
        pytest.fail(f"the console script let {type(exc).__name__} escape")

    captured = capsys.readouterr()
    assert (code, captured.err) == (143, "terminated\n")
    assert _records(captured.out) == [RECORD]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def _stdin_of(data: bytes) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")


@pytest.mark.parametrize("stream", ["bytes", "text"])
def test_stdin_over_the_bound_is_bad_usage_naming_prompt(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stream: str
) -> None:
    monkeypatch.setattr(cli, "STDIN_LIMIT", 1000)
    over = b"a" * 1001
    # A text stream without `.buffer` is what an embedding program may put in sys.stdin.
    fake = _stdin_of(over) if stream == "bytes" else io.StringIO(over.decode())
    monkeypatch.setattr(sys, "stdin", fake)

    with pytest.raises(SystemExit) as exited:
        cli.main(["chat", "scripted/demo", "-", "--json"])

    captured = capsys.readouterr()
    assert exited.value.code == 2
    [record] = _records(captured.out)
    assert record["type"] == "exception" and record["error"] == "UsageError"
    assert "argument prompt: stdin holds more than" in record["message"]
    assert captured.err.count("\n") == 1


def test_stdin_at_the_bound_is_the_prompt(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "STDIN_LIMIT", 1000)
    monkeypatch.setattr(sys, "stdin", _stdin_of(b"a" * 1000))

    assert cli.main(["demo", "-", "--json", "--pace", "0"]) == 0
    assert _records(capsys.readouterr().out)[-1]["type"] == "result"


def test_the_console_script_refuses_stdin_past_64_mib_without_reading_the_rest() -> None:
    # More than the bound, written by a producer the command stops reading: as with `yes |`,
    # the command must end on its own with the usage error rather than read until killed.
    result = subprocess.run(
        [*command(), "chat", "scripted/demo", "--json"],
        input=b"a" * (cli.STDIN_LIMIT + 1024 * 1024),
        capture_output=True,
        timeout=HANG_GUARD,
        env=cli_env(),
        check=False,
    )

    assert result.returncode == 2, result.stderr
    [record] = _records(result.stdout.decode())
    assert record["error"] == "UsageError"
    assert "stdin holds more than 64 MiB" in record["message"]


class _ReadThatIsSignalled(io.RawIOBase):
    """stdin whose read is where SIGTERM lands (as a blocked read is woken by it: EINTR)."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        signal.raise_signal(signal.SIGTERM)
        return 0


def test_sigterm_during_the_stdin_read_itself_is_terminated_143(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The subprocess test of this (test_sigterm_from_start) can only pause the child at an
    # import, so its signal lands before the read; here it lands inside the read.
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # else this process would die
    stdin = io.TextIOWrapper(io.BufferedReader(_ReadThatIsSignalled()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)

    code = cli.main(["chat", "scripted/demo", "-", "--json"])

    captured = capsys.readouterr()
    assert (code, captured.err) == (143, "terminated\n")
    assert _records(captured.out) == [RECORD]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_the_stdin_bound_is_the_one_docs_cli_md_states() -> None:
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
    assert f"at most {cli.STDIN_LIMIT // (1024 * 1024)} MiB" in page.read_text(encoding="utf-8")
