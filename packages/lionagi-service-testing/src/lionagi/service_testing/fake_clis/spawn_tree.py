"""Fake CLI: start sleeping grandchildren in this process group, report their pids, then go on.

The pids are written to ``--pidfile`` (one per line) and printed on stderr before the
``spawned`` event, so a test knows them as soon as it sees the event. ``--then`` picks what
follows: ``exit`` (leave orphans behind), ``stall`` (hang) or ``fail`` (exit 1).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

_SLEEPER = "import signal, sys, time\n{ignore}time.sleep(3600)\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--children", type=int, default=2)
    parser.add_argument("--pidfile", default="")
    parser.add_argument("--then", choices=("exit", "stall", "fail"), default="stall")
    parser.add_argument("--ignore-term", action="store_true", help="grandchildren ignore SIGTERM")
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
        child = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", code],
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
