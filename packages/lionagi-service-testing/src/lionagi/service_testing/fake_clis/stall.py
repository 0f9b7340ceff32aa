"""Fake CLI: print some events, then hang until killed (only the caller's deadline ends it).

``--ignore-term`` ignores SIGTERM, so teardown has to escalate to SIGKILL after its grace.
``--retry-notices N`` then prints N retry notices on stdout while stalled, ``--retry-every``
seconds apart (codex without network: ``Reconnecting... n/5`` error events, then waits forever).
``--read-stdin`` first reads stdin to EOF, as codex does when stdin is a pipe: with an
inherited terminal it would block there, with ``/dev/null`` it goes on at once.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1)
    parser.add_argument("--ignore-term", action="store_true")
    parser.add_argument("--partial", action="store_true", help="end with half an object")
    parser.add_argument("--retry-notices", type=int, default=0)
    parser.add_argument("--retry-every", type=float, default=0.05)
    parser.add_argument("--read-stdin", action="store_true")
    args = parser.parse_args()

    if args.ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.read_stdin:
        got = sys.stdin.buffer.read()
        sys.stdout.write(json.dumps({"type": "stdin", "bytes": len(got)}) + "\n")
    for seq in range(args.events):
        sys.stdout.write(json.dumps({"type": "event", "seq": seq}) + "\n")
    if args.partial:
        sys.stdout.write('{"type": "event", "te')
    sys.stdout.flush()
    for attempt in range(1, args.retry_notices + 1):
        time.sleep(args.retry_every)
        notice = {"type": "error", "message": f"Reconnecting... {attempt}/{args.retry_notices}"}
        sys.stdout.write(json.dumps(notice) + "\n")
        sys.stdout.flush()
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    sys.exit(main())
