"""Fake CLI: start sleeping grandchildren in this process group, report their pids, then go on.

The pids are written to ``--pidfile`` (one per line) and printed on stderr before the
``spawned`` event, so a test knows them as soon as it sees the event. ``--then`` picks what
follows: ``exit`` (leave orphans behind), ``stall`` (hang) or ``fail`` (exit 1).

``--setsid`` makes each grandchild behave like a real CLI's tool shell: it calls ``setsid()``
(leaving this process group and session), optionally ignores SIGTERM, and starts a sleeping
child of its own (``bash -> bash -> sleep``). Both pids are reported.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

_SLEEPER = "import signal, sys, time\n{ignore}time.sleep(3600)\n"
# A tool shell in its own session: report the sleeping child's pid on stdout, then sleep.
_SHELL = (
    "import os, signal, subprocess, sys, time\n"
    "os.setsid()\n"
    "{ignore}"
    "child = subprocess.Popen([sys.executable, '-I', '-S', '-c', {sleeper!r}, *sys.argv[1:]],"
    " stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "sys.stdout.write(f'{{child.pid}}\\n'); sys.stdout.flush(); sys.stdout.close()\n"
    "time.sleep(3600)\n"
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--children", type=int, default=2)
    parser.add_argument("--pidfile", default="")
    parser.add_argument("--then", choices=("exit", "stall", "fail"), default="stall")
    parser.add_argument("--ignore-term", action="store_true", help="grandchildren ignore SIGTERM")
    parser.add_argument(
        "--tag", default="", help="extra argument of every descendant (find them in /proc)"
    )
    parser.add_argument(
        "--setsid", action="store_true", help="grandchildren start a new session, like tool shells"
    )
    parser.add_argument(
        "--hold",
        choices=("none", "stdout", "stderr", "both"),
        default="none",
        help="pipes the grandchildren inherit (and so keep open after this process exits)",
    )
    args = parser.parse_args()

    ignore = "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" if args.ignore_term else ""
    code = _SLEEPER.format(ignore=ignore)
    out = None if args.hold in ("stdout", "both") else subprocess.DEVNULL
    err = None if args.hold in ("stderr", "both") else subprocess.DEVNULL
    pids = []
    for _ in range(args.children):
        if args.setsid:
            shell = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _SHELL.format(ignore=ignore, sleeper=code)]
                + ([args.tag] if args.tag else []),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err,
            )
            assert shell.stdout is not None
            pids += [shell.pid, int(shell.stdout.readline())]
            shell.stdout.close()
            continue
        child = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", code, *([args.tag] if args.tag else [])],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
        )
        pids.append(child.pid)
    if args.pidfile:
        with open(args.pidfile, "w") as handle:
            handle.write("".join(f"{pid}\n" for pid in pids))
    sys.stderr.write(f"grandchildren: {' '.join(map(str, pids))}\n")
    sys.stderr.flush()
    sys.stdout.write(json.dumps({"type": "spawned", "pids": pids}) + "\n")
    sys.stdout.flush()
    if args.then == "exit":
        return 0
    if args.then == "fail":
        return 1
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    sys.exit(main())
