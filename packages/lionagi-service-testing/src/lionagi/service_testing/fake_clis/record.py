"""Fake CLI: record exactly what this process received, then behave like ``replay``.

Usage: ``record.py [--record FILE] PLAN [adapter arguments ...]``. The record file is ``FILE``,
else the path in the ``LIONAGI_FAKE_CLI_RECORD`` environment variable (an adapter that filters
its child's environment drops that variable, which is why the argument exists). One JSON line
is appended per launch, so a two-turn conversation leaves two records::

    argv          this process's argv, from the script path on
    args          what the adapter appended after PLAN (its flags and, perhaps, the prompt)
    stdin         what stdin held (UTF-8, undecodable bytes replaced); ``stdin_bytes`` its size
    stdin_eof     whether stdin reached end of file (False: nothing more for a few seconds, or
                  a terminal, which is never read)
    stdin_kind    "devnull", "pipe", "tty", "file", "socket", "chardev", "other" or "closed"
    stdin_id      [device, inode] of stdin, to compare with a descriptor the test controls
    env           the environment as passed to exec (``/proc/self/environ`` when readable)
    cwd, pid, ppid, pgid, sid
    executable    ``sys.executable``: the interpreter path as launched (a ``binary`` setting
                  pointing at a link to Python shows up here unresolved)

Then it replaces itself (same pid) with ``replay.py PLAN [adapter arguments ...]``, so the run
produces the adapter's own events and the replay log exactly as a plain replay would. Recording
first and replaying second lets the conformance kit check what the adapter *sent* (argv, stdin,
environment, directory) on the same run whose output it checks.
"""

from __future__ import annotations

import json
import os
import select
import stat
import sys
from pathlib import Path
from typing import Any

ENV_VAR = "LIONAGI_FAKE_CLI_RECORD"
_STDIN_IDLE = 3.0  # seconds without data before giving up on a stdin that never ends


def _initial_env() -> dict[str, str]:
    try:
        with open("/proc/self/environ", "rb") as handle:
            raw = handle.read()
    except OSError:
        return dict(os.environ)
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {k.decode(errors="replace"): v.decode(errors="replace") for k, v in pairs}


def _stdin_kind(info: os.stat_result) -> str:
    mode = info.st_mode
    if stat.S_ISFIFO(mode):
        return "pipe"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode):
        if os.isatty(0):
            return "tty"
        return "devnull" if info.st_rdev == os.stat(os.devnull).st_rdev else "chardev"
    return "other"


def _read_stdin() -> tuple[bytes, bool]:
    """Everything on stdin up to EOF, or up to a pause of ``_STDIN_IDLE`` seconds."""
    data = b""
    while True:
        ready, _, _ = select.select([0], [], [], _STDIN_IDLE)
        if not ready:
            return data, False
        piece = os.read(0, 65536)
        if not piece:
            return data, True
        data += piece


def _stdin_facts() -> dict[str, Any]:
    try:
        info = os.fstat(0)
    except OSError:
        return {"stdin": "", "stdin_bytes": 0, "stdin_eof": True, "stdin_kind": "closed"}
    kind = _stdin_kind(info)
    data, eof = (b"", False) if kind == "tty" else _read_stdin()
    return {
        "stdin": data.decode("utf-8", "replace"),
        "stdin_bytes": len(data),
        "stdin_eof": eof,
        "stdin_kind": kind,
        "stdin_id": [info.st_dev, info.st_ino],
    }


def main() -> int:
    args = sys.argv[1:]
    if args[:1] in (["-h"], ["--help"]):
        sys.stdout.write(__doc__ or "")
        return 0
    target = os.environ.get(ENV_VAR, "")
    if args[:1] == ["--record"]:
        target, args = args[1], args[2:]
    if not args:
        sys.stderr.write("usage: record.py [--record FILE] PLAN [adapter arguments ...]\n")
        return 2
    plan, rest = args[0], args[1:]
    record: dict[str, Any] = {
        "argv": sys.argv,
        "args": rest,
        **_stdin_facts(),
        "env": _initial_env(),
        "cwd": os.getcwd(),
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "pgid": os.getpgid(0),
        "sid": os.getsid(0),
        "executable": sys.executable,
    }
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
    replay = str(Path(__file__).resolve().with_name("replay.py"))
    os.execv(sys.executable, [sys.executable, "-I", "-S", replay, plan, *rest])


if __name__ == "__main__":
    sys.exit(main())
