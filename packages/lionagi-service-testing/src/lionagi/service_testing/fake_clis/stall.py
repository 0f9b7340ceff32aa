"""Fake CLI: print some events, then hang until killed (only the caller's deadline ends it).

``--ignore-term`` ignores SIGTERM, so teardown has to escalate to SIGKILL after its grace.
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
    args = parser.parse_args()

    if args.ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for seq in range(args.events):
        sys.stdout.write(json.dumps({"type": "event", "seq": seq}) + "\n")
    if args.partial:
        sys.stdout.write('{"type": "event", "te')
    sys.stdout.flush()
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    sys.exit(main())
