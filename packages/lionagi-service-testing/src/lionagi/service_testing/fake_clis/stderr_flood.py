"""Fake CLI: write far more stderr than a pipe holds while streaming stdout events.

A parent that does not drain stderr concurrently deadlocks here: the child blocks on a full
stderr pipe and never finishes stdout. The last stderr line (``--final``) comes after the flood.
"""

from __future__ import annotations

import argparse
import json
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bytes", type=int, default=1024 * 1024, dest="size")
    parser.add_argument("--events", type=int, default=16)
    parser.add_argument("--final", default="", help="last stderr line, after the flood")
    parser.add_argument("--code", type=int, default=0)
    args = parser.parse_args()

    line = b"W" * 1023 + b"\n"
    lines = max(1, args.size // len(line))
    every = max(1, lines // max(1, args.events))
    seq = 0
    for index in range(lines):
        sys.stderr.buffer.write(line)
        if index % every == 0 and seq < args.events:
            sys.stderr.buffer.flush()
            sys.stdout.write(json.dumps({"type": "event", "seq": seq}) + "\n")
            sys.stdout.flush()
            seq += 1
    while seq < args.events:
        sys.stdout.write(json.dumps({"type": "event", "seq": seq}) + "\n")
        seq += 1
    sys.stdout.flush()
    if args.final:
        sys.stderr.buffer.write(args.final.encode() + b"\n")
    sys.stderr.buffer.flush()
    return int(args.code)


if __name__ == "__main__":
    sys.exit(main())
