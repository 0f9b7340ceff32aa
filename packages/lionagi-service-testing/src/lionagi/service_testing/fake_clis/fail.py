"""Fake CLI: print some events, then an error message on stderr, then exit non-zero.

Examples: ``--stderr "Error: invalid api key"`` (auth), ``--stderr "usage limit reached"``
(quota), ``--stderr "context window exceeded"`` (context), anything else (process error).
"""

from __future__ import annotations

import argparse
import json
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1)
    parser.add_argument("--stderr", default="Error: something went wrong")
    parser.add_argument("--code", type=int, default=1)
    args = parser.parse_args()

    for seq in range(args.events):
        sys.stdout.write(json.dumps({"type": "event", "seq": seq}) + "\n")
    sys.stdout.flush()
    sys.stderr.write(args.stderr + "\n")
    sys.stderr.flush()
    return int(args.code)


if __name__ == "__main__":
    sys.exit(main())
