"""Fake CLI: replay a JSON plan written by the conformance kit, whatever argv follows the plan.

Usage: ``replay.py PLAN [adapter arguments ...]``. Everything after ``PLAN`` is ignored, so an
adapter under test can append its own command grammar (flags, prompt) to the argv prefix it is
given. The plan is a JSON object; every key is optional::

    events        list of JSON values written to stdout (in the adapter's own event grammar)
    framing       "ndjson" | "split" (each line in pieces, cut inside UTF-8 characters too)
                  | "concat" (all values back to back, no separator, written in pieces)
    pause         seconds between pieces (split/concat)
    event_pause   seconds after each ndjson line (each line is its own write either way): a
                  paced run that a reader keeping up sees one event per pipe read
    raw           text written to stdout after the events (malformed tails, scalars)
    line_bytes    one stdout line of that many bytes after the events (``x`` filler, written
                  in 1 MiB pieces, no newline until the end): the reader's line limit
    stderr_bytes  filler bytes of stderr, interleaved with the stdout events
    stderr        final stderr text, after the filler
    exit_code     exit status when the plan does not stall
    stall         after the events, sleep until killed
    ignore_term   record SIGTERM in the log and keep running (forces SIGKILL escalation)
    children      sleeping grandchildren started in this process group before any output
    setsid        the grandchildren are tool shells instead: each calls ``setsid()`` (leaving
                  this group and session), ignores SIGTERM with ``ignore_term``, and starts a
                  sleeping child of its own; both pids are logged
    tag           extra argv element of every grandchild (find them in /proc by it)
    log           file to which one JSON line per fact is appended: the launch (pid, ppid,
                  pgid, argv, cwd, environment names, stdin mode), the grandchildren's pids,
                  each SIGTERM received
    log_env       names whose values the launch record also reports (``env``)
    read_stdin    read stdin to EOF before any output and report it (``stdin``)

The log is how the kit proves what happened without trusting the adapter: whether a process
started at all, that its parent is the test process (no shell in between), where it ran, and
that escalation was needed.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

_SLEEPER = "import signal, time\n{ignore}time.sleep(3600)\n"
# A tool shell in its own session: report its sleeping child's pid on stdout, then sleep.
_SHELL = (
    "import os, signal, subprocess, sys, time\n"
    "os.setsid()\n"
    "{ignore}"
    "child = subprocess.Popen([sys.executable, '-I', '-S', '-c', {sleeper!r}, *sys.argv[1:]],"
    " stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "sys.stdout.write(f'{{child.pid}}\\n'); sys.stdout.flush(); sys.stdout.close()\n"
    "time.sleep(3600)\n"
)


def _grandchildren(count: int, *, ignore: str, setsid: bool, tag: str) -> list[int]:
    code = _SLEEPER.format(ignore=ignore)
    extra = [tag] if tag else []
    pids: list[int] = []
    for _ in range(count):
        if not setsid:
            pids.append(
                subprocess.Popen(
                    [sys.executable, "-I", "-S", "-c", code, *extra],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                ).pid
            )
            continue
        shell = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _SHELL.format(ignore=ignore, sleeper=code), *extra],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert shell.stdout is not None
        pids += [shell.pid, int(shell.stdout.readline())]
        shell.stdout.close()
    return pids


def _log(path: str, record: dict[str, Any]) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")


def _write(data: bytes, pause: float) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    if pause:
        time.sleep(pause)


def _pieces(data: bytes) -> list[bytes]:
    """Cut ``data`` in thirds, plus inside its first multi-byte UTF-8 character if it has one."""
    cuts = {len(data) // 3, 2 * len(data) // 3}
    for index, byte in enumerate(data):
        if byte >= 0xC0:  # the lead byte of a multi-byte character: cut right after it
            cuts.add(index + 1)
            break
    edges = [0, *sorted(c for c in cuts if 0 < c < len(data)), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges) if b > a]


def _stderr_filler(size: int) -> None:
    line = b"W" * 1023 + b"\n"
    while size > 0:
        part = line[:size] if size < len(line) else line
        sys.stderr.buffer.write(part)
        size -= len(part)
    sys.stderr.buffer.flush()


def _long_line(size: int) -> None:
    if size <= 0:  # no ``line_bytes``: the CLI's own events only, no stray empty line
        return
    piece = b"x" * (1 << 20)
    while size > 0:
        part = piece[:size] if size < len(piece) else piece
        try:
            _write(part, 0)
        except BrokenPipeError:  # the reader refused the line and closed its end
            return
        size -= len(part)
    _write(b"\n", 0)


def main() -> int:
    if sys.argv[1:2] in (["-h"], ["--help"]):  # every script of the package answers --help
        sys.stdout.write(__doc__ or "")
        return 0
    if not sys.argv[1:]:
        sys.stderr.write("usage: replay.py PLAN [adapter arguments ...]\n")
        return 2
    with open(sys.argv[1], encoding="utf-8") as handle:
        plan: dict[str, Any] = json.load(handle)
    log = str(plan.get("log", ""))
    launch: dict[str, Any] = {
        "launched": os.getpid(),
        "ppid": os.getppid(),
        "pgid": os.getpgid(0),
        "argv": sys.argv,
        "cwd": os.getcwd(),
        "env_keys": sorted(os.environ),
        "env": {name: os.environ.get(name) for name in plan.get("log_env", [])},
        "stdin_isatty": sys.stdin.isatty() if sys.stdin else None,
    }
    if plan.get("read_stdin"):
        launch["stdin"] = sys.stdin.buffer.read().decode("utf-8", "replace")
    _log(log, launch)
    ignore_term = bool(plan.get("ignore_term"))
    if ignore_term:

        def on_term(signum: int, frame: object) -> None:
            _log(log, {"signal": "TERM", "pid": os.getpid()})

        signal.signal(signal.SIGTERM, on_term)

    children = int(plan.get("children", 0))
    if children:
        ignore = "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" if ignore_term else ""
        pids = _grandchildren(
            children, ignore=ignore, setsid=bool(plan.get("setsid")), tag=str(plan.get("tag", ""))
        )
        _log(log, {"children": pids})

    events = [json.dumps(e, ensure_ascii=False).encode() for e in plan.get("events", [])]
    framing = plan.get("framing", "ndjson")
    pause = float(plan.get("pause", 0.01))
    event_pause = float(plan.get("event_pause", 0))
    filler = int(plan.get("stderr_bytes", 0))
    share = filler // max(1, len(events))
    if framing == "concat":
        if filler:
            _stderr_filler(filler)
        data = b"".join(events)
        step = max(1, len(data) // 3)
        for start in range(0, len(data), step):
            _write(data[start : start + step], pause)
        if data:
            _write(b"\n", 0)
    else:
        for line in events:
            if share:
                _stderr_filler(share)
            if framing == "split":
                for piece in _pieces(line + b"\n"):
                    _write(piece, pause)
            else:
                _write(line + b"\n", event_pause)
        if filler and not events:
            _stderr_filler(filler)
    _long_line(int(plan.get("line_bytes", 0)))
    raw = str(plan.get("raw", ""))
    if raw:
        _write(raw.encode(), 0)
    stderr = str(plan.get("stderr", ""))
    if stderr:
        sys.stderr.buffer.write(stderr.encode() + b"\n")
        sys.stderr.buffer.flush()
    if plan.get("stall"):
        while True:
            time.sleep(3600)  # a recorded-and-ignored SIGTERM interrupts the sleep: sleep again
    return int(plan.get("exit_code", 0))


if __name__ == "__main__":
    sys.exit(main())
